"""Kiln & Co's catalogue, made with Oscar's own models the way its dashboard would: a shipping
country, a fulfilment partner, a product class with a "size" attribute, categories, standalone
products and a parent with child variants, each buyable product with a stock record.

Stock records hold prices without VAT; the forked partner app's strategy adds 20 %.
"""
from decimal import Decimal

from oscar.apps.catalogue.categories import create_from_breadcrumbs
from oscar.core.loading import get_model

Country = get_model("address", "Country")
Partner = get_model("partner", "Partner")
StockRecord = get_model("partner", "StockRecord")
ProductClass = get_model("catalogue", "ProductClass")
ProductAttribute = get_model("catalogue", "ProductAttribute")
Product = get_model("catalogue", "Product")
ProductCategory = get_model("catalogue", "ProductCategory")

VAT = Decimal("1.2")


def make_shop():
    """Everything a customer needs to buy, as created in Oscar's dashboard."""
    Country.objects.update_or_create(
        iso_3166_1_a2="GB",
        defaults={"iso_3166_1_a3": "GBR", "iso_3166_1_numeric": "826", "printable_name": "United Kingdom",
                  "name": "United Kingdom of Great Britain and Northern Ireland", "is_shipping_country": True},
    )
    partner = Partner.objects.create(name="Kiln & Co workshop")
    stoneware = ProductClass.objects.create(name="Stoneware", requires_shipping=True, track_stock=True)
    ProductAttribute.objects.create(product_class=stoneware, name="Size", code="size", type=ProductAttribute.TEXT)
    mugs = create_from_breadcrumbs("Tableware > Mugs")
    bowls = create_from_breadcrumbs("Tableware > Bowls")
    vases = create_from_breadcrumbs("Vases")

    bowl = standalone(stoneware, bowls, partner, "BOWL-TEN", "Tenmoku bowl", "A deep bowl in a dark tenmoku glaze",
                      Decimal("20.00"), stock=9)
    standalone(stoneware, vases, partner, "VASE-ASH", "Ash-glazed vase", "A tall vase, wood-fired",
               Decimal("40.00"), stock=0)
    mug = Product.objects.create(structure=Product.PARENT, product_class=stoneware, upc="MUG-CEL",
                                 title="Celadon mug", description="A thrown mug in a pale green celadon glaze")
    ProductCategory.objects.create(product=mug, category=mugs)
    small = variant(mug, partner, "MUG-CEL-S", "Small", Decimal("10.00"), stock=9)
    large = variant(mug, partner, "MUG-CEL-L", "Large", Decimal("15.00"), stock=4)
    return {"bowl": bowl, "mug": mug, "small_mug": small, "large_mug": large}


def standalone(product_class, category, partner, upc, title, description, price, stock):
    product = Product.objects.create(product_class=product_class, upc=upc, title=title, description=description)
    ProductCategory.objects.create(product=product, category=category)
    stock_record(product, partner, price, stock)
    return product


def variant(parent, partner, upc, size, price, stock):
    child = Product.objects.create(structure=Product.CHILD, parent=parent, upc=upc, title=f"{parent.title}, {size}")
    child.attr.size = size
    child.attr.save()
    stock_record(child, partner, price, stock)
    return child


def stock_record(product, partner, price, stock):
    StockRecord.objects.create(product=product, partner=partner, partner_sku=product.upc, price=price,
                               price_currency="GBP", num_in_stock=stock)
