"""The demo's notes for agents, published in llms.txt (the site profile's agent_notes, which the
first migrate fills from AGENTS_PROTOCOL["DEFAULT_SITE"]; staff edit them in admin from then on).
docs/agent-testing.md says the same for developers; catalog/scenarios.py and cart/scenarios.py
make it true."""

AGENT_NOTES = """\
**Scenarios for testing your agent** (a demo shop: nothing is charged or shipped; the developer guide is at /developers/)

- `test-sold-out-mug` is always out of stock: `cart.add` answers 400 `insufficient_stock`.
- `test-last-one-vase` has a stock of one: the first checkout its human confirms takes it; after that `cart.add`, \
and `checkout` of a cart holding it, answer 400 `insufficient_stock`.
- `test-price-change-bowl` is listed at 30.00 and costs 36.00 once it is in your cart: the cart and the human's \
page show 36.00, and the `checkout` answer's `notices` tell you the price changed.
- `test-tumbler` comes in `test-tumbler-blue` and `test-tumbler-discontinued`; the second is discontinued once it \
is in your cart: `cart.view` shows it unavailable, its `detail` answers 404, `checkout` answers 400 \
`insufficient_stock` until you remove it.
- `detail` of a test piece (of `test-tumbler` for its variant) puts it back in this state, unless your own cart, \
or an order of yours its human has not confirmed yet, holds it; other agents share these pieces. Send your \
session token with `detail` while you play a scenario: without it the shop cannot see your cart.
- An `agent_name` containing `sandbox:expired-checkout` gets checkout links that have already expired: the human \
page answers 410 and `order.status` says `expired`.
- Test cards for your human on the checkout page: blank or `4242 4242 4242 4242` approves (`order.status` \
`confirmed`), `4000 0000 0000 0002` is declined (`declined`), `4000 0000 0000 3063` stays pending (`pending`).
- Nothing here lasts: ended sessions, old carts and orders are deleted after their retention."""
