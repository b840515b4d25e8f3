from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render

from . import selectors

SORT_LABELS = {
    "newest": "Newest",
    "price_asc": "Price: low to high",
    "price_desc": "Price: high to low",
}


def product_list(request):
    category = _requested_category(request)
    sort = request.GET.get("sort")
    if sort not in selectors.SORTS:
        sort = selectors.DEFAULT_SORT
    paginator = Paginator(selectors.products_in(category, sort), settings.CATALOG_PAGE_SIZE)
    page_obj = paginator.get_page(_requested_page_number(request))
    page_obj.object_list = selectors.show_what_variants_offer(list(page_obj.object_list))
    context = {
        "categories": selectors.list_categories(),
        "category": category,
        "sort": sort,
        "sort_labels": SORT_LABELS,
        "page_obj": page_obj,
    }
    return render(request, "catalog/product_list.html", context)


def product_detail(request, slug):
    product = selectors.get_active_product_by_slug(slug)
    if product is None:
        raise Http404("No such product.")
    variants = selectors.active_variants(product) if product.variant_of_id is None else []
    selectors.show_what_variants_offer([product])
    return render(request, "catalog/product_detail.html", {"product": product, "variants": variants})


def _requested_category(request):
    slug = request.GET.get("category")
    if not slug:
        return None
    try:
        return selectors.get_category(slug)
    except selectors.UnknownCategory:
        raise Http404("No such category.") from None


def _requested_page_number(request):
    """The ?page= number, or 1 when it is missing, malformed or below 1.

    Numbers past the last page are clamped by Paginator.get_page.
    """
    try:
        return max(int(request.GET.get("page", 1)), 1)
    except ValueError:
        return 1
