"""Shop staff change what agents may do in this shop's Django admin; agents see it at once."""
from django.contrib.auth.models import User
from django.test import TestCase

from agents_protocol.models import Capability
from agents_protocol.testing import AgentClient, reset_config_cache, reset_rate_limits
from store.models import Item

PASSWORD = "a-long-test-password-1234"


def change_form(capability, **changes):
    """The admin change form of `capability` as the browser posts it, with its parameter inline."""
    params = list(capability.params.all())
    data = {
        "name": capability.name,
        "description": capability.description,
        "endpoint": capability.endpoint,
        "method": capability.method,
        "position": str(capability.position),
        "params-TOTAL_FORMS": str(len(params)),
        "params-INITIAL_FORMS": str(len(params)),
        "params-MIN_NUM_FORMS": "0",
        "params-MAX_NUM_FORMS": "1000",
    }
    for flag in ("requires_session", "human_handoff", "enabled"):
        if getattr(capability, flag):
            data[flag] = "on"
    for index, param in enumerate(params):
        prefix = f"params-{index}-"
        data.update({
            f"{prefix}id": str(param.pk), f"{prefix}capability": str(capability.pk),
            f"{prefix}position": str(param.position), f"{prefix}name": param.name, f"{prefix}type": param.type,
            f"{prefix}description": param.description, f"{prefix}default": "", f"{prefix}enum": "",
            f"{prefix}items": "",
        })
        if param.required:
            data[f"{prefix}required"] = "on"
    for name, value in changes.items():
        if value is False:
            data.pop(name, None)
        else:
            data[name] = value
    return data


class AdminTests(TestCase):
    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        User.objects.create_superuser("staff", "staff@northwind.example", PASSWORD)
        response = self.client.post("/admin/login/", {"username": "staff", "password": PASSWORD, "next": "/admin/"})
        self.assertRedirects(response, "/admin/")
        self.agent = AgentClient()  # in-process, through Django's test Client

    def change_url(self, capability):
        return f"/admin/agents_protocol/capability/{capability.pk}/change/"

    def published_names(self):
        return [c["name"] for c in AgentClient().document["capabilities"]]

    def test_the_admin_lists_the_agent_configuration_beside_the_shops_own_models(self):
        index = self.client.get("/admin/")
        self.assertContains(index, "/admin/agents_protocol/capability/")
        self.assertContains(index, "/admin/store/item/")
        capabilities = self.client.get("/admin/agents_protocol/capability/")
        self.assertContains(capabilities, "availability")

    def test_disabling_a_capability_unpublishes_and_unroutes_it(self):
        cart_view = Capability.objects.get(name="cart.view")
        self.assertIn("cart.view", self.published_names())
        response = self.client.post(self.change_url(cart_view), change_form(cart_view, enabled=False))
        self.assertRedirects(response, "/admin/agents_protocol/capability/")
        self.assertNotIn("cart.view", self.published_names())
        self.agent.start_session()
        self.agent.request("GET", "/.well-known/agents/api/cart/view").error(404, "not_found")

    def test_editing_the_shops_own_capability_with_its_parameter(self):
        availability = Capability.objects.get(name="availability")
        form = change_form(availability, description="Stock and shipping time of one item",
                           endpoint="/.well-known/agents/api/stock/:item_id")
        self.assertRedirects(self.client.post(self.change_url(availability), form),
                             "/admin/agents_protocol/capability/")
        declared = AgentClient().capability("availability")
        self.assertEqual((declared["description"], declared["endpoint"]),
                         ("Stock and shipping time of one item", "/.well-known/agents/api/stock/:item_id"))
        Item.objects.create(sku="BW-2", title="Mixing bowl", department="bowls", unit_price_cents=2900,
                            quantity_on_hand=1)
        self.assertEqual(AgentClient().call("availability", item_id="BW-2").data()["in_stock"], True)

    def test_a_change_that_would_break_agents_json_is_refused(self):
        checkout = Capability.objects.get(name="checkout")
        response = self.client.post(self.change_url(checkout), change_form(checkout, enabled=False))
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "Flow purchase uses this capability")
        self.assertTrue(Capability.objects.get(name="checkout").enabled)
        self.assertIn("checkout", self.published_names())
