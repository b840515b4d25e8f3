"""System checks: every misconfiguration the app can see is reported by `manage.py check`.

| id      | what                                                                        |
|---------|-----------------------------------------------------------------------------|
| E001    | AGENTS_PROTOCOL["PROVIDER"] is not set                                      |
| E002    | the provider cannot be imported, or is not a subclass of ShopProvider       |
| E003    | a provider method the shop overrides cannot take the app's keyword call or is async def, or the provider cannot be made without arguments |
| E004    | AGENTS_PROTOCOL is not a dict, or has a key the app does not know (a typo)  |
| E005    | the agent API middleware is not in MIDDLEWARE                               |
| E006    | agents_protocol.urls is not included at the root of the URLconf, or the site is mounted under FORCE_SCRIPT_NAME |
| E007    | audit is on but neither SIGNING_KEY nor SIGNING_KEY_FILE is set             |
| E008    | SIGNING_KEY is not base64 of 32 bytes                                       |
| E009    | the default database is neither SQLite nor PostgreSQL (sessions.py)          |
| E010    | an endpoint lies outside /.well-known/ (saved before migration 0010)        |
| E011    | SANDBOX is neither None nor a dict of its keys with whole numbers of at least 1 |
| E012    | REVISION_SIGNAL cannot be imported, or its class has no read() and bump()   |
| E013    | any other setting not of the kind core/conf.py declares: a whole number below its minimum or not a number (a string from the environment), DEFAULT_SITE not a dict of strings, a pipeline step that cannot be imported |
| E014    | the rate-limit cache is Django's DummyCache, which counts nothing           |
| E015    | the rate-limit cache is Django's local-memory cache, which each process counts apart, and SINGLE_PROCESS is not True |
| W001    | an enabled capability has no handler (agents calling it get 501)            |
| W002    | an enabled capability's provider method is not overridden (501 too)         |
| W003    | the app writes to SQLite without WAL, immediate transactions or a busy timeout |
| W004    | Django is told the site is behind a proxy, but TRUSTED_PROXY_COUNT is 0 (`check --deploy`) |
| W005    | UCP or ACP is on, but the task backend runs a task at once (Django's default): order webhooks would be sent in the request and never retried |

E007, E009, E010, W001, W002, W003 and W005 read the database, so they are database checks (Tags.database): like
Django's own, they run with `manage.py check --database default` and before `migrate`, not
in a plain `check`, which must work without a database.
"""
import base64
import binascii
import inspect

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, router
from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core.capabilities import handler_for, registered_names
from agents_protocol.core.conf import AgentsProtocolSettings, app_settings
from agents_protocol.core.models import (
    AgentSession,
    AuditConfig,
    Capability,
    FlowStep,
    SessionConfig,
)
from agents_protocol.core.provider import base_methods, implements
from agents_protocol.http.routing import API_PREFIX, WELL_KNOWN
from agents_protocol.outbound.webhooks import deliver_order_event

API_MIDDLEWARE = "agents_protocol.http.middleware.AgentsApiMiddleware"
AGENTS_JSON_PATH = "/.well-known/agents.json"


def provider_interface_problems(provider_class):
    """What keeps the app from using `provider_class`: one sentence per problem, or [].

    get_provider() makes the provider without arguments, and the app calls a provider method
    without awaiting it, with `context` and then keyword arguments: so a method the provider
    overrides must be a plain def that accepts the base class's parameters by those names.
    Methods it does not override are not looked at: they answer 501 (and W002 names the enabled ones).
    """
    return list(_interface_problems(provider_class))


def _interface_problems(provider_class):
    if not _accepts_no_arguments(provider_class):
        yield (f"{provider_class.__name__}{_parameters(provider_class)} needs arguments, but the app "
               f"makes the provider with none: {provider_class.__name__}().")
    for name, expected in base_methods().items():
        if not implements(provider_class, name):
            continue
        method = getattr(provider_class, name)
        if inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method):
            yield f"{name}{_parameters(method)} is async def, but the app calls it without awaiting it."
        elif not _accepts_the_call(method, expected):
            yield f"{name}{_parameters(method)} cannot be called as {name}{_parameters(expected)}."


def _accepts_no_arguments(provider_class):
    try:
        inspect.signature(provider_class).bind()
    except TypeError:
        return False
    return True


