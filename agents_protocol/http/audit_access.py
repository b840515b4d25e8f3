"""Who may fetch an artifact: only the holder of that session's token, once it is sealed."""
import hmac
import math

from django.utils import timezone

from agents_protocol.audit.chain import sealed_artifact
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.models import AgentSession
from agents_protocol.http.sessions import end_session, hash_token


def artifact_for(session_id, raw_token):
    """The sealed artifact of `session_id` for the bearer of its token (404 for anyone else)."""
    if not raw_token:
        raise CapabilityError(401, "session_required", "Send the session's token to fetch its audit trail.",
                              headers={"WWW-Authenticate": 'Bearer realm="agents"'})
    if "\x00" in session_id:  # no session's id; PostgreSQL refuses text holding NUL
        raise _unknown()
    session = AgentSession.objects.filter(public_id=session_id).first()
    if session is None or not hmac.compare_digest(session.token_hash, hash_token(raw_token)):
        raise _unknown()
    now = timezone.now()
    if session.ended_at is None and session.expires_at <= now:
        end_session(session, "expired", ended_at=session.expires_at)
    if session.ended_at is None:
        wait = max(1, math.ceil((session.expires_at - now).total_seconds()))
        raise CapabilityError(
            425, "session_live",
            "The audit trail is sealed when the session ends: DELETE the session, or wait until it expires.",
            headers={"Retry-After": str(wait)},
        )
    artifact = sealed_artifact(session)
    if artifact is None:
        raise _unknown()
    return artifact


def _unknown():
    return CapabilityError(404, "unknown_session", "No audit trail is available for this session.")
