"""A strict Content-Security-Policy on every answer of the site.

Pages load scripts, styles and images from this origin only, with no inline script or
style (templates keep them in static/), may not be framed (`frame-ancestors 'none'`, with
Django's `X-Frame-Options: DENY`), and forms post only here. Django's SecurityMiddleware
adds `X-Content-Type-Options: nosniff` and the `Referrer-Policy` of settings.py.
Django 5.2 has no CSP setting of its own; a view that needs another policy sets the header
itself and this middleware leaves it alone.
"""
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response
