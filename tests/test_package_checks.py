"""System checks explain each misconfiguration of agents_protocol in a host project."""
import base64

import pytest
from django.core.checks import run_checks
from django.db import connections
from django.db.utils import ConnectionHandler
from django.test import override_settings
from django.urls import set_script_prefix

from agents_protocol import checks
from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.checks import provider_interface_problems
from agents_protocol.core.conf import AgentsProtocolSettings
from agents_protocol.core.provider import ShopProvider
from agents_protocol.http.middleware import AgentsApiMiddleware
from agents_protocol.http.routing import API_PREFIX
from agents_protocol.models import AuditConfig, Capability, Flow, FlowStep

pytestmark = pytest.mark.django_db


def ids(messages):
    return [message.id for message in messages]


def agents_protocol_settings(settings, **values):
    """Acme's AGENTS_PROTOCOL with `values` changed (None removes a key)."""
    changed = {**settings.AGENTS_PROTOCOL, **values}
    return {key: value for key, value in changed.items() if value is not None}


class CompleteProvider(ShopProvider):
    def search(self, context, *, query, page, limit): ...
    def browse(self, context, *, category, sort, page, limit): ...
    def item_detail(self, context, *, item_id): ...
    def cart_add(self, context, *, item_id, quantity): ...
    def cart_view(self, context): ...
    def cart_update(self, context, *, item_id, quantity): ...
    def cart_remove(self, context, *, item_id): ...
    def checkout(self, context): ...
    def order_status(self, context, *, order_id): ...
    def contact(self, context, *, name, email, message): ...


class PositionalProvider:
    """Not a subclass, with the parameters as plain positional ones: the keyword call still fits."""

    def search(self, context, query, page, limit): ...
    def contact(self, context, name, email, message, reply_by=None): ...


class IncompleteProvider(CompleteProvider):
    contact = None  # not callable: as good as not overridden

    def search(self, context, q, page): ...
    def cart_view(self, context, cart_id): ...


def test_the_acme_site_passes_every_check_of_the_app():
    assert [m for m in run_checks() if m.id and m.id.startswith("agents_protocol")] == []


def test_a_provider_with_every_method_has_no_problems():
    assert provider_interface_problems(CompleteProvider) == []
    assert provider_interface_problems(PositionalProvider) == []


def test_overridden_methods_the_app_cannot_call_are_named():
    assert provider_interface_problems(IncompleteProvider) == [
        "search(self, context, q, page) cannot be called as search(self, context, *, query, page, limit).",
        "cart_view(self, context, cart_id) cannot be called as cart_view(self, context).",
    ]


class AsyncProvider(CompleteProvider):
    async def search(self, context, *, query, page, limit): ...

    async def cart_view(self, context):
        yield {}


class ConfiguredProvider(CompleteProvider):
    def __init__(self, catalog, *, currency="USD"):
        self.catalog = catalog


class DefaultedProvider(CompleteProvider):
    def __init__(self, catalog=None):
        self.catalog = catalog


def test_async_methods_are_named_since_the_app_does_not_await_them():
    assert provider_interface_problems(AsyncProvider) == [
        "search(self, context, *, query, page, limit) is async def, but the app calls it without awaiting it.",
        "cart_view(self, context) is async def, but the app calls it without awaiting it.",
    ]


def test_a_provider_that_cannot_be_made_without_arguments_is_named():
    assert provider_interface_problems(ConfiguredProvider) == [
        "ConfiguredProvider(catalog, *, currency) needs arguments, but the app makes the provider with none: "
        "ConfiguredProvider().",
    ]
    assert provider_interface_problems(DefaultedProvider) == []


@pytest.mark.parametrize("provider_class", [AsyncProvider, ConfiguredProvider])
def test_e003_a_provider_the_app_cannot_make_or_await(settings, provider_class):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, PROVIDER=f"{__name__}.{provider_class.__name__}")
    assert set(ids(checks.provider_configured(None))) == {"agents_protocol.E003"}


def test_methods_not_overridden_are_not_checked():
    assert provider_interface_problems(ShopProvider) == []
    assert provider_interface_problems(object) == []


def test_e001_the_provider_is_not_set(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, PROVIDER=None)
    assert ids(checks.provider_configured(None)) == ["agents_protocol.E001"]


