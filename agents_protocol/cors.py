"""CORS for what agents read: any origin may read it, no credentials are involved."""


def allow_any_origin(response):
    response["Access-Control-Allow-Origin"] = "*"
    return response
