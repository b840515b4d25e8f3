"""Whether a call may go on once its caller is known."""
from rest_framework.permissions import BasePermission

from agents_protocol.core.errors import CapabilityError
from agents_protocol.http.authentication import REALM_HEADER, refusal_of


class SessionWhenRequired(BasePermission):
    """A call whose view says `requires_session` needs a live session; otherwise anyone may call.

    Refuses with the 401 that tells the agent what to do: the reason its token was refused,
    else session_required.
    """

    def has_permission(self, request, view):
        if request.auth is not None or not getattr(view, "requires_session", False):
            return True
        refusal = refusal_of(request)
        if refusal is not None:
            raise refusal
        create = view.config.session.create_endpoint
        raise CapabilityError(
            401, "session_required",
            f"This capability needs a session. Create a new session with POST {create} and send its "
            "token as Authorization: Bearer <token>.",
            headers={"WWW-Authenticate": REALM_HEADER},
        )