def test_e002_the_provider_cannot_be_imported(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, PROVIDER="acme.agents.NoSuchProvider")
    [error] = checks.setting_values_valid(None)
    assert error.id == "agents_protocol.E002" and "acme.agents.NoSuchProvider" in error.msg
    assert checks.provider_configured(None) == []


def test_e003_the_provider_does_not_implement_the_protocol(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, PROVIDER=f"{__name__}.IncompleteProvider")
    errors = checks.provider_configured(None)
    assert ids(errors) == ["agents_protocol.E003", "agents_protocol.E003"]
    assert "cart_view(self, context, cart_id) cannot be called as cart_view(self, context)." in errors[1].msg


def test_e004_unknown_keys_and_a_non_dict_are_reported(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, SIGNING_KEYFILE="/tmp/key")
    [error] = checks.settings_known(None)
    assert (error.id, error.msg) == ("agents_protocol.E004", "AGENTS_PROTOCOL has an unknown key 'SIGNING_KEYFILE'.")
    assert "SIGNING_KEY_FILE" in error.hint
    settings.AGENTS_PROTOCOL = [("PROVIDER", "acme.agents.AcmeProvider")]
    assert ids(checks.settings_known(None)) == ["agents_protocol.E004"]


def test_a_non_dict_setting_is_reported_by_the_whole_check_run_not_a_traceback(settings):
    settings.AGENTS_PROTOCOL = None
    assert "agents_protocol.E004" in ids(run_checks())


def test_e002_a_provider_that_is_not_a_provider_class(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, PROVIDER="agents_protocol.core.conf.PIPELINE_STEPS")
    [error] = checks.setting_values_valid(None)
    assert error.id == "agents_protocol.E002" and "is not a subclass of ShopProvider" in error.msg
    assert checks.provider_configured(None) == []
    assert checks.every_enabled_capability_is_implemented(None, databases=["default"]) == []


def test_e013_the_shipped_settings_have_the_right_types():
    assert checks.setting_values_valid(None) == []


@pytest.mark.parametrize("name, value, problem", [
    ("MAX_BODY_BYTES", "65536", "must be a whole number of at least 1, not '65536'"),
    ("TRUSTED_PROXY_COUNT", "1", "must be a whole number of at least 0, not '1'"),
    ("DOCUMENT_MAX_AGE", "1h", "must be a whole number of at least 0, not '1h'"),
    ("AUDIT_RETENTION_DAYS", 0, "must be a whole number of at least 1, not 0"),
    ("ACTIVITY_BUFFER_SIZE", True, "must be a whole number of at least 0, not True"),
    ("DEFAULT_SITE", "Northwind", "must be a dict of strings"),
    ("DEFAULT_SITE", {"nmae": "Northwind"}, "must be a dict of strings"),
    ("AUTHENTICATION_CLASSES", ["nope.Auth"], "names 'nope.Auth', which cannot be imported"),
    ("THROTTLE_CLASSES", "agents_protocol.http.throttling.AgentRateThrottle", "must be a list of dotted paths"),
    ("EXCEPTION_HANDLER", "agents_protocol.http.exceptions.nothing", "cannot be imported"),
])
def test_e013_a_setting_of_the_wrong_type(settings, name, value, problem):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, **{name: value})
    [error] = checks.setting_values_valid(None)
    assert error.id == "agents_protocol.E013"
    assert error.msg.startswith(f"AGENTS_PROTOCOL[{name!r}] ") and problem in error.msg


@pytest.mark.parametrize("name, value, problem", [
    ("SIGNING_KEY", 32, "must be a string or None, not 32"),
    ("SIGNING_KEY_FILE", 600, "must be a file path or None, not 600"),
    ("MAX_URL_BYTES", 0, "must be a whole number of at least 1, not 0"),
    ("PERMISSION_CLASSES", [None], "must be a list of dotted paths, not [None]"),
    ("EXCEPTION_HANDLER", ["agents_protocol.http.exceptions.envelope_exception_handler"], "must be a dotted path"),
    ("REVISION_SIGNAL", "acme.embedded", "which has no read() and bump() methods"),
    ("SINGLE_PROCESS", "False", "must be True or False, not 'False'"),  # a string from the environment
    ("SESSION_IDLE_SECONDS", -1, "must be a whole number of at least 0, not -1"),
])
def test_e013_kinds_the_declaration_adds(settings, name, value, problem):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, **{name: value})
    [error] = checks.setting_values_valid(None)
    assert problem in error.msg
    assert error.hint == f"{name}: {getattr(AgentsProtocolSettings, name).meaning}"


