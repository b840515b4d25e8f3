from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog import selectors
from catalog.models import Product
from tests.factories import make_category, make_product

pytestmark = pytest.mark.django_db


def names(products):
    return [product.name for product in products]


@pytest.fixture
def mugs():
    return make_category(name="Mugs", slug="mugs", position=1)


@pytest.fixture
def vases():
    return make_category(name="Vases", slug="vases", position=2)


class TestSearchProducts:
    def test_name_matches_rank_before_description_matches(self, mugs):
        make_product(name="Aardvark Plate", category=mugs, description="Glazed in celadon.")
        make_product(name="Zen Celadon Cup", category=mugs)
        make_product(name="Bare Mug", category=mugs, description="Unglazed.")

        products, total = selectors.search_products("celadon", page=1, limit=10)

        assert names(products) == ["Zen Celadon Cup", "Aardvark Plate"]
        assert total == 2

    def test_more_terms_in_the_name_rank_higher(self, mugs):
        make_product(name="Blue Plate", category=mugs, description="A large bowl-like plate.")
        make_product(name="Blue Bowl", category=mugs)

        products, _ = selectors.search_products("blue bowl", page=1, limit=10)

        assert names(products) == ["Blue Bowl", "Blue Plate"]

    def test_ties_break_by_name_then_id(self, mugs):
        first_twin = make_product(name="Oat Mug", category=mugs)
        second_twin = make_product(name="Oat Mug", category=mugs)
        moss = make_product(name="Moss Mug", category=mugs)

        products, _ = selectors.search_products("mug", page=1, limit=10)

        assert [p.pk for p in products] == [moss.pk, first_twin.pk, second_twin.pk]

    def test_every_term_must_match_somewhere(self):
        tableware = make_category(name="Tableware", slug="tableware")
        make_product(name="Celadon Mug", category=tableware)
        make_product(name="Celadon Bowl", category=tableware)

        products, _ = selectors.search_products("celadon mug", page=1, limit=10)

        assert names(products) == ["Celadon Mug"]

    @pytest.mark.parametrize(
        "query",
        ["MUGS", "stoneware", "Speckled", "CUP-7", "pulled HANDLE"],
    )
    def test_terms_match_category_materials_tags_public_id_and_description(self, mugs, query):
        make_product(
            name="Morning Cup",
            category=mugs,
            public_id="cup-7",
            description="With a pulled handle.",
            materials=["stoneware"],
            tags=["speckled"],
        )
        make_product(name="Evening Vase", category=make_category(name="Vases", slug="vases"))

        products, total = selectors.search_products(query, page=1, limit=10)

        assert names(products) == ["Morning Cup"]
        assert total == 1

    def test_inactive_products_are_never_found(self, mugs):
        make_product(name="Retired Mug", category=mugs, is_active=False)

        assert selectors.search_products("mug", page=1, limit=10) == ([], 0)

    def test_empty_query_lists_every_active_product(self, mugs):
        make_product(name="Oat Mug", category=mugs)
        make_product(name="Hidden Mug", category=mugs, is_active=False)

        assert names(selectors.search_products("  ", page=1, limit=10)[0]) == ["Oat Mug"]

    def test_pages_slice_the_ranked_results_and_report_the_total(self, mugs):
        for letter in "ABCDE":
            make_product(name=f"{letter} Mug", category=mugs)

        second_page, total = selectors.search_products("mug", page=2, limit=2)
        past_the_end, total_again = selectors.search_products("mug", page=4, limit=2)

        assert names(second_page) == ["C Mug", "D Mug"]
        assert total == total_again == 5
        assert past_the_end == []

    def test_query_count_does_not_grow_with_results(self, mugs, django_assert_num_queries):
        for number in range(15):
            make_product(name=f"Mug {number}", category=mugs, tags=["coffee"])

        with django_assert_num_queries(1):  # the index, without the read cache's version check
            products, _ = selectors.search_products.uncached("mug coffee", page=1, limit=15)
            assert {product.category.name for product in products} == {"Mugs"}


