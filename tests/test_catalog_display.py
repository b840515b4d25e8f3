from decimal import Decimal

import pytest
from django.template import Context, Template

from catalog.models import Category, Product
from catalog.templatetags.catalog_extras import COLOUR_TAG_TINTS, money


@pytest.mark.parametrize(
    "amount, currency, shown",
    [
        (Decimal("32"), "USD", "$32.00 USD"),
        (Decimal("1240.5"), "USD", "$1,240.50 USD"),
        (Decimal("12.50"), "EUR", "€12.50 EUR"),
        (Decimal("9.99"), "CHF", "9.99 CHF"),
    ],
)
def test_money(amount, currency, shown):
    assert money(amount, currency) == shown


def render_placeholder(name, tags):
    product = Product(name=name, public_id="x-1", tags=tags, category=Category(slug="misc"))
    template = Template("{% load catalog_extras %}{% product_placeholder product %}")
    return template.render(Context({"product": product}))


@pytest.mark.parametrize(
    "name, drawn_path",
    [
        ("Tenmoku Teapot", "M80 112"),
        ("Celadon Tea Bowl", "M56 96"),
        ("Moss Matte Tumbler", "M90 70"),
        ("Herb Planter", "M76 96"),
        ("Cobalt Drift Mug", "M84 58"),
        ("Side Plate", "ellipse cx=\"120\" cy=\"146\""),
        ("Moon Jar", "M108 40"),
    ],
)
def test_placeholder_shape_follows_the_name(name, drawn_path):
    assert drawn_path in render_placeholder(name, tags=[])


def test_placeholder_colour_follows_the_first_colour_tag():
    background, vessel = COLOUR_TAG_TINTS["blue"]

    svg = render_placeholder("Bud Vase", tags=["gift", "blue", "white"])

    assert f'fill="{background}"' in svg
    assert f'fill="{vessel}"' in svg
    assert 'aria-hidden="true"' in svg
