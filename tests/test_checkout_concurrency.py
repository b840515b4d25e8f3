"""Racing humans against gunicorn with several worker processes, over real HTTP.

A link submitted many times at once confirms its order once; several handoffs that
compete for the last unit end with exactly one confirmed order and nothing oversold, on
SQLite and on PostgreSQL, where the one that waited for the unit's row lock is told it sold out.
"""
import threading

import pytest
import requests

from tests.api_client import API, ok_data
from tests.servers import start_site
from tests.test_checkout_pages import DETAILS, TIMEOUT, Human, agent_checkout

CREATE_JAR = """
from decimal import Decimal
from catalog.models import Category, Product
vases = Category.objects.create(name="Vases", slug="vases")
Product.objects.create(public_id="last-jar", name="Last Moon Jar", slug="last-jar", category=vases,
                       price=Decimal("235.00"), currency="USD", stock={stock})
"""
# Shell scripts below start with it: PostgreSQL says when a transaction waits for another's lock.
WAITING_FOR_A_LOCK = """
import time
from django.db import connection

def wait_until_a_transaction_waits_for_a_lock():
    with connection.cursor() as cursor:
        for _ in range(600):
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)
    raise SystemExit("no transaction ever waited for a lock")
"""
# Two humans confirm two orders of the last jar on PostgreSQL: the first takes the unit and holds
# its row lock while its payment is charged; the second is let go on once it waits for that lock.
RACE_FOR_THE_LAST_JAR = WAITING_FOR_A_LOCK + """
import threading, time
from django.db import connection
from cart.models import Order
from cart.payments import Customer, DemoPaymentBackend
from cart.services import HandoffError, confirm_order

class HeldApproval(DemoPaymentBackend):
    charging, release = threading.Event(), threading.Event()
    def charge(self, order, customer):
        self.charging.set()
        self.release.wait(60)
        return super().charge(order, customer)

customer, outcomes = Customer("Ada Lovelace", "ada@example.com", "12 Analytical Row"), {}

def confirm(name, order, backend):
    try:
        confirm_order(order, customer, backend=backend)
        outcomes[name] = "confirmed"
    except HandoffError as refusal:
        outcomes[name] = f"{refusal.status} {refusal}"
    except Exception as error:
        outcomes[name] = repr(error)
    finally:
        connection.close()

first, second = Order.objects.order_by("pk")
held = threading.Thread(target=confirm, args=("first", first, HeldApproval()))
held.start()
assert HeldApproval.charging.wait(60)
waiting = threading.Thread(target=confirm, args=("second", second, DemoPaymentBackend()))
waiting.start()
wait_until_a_transaction_waits_for_a_lock()
HeldApproval.release.set()
held.join()
waiting.join()
print(outcomes["first"])
print(outcomes["second"])
"""
CREATE_TWO_JARS = """
from decimal import Decimal
from catalog.models import Category, Product
vases = Category.objects.create(name="Vases", slug="vases")
for public_id in ("jar-one", "jar-two"):
    Product.objects.create(public_id=public_id, name=public_id, slug=public_id, category=vases,
                           price=Decimal("40.00"), currency="USD", stock=5)
"""
# Two humans confirm at once on PostgreSQL: the first order holds both jars, the second one of
# them. The first pauses after taking its first jar until the second waits for a lock, then
# goes on to its second jar, the one the second order holds too.
CONFIRM_TOGETHER = WAITING_FOR_A_LOCK + """
import threading, time
from django.db import connection
from cart import services
from cart.models import Order
from cart.payments import Customer, DemoPaymentBackend

take_line_stock = services._take_line_stock
first_jar_taken, go_on = threading.Event(), threading.Event()

def pausing_after_the_first_jar(line):
    taken = take_line_stock(line)
    if threading.current_thread().name == "both-jars" and not first_jar_taken.is_set():
        first_jar_taken.set()
        go_on.wait(60)
    return taken

services._take_line_stock = pausing_after_the_first_jar
customer, outcomes = Customer("Ada Lovelace", "ada@example.com", "12 Analytical Row"), {}

def confirm(order):
    try:
        services.confirm_order(order, customer, backend=DemoPaymentBackend())
        outcomes[threading.current_thread().name] = "confirmed"
    except Exception as error:
        outcomes[threading.current_thread().name] = repr(error)
    finally:
        connection.close()

both, one = Order.objects.order_by("pk")
first = threading.Thread(target=confirm, args=(both,), name="both-jars")
first.start()
assert first_jar_taken.wait(60)
second = threading.Thread(target=confirm, args=(one,), name="one-jar")
second.start()
wait_until_a_transaction_waits_for_a_lock()
go_on.set()
first.join()
second.join()
print(outcomes["both-jars"])
print(outcomes["one-jar"])
"""
ORDER_STATUSES = "from cart.models import Order; print(sorted(Order.objects.values_list('status', flat=True)))"


