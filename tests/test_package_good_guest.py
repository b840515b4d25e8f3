"""A good guest: the shop's own pages, admin and static files run no query of agents_protocol.

Only the agent paths (all under /.well-known/, and the MCP server's /mcp) and the documents read the
agent configuration.
"""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import make_product

pytestmark = pytest.mark.django_db
APP_TABLES = "agents_protocol_"


def app_queries(client, path):
    """The SQL statements touching the app's tables while `client` GETs `path`, and the answer."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    return [query["sql"] for query in captured.captured_queries if APP_TABLES in query["sql"]], response


@pytest.mark.parametrize("path", ["/", "/products/mug/", "/static/no-such-file.css", "/no-such-page/",
                                  "/admin/login/", "/.well-known-not/agents.json", "/mcp/", "/mcpx"])
def test_the_shops_pages_run_no_query_of_the_app(client, path):
    make_product(public_id="mug", slug="mug")
    queries, _ = app_queries(client, path)
    assert queries == []


def test_the_admin_index_and_the_shops_own_admin_pages_run_no_query_of_the_app(admin_client):
    for path in ["/admin/", "/admin/catalog/product/"]:
        queries, response = app_queries(admin_client, path)
        assert response.status_code == 200
        assert queries == [], path


@pytest.mark.parametrize("path", ["/.well-known/agents.json", "/.well-known/agents/api/search?q=mug",
                                  "/.well-known/agents/api/teleport", "/mcp"])
def test_agent_paths_do_read_the_configuration(client, path):
    """The counter can see the app's queries: the agent paths read the configuration's revision."""
    queries, _ = app_queries(client, path)
    assert any("agents_protocol_configrevision" in sql for sql in queries)
