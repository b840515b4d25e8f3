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
    categories = _DemoRows(Category, "slug")
    for spec in demo_data.CATEGORIES:
        categories.put(spec)
    categories.create_new()
    products = _DemoRows(Product, "public_id")
    for spec in demo_data.demo_products():  # a variant comes after its parent
        fields = {**spec, "category_id": categories.rows[spec["category"]].pk}
        del fields["category"]
        if "variant_of" in fields:
            parent = products.rows[fields.pop("variant_of")]
            if parent.pk is None:
                products.create_new()
            fields["variant_of_id"] = parent.pk
        products.put(fields)
    products.create_new()
    return DemoLoadSummary(
        categories=len(demo_data.CATEGORIES),
        products=sum(products.outcomes.values()),
        created=products.outcomes["created"],
        updated=products.outcomes["updated"],
        unchanged=products.outcomes["unchanged"],
    )


class _DemoRows:
    """The rows of `model` keyed by `key`: each demo row is created, updated or left as it is.

    New rows wait for one INSERT (`create_new`). They are checked as admin checks them, except
    for what the database holds anyway: that their keys are unique and that the rows they refer
    to (loaded or created just before) exist. A variant is written with its parent's category
    and currency, as demo_data gives it and Product.save() would set them.
    """

    def __init__(self, model, key):
        self.model, self.key = model, key
        self.rows = model.objects.in_bulk(field_name=key)
        self.new = []
        self.outcomes = Counter()

    def put(self, fields):
        row = self.rows.get(fields[self.key])
        if row is None:
            row = self.model(**fields)
            row.full_clean(exclude=["category", "variant_of"], validate_unique=False)
            self.rows[fields[self.key]] = row
            self.new.append(row)
            self.outcomes["created"] += 1
            return
        changed = [name for name, value in fields.items() if getattr(row, name) != value]
        if changed:
            for name in changed:
                setattr(row, name, fields[name])
            row.full_clean()
            row.save(update_fields=changed)
        self.outcomes["updated" if changed else "unchanged"] += 1

    def create_new(self):
        self.model.objects.bulk_create(self.new)
        self.new = []