@pytest.mark.parametrize("declared", AgentsProtocolSettings.declared(), ids=lambda declared: declared.name)
def test_every_declared_setting_of_the_wrong_type_is_reported_by_its_check(settings, declared):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, declared.name: 1.5}
    [error] = [message for message in run_checks() if message.id and message.id.startswith("agents_protocol")]
    assert error.id == (declared.check or "agents_protocol.E013")
    assert error.msg.startswith(f"AGENTS_PROTOCOL[{declared.name!r}] must be ") and "not 1.5" in error.msg


def test_every_declared_default_passes_its_own_check():
    for declared in AgentsProtocolSettings.declared():
        assert declared.kind.problem(declared.default) is None, declared.name


def test_e014_a_dummy_rate_limit_cache_counts_nothing(settings):
    assert checks.rate_limit_cache_counts(None) == []
    settings.CACHES = {**settings.CACHES,
                       settings.RATELIMIT_USE_CACHE: {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    assert ids(checks.rate_limit_cache_counts(None)) == ["agents_protocol.E014"]


def test_w004_the_acme_site_passes_the_deploy_checks_of_the_app():
    assert [m for m in run_checks(include_deployment_checks=True)
            if m.id and m.id.startswith("agents_protocol")] == []


@pytest.mark.parametrize("name, value", [
    ("SECURE_PROXY_SSL_HEADER", ("HTTP_X_FORWARDED_PROTO", "https")),
    ("USE_X_FORWARDED_HOST", True),
    ("USE_X_FORWARDED_PORT", True),
])
def test_w004_behind_a_proxy_every_agent_would_count_as_the_proxy(settings, name, value):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, TRUSTED_PROXY_COUNT=0)
    setattr(settings, name, value)
    [warning] = checks.trusted_proxies_counted(None)
    assert warning.id == "agents_protocol.W004" and f"({name} set)" in warning.msg
    assert "TRUSTED_PROXY_COUNT" in warning.hint
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, TRUSTED_PROXY_COUNT=1)
    assert checks.trusted_proxies_counted(None) == []


def test_w004_is_a_deploy_check(settings):
    settings.USE_X_FORWARDED_HOST = True
    assert "agents_protocol.W004" not in ids(run_checks())
    assert "agents_protocol.W004" in ids(run_checks(include_deployment_checks=True))


def test_e005_the_api_middleware_is_missing(settings):
    assert checks.api_middleware_installed(None) == []
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != checks.API_MIDDLEWARE]
    assert ids(checks.api_middleware_installed(None)) == ["agents_protocol.E005"]


class ShopApiMiddleware(AgentsApiMiddleware):
    pass


def test_e005_a_subclass_of_the_api_middleware_counts(settings):
    settings.MIDDLEWARE = [f"{__name__}.ShopApiMiddleware" if m == checks.API_MIDDLEWARE else m
                           for m in settings.MIDDLEWARE]
    assert checks.api_middleware_installed(None) == []


@override_settings(ROOT_URLCONF="catalog.urls")
def test_e006_the_urls_are_not_included():
    [error] = checks.documents_routed(None)
    assert error.id == "agents_protocol.E006" and "not included" in error.msg


