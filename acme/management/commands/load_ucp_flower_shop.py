"""Load the UCP conformance suite's flower shop into the site and turn UCP on.

    manage.py load_ucp_flower_shop ../shared/peers/ucp-conformance/test_data/flower_shop

Products and their stock, discount codes, shipping rates and promotions, and the customers'
addresses become the demo's own rows (safe to run again: rows are updated in place); the
payment handlers the suite expects are configured (its test payment instruments' tokens are
the demo's test tokens) and the rate limits raised for one client making every call of the
suite, through the app's `agents_config` export and import, as an operator would. For a site
of its own (DATA_DIR), never the demo's.
"""
import csv
import json
import tempfile
from decimal import Decimal
from io import StringIO
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.text import slugify

from cart.models import CustomerAddress, DiscountCode, ShippingPromotion, ShippingRate
from cart.payments import TestTokenBackend
from catalog.models import Category, Product

CENTS = Decimal("0.01")
SUITE_LIMITS = {"requests_per_minute": 100_000, "max_sessions": 100_000}
# Paths of the site: the profile serves the spec's pages and schemas (the handlers' own are not reachable offline).
LOCAL_HANDLER_URLS = {"spec": "/.well-known/ucp/spec/overview",
                      "config_schema": "/.well-known/ucp/schemas/payment_handler.json",
                      "instrument_schemas": ["/.well-known/ucp/schemas/card_payment_instrument.json"]}
PAYMENT_HANDLERS = [
    {"handler_id": "mock_payment_handler", "name": "dev.acme.test_payment", "config": {"test_mode": True}},
    {"handler_id": "google_pay", "name": "com.google.pay", "config": {
        "api_version": 2, "api_version_minor": 0,
        "merchant_info": {"merchant_name": "Flower Shop", "merchant_id": "TEST", "merchant_origin": "localhost"},
        "allowed_payment_methods": [{"type": "CARD", "parameters": {
            "allowedAuthMethods": ["PAN_ONLY", "CRYPTOGRAM_3DS"], "allowedCardNetworks": ["VISA", "MASTERCARD"]}}]}},
    {"handler_id": "shop_pay", "name": "com.shopify.shop_pay", "config": {"shop_id": "flower-shop-test"}},
]


def rows(directory, name):
    with (directory / name).open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def cents(value):
    return (Decimal(value) * CENTS).quantize(CENTS)


class Command(BaseCommand):
    help = "Load the UCP conformance suite's flower shop (products, stock, discounts, shipping) and turn UCP on."

    def add_arguments(self, parser):
        parser.add_argument("data_dir", help="The suite's test_data/flower_shop directory.")

    def handle(self, *args, data_dir, **options):
        directory = Path(data_dir)
        if not (directory / "products.csv").is_file():
            raise CommandError(f"{directory} has no products.csv: name the suite's test_data/flower_shop directory.")
        self.check_tokens(directory)
        with transaction.atomic():
            products = self.load_products(directory)
            self.load_shipping(directory)
            self.load_discounts(directory)
            addresses = self.load_addresses(directory)
            self.configure()
        self.stdout.write(self.style.SUCCESS(
            f"Loaded {products} products and {addresses} addresses; UCP is on with {len(PAYMENT_HANDLERS)} payment "
            "handlers."))

    def check_tokens(self, directory):
        unknown = {row["token"] for row in rows(directory, "payment_instruments.csv")} - TestTokenBackend.TOKENS.keys()
        if unknown:
            raise CommandError(f"The suite's instruments use tokens the test handler does not know: {sorted(unknown)}.")

    def load_products(self, directory):
        category, _ = Category.objects.update_or_create(slug="flowers", defaults={"name": "Flowers"})
        stock = {row["product_id"]: int(row["quantity"]) for row in rows(directory, "inventory.csv")}
        products = rows(directory, "products.csv")
        for row in products:
            Product.objects.update_or_create(public_id=row["id"], defaults={
                "name": row["title"], "slug": slugify(row["id"]), "price": cents(row["price"]), "currency": "USD",
                "stock": stock.get(row["id"], 0), "category": category, "is_active": True})
        return len(products)

    def load_shipping(self, directory):
        for row in rows(directory, "shipping_rates.csv"):
            ShippingRate.objects.update_or_create(rate_id=row["id"], defaults={
                "country_code": row["country_code"], "service_level": row["service_level"], "title": row["title"],
                "price": cents(row["price"])})
        for row in rows(directory, "promotions.csv"):
            if row["type"] != "free_shipping":
                continue
            ShippingPromotion.objects.update_or_create(name=row["description"], defaults={
                "min_subtotal": cents(row["min_subtotal"]) if row["min_subtotal"] else None,
                "eligible_item_ids": json.loads(row["eligible_item_ids"]) if row["eligible_item_ids"] else []})

    def load_discounts(self, directory):
        for row in rows(directory, "discounts.csv"):
            fixed = row["type"] == "fixed_amount"
            DiscountCode.objects.update_or_create(code=row["code"], defaults={
                "kind": DiscountCode.Kind.FIXED_AMOUNT if fixed else DiscountCode.Kind.PERCENTAGE,
                "value": cents(row["value"]) if fixed else Decimal(row["value"]), "description": row["description"]})

    def load_addresses(self, directory):
        emails = {row["id"]: row["email"] for row in rows(directory, "customers.csv")}
        addresses = rows(directory, "addresses.csv")
        for row in addresses:
            CustomerAddress.objects.update_or_create(public_id=row["id"], defaults={
                "email": emails[row["customer_id"]], "street_address": row["street_address"], "locality": row["city"],
                "region": row["state"], "postal_code": row["postal_code"], "country": row["country"]})
        return len(addresses)

    def configure(self):
        exported = StringIO()
        call_command("agents_config", "export", stdout=exported)
        config = json.loads(exported.getvalue())
        config["rate_limit"].update(SUITE_LIMITS)
        config["ucp"] = {"enabled": True, "payment_handlers": [
            {**LOCAL_HANDLER_URLS, **handler} for handler in PAYMENT_HANDLERS]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as file:
            json.dump(config, file)
            file.flush()
            call_command("agents_config", "import", file.name, stdout=StringIO())
