"""The design page: enter a cluster, see the fabric, its drawing, BOM and warnings update live.

Designs are computed, not stored, so the page works with GET: the URL is the design, and a
sales engineer can bookmark or share it. Saving belongs to projects.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import cable_schedule_csv_lines
from quoting.forms.designs import CURRENCY_CHOICES, DesignForm
from quoting.services.designs import design_bom_priced, design_compute
from quoting.svg.fabric import fabric_svg


def _design_from_query(request):
    """(form, design or None). Engine errors land on the form's fields, as form errors do."""
    form = DesignForm(request.GET if request.GET else DesignForm.initial_data())
    design = None
    if form.is_valid():
        try:
            design = design_compute(requirements=form.requirements())
        except InvalidInput as error:
            for field, messages in error.errors.items():
                for message in messages:
                    form.add_error(field if field in form.fields else None,
                                   message[:1].upper() + message[1:])
    return form, design


@login_required
@require_GET
def design_new(request):
    form, design = _design_from_query(request)
    currency = request.GET.get("currency", "CNY")
    currency = currency if currency in dict(CURRENCY_CHOICES) else "CNY"
    context = {"form": form, "design": design, "currency": currency,
               "currencies": CURRENCY_CHOICES, "query": request.GET.urlencode()}
    if design is not None:
        context |= {"summary": design.as_dict(), "drawing": fabric_svg(design),
                    "priced": design_bom_priced(design=design, currency=currency)}
    template = "quoting/_design_results.html" if request.htmx else "quoting/design_new.html"
    return render(request, template, context)


@login_required
@require_GET
def design_cable_schedule_csv(request):
    form, design = _design_from_query(request)
    if design is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    response = StreamingHttpResponse(cable_schedule_csv_lines(design),
                                     content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="cable-schedule-{design.gpu_count}-gpus.csv"')
    return response


@login_required
@require_GET
def design_drawing_svg(request):
    form, design = _design_from_query(request)
    if design is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    response = HttpResponse(fabric_svg(design), content_type="image/svg+xml")
    response["Content-Disposition"] = f'attachment; filename="fabric-{design.gpu_count}-gpus.svg"'
    return response