def _accepts_the_call(method, expected):
    """Whether `method` can be called as the app calls `expected`: self and context, then keywords."""
    self_and_context, keywords = _positional(expected), _keyword_only(expected)
    try:
        inspect.signature(method).bind(*self_and_context, **dict.fromkeys(keywords))
    except TypeError:
        return False
    return True


def _positional(function):
    return [p.name for p in inspect.signature(function).parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]


def _keyword_only(function):
    return [p.name for p in inspect.signature(function).parameters.values() if p.kind == p.KEYWORD_ONLY]


def _parameters(function):
    """The parameter list as written, without annotations: `(self, context, *, query, page, limit)`."""
    names, starred = [], False
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind == parameter.KEYWORD_ONLY and not starred:
            names.append("*")
        starred = starred or parameter.kind in (parameter.KEYWORD_ONLY, parameter.VAR_POSITIONAL)
        prefix = {parameter.VAR_POSITIONAL: "*", parameter.VAR_KEYWORD: "**"}.get(parameter.kind, "")
        names.append(prefix + parameter.name)
    return f"({', '.join(names)})"


@register()
def provider_configured(app_configs, **kwargs):
    """Set, and usable as the app uses it; a path that names no provider class is E002's (core/conf.py)."""
    path = app_settings.PROVIDER
    if not path:
        return [Error(
            'AGENTS_PROTOCOL["PROVIDER"] is not set.',
            hint="Point it at your subclass of agents_protocol.core.provider.ShopProvider.",
            id="agents_protocol.E001",
        )]
    provider_class = _provider_class()
    if provider_class is None:
        return []
    return [
        Error(
            f"The provider {path} cannot be used as the app uses it: {problem}",
            hint="See agents_protocol/core/provider.py; the app makes the provider without arguments and calls "
            "its methods synchronously, passing context, then every other argument by keyword.",
            id="agents_protocol.E003",
        )
        for problem in provider_interface_problems(provider_class)
    ]


@register()
def settings_known(app_configs, **kwargs):
    """E004: AGENTS_PROTOCOL is a dict of the keys core/conf.py declares."""
    return app_settings.key_errors()


@register()
def setting_values_valid(app_configs, **kwargs):
    """Each setting of the kind core/conf.py declares (E002 PROVIDER, E011 SANDBOX, E012 REVISION_SIGNAL,
    E013 the others): values read from the environment are strings, which would otherwise fail only
    when a request or a migration uses them."""
    return app_settings.wrong_value_errors()


@register(Tags.caches)
def rate_limit_cache_counts(app_configs, **kwargs):
    """A dummy cache counts nothing: refused here too, as django-ratelimit's E003 does, whether or
    not a site silences that one."""
    alias = getattr(settings, "RATELIMIT_USE_CACHE", "default")
    backend = settings.CACHES.get(alias, {}).get("BACKEND", "")
    if backend != "django.core.cache.backends.dummy.DummyCache":
        return []
    return [Error(
        f"The rate-limit cache {alias!r} is Django's DummyCache, which keeps no count: agents would never be "
        "rate limited, and every answer would claim a full X-RateLimit-Remaining.",
        hint='Use diskcache\'s "diskcache.DjangoCache" (one host) or Redis (several).',
        id="agents_protocol.E014",
    )]


@register(Tags.caches)
def rate_limit_cache_shared(app_configs, **kwargs):
    """The local-memory cache counts in each process apart: under gunicorn -w 4 an agent gets four
    times its limit, and nothing else says so."""
    alias = getattr(settings, "RATELIMIT_USE_CACHE", "default")
    backend = settings.CACHES.get(alias, {}).get("BACKEND", "")
    if backend != "django.core.cache.backends.locmem.LocMemCache" or app_settings.SINGLE_PROCESS is True:
        return []
    return [Error(
        f"The rate-limit cache {alias!r} is Django's local-memory cache, which each process counts in apart: "
        "with several worker processes every agent gets that many times its limit.",
        hint='Count in a cache shared by the processes: diskcache\'s "diskcache.DjangoCache" on one host (its '
        "increment is atomic across processes, no server to run), Redis on several. A site that runs one process "
        'only (runserver, tests) sets AGENTS_PROTOCOL["SINGLE_PROCESS"] = True.',
        id="agents_protocol.E015",
    )]