@pytest.fixture
def site(tmp_path):
    site = start_site(tmp_path, workers=2)
    yield site
    site.stop()


def create_jar(site, stock):
    result = site.manage("shell", "-v0", "-c", CREATE_JAR.format(stock=stock))
    assert result.returncode == 0, result.stderr


def order_statuses(site):
    result = site.manage("shell", "-v0", "-c", ORDER_STATUSES)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def jar_stock(site):
    return ok_data(requests.get(f"{site.url}{API}/detail/last-jar", timeout=TIMEOUT))["stock"]


def post_together(humans):
    """Every human submits the confirmation form at the same moment; returns the responses in order."""
    barrier = threading.Barrier(len(humans))
    responses = [None] * len(humans)

    def submit(index):
        barrier.wait()
        responses[index] = humans[index].confirm()

    threads = [threading.Thread(target=submit, args=(index,)) for index in range(len(humans))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return responses


def tab_of(human):
    """Another tab of the same browser: same cookies, same CSRF token."""
    tab = Human(human.url)
    tab.http.cookies.update(human.http.cookies)
    tab.csrf = human.csrf
    return tab


def test_one_link_submitted_twelve_times_at_once_confirms_once(site):
    create_jar(site, stock=5)
    handoff, _agent = agent_checkout(site.url, ("last-jar", 2))
    human = Human(handoff["checkout_url"])
    human.open()

    responses = post_together([tab_of(human) for _ in range(12)])

    assert [response.status_code for response in responses] == [200] * 12
    assert all("your order is confirmed" in response.text for response in responses)
    assert all(handoff["order_id"] in response.text for response in responses)
    assert jar_stock(site) == 3
    assert order_statuses(site) == "['confirmed']"


def test_five_handoffs_racing_for_the_last_unit_confirm_exactly_one(site):
    create_jar(site, stock=1)
    humans = []
    for _ in range(5):
        handoff, _agent = agent_checkout(site.url, ("last-jar", 1))
        humans.append(Human(handoff["checkout_url"]))
    for human in humans:
        assert human.open().status_code == 200

    responses = post_together(humans)

    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 409, 409, 409, 409]
    refused = [response for response in responses if response.status_code == 409]
    assert all("Last Moon Jar is sold out and it is the only item in the order: cancel the order." in response.text for response in refused)
    assert jar_stock(site) == 0
    assert order_statuses(site) == "['confirmed', 'pending', 'pending', 'pending', 'pending']"
    assert DETAILS["name"] in next(r for r in responses if r.status_code == 200).text


def test_on_postgresql_the_human_who_waited_for_the_last_unit_is_told_it_sold_out(tmp_path, postgres_server):
    site = start_site(tmp_path, workers=1, DATABASE_URL=postgres_server.create_database("checkout_last_unit"))
    try:
        create_jar(site, stock=1)
        for _ in range(2):
            agent_checkout(site.url, ("last-jar", 1))

        raced = site.manage("shell", "-v0", "-c", RACE_FOR_THE_LAST_JAR)

        assert raced.returncode == 0, raced.stderr
        assert raced.stdout.splitlines() == [
            "confirmed",
            "409 Last Moon Jar is sold out and it is the only item in the order: cancel the order.",
        ]
        assert jar_stock(site) == 0
        assert order_statuses(site) == "['confirmed', 'pending']"
    finally:
        site.stop()


def test_on_postgresql_two_confirmations_sharing_a_product_do_not_deadlock(tmp_path, postgres_server):
    site = start_site(tmp_path, workers=1, DATABASE_URL=postgres_server.create_database("checkout_two_jars"))
    try:
        assert site.manage("shell", "-v0", "-c", CREATE_TWO_JARS).returncode == 0
        agent_checkout(site.url, ("jar-one", 1), ("jar-two", 1))
        agent_checkout(site.url, ("jar-two", 1))

        raced = site.manage("shell", "-v0", "-c", CONFIRM_TOGETHER)

        assert raced.returncode == 0, raced.stderr
        assert raced.stdout.splitlines() == ["confirmed", "confirmed"]
        assert order_statuses(site) == "['confirmed', 'confirmed']"
    finally:
        site.stop()
