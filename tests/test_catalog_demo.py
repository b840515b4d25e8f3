import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.forms.models import model_to_dict

from catalog import demo_data
from catalog.demo import load_demo_catalog
from catalog.models import Category, Product, public_id_validator

pytestmark = pytest.mark.django_db

PRODUCT_COUNT = len(demo_data.demo_products())
CATEGORY_COUNT = len(demo_data.CATEGORIES)


def catalog_state():
    """Every product and category row as stored, ids and timestamps included."""
    products = {p.public_id: {**model_to_dict(p), "created": p.created} for p in Product.objects.all()}
    categories = {c.slug: model_to_dict(c) for c in Category.objects.all()}
    return products, categories


def catalog_content():
    """The rows without database identity (ids, timestamps), to compare separate loads."""
    products = {
        p.public_id: {**model_to_dict(p, exclude=["id", "category", "variant_of"]), "category": p.category.slug,
                      "variant_of": p.variant_of.public_id if p.variant_of else None}
        for p in Product.objects.select_related("category", "variant_of")
    }
    categories = {c.slug: model_to_dict(c, exclude=["id"]) for c in Category.objects.all()}
    return products, categories


def test_loads_a_full_catalog():
    summary = load_demo_catalog()

    assert Product.objects.active().count() == summary.products == PRODUCT_COUNT >= 60
    assert Category.objects.count() == summary.categories == CATEGORY_COUNT >= 5
    assert (summary.created, summary.updated, summary.unchanged) == (PRODUCT_COUNT, 0, 0)
    assert all(category.products.count() >= 5 for category in Category.objects.all())
    variants = Product.objects.filter(variant_of__isnull=False).select_related("variant_of")
    assert variants and all((v.category_id, v.currency) == (v.variant_of.category_id, v.variant_of.currency)
                            for v in variants)  # as Product.save() files a variant


def test_products_read_like_a_real_shop():
    load_demo_catalog()
    products = list(Product.objects.all())

    for product in products:
        public_id_validator(product.public_id)
        assert product.slug == product.public_id
        assert product.currency == "USD"
        assert Decimal("14.00") <= product.price <= Decimal("240.00")
        assert product.price == product.price.quantize(Decimal("0.01"))
        assert 1 <= len(re.findall(r"[.!?](?:\s|$)", product.description)) <= 3
        assert product.materials and all(isinstance(item, str) for item in product.materials)
        assert product.tags and all(tag == tag.lower() for tag in product.tags)
        assert not product.image

    stocks = [product.stock for product in products]
    assert 3 <= stocks.count(0) <= 6
    assert sum(5 <= stock <= 60 for stock in stocks) >= 0.8 * len(stocks)
    assert len({product.name for product in products}) == len(products)


def test_known_product_has_its_documented_values():
    load_demo_catalog()

    mug = Product.objects.get(public_id="mug-speckled-oat")

    assert mug.name == "Speckled Oat Mug"
    assert mug.price == Decimal("32.00")
    assert mug.category.slug == "mugs"
    assert mug.materials == ["speckled stoneware"]
    assert "speckled" in mug.tags
    assert Product.objects.get(public_id="moon-jar-celadon").stock == 0


def test_second_run_changes_nothing():
    load_demo_catalog()
    before = catalog_state()

    summary = load_demo_catalog()

    assert (summary.created, summary.updated, summary.unchanged) == (0, 0, PRODUCT_COUNT)
    assert catalog_state() == before


def test_rerun_restores_edited_products_and_keeps_their_identity():
    load_demo_catalog()
    before = catalog_state()
    Product.objects.filter(public_id="teapot-tenmoku").update(stock=99, name="Renamed")
    Product.objects.filter(public_id="bud-vase-celadon").update(is_active=False)

    summary = load_demo_catalog()

    assert (summary.created, summary.updated, summary.unchanged) == (0, 2, PRODUCT_COUNT - 2)
    assert catalog_state() == before


def test_loading_is_deterministic():
    assert demo_data.demo_products() == demo_data.demo_products()
    load_demo_catalog()
    first = catalog_content()
    Product.objects.all().delete()
    Category.objects.all().delete()

    load_demo_catalog()

    assert catalog_content() == first


def test_command_prints_a_summary():
    first, second = StringIO(), StringIO()

    call_command("load_demo_catalog", stdout=first)
    call_command("load_demo_catalog", stdout=second)

    expected = f"Demo catalog: {PRODUCT_COUNT} products in {CATEGORY_COUNT} categories"
    pieces = "; the test pieces of docs/agent-testing.md restored"
    assert first.getvalue().strip() == f"{expected} ({PRODUCT_COUNT} created, 0 updated, 0 unchanged){pieces}"
    assert second.getvalue().strip() == f"{expected} (0 created, 0 updated, {PRODUCT_COUNT} unchanged){pieces}"
    assert Product.objects.get(public_id="test-last-one-vase").stock == 1