class TestBrowseProducts:
    def test_price_ascending_and_descending(self, mugs):
        make_product(name="Mid", category=mugs, price=Decimal("30.00"))
        make_product(name="Cheap", category=mugs, price=Decimal("10.00"))
        make_product(name="Dear", category=mugs, price=Decimal("90.00"))
        make_product(name="Also Mid", category=mugs, price=Decimal("30.00"))

        ascending, _ = selectors.browse_products(None, "price_asc", page=1, limit=10)
        descending, _ = selectors.browse_products(None, "price_desc", page=1, limit=10)

        assert names(ascending) == ["Cheap", "Also Mid", "Mid", "Dear"]
        assert names(descending) == ["Dear", "Also Mid", "Mid", "Cheap"]

    def test_newest_first_then_highest_id(self, mugs):
        old = make_product(name="Old", category=mugs)
        twin_a = make_product(name="Twin A", category=mugs)
        twin_b = make_product(name="Twin B", category=mugs)
        now = timezone.now()
        Product.objects.filter(pk=old.pk).update(created=now - timedelta(days=3))
        Product.objects.filter(pk__in=[twin_a.pk, twin_b.pk]).update(created=now)

        products, _ = selectors.browse_products(None, "newest", page=1, limit=10)

        assert names(products) == ["Twin B", "Twin A", "Old"]

    def test_category_slug_limits_the_results(self, mugs, vases):
        make_product(name="Oat Mug", category=mugs)
        make_product(name="Bud Vase", category=vases)

        products, total = selectors.browse_products("vases", "newest", page=1, limit=10)

        assert names(products) == ["Bud Vase"]
        assert total == 1

    def test_unknown_category_raises(self, mugs):
        with pytest.raises(selectors.UnknownCategory) as raised:
            selectors.browse_products("teapots", "newest", page=1, limit=10)
        assert raised.value.slug == "teapots"

    def test_unknown_sort_raises(self, mugs):
        with pytest.raises(ValueError, match="price_asc"):
            selectors.browse_products(None, "cheapest", page=1, limit=10)

    def test_inactive_products_are_hidden(self, mugs):
        make_product(name="Shown", category=mugs)
        make_product(name="Hidden", category=mugs, is_active=False)

        assert names(selectors.browse_products("mugs", "newest", page=1, limit=10)[0]) == ["Shown"]

    def test_pagination_totals(self, mugs):
        for number in range(7):
            make_product(name=f"Mug {number}", category=mugs, price=Decimal(f"{10 + number}.00"))

        last_page, total = selectors.browse_products(None, "price_asc", page=3, limit=3)

        assert names(last_page) == ["Mug 6"]
        assert total == 7

    @pytest.mark.parametrize("page, limit", [(0, 10), (-1, 10), (1, 0)])
    def test_page_and_limit_must_be_positive(self, mugs, page, limit):
        with pytest.raises(ValueError, match="page and limit must be positive integers"):
            selectors.browse_products(None, "newest", page=page, limit=limit)

    def test_query_count_is_constant(self, mugs, django_assert_num_queries):
        for number in range(10):
            make_product(name=f"Mug {number}", category=mugs)

        with django_assert_num_queries(3):  # category, page, count (the read cache aside)
            products, _ = selectors.browse_products.uncached("mugs", "price_desc", page=1, limit=10)
            assert {product.category.slug for product in products} == {"mugs"}


class TestSingleLookups:
    def test_get_active_product_by_public_id(self, mugs):
        mug = make_product(name="Oat Mug", category=mugs, public_id="oat-mug")
        make_product(name="Retired Mug", category=mugs, public_id="retired-mug", is_active=False)

        assert selectors.get_active_product("oat-mug") == mug
        assert selectors.get_active_product("retired-mug") is None
        assert selectors.get_active_product("no-such-mug") is None

    def test_get_active_product_by_slug(self, mugs):
        mug = make_product(name="Oat Mug", category=mugs, slug="oat-mug-page")
        make_product(name="Retired Mug", category=mugs, slug="retired-mug", is_active=False)

        assert selectors.get_active_product_by_slug("oat-mug-page") == mug
        assert selectors.get_active_product_by_slug("retired-mug") is None

    def test_list_categories_in_position_order_with_active_counts(self, vases, mugs):
        make_category(name="Bowls", slug="bowls", position=3)
        make_product(name="Oat Mug", category=mugs)
        make_product(name="Moss Mug", category=mugs)
        make_product(name="Retired Mug", category=mugs, is_active=False)
        make_product(name="Retired Vase", category=vases, is_active=False)

        categories = selectors.list_categories()

        assert [(c.name, c.product_count) for c in categories] == [
            ("Mugs", 2),
            ("Vases", 0),
            ("Bowls", 0),
        ]


@pytest.mark.parametrize(
    "stock, status",
    [(0, "Out of stock"), (1, "Only 1 left"), (5, "Only 5 left"), (6, "In stock"), (60, "In stock")],
)
def test_stock_status(mugs, stock, status):
    assert make_product(name="Oat Mug", category=mugs, stock=stock).stock_status == status


class TestProductsWithVariants:
    def test_every_listed_product_once_across_chunks_with_what_its_variants_offer(self, mugs):
        plain = [make_product(category=mugs) for _ in range(3)]
        parent = make_product(category=mugs, price=Decimal("99.00"))
        sold_out = make_product(category=mugs, variant_of=parent, price=Decimal("12.00"), stock=0)
        cheapest_in_stock = make_product(category=mugs, variant_of=parent, price=Decimal("15.00"), stock=4)
        make_product(category=mugs, variant_of=parent, price=Decimal("9.00"), is_active=False)
        make_product(category=mugs, is_active=False)

        found = list(selectors.products_with_variants(chunk_size=2))

        assert [product.pk for product, _ in found] == [product.pk for product in [*plain, parent]]
        by_pk = {product.pk: (product, variants) for product, variants in found}
        listed_parent, variants = by_pk[parent.pk]
        assert variants == [sold_out, cheapest_in_stock]  # active ones, cheapest first
        assert (listed_parent.has_variants, listed_parent.stock, listed_parent.price) == (True, 4, Decimal("15.00"))
        assert all(not by_pk[product.pk][0].has_variants and by_pk[product.pk][1] == [] for product in plain)