# Django settings that only make sense when a reverse proxy stands in front of the site.
PROXY_SETTINGS = ("SECURE_PROXY_SSL_HEADER", "USE_X_FORWARDED_HOST", "USE_X_FORWARDED_PORT")


@register(Tags.security, deploy=True)
def trusted_proxies_counted(app_configs, **kwargs):
    """Behind a proxy, REMOTE_ADDR is the proxy's address: with TRUSTED_PROXY_COUNT 0 every agent
    shares one max_sessions and one address rate limit (http/client.py client_address)."""
    if app_settings.TRUSTED_PROXY_COUNT:
        return []
    proxy_settings = [name for name in PROXY_SETTINGS if getattr(settings, name, None)]
    if not proxy_settings:
        return []
    return [Warning(
        f"The site is behind a reverse proxy ({' and '.join(proxy_settings)} set), but "
        "AGENTS_PROTOCOL['TRUSTED_PROXY_COUNT'] is 0: every agent counts as the proxy's address, so all of "
        "them share one max_sessions and one rate limit for calls without a session.",
        hint="Set TRUSTED_PROXY_COUNT to the number of proxies that append to X-Forwarded-For in front of "
        "the site (1 for a single proxy).",
        id="agents_protocol.W004",
    )]


@register()
def api_middleware_installed(app_configs, **kwargs):
    if any(_is_api_middleware(path) for path in settings.MIDDLEWARE):
        return []
    return [Error(
        f"{API_MIDDLEWARE} is not in MIDDLEWARE, so no agent API endpoint answers.",
        hint="Add it right after SecurityMiddleware (and WhiteNoise, if you use it): the endpoints are "
        "configured in admin, not in the URLconf.",
        id="agents_protocol.E005",
    )]


def _is_api_middleware(path):
    """The app's middleware, or a shop's subclass of it."""
    if path == API_MIDDLEWARE:
        return True
    try:
        middleware = import_string(path)
    except ImportError:
        return False  # Django reports a middleware it cannot import
    return isinstance(middleware, type) and issubclass(middleware, import_string(API_MIDDLEWARE))


SUPPORTED_VENDORS = ("sqlite", "postgresql")


@register(Tags.database)
def database_supported(app_configs, databases=None, **kwargs):
    """Runs with `check --database default` and before migrate, like Django's own database checks."""
    if not databases or DEFAULT_DB_ALIAS not in databases:
        return []
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor in SUPPORTED_VENDORS:
        return []
    return [Error(
        f"agents_protocol keeps max_sessions exact through SQLite's single writer or PostgreSQL's advisory "
        f"locks, which this {connection.vendor} database lacks.",
        hint="Use PostgreSQL or SQLite.",
        id="agents_protocol.E009",
    )]


SQLITE_OPTIONS = '{"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20}'
MIN_BUSY_TIMEOUT = 5  # seconds; also what Python's sqlite3 waits when OPTIONS gives no timeout


@register(Tags.database)
def sqlite_ready_for_parallel_writes(app_configs, databases=None, **kwargs):
    """Parallel agent calls on SQLite's default settings fail with "database is locked": a deferred
    transaction that turns into a write cannot wait for the lock, and without WAL readers block it."""
    alias = router.db_for_write(AgentSession)
    if not databases or alias not in databases:
        return []
    connection = connections[alias]
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return []
    missing = _sqlite_settings_missing(connection)
    if not missing:
        return []
    return [Warning(
        f"agents_protocol writes to the SQLite database {alias!r} without {', '.join(missing)}: parallel agent "
        "calls (two cart.add at once) will be refused with 503 backend_unavailable (\"database is locked\").",
        hint=f'Set DATABASES["{alias}"]["OPTIONS"] = {SQLITE_OPTIONS} (Django 5.1+), or use PostgreSQL.',
        id="agents_protocol.W003",
    )]


def _sqlite_settings_missing(connection):
    options = connection.settings_dict.get("OPTIONS", {})
    missing = []
    if _journal_mode(connection) != "wal":
        missing.append("WAL (journal_mode=WAL)")
    if str(options.get("transaction_mode", "")).upper() != "IMMEDIATE":
        missing.append('immediate transactions (transaction_mode "IMMEDIATE")')
    if options.get("timeout", MIN_BUSY_TIMEOUT) < MIN_BUSY_TIMEOUT:
        missing.append(f"a busy timeout of at least {MIN_BUSY_TIMEOUT} seconds (timeout)")
    return missing


