from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from catalog.filters import ProductFilter
from catalog.selectors import product_list

PAGE_SIZE = 50


@login_required
def product_index(request):
    filterset = ProductFilter(request.GET, queryset=product_list())
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"filter": filterset, "page": page, "query": query.urlencode()}
    # Search-as-you-type swaps only the results table.
    template = "catalog/_product_table.html" if request.htmx else "catalog/product_index.html"
    return render(request, template, context)


@login_required
def product_detail(request, part_number: str):
    product = get_object_or_404(product_list(), part_number=part_number)
    spec_rows = []
    for name, value in product.specs().items():
        field = product._meta.get_field(name)
        if isinstance(value, bool):
            value = _("yes") if value else _("no")
        elif field.choices:
            value = getattr(product, f"get_{name}_display")()
        spec_rows.append((field.verbose_name, value))
    return render(
        request, "catalog/product_detail.html", {"product": product, "spec_rows": spec_rows}
    )
