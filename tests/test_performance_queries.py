"""Database queries per agent request are a constant: the same count whatever the size of the
catalog or of the cart (counts, never timings; the timings are `make bench`'s job).

Each call goes through the whole stack (Django's test client): the configuration revision
check, session lookup, the handler, and the audit event of a session's call are all counted.
The test database wraps each test in a transaction, so every atomic block in the request
shows up as a savepoint and its release: those count too.
"""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents_protocol.core.models import AgentSession

from cart import selectors, services
from tests.factories import make_agent_session, make_category, make_product

pytestmark = pytest.mark.django_db

API = "/.well-known/agents/api"


def catalog(size):
    mugs = make_category(name="Mugs", slug="mugs")
    return [make_product(name=f"Celadon Mug {n}", public_id=f"mug-{n}", category=mugs) for n in range(size)]


def warm(client, path):
    """The first request of a worker loads the configuration snapshot; measure the next ones."""
    assert client.get(path).status_code == 200


def bearer(session):
    return {"HTTP_AUTHORIZATION": f"Bearer {session.raw_token}"}


def test_agents_json_when_warm_reads_only_the_configuration_revision(client, django_assert_num_queries):
    warm(client, "/.well-known/agents.json")
    with django_assert_num_queries(1):
        assert client.get("/.well-known/agents.json").status_code == 200
    with django_assert_num_queries(1):
        assert client.get("/.well-known/agents.txt").status_code == 200


@pytest.mark.parametrize("size", [3, 40])
@pytest.mark.parametrize("path, queries", [
    # revision + one ranked search statement + what the page's products with variants offer
    (f"{API}/search?q=celadon+mug&limit=20", 3),
    # revision + page + count + variants
    (f"{API}/browse?limit=20", 4),
    # revision + category + page + count + variants
    (f"{API}/browse?category=mugs&sort=price_asc&limit=20", 5),
    # revision + product with its category
    (f"{API}/detail/mug-2", 2),
])
def test_catalog_reads_do_not_grow_with_the_catalog(client, django_assert_num_queries, settings, size, path,
                                                    queries):
    settings.CATALOG_READ_CACHE_SIZE = 0  # every read asks the database
    catalog(size)
    warm(client, path)
    with django_assert_num_queries(queries):
        response = client.get(path)
    assert response.status_code == 200, response.content


@pytest.mark.parametrize("size", [3, 40])
@pytest.mark.parametrize("path", [f"{API}/search?q=celadon+mug&limit=20", f"{API}/browse?limit=20",
                                  f"{API}/browse?category=mugs&sort=price_asc&limit=20", f"{API}/detail/mug-2"])
def test_repeated_catalog_reads_check_two_versions(client, django_assert_num_queries, size, path):
    catalog(size)
    warm(client, path)
    with django_assert_num_queries(2):  # the configuration's revision, the catalog's version
        response = client.get(path)
    assert response.status_code == 200, response.content


@pytest.fixture
def shopper():
    return make_agent_session(audited=True)


def fill_cart(client, session, products):
    for product in products:
        response = client.post(f"{API}/cart/add", {"item_id": product.public_id, "quantity": 1},
                               content_type="application/json", **bearer(session))
        assert response.status_code == 200, response.content


# Audit event of a session's call: move the chain head to the event, insert the event. (The append
# joins the transaction it finds, here the test's, or cart.add's own, so no savepoint of its own.)
AUDIT = 2


@pytest.mark.parametrize("lines", [1, 10])
def test_cart_view_does_not_grow_with_the_cart(client, django_assert_num_queries, shopper, lines):
    fill_cart(client, shopper, catalog(10)[:lines])
    # revision + session + the open cart's lines with their products + audit
    with django_assert_num_queries(3 + AUDIT):
        response = client.get(f"{API}/cart/view", **bearer(shopper))
    assert len(response.json()["data"]["items"]) == lines


@pytest.mark.parametrize("lines", [1, 10])
def test_cart_add_does_not_grow_with_the_cart(client, django_assert_num_queries, shopper, lines):
    products = catalog(11)
    fill_cart(client, shopper, products[:lines])
    # revision + session
    # + add_item: savepoint, the catalog's version and the product (read cache), claim the open cart,
    #   add to the line, line exists?, insert the line (in its own savepoint: 3), release
    # + audit, the cart view of the answer and the cart the agent was shown, kept for the next
    #   answer's notices (core/cart_notices.py): all inside add_item's transaction
    with django_assert_num_queries(2 + 10 + 1 + AUDIT + 1):
        response = client.post(f"{API}/cart/add", {"item_id": products[10].public_id, "quantity": 1},
                               content_type="application/json", **bearer(shopper))
    assert response.json()["data"]["cart_size"] == lines + 1


WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path, method", [("cart/add", "post"), ("cart/update", "put"), ("cart/remove", "delete")])
def test_a_cart_change_writes_in_one_transaction(client, path, method):
    """SQLite has one writer: a cart change, its audit event and the cart the agent is shown
    take the write lock once (a second write transaction cost cart.add 40% of its throughput)."""
    product, shopper = catalog(1)[0], make_agent_session(audited=True)
    fill_cart(client, shopper, [product])
    body = {"item_id": product.public_id, **({"quantity": 3} if path == "cart/update" else {})}
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(f"{API}/{path}", body, content_type="application/json", **bearer(shopper))
    assert response.status_code == 200, response.content
    statements = [query["sql"].lstrip().split(None, 1)[0].upper() for query in captured.captured_queries]
    assert statements.count("BEGIN") == 1, statements
    inside = statements[statements.index("BEGIN"):statements.index("COMMIT")]
    assert [s for s in statements if s in WRITES] == [s for s in inside if s in WRITES], statements
    assert AgentSession.objects.get(pk=shopper.pk).shown_cart is not None


@pytest.mark.parametrize("name", ["OPEN_CART", "OPEN_CART_LINES"])
def test_the_open_cart_reads_use_the_partial_unique_index_whatever_is_bound(name):
    """Their plan must not depend on a bound value: SQLite would compile them again for every
    call (cart/selectors.py). With nothing bound, the plan still finds the open cart by the
    partial index cart_one_open_per_session."""
    sql = getattr(selectors, name)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", {"session": None})
        plan = " | ".join(row[-1] for row in cursor.fetchall())
    assert "SEARCH c USING INDEX cart_one_open_per_session (agent_session_id=?)" in plan, plan


def test_cart_add_claims_the_open_cart_by_the_partial_unique_index():
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {services.CLAIM_SESSION_CART}", {"session": None, "updated": None})
        plan = " | ".join(row[-1] for row in cursor.fetchall())
    assert "USING INDEX cart_one_open_per_session (agent_session_id=?)" in plan, plan
