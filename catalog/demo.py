"""Load the demo catalog (catalog/demo_data.py) idempotently.

Rerunning restores every demo product to its demo values and leaves everything else alone:
rows are keyed by category slug and product public_id, only changed fields are written, and
`created` is never touched.
"""
from collections import Counter
from dataclasses import dataclass

from django.db import transaction

from . import demo_data
from .models import Category, Product


@dataclass(frozen=True)
class DemoLoadSummary:
    categories: int
    products: int
    created: int
    updated: int
    unchanged: int

    def __str__(self):
        return (
            f"Demo catalog: {self.products} products in {self.categories} categories "
            f"({self.created} created, {self.updated} updated, {self.unchanged} unchanged)"
        )


@transaction.atomic
def load_demo_catalog():
    existing_categories = Category.objects.in_bulk(field_name="slug")
    category_ids = {
        spec["slug"]: _upsert(Category, "slug", spec, existing_categories)[0].pk
        for spec in demo_data.CATEGORIES
    }
    existing_products = Product.objects.in_bulk(field_name="public_id")
    product_ids = {}
    outcomes = Counter()
    for spec in demo_data.demo_products():  # a variant comes after its parent
        fields = {**spec, "category_id": category_ids[spec["category"]]}
        del fields["category"]
        if "variant_of" in fields:
            fields["variant_of_id"] = product_ids[fields.pop("variant_of")]
        row, outcome = _upsert(Product, "public_id", fields, existing_products)
        product_ids[row.public_id] = row.pk
        outcomes[outcome] += 1
    return DemoLoadSummary(
        categories=len(category_ids),
        products=sum(outcomes.values()),
        created=outcomes["created"],
        updated=outcomes["updated"],
        unchanged=outcomes["unchanged"],
    )


def _upsert(model, key, fields, existing):
    """Create or update the row whose `key` equals fields[key].

    `existing` maps key values to the rows already in the database.
    Returns (row, "created" | "updated" | "unchanged").
    """
    row = existing.get(fields[key])
    if row is None:
        row = model(**fields)
        row.full_clean()
        row.save()
        return row, "created"
    changed = [name for name, value in fields.items() if getattr(row, name) != value]
    if not changed:
        return row, "unchanged"
    for name in changed:
        setattr(row, name, fields[name])
    row.full_clean()
    row.save(update_fields=changed)
    return row, "updated"
