"""Real threads against the real database: quantity changes and checkout stay exact."""
import threading

import pytest
from django.db import connection

from cart import services
from cart.models import CartLine, Order
from cart.services import CartError
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 20


def run_concurrently(task, count):
    """Run `task()` in `count` threads released together; return results and CartErrors."""
    barrier = threading.Barrier(count)
    results, errors = [], []
    lock = threading.Lock()

    def worker():
        try:
            barrier.wait()
            result = task()
            with lock:
                results.append(result)
        except CartError as error:
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors


def test_concurrent_adds_all_count(settings):
    settings.CART_MAX_QUANTITY = 100
    agent_session = make_agent_session()
    make_product(public_id="mug", stock=100)

    results, errors = run_concurrently(lambda: services.add_item(agent_session, "mug", 1), THREADS)

    assert errors == []
    assert len(results) == THREADS
    assert CartLine.objects.get().quantity == THREADS


def test_concurrent_adds_stop_exactly_at_the_maximum(settings):
    settings.CART_MAX_QUANTITY = 7
    agent_session = make_agent_session()
    make_product(public_id="mug", stock=100)

    results, errors = run_concurrently(lambda: services.add_item(agent_session, "mug", 1), THREADS)

    assert CartLine.objects.get().quantity == 7
    assert len(results) == 7
    assert {error.code for error in errors} == {"quantity_above_maximum"}
    assert len(errors) == THREADS - 7


def test_concurrent_adds_stop_exactly_at_the_stock(settings):
    settings.CART_MAX_QUANTITY = 100
    agent_session = make_agent_session()
    make_product(public_id="mug", stock=5)

    results, errors = run_concurrently(lambda: services.add_item(agent_session, "mug", 1), THREADS)

    assert CartLine.objects.get().quantity == 5
    assert {error.code for error in errors} == {"insufficient_stock"}
    assert len(errors) == THREADS - 5


def test_racing_checkouts_make_exactly_one_order():
    agent_session = make_agent_session()
    make_product(public_id="mug", stock=10)
    services.add_item(agent_session, "mug", 2)

    results, errors = run_concurrently(lambda: services.start_checkout(agent_session), 2)

    assert len(results) == 1
    assert Order.objects.count() == 1
    assert len(errors) == 1
    assert errors[0].code in {"cart_empty", "cart_not_open"}
    (order, _token), = results
    assert order.lines.get().quantity == 2
