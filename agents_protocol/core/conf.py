"""The app's settings: one `AGENTS_PROTOCOL` dict in the project's settings, with these defaults.

PROVIDER            dotted path of the shop's provider class (see provider.py). Required for the API.
DEFAULT_SITE        name/description/contact used by the initial migration for the site profile.
DOCUMENT_MAX_AGE    Cache-Control max-age, in seconds, of the discovery documents. 0 makes
                    clients revalidate with If-None-Match every time, which is cheap (304).
MAX_BODY_BYTES      largest accepted API request body; larger ones get 413.
MAX_URL_BYTES       longest path and query string (percent-encoded, with the `?`) of a request to
                    an agent path (the API, the documents, A2A, PactSpec: all under /.well-known/,
                    /llms.txt, and the MCP endpoint); longer ones get 414 `uri_too_long` (http/request_size.py).
MAX_HEADER_BYTES    largest header block of a request to an agent path, each field counted as
                    `Name: value` and CRLF; larger ones get 431 `headers_too_large`. Both are
                    checked first, before the configuration is read. Keep them below the front
                    server's own limits (deploy/gunicorn.conf.py), or it answers in their place.
SIGNING_KEY         base64 of a 32-byte Ed25519 seed for audit signatures (e.g. from a secret store).
SIGNING_KEY_FILE    where to keep the seed when SIGNING_KEY is unset: created once with mode 0600,
                    replaced by `manage.py agents_keys rotate`. One of the two is needed for audit.
AUDIT_RETENTION_DAYS  sessions ended longer ago are deleted with their trails by `agents_prune` (then 404).
IDEMPOTENCY_LEASE_SECONDS  how long a request with an Idempotency-Key may run before its key counts
                    as abandoned (its worker died) and a retry runs it again. Keep it above the
                    longest a worker may take (gunicorn's timeout), or a slow call and its retry
                    both run.
TRUSTED_PROXY_COUNT how many reverse proxies in front of the site append to X-Forwarded-For.
                    0 (default) ignores the header: the client address is REMOTE_ADDR, which a
                    client cannot forge. With n, it is the n-th entry from the right.
REVISION_SIGNAL     None (default): every request reads the configuration's revision row. Else the
                    dotted path of a class whose instances have `read()`, a value that moves
                    whenever `bump()` is called, in every process that serves or edits the
                    configuration; requests then read the row only when the value moved, or
                    once a second (core/config.py). Only for processes that all share it: the
                    embedded profile's acme.embedded.stamp.SharedMemoryStamp, one host.
SANDBOX             None (default): off. A dict turns on the sandbox for agent developers
                    (sandbox.py): sessions whose agent name asks for it get REQUESTS_PER_MINUTE
                    (3) or live SESSION_TTL_SECONDS (10); for a demo or staging shop.

The agent activity page (activity/): every call of the pipeline is one row of AgentCall,
kept in each worker process and written in batches, so recording costs a call about 10 µs of
CPU (docs/performance.md).

ACTIVITY_BUFFER_SIZE     calls a worker keeps before writing them in one INSERT (500); 1 writes
                         every call at once (the tests); 0 records nothing.
ACTIVITY_FLUSH_SECONDS   a worker also writes its kept calls at its first call once the oldest is
                         this old (10), and when it exits: the page is at most this late, plus
                         the time until the worker's next call.
ACTIVITY_RETENTION_DAYS  calls older than this many days are deleted, by a worker writing its
                         calls, at most once an hour, and by `manage.py agents_prune` (30).

The steps of the agent pipeline, as Django REST framework's DEFAULT_* settings name them, so
a shop swaps one (a subclass of ours, usually) without touching the others. Every transport
(agent API, A2A, PactSpec, MCP) runs them (http/pipeline.py):

AUTHENTICATION_CLASSES  who is calling: the agent session of the three token headers.
PERMISSION_CLASSES      whether the call may go on: a capability that requires a session needs one.
THROTTLE_CLASSES        requests_per_minute per session, else per client address (X-RateLimit-*), and
                        each capability's own calls_per_hour.
PARSER_CLASSES          JSON bodies, with the size, nesting, NaN and duplicate-key guards.
RENDERER_CLASSES        the JSON codec every answer is written with.
EXCEPTION_HANDLER       every refusal and failure as the protocol's envelope.
"""
import threading

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

DEFAULTS = {
    "PROVIDER": None,
    "DEFAULT_SITE": {"name": "My shop", "description": "", "contact": ""},
    "DOCUMENT_MAX_AGE": 0,
    "MAX_BODY_BYTES": 64 * 1024,
    "MAX_URL_BYTES": 4096,
    "MAX_HEADER_BYTES": 8192,
    "SIGNING_KEY": None,
    "SIGNING_KEY_FILE": None,
    "AUDIT_RETENTION_DAYS": 30,
    "IDEMPOTENCY_LEASE_SECONDS": 60,
    "TRUSTED_PROXY_COUNT": 0,
    "SANDBOX": None,
    "REVISION_SIGNAL": None,
    "ACTIVITY_BUFFER_SIZE": 500,
    "ACTIVITY_FLUSH_SECONDS": 10,
    "ACTIVITY_RETENTION_DAYS": 30,
    "AUTHENTICATION_CLASSES": ["agents_protocol.http.authentication.AgentSessionAuthentication"],
    "PERMISSION_CLASSES": ["agents_protocol.http.permissions.SessionWhenRequired"],
    "THROTTLE_CLASSES": ["agents_protocol.http.throttling.AgentRateThrottle",
                         "agents_protocol.http.throttling.CapabilityRateThrottle"],
    "PARSER_CLASSES": ["agents_protocol.http.parsers.AgentJSONParser"],
    "RENDERER_CLASSES": ["agents_protocol.http.renderers.AgentJSONRenderer"],
    "EXCEPTION_HANDLER": "agents_protocol.http.exceptions.envelope_exception_handler",
}
PIPELINE_STEPS = ("AUTHENTICATION_CLASSES", "PERMISSION_CLASSES", "THROTTLE_CLASSES", "PARSER_CLASSES",
                  "RENDERER_CLASSES", "EXCEPTION_HANDLER")


def get_setting(name):
    return _settings().get(name, DEFAULTS[name])


_read = None  # AGENTS_PROTOCOL as last read (every agent call asks a few of its values); None: read it again
_reading = threading.Lock()  # a change signalled while a thread reads must not leave the old value kept


def _settings():
    global _read
    read = _read
    if read is None:
        with _reading:
            if _read is None:
                overrides = getattr(settings, "AGENTS_PROTOCOL", {})
                # Not a dict: check E004 says so; the defaults meanwhile.
                _read = overrides if isinstance(overrides, dict) else {}
            read = _read
    return read


class PipelineSteps:
    """The pipeline's step classes, imported on first use (again after a settings change), like
    DRF's api_settings: an imported step is an attribute of the instance from then on."""

    def __getattr__(self, name):
        if name not in PIPELINE_STEPS:
            raise AttributeError(name)
        value = get_setting(name)
        steps = import_string(value) if isinstance(value, str) else [import_string(path) for path in value]
        setattr(self, name, steps)
        return steps

    def reload(self):
        for name in PIPELINE_STEPS:
            self.__dict__.pop(name, None)


pipeline_steps = PipelineSteps()


def _reload(setting, **kwargs):
    global _read
    if setting == "AGENTS_PROTOCOL":
        with _reading:
            _read = None
        pipeline_steps.reload()


setting_changed.connect(_reload)