def test_e006_the_urls_are_included_under_a_prefix(settings, tmp_path, monkeypatch):
    (tmp_path / "prefixed_urls.py").write_text(
        "from django.urls import include, path\n"
        "urlpatterns = [path('shop/', include('agents_protocol.urls'))]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    settings.ROOT_URLCONF = "prefixed_urls"
    [error] = checks.documents_routed(None)
    assert error.id == "agents_protocol.E006" and "/shop/.well-known/agents.json" in error.msg


def test_e006_the_site_is_mounted_under_a_script_name(settings):
    settings.FORCE_SCRIPT_NAME = "/shop"
    set_script_prefix("/shop/")  # as django.setup() does with FORCE_SCRIPT_NAME
    try:
        [error] = checks.documents_routed(None)
    finally:
        set_script_prefix("/")
    assert error.id == "agents_protocol.E006"
    assert "mounted under /shop (FORCE_SCRIPT_NAME)" in error.msg and "RFC 8615" in error.msg


def test_e007_audit_on_without_a_signing_key(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, SIGNING_KEY=None, SIGNING_KEY_FILE=None)
    assert AuditConfig.load().enabled
    assert ids(checks.audit_signing_key(None, databases=["default"])) == ["agents_protocol.E007"]
    AuditConfig.objects.filter(pk=1).update(enabled=False)
    assert checks.audit_signing_key(None, databases=["default"]) == []


def test_e008_a_signing_key_that_is_not_32_bytes(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, SIGNING_KEY=base64.b64encode(b"short").decode())
    assert ids(checks.signing_key_valid(None)) == ["agents_protocol.E008"]
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, SIGNING_KEY="not base64 at all!")
    assert ids(checks.signing_key_valid(None)) == ["agents_protocol.E008"]
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, SIGNING_KEY=base64.b64encode(bytes(32)).decode())
    assert checks.signing_key_valid(None) == []


@pytest.mark.parametrize("value", [
    {"REQUESTS_PER_MINUTE": 0}, {"SESSION_TTL_SECONDS": "10"}, {"REQUESTS_PER_MINUTES": 3}, {"SESSION_TTL_SECONDS": True},
    [3, 10], True,
])
def test_e011_a_sandbox_that_is_not_a_dict_of_its_whole_numbers(settings, value):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SANDBOX": value}
    assert ids(checks.setting_values_valid(None)) == ["agents_protocol.E011"]


@pytest.mark.parametrize("value", [None, {}, {"REQUESTS_PER_MINUTE": 1}, {"REQUESTS_PER_MINUTE": 3, "SESSION_TTL_SECONDS": 10}])
def test_e011_none_or_a_dict_of_its_whole_numbers_passes(settings, value):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SANDBOX": value}
    assert checks.setting_values_valid(None) == []


def test_e009_a_database_other_than_sqlite_or_postgresql(monkeypatch):
    assert checks.database_supported(None, databases=["default"]) == []
    assert checks.database_supported(None) == []  # database checks run only when asked for
    monkeypatch.setattr(connections["default"], "vendor", "mysql")
    assert ids(checks.database_supported(None, databases=["default"])) == ["agents_protocol.E009"]


def test_manage_py_check_runs_the_new_checks(settings):
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != checks.API_MIDDLEWARE]
    assert "agents_protocol.E005" in ids(run_checks())


@pytest.mark.django_db
def test_an_endpoint_outside_well_known_is_an_error_of_the_database_checks():
    assert ids(checks.endpoints_under_well_known(None, databases=["default"])) == []
    Capability.objects.filter(name="search").update(endpoint="/api/search")  # as saved before migration 0010
    (error,) = checks.endpoints_under_well_known(None, databases=["default"])
    assert error.id == "agents_protocol.E010" and "'/api/search'" in error.msg and "search" in error.msg
    assert checks.endpoints_under_well_known(None) == []  # a plain check reads no database


@pytest.fixture
def host_sqlite(tmp_path, monkeypatch):
    """Point the app's writes at a SQLite file configured like a host shop's settings (`options`)."""
    handlers = []

    def use(options):
        handler = ConnectionHandler({"default": {"ENGINE": "django.db.backends.sqlite3",
                                                 "NAME": str(tmp_path / f"shop-{len(handlers)}.sqlite3"),
                                                 "OPTIONS": options}})
        handlers.append(handler)
        monkeypatch.setattr(checks, "connections", handler)
        return checks.sqlite_ready_for_parallel_writes(None, databases=["default"])

    yield use
    for handler in handlers:
        handler.close_all()


def test_w003_the_sites_own_sqlite_settings_pass():
    assert checks.sqlite_ready_for_parallel_writes(None, databases=["default"]) == []


def test_w003_djangos_default_sqlite_settings_are_named_with_the_fix(host_sqlite):
    [warning] = host_sqlite({})
    assert warning.id == "agents_protocol.W003"
    assert "WAL" in warning.msg and "immediate transactions" in warning.msg and "busy timeout" not in warning.msg
    assert '"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20' in warning.hint


