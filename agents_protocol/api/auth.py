"""Who is calling: the session token from any of the three accepted headers, and the client address."""

TOKEN_HEADERS = ("HTTP_X_SESSION_TOKEN", "HTTP_X_AGENT_SESSION")


def token_from_headers(request):
    """`Authorization: Bearer <t>` (preferred), else `X-Session-Token`, else `X-Agent-Session`."""
    scheme, _, credentials = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    for header in TOKEN_HEADERS:
        value = request.META.get(header, "").strip()
        if value:
            return value
    return None


def client_address(request):
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"
