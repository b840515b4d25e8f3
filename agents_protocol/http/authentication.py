"""Who is calling: the agent session whose token one of the three accepted headers carries.

A transport whose token travels in a header of its own (MCP's Mcp-Session-Id) names it on its
view (`token_header`); every transport authenticates through AUTHENTICATION_CLASSES.

A DRF authentication class, so a shop can also put it on its own DRF APIs
(`authentication_classes = [AgentSessionAuthentication]`): `request.auth` is then the live
AgentSession and `request.user` an AgentUser.
"""
from rest_framework.authentication import BaseAuthentication

from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.http.client import token_from_headers
from agents_protocol.http.sessions import authenticate, malformed_authorization

REALM_HEADER = 'Bearer realm="agents"'
REFUSAL_ATTRIBUTE = "agents_session_refusal"


class AgentUser:
    """request.user for a call made in an agent session (not a Django user)."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False

    def __init__(self, session):
        self.session = session

    def __str__(self):
        return f"agent session {self.session.public_id}"


class AgentSessionAuthentication(BaseAuthentication):
    """`Authorization: Bearer <t>` (preferred), `X-Session-Token` or `X-Agent-Session`.

    No token authenticates nobody. A token that is not a live session authenticates nobody
    either, so a capability that works without a session still answers (counted against the
    client address); why the token was refused is kept on the request (`refusal_of`), so one
    that requires a session answers the exact 401: session_invalid, session_expired or session_ended.
    """

    def authenticate(self, request):
        meta = request.META  # read once: each read through DRF's Request is a failed lookup first
        own_header = token_header_of(request)
        token = meta.get(own_header, "").strip() if own_header else token_from_headers(meta)
        if not token:
            if own_header is None and meta.get("HTTP_AUTHORIZATION", "").strip():
                # there, but not `Bearer <token>`
                setattr(request, REFUSAL_ATTRIBUTE, malformed_authorization(current_config().session.create_endpoint))
            return None
        try:
            session = authenticate(token, current_config().session.create_endpoint)
        except CapabilityError as refusal:
            setattr(request, REFUSAL_ATTRIBUTE, refusal)
            return None
        return AgentUser(session), session

    def authenticate_header(self, request):
        return REALM_HEADER


def token_header_of(request):
    """The header a transport carries its session token in instead of the three (MCP's
    Mcp-Session-Id: an Authorization header is then not the transport's, a gateway's own token
    say), as its view names it (AgentView.token_header); None for the three."""
    context = getattr(request, "parser_context", None) or {}
    return getattr(context.get("view"), "token_header", None)


def refusal_of(request):
    """Why the request's token authenticated no session (a 401 CapabilityError), or None."""
    return getattr(request, REFUSAL_ATTRIBUTE, None)
