"""The ACP product feed (documents/acp_feed.py): `manage.py acp_feed_export` and /acp/feed/, valid
against the spec's schema.feed.json, and exported in memory that does not grow with the catalog."""
import json
import tracemalloc
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from agents_protocol.core.provider import CallContext, ItemPage, ShopProvider
from agents_protocol.documents.acp_feed import product_lines
from bench.synthetic_catalog import grow_catalog
from catalog.demo import load_demo_catalog
from catalog.models import Product

pytestmark = pytest.mark.django_db

SCHEMA_FILE = Path(__file__).parent / "data/acp/schema.feed.json"
ORIGIN = "https://shop.example"


def validator(definition):
    """A validator of the schema's $defs/`definition`, URI formats checked."""
    bundle = json.loads(SCHEMA_FILE.read_text())
    registry = Registry().with_resource(bundle["$id"], Resource.from_contents(bundle))
    return Draft202012Validator({"$ref": f"{bundle['$id']}#/$defs/{definition}"}, registry=registry,
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def assert_valid(definition, document):
    errors = [f"{list(error.absolute_path)}: {error.message}" for error in validator(definition).iter_errors(document)]
    assert not errors, errors


def export(directory):
    call_command("acp_feed_export", str(directory), "--origin", ORIGIN, stdout=open("/dev/null", "w"))
    lines = (directory / "products.jsonl").read_text().splitlines()
    return json.loads((directory / "metadata.json").read_text()), [json.loads(line) for line in lines]


def test_the_demo_catalog_exports_as_a_valid_feed(tmp_path):
    load_demo_catalog()

    metadata, products = export(tmp_path)

    assert_valid("FeedMetadata", metadata)
    assert metadata["id"] == "acme-ceramics"
    for product in products:
        assert_valid("Product", product)
    assert_valid("ProductsResponse", {"products": products})
    listed = Product.objects.active().filter(variant_of=None)
    assert sorted(product["id"] for product in products) == sorted(listed.values_list("public_id", flat=True))


def test_variants_are_the_items_checkout_takes_with_prices_in_cents(tmp_path):
    load_demo_catalog()
    parent = Product.objects.filter(variants__isnull=False).distinct().first()
    single = Product.objects.active().filter(variant_of=None, variants__isnull=True).first()

    _, products = export(tmp_path)
    by_id = {product["id"]: product for product in products}

    variants = {variant["id"]: variant for variant in by_id[parent.public_id]["variants"]}
    assert set(variants) == set(parent.variants.active().values_list("public_id", flat=True))
    some = parent.variants.active().first()
    assert variants[some.public_id]["price"] == {"amount": int(some.price * 100), "currency": "USD"}
    assert variants[some.public_id]["variant_options"] == [
        {"name": name, "value": value} for name, value in some.variant_attributes.items()]
    [own] = by_id[single.public_id]["variants"]
    assert own["id"] == single.public_id
    assert own["availability"] == {"available": single.stock > 0,
                                   "status": "in_stock" if single.stock > 0 else "out_of_stock"}
    assert by_id[single.public_id]["url"] == f"{ORIGIN}{single.get_absolute_url()}"
    assert own["seller"] == {"name": "Acme Ceramics"}


def test_inactive_products_and_variants_are_left_out(tmp_path):
    load_demo_catalog()
    parent = Product.objects.filter(variants__isnull=False).distinct().first()
    hidden_variant = parent.variants.first()
    hidden_variant.is_active = False
    hidden_variant.save()
    hidden = Product.objects.filter(variant_of=None).exclude(pk=parent.pk).first()
    hidden.is_active = False
    hidden.save()

    _, products = export(tmp_path)

    ids = {product["id"] for product in products}
    assert hidden.public_id not in ids
    [listed] = [product for product in products if product["id"] == parent.public_id]
    assert hidden_variant.public_id not in {variant["id"] for variant in listed["variants"]}


def test_the_command_needs_an_absolute_origin(tmp_path):
    with pytest.raises(CommandError, match="--origin"):
        call_command("acp_feed_export", str(tmp_path))


def test_the_feed_url_is_off_unless_the_setting_turns_it_on(client, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "ACP_PRODUCT_FEED": False}

    answer = client.get("/acp/feed/products.jsonl")

    assert answer.status_code == 404
    assert answer.json()["code"] == "not_found"


def test_the_feed_url_streams_the_same_feed(client, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "ACP_PRODUCT_FEED": True}
    load_demo_catalog()

    answer = client.get("/acp/feed/products.jsonl")
    metadata = client.get("/acp/feed/metadata.json")

    assert answer.status_code == 200 and answer.streaming
    assert answer["Content-Type"] == "application/jsonl; charset=utf-8"
    products = [json.loads(line) for line in b"".join(answer.streaming_content).decode().splitlines()]
    assert len(products) == Product.objects.active().filter(variant_of=None).count()
    for product in products:
        assert_valid("Product", product)
        assert product["url"].startswith("http://testserver/")
    assert_valid("FeedMetadata", metadata.json())
    assert client.post("/acp/feed/products.jsonl").status_code == 405
    assert client.get("/acp/feed/other.json").status_code == 404


class BrowsingProvider(ShopProvider):
    """A provider with only browse and item_detail, over `count` items."""

    def __init__(self, count):
        self.items = [{"id": f"i{n}", "name": f"Item {n}", "price": Decimal("2.50"), "currency": "EUR",
                       "in_stock": n % 2 == 0, "url": f"{ORIGIN}/items/{n}"} for n in range(count)]

    def browse(self, context, *, category, sort, page, limit):
        return ItemPage(self.items[(page - 1) * limit:page * limit], len(self.items))

    def item_detail(self, context, *, item_id):
        return {**next(item for item in self.items if item["id"] == item_id), "description": "Glazed."}


def test_a_provider_with_browse_and_detail_has_a_feed():
    provider = BrowsingProvider(250)

    lines = list(product_lines(provider.catalog_items(CallContext(None, ORIGIN)), "Shop"))

    products = [json.loads(line) for line in lines]
    assert [product["id"] for product in products] == [f"i{n}" for n in range(250)]
    for product in products[:3]:
        assert_valid("Product", product)
    assert products[1]["variants"][0]["price"] == {"amount": 250, "currency": "EUR"}
    assert products[1]["variants"][0]["availability"]["available"] is False
    assert products[0]["description"] == {"plain": "Glazed."}


def peak_bytes_exporting(directory):
    tracemalloc.start()
    try:
        call_command("acp_feed_export", str(directory), "--origin", ORIGIN, stdout=open("/dev/null", "w"))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_export_memory_does_not_grow_with_the_catalog(tmp_path):
    grow_catalog(5000)
    small = peak_bytes_exporting(tmp_path)
    grow_catalog(20000)
    large = peak_bytes_exporting(tmp_path)

    assert sum(1 for _ in (tmp_path / "products.jsonl").open()) == 20000
    # Four times the products: a feed held in memory would take four times as much.
    assert large < small * 1.3, (small, large)
