"""The shop's fixed statements run on the DB-API connection (catalog/rows.run_statement), as
Django's cursor would run them: the same placeholders, the same errors, inside the transaction
that is open, refused in a broken one, and through Django's cursor while Django records queries
or runs execute wrappers. (On PostgreSQL the same statements run in tests/test_scale_out.py's
cart flows.)"""
import pytest
from django.db import DatabaseError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from cart import selectors, services
from catalog.models import Product
from catalog.read_cache import catalog_version
from catalog.rows import all_rows, changed_rows, first_row, run_statement
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db

PLACEHOLDERS = "SELECT %s, '100%%', %s"


def cursor_not_expected():
    raise AssertionError("ran through Django's cursor")


def test_statements_skip_djangos_cursor(monkeypatch):
    monkeypatch.setattr(connection, "cursor", cursor_not_expected)
    assert run_statement(PLACEHOLDERS, [7, "x"], first_row) == (7, "100%", "x")
    assert len(catalog_version()) == 32


def test_while_django_records_queries_the_statement_is_recorded_with_the_same_answer():
    with CaptureQueriesContext(connection) as captured:
        assert run_statement(PLACEHOLDERS, [7, "x"], all_rows) == [(7, "100%", "x")]
    assert len(captured.captured_queries) == 1


def test_an_execute_wrapper_sees_the_statement():
    seen = []

    def note(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        catalog_version()
    assert seen == ["SELECT token FROM catalog_version"]


def test_an_error_is_djangos_database_error():
    with pytest.raises(DatabaseError) as failure:
        run_statement("SELECT nothing FROM no_such_table", (), first_row)
    assert type(failure.value).__module__ == "django.db.utils"


def test_a_transaction_marked_for_rollback_refuses_the_statement():
    with transaction.atomic():
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError):
            run_statement(PLACEHOLDERS, [7, "x"], first_row)


def test_a_change_inside_atomic_rolls_back_with_it():
    product = make_product(stock=5)
    with transaction.atomic():
        changed = run_statement("UPDATE catalog_product SET stock = %s WHERE id = %s", [9, product.pk], changed_rows)
        assert changed == 1
        assert Product.objects.get(pk=product.pk).stock == 9  # the same transaction sees it
        transaction.set_rollback(True)
    assert Product.objects.get(pk=product.pk).stock == 5


def test_the_cart_statements_run_through_it(monkeypatch):
    session = make_agent_session()
    product = make_product(stock=10)
    assert services.add_item(session, product.public_id, 2) == 2  # creates the cart and the line (ORM)
    cart = selectors.find_open_cart(session)
    monkeypatch.setattr(connection, "cursor", cursor_not_expected)  # atomic()'s savepoints would use it
    assert services._claim_cart(cart) is cart  # rowcount 1
    assert services._increment_line(cart, product, 3, limit=20) == 5  # UPDATE … RETURNING
    assert services._increment_line(cart, product, 30, limit=20) is None  # past the limit: no row
    assert selectors.find_open_cart(session).pk == cart.pk
    view = selectors.view_cart(session)
    assert [(item.item_id, item.quantity) for item in view.items] == [(product.public_id, 5)]
