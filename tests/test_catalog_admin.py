import pytest
from django.core.exceptions import ValidationError

from catalog.demo import load_demo_catalog
from catalog.models import Category, Product

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def demo_catalog():
    load_demo_catalog()


def test_product_changelist_searches_name_public_id_and_description(admin_client):
    by_name = admin_client.get("/admin/catalog/product/", {"q": "moon jar"})
    by_public_id = admin_client.get("/admin/catalog/product/", {"q": "teapot-ash"})
    by_description = admin_client.get("/admin/catalog/product/", {"q": "Joseon"})

    assert by_name.context["cl"].result_count == 2
    assert [p.public_id for p in by_public_id.context["cl"].result_list] == ["teapot-ash"]
    assert by_description.context["cl"].result_count == 2


def test_product_changelist_filters_and_editable_columns(admin_client):
    vases = Category.objects.get(slug="vases")
    Product.objects.filter(public_id="moon-jar-chalk").update(is_active=False)

    response = admin_client.get(
        "/admin/catalog/product/", {"category__id__exact": vases.pk, "is_active__exact": "1"}
    )

    changelist = response.context["cl"]
    assert response.status_code == 200
    assert changelist.result_count == vases.products.count() - 1
    assert {product.category_id for product in changelist.result_list} == {vases.pk}
    assert changelist.list_editable == ["stock", "is_active"]
    assert {"price", "stock", "is_active"} <= set(changelist.list_display)


def test_public_id_is_fixed_once_saved(admin_client):
    mug = Product.objects.get(public_id="mug-celadon")

    add_form = admin_client.get("/admin/catalog/product/add/")
    change_form = admin_client.get(f"/admin/catalog/product/{mug.pk}/change/")

    assert 'name="public_id"' in add_form.text
    assert 'name="public_id"' not in change_form.text
    assert "mug-celadon" in change_form.text


def test_category_admin_prepopulates_the_slug(admin_client):
    response = admin_client.get("/admin/catalog/category/add/")

    assert response.status_code == 200
    assert "prepopulated" in response.text
    assert 'id="id_slug"' in response.text


def test_a_variants_page_offers_no_variants_of_its_own(admin_client):
    variant = Product.objects.filter(variant_of__isnull=False).first()
    page = admin_client.get(f"/admin/catalog/product/{variant.pk}/change/").content.decode()
    assert 'id="variants-group"' not in page
    parent_page = admin_client.get(f"/admin/catalog/product/{variant.variant_of_id}/change/").content.decode()
    assert 'id="variants-group"' in parent_page


@pytest.mark.parametrize("attributes", [{"capacity_ml": 350}, ["large"], {"size": None}])
def test_variant_attributes_must_be_names_and_text(attributes):
    variant = Product.objects.filter(variant_of__isnull=False).first()
    variant.variant_attributes = attributes
    with pytest.raises(ValidationError) as refused:
        variant.full_clean()
    assert "variant_attributes" in refused.value.message_dict


def test_a_variant_of_a_variant_is_refused():
    variant = Product.objects.filter(variant_of__isnull=False).first()
    nested = Product(public_id="nested", slug="nested", name="Nested", price=1, stock=1, category=variant.category,
                     variant_of=variant, variant_attributes={"size": "tiny"})
    with pytest.raises(ValidationError) as refused:
        nested.full_clean()
    assert "no variants of its own" in str(refused.value)


def test_the_product_list_does_not_edit_the_stock_of_a_product_sold_as_its_variants(admin_client):
    cup = Product.objects.create(public_id="quokka-cup", name="Quokka cup", slug="quokka-cup", price="20.00",
                                 currency="USD", stock=0, category=Category.objects.get(slug="vases"))
    Product.objects.create(public_id="quokka-cup-blue", name="Quokka cup, blue", slug="quokka-cup-blue",
                           price="20.00", currency="USD", stock=7, category=cup.category, variant_of=cup)
    listed = admin_client.get("/admin/catalog/product/", {"q": "quokka-cup"})
    rows = {form.instance.public_id: form for form in listed.context["cl"].formset.forms}
    assert rows["quokka-cup"].fields["stock"].disabled and not rows["quokka-cup-blue"].fields["stock"].disabled

    data = {"form-TOTAL_FORMS": "2", "form-INITIAL_FORMS": "2", "form-MIN_NUM_FORMS": "0",
            "form-MAX_NUM_FORMS": "1000", "_save": "Save"}
    for index, form in enumerate(listed.context["cl"].formset.forms):
        product = form.instance
        data.update({f"form-{index}-id": str(product.pk), f"form-{index}-stock": "40",
                     f"initial-form-{index}-stock": str(product.stock), f"form-{index}-is_active": "on"})
    saved = admin_client.post("/admin/catalog/product/?q=quokka", data)
    assert saved.status_code == 302
    assert dict(Product.objects.filter(public_id__startswith="quokka-cup").values_list("public_id", "stock")) == {
        "quokka-cup": 0, "quokka-cup-blue": 40}
