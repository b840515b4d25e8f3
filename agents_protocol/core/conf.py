"""The app's settings: one `AGENTS_PROTOCOL` dict in the project's settings, declared below and
read as attributes of `app_settings` (`app_settings.MAX_BODY_BYTES`). Each key's default, kind
and meaning are declared once; the system check of their values (checks.py) and the settings
reference (docs/settings.md, scripts/settings_reference.py) come from this declaration.
"""
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

from agents_protocol.core.settings_declaration import (
    Boolean,
    DeclaredSettings,
    DottedPath,
    DottedPaths,
    FilePath,
    Networks,
    Setting,
    Text,
    TextFields,
    WholeNumber,
    WholeNumbers,
)

SANDBOX_DEFAULTS = {"REQUESTS_PER_MINUTE": 3, "SESSION_TTL_SECONDS": 10}


class AgentsProtocolSettings(DeclaredSettings):
    """What agents may do (capabilities, parameters, flows, session lifetime, rate limits, audit on
    or off) is not a setting: it is data, edited in admin or with `manage.py agents_config`. The
    settings are what the site itself needs: its provider, its keys, its limits, and the steps
    of the pipeline every transport (agent API, A2A, PactSpec, MCP) runs, named as Django REST
    framework's DEFAULT_* settings name them, so a shop swaps one (a subclass of ours, usually)
    without touching the others."""

    setting = "AGENTS_PROTOCOL"
    keys_check = "agents_protocol.E004"
    values_check = "agents_protocol.E013"

    PROVIDER = Setting(
        None, DottedPath(optional=True, subclass_of="agents_protocol.core.provider.ShopProvider"),
        "the shop's provider class (core/provider.py); required for the API.",
        check="agents_protocol.E002")
    DEFAULT_SITE = Setting(
        {"name": "My shop", "description": "", "contact": ""}, TextFields("agents_protocol.config_io.SITE_FIELDS"),
        "written into the site profile by the first `migrate`; an `agent_notes` key (Markdown for llms.txt) "
        "fills the profile's notes once, when staff wrote none.")
    DOCUMENT_MAX_AGE = Setting(
        0, WholeNumber(0),
        "`Cache-Control` max-age, in seconds, of the discovery documents. 0 makes clients revalidate with "
        "`If-None-Match` every time, which is cheap (304).")
    MAX_BODY_BYTES = Setting(64 * 1024, WholeNumber(1), "largest accepted API request body; larger ones get 413.")
    MAX_URL_BYTES = Setting(
        4096, WholeNumber(1),
        "longest path and query string (percent-encoded, with the `?`) of a request to an agent path (the API, "
        "the documents, A2A, PactSpec, MCP); longer ones get 414 `uri_too_long`, before the configuration is "
        "read. Keep it below the front server's request-line limit (deploy/gunicorn.conf.py).")
    MAX_HEADER_BYTES = Setting(
        8192, WholeNumber(1),
        "largest header block of a request to an agent path, each field counted as `Name: value` and CRLF; "
        "larger ones get 431 `headers_too_large`, before the configuration is read. Keep it below the front "
        "server's header limits.")
    SIGNING_KEY = Setting(
        None, Text(optional=True),
        "base64 of a 32-byte Ed25519 seed for audit signatures (from a secret store); wins over the file.")
    SIGNING_KEY_FILE = Setting(
        None, FilePath(),
        "where the seed is kept when `SIGNING_KEY` is unset: created once with mode 0600, replaced by "
        "`manage.py agents_keys rotate`. Audit (on by default) needs one of the two.")
    AUDIT_RETENTION_DAYS = Setting(
        30, WholeNumber(1),
        "sessions that ended longer ago are deleted with their audit trails by `manage.py agents_prune` "
        "(then 404).")
    IDEMPOTENCY_LEASE_SECONDS = Setting(
        60, WholeNumber(1),
        "how long a call with an `Idempotency-Key` may run before its key counts as abandoned (its worker died) "
        "and a retry runs it again. Keep it above the longest a worker may take (gunicorn's timeout), or a slow "
        "call and its retry both run.")
    TRUSTED_PROXY_COUNT = Setting(
        0, WholeNumber(0),
        "how many reverse proxies in front of the site append to `X-Forwarded-For`. 0 ignores the header: the "
        "client address is `REMOTE_ADDR`, which a client cannot forge. With n, it is the n-th entry from the "
        "right.")
    SANDBOX = Setting(
        None, WholeNumbers(SANDBOX_DEFAULTS, minimum=1),
        "`None`: off. A dict turns on the sandbox for agent developers on a demo or staging shop "
        "(core/sandbox.py): a session whose agent name contains `sandbox:rate-limit` is allowed "
        "`REQUESTS_PER_MINUTE` requests a minute, one whose name contains `sandbox:short-session` lives "
        "`SESSION_TTL_SECONDS` seconds; both only ever lower the configured limits.",
        check="agents_protocol.E011")
    SESSION_IDLE_SECONDS = Setting(
        300, WholeNumber(0),
        "at `max_sessions`, a new session of the address ends the one idle longest if idle this long.")
    SINGLE_PROCESS = Setting(
        False, Boolean(),
        "`True`: the site runs in one process (runserver, tests), so the rate limit may count in the "
        "local-memory cache (`agents_protocol.E015`).")
    REVISION_SIGNAL = Setting(
        None, DottedPath(optional=True, methods=("read", "bump")),
        "`None`: every request reads the configuration's revision row. Else the path of a class whose "
        "`read()` returns a value that moves whenever `bump()` is called, in every process that serves or "
        "edits the configuration; requests then read the row only when the value moved, or once a second "
        "(core/config.py). Only for processes that all share it, e.g. the embedded profile's "
        "acme.embedded.stamp.SharedMemoryStamp on one host.",
        check="agents_protocol.E012")
    ACTIVITY_BUFFER_SIZE = Setting(
        500, WholeNumber(0),
        "the agent activity page (activity/): each worker process keeps this many calls, then writes them in "
        "one INSERT, so recording costs a call about 10 µs of CPU; 1 writes every call at once, 0 records none.")
    ACTIVITY_FLUSH_SECONDS = Setting(
        10, WholeNumber(0),
        "a worker also writes its kept calls at its first call once the oldest is this old, and when it exits: "
        "the page is at most this late, plus the time until the worker's next call.")
    ACTIVITY_RETENTION_DAYS = Setting(
        30, WholeNumber(1),
        "recorded calls older than this many days are deleted by a worker writing its calls, at most once an "
        "hour, and by `manage.py agents_prune`.")
    ACP_PRODUCT_FEED = Setting(
        False, Boolean(),
        "`True`: the ACP product feed (public catalog data) is served at `/acp/feed/products.jsonl` and "
        "`/acp/feed/metadata.json`.")
    AUTHENTICATION_CLASSES = Setting(
        ["agents_protocol.http.authentication.AgentSessionAuthentication"], DottedPaths(),
        "the pipeline's step that says who is calling: the agent session of the three token headers.")
    PERMISSION_CLASSES = Setting(
        ["agents_protocol.http.permissions.SessionWhenRequired"], DottedPaths(),
        "whether the call may go on: a capability that requires a session needs one.")
    THROTTLE_CLASSES = Setting(
        ["agents_protocol.http.throttling.AgentRateThrottle", "agents_protocol.http.throttling.CapabilityRateThrottle"],
        DottedPaths(),
        "`requests_per_minute` per session, else per client address (`X-RateLimit-*`), and each capability's "
        "own `calls_per_hour`.")
    PARSER_CLASSES = Setting(
        ["agents_protocol.http.parsers.AgentJSONParser"], DottedPaths(),
        "JSON request bodies, with the size, nesting, NaN and duplicate-key guards.")
    RENDERER_CLASSES = Setting(
        ["agents_protocol.http.renderers.AgentJSONRenderer"], DottedPaths(),
        "the JSON codec every answer is written with.")
    EXCEPTION_HANDLER = Setting(
        "agents_protocol.http.exceptions.envelope_exception_handler", DottedPath(),
        "every refusal and failure as the protocol's envelope `{\"ok\": false, \"error\", \"code\", \"fields\"?}`.")
    STEP_CLASSES = Setting(
        ["agents_protocol.http.steps.AuditTrail", "agents_protocol.http.steps.Idempotency",
         "agents_protocol.http.steps.RateLimitHeaders", "agents_protocol.http.steps.RequestIdNoStore",
         "agents_protocol.http.steps.AnyOrigin", "agents_protocol.http.steps.ActivityRecord"], DottedPaths(),
        "the steps around the handler (http/steps.py).")

    OUTBOUND_ALLOWED_NETWORKS = Setting(
        [], Networks(),
        "private or loopback networks the app's own requests (outbound/) may reach, e.g. `[\"127.0.0.0/8\"]` in "
        "tests; empty: public addresses only.")
    OUTBOUND_TIMEOUT_SECONDS = Setting(
        3, WholeNumber(1), "seconds an outbound request may take to connect, to read, and in all.")
    OUTBOUND_MAX_BYTES = Setting(256 * 1024, WholeNumber(1), "largest answer an outbound request reads.")
    WEBHOOK_MAX_AGE_SECONDS = Setting(
        24 * 3600, WholeNumber(1),
        "seconds an undelivered order event is retried (the delay doubling from 5 s to an hour), then dropped.")
    WEBHOOK_ENQUEUE_ON_COMMIT = Setting(
        False, Boolean(),
        "`False`: a delivery is enqueued in the order change's transaction (a task backend in the database); "
        "`True`: at its commit (a backend outside it, such as RQ).")

app_settings = AgentsProtocolSettings()

PIPELINE_STEPS = ("AUTHENTICATION_CLASSES", "PERMISSION_CLASSES", "THROTTLE_CLASSES", "PARSER_CLASSES",
                  "RENDERER_CLASSES", "EXCEPTION_HANDLER", "STEP_CLASSES")


class PipelineSteps:
    """The pipeline's step classes, imported on first use (again after a settings change), like
    DRF's api_settings: an imported step is an attribute of the instance from then on."""

    def __getattr__(self, name):
        if name not in PIPELINE_STEPS:
            raise AttributeError(name)
        value = getattr(app_settings, name)
        steps = import_string(value) if isinstance(value, str) else [import_string(path) for path in value]
        setattr(self, name, steps)
        return steps

    def reload(self):
        for name in PIPELINE_STEPS:
            self.__dict__.pop(name, None)


pipeline_steps = PipelineSteps()


def _reload(setting, **kwargs):
    if setting == "AGENTS_PROTOCOL":
        pipeline_steps.reload()


setting_changed.connect(_reload)
