"""Parallel cart.add calls of one session over HTTP: the stock holds, one basket is made."""
import threading

from oscar.core.loading import get_model

from agents_protocol.contrib.oscar.models import AgentBasket
from pottery.tests.helpers import ShopTestCase

Basket = get_model("basket", "Basket")
PARALLEL = 20


def call_at_once(count, call):
    """Run `call()` in `count` threads released together; the answers in no particular order."""
    barrier = threading.Barrier(count)
    answers, lock = [], threading.Lock()

    def worker():
        barrier.wait()
        answer = call()
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


class ParallelAddTests(ShopTestCase):
    def test_twenty_parallel_first_adds_on_a_stock_of_nine_accept_exactly_nine(self):
        agent = self.new_agent()  # its basket does not exist yet: every call races to create it
        answers = call_at_once(PARALLEL, lambda: agent.call("cart.add", item_id="MUG-CEL-S", quantity=1))

        self.assertEqual(len(answers), PARALLEL)
        accepted = [answer for answer in answers if answer.status == 200]
        refused = [answer for answer in answers if answer.status != 200]
        self.assertEqual(len(accepted), 9, [a.body for a in refused if a.status != 400])
        for answer in refused:
            answer.error(400, "insufficient_stock")
        self.assertEqual(sorted(answer.data()["quantity"] for answer in accepted), list(range(1, 10)))
        (link,) = AgentBasket.objects.all()
        self.assertEqual([(line.product.upc, line.quantity) for line in link.basket.lines.all()], [("MUG-CEL-S", 9)])
        self.assertEqual(Basket.objects.count(), 1)
        self.assertEqual(agent.call("cart.view").data()["total_quantity"], 9)
