"""The quickstarts' rate-limit cache holds the limit through four gunicorn workers (issue 39,
item 5): 200 searches from one address at a limit of 60 are answered 60 times, every other one 429.
One real server, the site with diskcache's DjangoCache as its rate-limit cache."""
import pytest
import requests

from tests.api_client import API
from tests.bursts import assert_exact, burst, fresh_window
from tests.servers import set_rate_limit, start_site

LIMIT = 60


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = start_site(tmp_path_factory.mktemp("quickstart-cache"), workers=4,
                      DJANGO_SETTINGS_MODULE="tests.site_settings_quickstart_cache")
    set_rate_limit(site, LIMIT)
    yield site
    site.stop()


def test_four_workers_refuse_exactly_the_searches_past_the_limit(site):
    search = lambda: requests.get(f"{site.url}{API}/search", params={"q": "mug"}, timeout=30)  # noqa: E731
    remaining = fresh_window(search)
    assert remaining == LIMIT - 1

    assert_exact(burst([search] * 199), allowed=remaining)
