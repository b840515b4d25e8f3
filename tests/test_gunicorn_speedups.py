"""acme.gunicorn_speedups, the site's opt-in tuning of gunicorn: the Date header once a second
and the forwarding check once per client address give gunicorn's own answers, in process and
from a live worker (deploy/gunicorn.conf.py names the worker class that installs them when
GUNICORN_SPEEDUPS=1)."""
import ipaddress
import runpy
import time
from email.utils import parsedate_to_datetime

import pytest
import requests
from gunicorn import glogging, util
from gunicorn.config import Config
from gunicorn.http import message

from acme import gunicorn_speedups as speedups
from acme.log_redaction import GunicornLogger
from agents_protocol.contrib.gunicorn import workers
from tests.servers import ROOT, migrate, serve_site, site_env


@pytest.fixture
def clock(monkeypatch):
    """time.time() as the test sets it."""
    now = [1_795_000_000.25]
    monkeypatch.setattr(time, "time", lambda: now[0])  # the module speedups and log_redaction read it from
    return now


def test_the_date_header_is_gunicorns_and_changes_with_the_second(clock):
    first = speedups.date_header()
    assert first == speedups.GUNICORN_HTTP_DATE(clock[0])
    clock[0] += 0.7  # same second
    assert speedups.date_header() == first
    clock[0] += 0.1  # the next one
    assert speedups.date_header() == speedups.GUNICORN_HTTP_DATE(clock[0]) != first


def test_a_given_time_is_formatted_as_gunicorn_formats_it():
    assert speedups.date_header(86_400.5) == speedups.GUNICORN_HTTP_DATE(86_400.5) == "Fri, 02 Jan 1970 00:00:00 GMT"


ALLOW_LISTS = [["127.0.0.1", "::1"], ["10.0.0.0/8", "2001:db8::/32"], ["*"], []]
ADDRESSES = ["127.0.0.1", "::1", "10.1.2.3", "11.0.0.1", "2001:db8::7", "2001:db9::7", "not an address", ""]


@pytest.mark.parametrize("allow_list", ALLOW_LISTS)
def test_the_forwarding_check_answers_as_gunicorns_for_every_address(allow_list):
    networks = [ipaddress.ip_network(entry) for entry in allow_list if entry != "*"]
    for address in ADDRESSES * 2:  # the second pass answers from memory
        expected = speedups.GUNICORN_ALLOW_LIST_CHECK(address, allow_list, networks)
        assert speedups.address_in_allow_list(address, allow_list, networks) is expected, address


def test_the_check_remembers_per_configuration_not_only_per_address():
    assert speedups.address_in_allow_list("10.1.2.3", ["10.0.0.0/8"], [ipaddress.ip_network("10.0.0.0/8")])
    assert not speedups.address_in_allow_list("10.1.2.3", ["127.0.0.1"], [ipaddress.ip_network("127.0.0.1/32")])


def test_gunicorns_requests_use_the_installed_functions(monkeypatch):
    monkeypatch.setattr(util, "http_date", util.http_date)
    monkeypatch.setattr(message, "_ip_in_allow_list", message._ip_in_allow_list)
    speedups.install()
    assert util.http_date is speedups.date_header
    assert message._ip_in_allow_list is speedups.address_in_allow_list


def test_the_opt_in_names_the_apps_worker_with_the_speedups(monkeypatch):
    shipped = Config()
    for opted_in, expected in [("", workers.SyncWorker), ("1", speedups.SyncWorker)]:
        monkeypatch.setenv("GUNICORN_SPEEDUPS", opted_in)
        settings = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
        shipped.set("worker_class", settings["worker_class"])
        assert shipped.worker_class is expected
    assert issubclass(speedups.SyncWorker, workers.SyncWorker)
    assert issubclass(speedups.ThreadWorker, workers.ThreadWorker)


def test_the_access_logs_time_is_gunicorns():
    logger = GunicornLogger(Config())
    for _ in range(3):  # two reads of the clock can straddle a second; three cannot all do so
        ours, gunicorns = logger.now(), glogging.Logger.now(logger)
        if ours == gunicorns:
            return
    pytest.fail(f"{ours} != {gunicorns}")


def test_the_access_logs_time_changes_with_the_second(clock):
    logger = GunicornLogger(Config())
    first = logger.now()
    assert first == time.strftime("[%d/%b/%Y:%H:%M:%S %z]", time.localtime(clock[0]))
    clock[0] += 0.7
    assert logger.now() == first
    clock[0] += 0.1
    assert logger.now() == time.strftime("[%d/%b/%Y:%H:%M:%S %z]", time.localtime(clock[0])) != first


@pytest.fixture(scope="module")
def live_site(tmp_path_factory):
    """The shipped config, opted in, twice: trusting the loopback's forwarding headers (gunicorn's
    default), and not."""
    env = site_env(tmp_path_factory.mktemp("speedups"), GUNICORN_SPEEDUPS="1")
    migrate(env)
    trusting = serve_site(env, workers=1)
    distrusting = serve_site({**env, "FORWARDED_ALLOW_IPS": "192.0.2.1"}, workers=1)
    yield trusting, distrusting
    trusting.stop()
    distrusting.stop()


def test_a_live_worker_dates_its_answers_now(live_site):
    trusting, _ = live_site
    for _ in range(3):
        answer = requests.get(f"{trusting.url}/.well-known/agents.txt", timeout=10)
        assert abs(parsedate_to_datetime(answer.headers["Date"]).timestamp() - time.time()) < 5
        time.sleep(0.6)


def test_a_live_worker_honours_forwarding_headers_from_trusted_peers_only(live_site):
    trusting, distrusting = live_site
    forwarded = {"X-Forwarded-Proto": "https"}
    for _ in range(2):  # the second request of each is checked from memory
        trusted = requests.get(f"{trusting.url}/.well-known/agents.json", headers=forwarded, timeout=10).json()
        refused = requests.get(f"{distrusting.url}/.well-known/agents.json", headers=forwarded, timeout=10).json()
        assert trusted["site"]["url"].startswith("https://"), trusted["site"]
        assert refused["site"]["url"].startswith("http://"), refused["site"]