def _journal_mode(connection):
    try:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            return cursor.fetchone()[0].lower()
    except DatabaseError:
        return None


@register(Tags.urls)
def documents_routed(app_configs, **kwargs):
    try:
        path = reverse("agents_protocol:agents_json")
    except NoReverseMatch:
        return [Error(
            "agents_protocol.urls is not included in the URLconf, so /.well-known/agents.json is not served.",
            hint='Add path("", include("agents_protocol.urls")) to your urlpatterns.',
            id="agents_protocol.E006",
        )]
    mount = (getattr(settings, "FORCE_SCRIPT_NAME", None) or "").rstrip("/")
    if mount and path == mount + AGENTS_JSON_PATH:
        return [Error(
            f"The site is mounted under {mount} (FORCE_SCRIPT_NAME): agents.json would be served at {path}, but "
            f"well-known URIs are defined at the origin's root (RFC 8615) and agents look for {AGENTS_JSON_PATH}.",
            hint="Serve the shop at the root of its origin (e.g. a host name of its own) for agents_protocol.",
            id="agents_protocol.E006",
        )]
    if path != AGENTS_JSON_PATH:
        return [Error(
            f"agents_protocol.urls is included under a prefix: agents.json is served at {path}, "
            f"but agents look for {AGENTS_JSON_PATH}.",
            hint='Include it at the root: path("", include("agents_protocol.urls")).',
            id="agents_protocol.E006",
        )]
    return []


@register()
def signing_key_valid(app_configs, **kwargs):
    seed = app_settings.SIGNING_KEY
    return _seed_errors(seed) if isinstance(seed, str) and seed else []  # not a string: E013


@register(Tags.database)
def audit_signing_key(app_configs, databases=None, **kwargs):
    """Reads whether audit is on, so it runs only when the check is given a database."""
    if app_settings.SIGNING_KEY or app_settings.SIGNING_KEY_FILE or not _reads(AuditConfig, databases):
        return []
    if not _audit_enabled():
        return []
    return [Error(
        'Audit is on, but neither AGENTS_PROTOCOL["SIGNING_KEY"] nor ["SIGNING_KEY_FILE"] is set, '
        "so agents.json and the audit trails cannot be signed.",
        hint="Set SIGNING_KEY_FILE to a private, persistent path (created on first use), or SIGNING_KEY to "
        "base64 of 32 random bytes from your secret store; or turn audit off in admin.",
        id="agents_protocol.E007",
    )]


def _reads(model, databases):
    """Whether the check was given the database `model` is read from (`check --database`)."""
    return bool(databases) and router.db_for_read(model) in databases


def _seed_errors(seed):
    try:
        valid = len(base64.b64decode(seed)) == 32  # decoded as audit/signing.py decodes it
    except (binascii.Error, TypeError, ValueError):
        valid = False
    if valid:
        return []
    return [Error(
        'AGENTS_PROTOCOL["SIGNING_KEY"] must be base64 of exactly 32 bytes (an Ed25519 seed).',
        hint="Make one with: python -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())'",
        id="agents_protocol.E008",
    )]


def _audit_enabled():
    """Audit as configured; before the first migrate, the default configuration's (on)."""
    try:
        enabled = AuditConfig.objects.filter(pk=1).values_list("enabled", flat=True).first()
    except DatabaseError:
        return True
    return enabled is not False


@register(Tags.database)
def order_webhooks_have_a_worker(app_configs, databases=None, **kwargs):
    """W005: with UCP or ACP on, order events go to platforms as tasks; a backend that cannot defer one
    (django.tasks' ImmediateBackend, the default without TASKS) runs it in the request and cannot retry it."""
    if not _reads(CommerceConfig, databases):
        return []
    try:
        enabled = CommerceConfig.objects.filter(pk=1).values_list("ucp_enabled", "acp_enabled").first()
    except DatabaseError:
        return []  # not migrated yet
    if not any(enabled or ()) or deliver_order_event.get_backend().supports_defer:
        return []
    return [Warning(
        "UCP or ACP is on, but the task backend runs each task at once: order webhooks would be sent inside the "
        "request that changed the order, and a failed one never retried.",
        hint='Set TASKS to a backend with a worker, e.g. {"default": {"BACKEND": '
             '"django_tasks_db.DatabaseBackend"}} with django_tasks_db installed and `manage.py db_worker` running.',
        id="agents_protocol.W005",
    )]