def test_w003_the_recommended_settings_pass_and_a_short_timeout_does_not(host_sqlite):
    recommended = {"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20}
    assert host_sqlite(recommended) == []
    [warning] = host_sqlite({**recommended, "timeout": 1})
    assert "busy timeout of at least 5 seconds" in warning.msg and "WAL" not in warning.msg


def test_w003_reads_a_file_database_only_when_asked(monkeypatch):
    assert checks.sqlite_ready_for_parallel_writes(None) == []
    handler = ConnectionHandler({"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}})
    monkeypatch.setattr(checks, "connections", handler)
    assert checks.sqlite_ready_for_parallel_writes(None, databases=["default"]) == []


@pytest.mark.parametrize("value", ["no.such.module.Signal", "agents_protocol.core.config.ProtocolConfig"])
def test_e012_a_revision_signal_that_cannot_be_imported_or_has_no_read_and_bump(settings, value):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "REVISION_SIGNAL": value}
    assert ids(checks.setting_values_valid(None)) == ["agents_protocol.E012"]


@pytest.mark.parametrize("value", [None, "acme.embedded.stamp.SharedMemoryStamp"])
def test_e012_none_or_a_class_with_read_and_bump_passes(settings, value):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "REVISION_SIGNAL": value}
    assert checks.setting_values_valid(None) == []


class SearchOnlyProvider(ShopProvider):
    def search(self, context, *, query, page, limit): ...


def hints_by_capability(warnings):
    return {warning.msg.split("'")[1]: warning.hint for warning in warnings}


def add_to_flow(flow_name, capability_name):
    flow, _ = Flow.objects.get_or_create(name=flow_name)
    FlowStep.objects.create(flow=flow, capability=Capability.objects.get(name=capability_name))


def test_w002_a_capability_a_flow_uses_must_leave_the_flow_before_it_can_be_disabled(settings):
    settings.AGENTS_PROTOCOL = agents_protocol_settings(settings, PROVIDER=f"{__name__}.SearchOnlyProvider")
    add_to_flow("quick-buy", "cart.add")
    hints = hints_by_capability(checks.every_enabled_capability_is_implemented(None, databases=["default"]))
    assert hints["cart.add"] == ("Override cart_add in your ShopProvider subclass, or remove 'cart.add' from flow "
                                 "purchase, quick-buy and then disable it in admin.")
    assert hints["contact"] == "Override contact in your ShopProvider subclass, or disable 'contact' in admin."


def test_w001_a_capability_a_flow_uses_must_leave_the_flow_before_it_can_be_disabled():
    Capability.objects.create(name="reserve", endpoint=f"{API_PREFIX}/reserve", method="POST")
    Capability.objects.create(name="teleport", endpoint=f"{API_PREFIX}/teleport", method="POST")
    add_to_flow("hold", "reserve")
    hints = hints_by_capability(checks.every_enabled_capability_has_a_handler(None, databases=["default"]))
    assert hints == {
        "reserve": "Register one with agents_protocol.core.capabilities.register, or remove 'reserve' from flow "
                   "hold and then disable it in admin.",
        "teleport": "Register one with agents_protocol.core.capabilities.register, or disable 'teleport' in admin.",
    }


IMMEDIATE_BACKEND = "django_tasks.backends.immediate.ImmediateBackend"  # the default without TASKS (Django 5.2)


@pytest.mark.django_db
def test_ucp_without_a_deferring_task_backend_is_warned_about(settings):
    """Django's default task backend runs a task in the request: a UCP shop's webhooks need a worker."""
    CommerceConfig.objects.update_or_create(pk=1, defaults={"ucp_enabled": True})
    assert "agents_protocol.W005" not in ids(run_checks(databases=["default"]))  # the site's database backend

    settings.TASKS = {"default": {"BACKEND": IMMEDIATE_BACKEND}}
    (warning,) = [m for m in run_checks(databases=["default"]) if m.id == "agents_protocol.W005"]
    assert "never retried" in warning.msg

    CommerceConfig.objects.filter(pk=1).update(ucp_enabled=False, acp_enabled=True)  # ACP's order webhooks too
    assert "agents_protocol.W005" in ids(run_checks(databases=["default"]))

    CommerceConfig.objects.filter(pk=1).update(acp_enabled=False)
    assert "agents_protocol.W005" not in ids(run_checks(databases=["default"]))
