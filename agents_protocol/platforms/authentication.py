"""Who is calling: the platform whose API key `Authorization: Bearer <key>` carries.

A DRF authentication class (as AUTHENTICATION_CLASSES' are): `request.user` is a PlatformUser,
`request.auth` the agent session of the checkout the call names (None for a call that names
none), which the view puts where the class reads it (`view.checkout`). A missing, unknown or
revoked key, an expired or inactive platform, and a signing platform's bad signature are a 401
`CapabilityError` (the transport writes it in its own shape).
"""
from rest_framework.authentication import BaseAuthentication

from agents_protocol.core.errors import CapabilityError
from agents_protocol.platforms import keys, signatures

REALM_HEADER = 'Bearer realm="platforms"'


class PlatformUser:
    """request.user for a call of a platform (not a Django user)."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False

    def __init__(self, platform):
        self.platform = platform

    def __str__(self):
        return f"platform {self.platform.name}"


def unauthorized(code, message):
    return CapabilityError(401, code, message, headers={"WWW-Authenticate": REALM_HEADER})


class PlatformKeyAuthentication(BaseAuthentication):
    def authenticate(self, request):
        scheme, _, raw_key = request.META.get("HTTP_AUTHORIZATION", "").strip().partition(" ")
        if scheme.lower() != "bearer" or not raw_key.strip():
            raise unauthorized("api_key_required", "Send the platform's API key as Authorization: Bearer <key>.")
        key = keys.live_key(raw_key.strip())
        if key is None:
            raise unauthorized("invalid_api_key", "This API key is unknown, revoked or expired.")
        platform, view = key.platform, request.parser_context["view"]
        if platform.signing_key:
            try:
                signatures.verify(platform.signing_key, request.META.get("HTTP_SIGNATURE", ""),
                                  request.META.get("HTTP_TIMESTAMP", ""), view.django_request.body)
            except signatures.SignatureRefused as refused:
                raise unauthorized("invalid_signature", str(refused)) from None
        checkout = getattr(view, "checkout", None)
        return PlatformUser(platform), checkout.agent_session if checkout is not None else None

    def authenticate_header(self, request):
        return REALM_HEADER