@register(Tags.database)
def every_enabled_capability_has_a_handler(app_configs, databases=None, **kwargs):
    if not _reads(Capability, databases):
        return []
    try:
        enabled = Capability.objects.filter(enabled=True).values_list("name", flat=True)
        missing = sorted(set(enabled) - registered_names())
        flows = _flows_using(missing)
    except DatabaseError:
        return []  # not migrated yet: nothing is published either
    return [
        Warning(
            f"The enabled capability {name!r} has no handler; agents calling it get 501 not_implemented.",
            hint=f"Register one with agents_protocol.core.capabilities.register, or {_how_to_disable(name, flows)}.",
            id="agents_protocol.W001",
        )
        for name in missing
    ]


@register(Tags.database)
def endpoints_under_well_known(app_configs, databases=None, **kwargs):
    """Endpoints saved before 0010 may lie outside /.well-known/, where the middleware no longer looks."""
    if not _reads(Capability, databases):
        return []
    try:
        routes = [(c.name, c.endpoint) for c in Capability.objects.filter(enabled=True)]
        session = SessionConfig.objects.filter(pk=1).values_list("create_endpoint", "delete_endpoint").first()
        audit = AuditConfig.objects.filter(pk=1).values_list("endpoint", flat=True).first()
    except DatabaseError:
        return []
    routes += [("session create", session[0]), ("session delete", session[1])] if session else []
    routes += [("audit", audit)] if audit else []
    return [
        Error(
            f"The endpoint of {name} is {endpoint!r}, outside {WELL_KNOWN}: the agent API does not serve it.",
            hint=f"Move it under {WELL_KNOWN} in admin (for example {API_PREFIX}/...).",
            id="agents_protocol.E010",
        )
        for name, endpoint in routes
        if not endpoint.startswith(WELL_KNOWN)
    ]


@register(Tags.database)
def every_enabled_capability_is_implemented(app_configs, databases=None, **kwargs):
    """An enabled capability whose built-in handler calls a provider method the provider does not override."""
    provider_class = _provider_class()
    if provider_class is None or not _reads(Capability, databases):
        return []
    try:
        enabled = Capability.objects.filter(enabled=True).values_list("name", flat=True)
        methods = {name: _provider_method(name) for name in enabled}
        missing = {name: method for name, method in methods.items()
                   if method is not None and not implements(provider_class, method)}
        flows = _flows_using(missing)
    except DatabaseError:
        return []
    return [
        Warning(
            f"The enabled capability {name!r} calls the provider's {method}(), which "
            f"{app_settings.PROVIDER} does not override; agents calling it get 501 not_implemented.",
            hint=f"Override {method} in your ShopProvider subclass, or {_how_to_disable(name, flows)}.",
            id="agents_protocol.W002",
        )
        for name, method in sorted(missing.items())
    ]


def _flows_using(capability_names):
    """{capability name: the sorted names of the flows that have it as a step}, for those in a flow."""
    flows = {}
    steps = (FlowStep.objects.filter(capability__name__in=capability_names)
             .values_list("capability__name", "flow__name").distinct().order_by("flow__name"))
    for capability, flow in steps:
        flows.setdefault(capability, []).append(flow)
    return flows


def _how_to_disable(name, flows):
    """Admin refuses to disable a capability a flow uses (Capability._check_can_be_disabled)."""
    if name not in flows:
        return f"disable {name!r} in admin"
    return f"remove {name!r} from flow {', '.join(flows[name])} and then disable it in admin"


def _provider_class():
    """The configured provider class, or None when E001 or E002 already says why not."""
    path = app_settings.PROVIDER
    if not path or AgentsProtocolSettings.PROVIDER.kind.problem(path):
        return None
    return import_string(path)


def _provider_method(capability):
    """The provider method the capability's registered handler calls, or None (a shop's own handler)."""
    return getattr(handler_for(capability), "provider_method", None)
