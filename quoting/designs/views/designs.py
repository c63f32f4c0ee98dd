"""The design page: enter a cluster, see the fabric, its drawing, BOM and warnings update live.

Designs are computed, not stored, so the page works with GET: the URL is the design, and a
sales engineer can bookmark or share it. Saving belongs to projects. A saved design opens with
?design=<id> and is read from its snapshot (nothing is designed again) until an input changes.
"""

from __future__ import annotations

import base64
import hashlib

from csp.decorators import csp_update
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from catalog.selectors import product_names_shown
from quoting.customers.selectors import projects_visible_to
from quoting.designs.forms.contract import add_engine_errors, engine_error_text
from quoting.designs.forms.designs import (
    CURRENCY_CHOICES,
    RACK_POWER_PRESET,
    DesignForm,
    DesignSaveForm,
    SiteForm,
    design_form_data,
    site_form_data,
)
from quoting.designs.forms.tco import tco_page_query
from quoting.designs.models import InstallPackStatus, SavedDesign
from quoting.designs.selectors import spares_kit_ratios
from quoting.designs.services.designs import (
    design_bom_priced,
    design_compute,
    design_install_layout,
    design_non_rail_priced,
    design_rack_scale_other_priced,
    design_site_inputs,
    design_ufm_option_priced,
    message_from_json,
    saved_rack_scale_other_priced,
    saved_rack_scale_other_unpriced,
    site_from_json,
)
from quoting.designs.services.packs import (
    DESIGN_PACK_WAIT_MAX_GPUS,
    PACK_LANGUAGES,
    design_pack_of,
    design_pack_request,
    design_pack_waits,
    pack_language,
    pack_translate,
)
from quoting.designs.services.saved import design_save
from quoting.designs.services.snapshots import (
    design_priced,
    design_snapshot_current,
    design_workload_set,
)
from quoting.designs.services.tco import (
    design_tco_body,
    tco_comparison,
    tco_compute,
    tco_error_reasons,
    tco_error_worded,
    tco_servers_described,
    tco_warnings_worded,
)
from quoting.designs.svg.fabric import DRAWING_STYLE, drawing_in, fabric_svg
from quoting.engine.contract import default_of
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import cable_schedule_csv_lines
from quoting.engine.install import SITE_FIELDS, SiteInputs
from quoting.engine.install.elevations import ELEVATION_STYLE, rack_elevations_svg
from quoting.engine.install.pack import pack_zip_chunks
from quoting.engine.tco.presets import DEFAULT_WORKLOAD, WORKLOAD_PRESETS
from quoting.errors import QuoteError

# Query parameters that are not cluster requirements.
PAGE_PARAMS = {"project", "currency", "design", "workload"}
# The site's query parameters: its fields and the rack power preset that fills one.
SITE_PARAMS = {*SITE_FIELDS, RACK_POWER_PRESET}
# The page draws rack elevations live up to this many servers; past it, the pack has them.
ELEVATIONS_MAX_SERVERS = 256


def _project(request):
    """The project named by ?project=, if the user may see it."""
    project_id = request.GET.get("project", "")
    if not project_id.isdigit():
        return None
    return projects_visible_to(user=request.user).filter(pk=project_id).first()


def _site_form(params) -> SiteForm:
    """The site fields given in `params`; unbound (every default) when none is."""
    return SiteForm(site_form_data(params) or None)


def _site_values(site_form: SiteForm) -> dict:
    return site_form.site_values() if site_form.is_bound else {}


def _design_from_query(request, project=None, *, params=None):
    """(form, design or None). Engine errors land on the form's fields, as form errors do;
    the site's on `form.site_form` (the site lays the design out and measures its cables).

    `params` are the requirements and site (the URL's query unless given). With no requirement
    the form starts from the project's last requirements, or from the defaults, so a first
    visit shows a design at once.
    """
    params = request.GET if params is None else params
    if set(params) - PAGE_PARAMS - SITE_PARAMS:
        data = params
    elif project is not None and project.requirements:
        data = design_form_data(project.requirements)
    else:
        data = DesignForm.initial_data()
    form = DesignForm(data)
    form.site_form = site_form = _site_form(params)
    design = None
    site_ok = not site_form.is_bound or site_form.is_valid()
    if form.is_valid() and site_ok:
        try:
            design = design_compute(
                requirements=form.requirements(), site=site_from_json(_site_values(site_form))
            )
        except InvalidInput as error:
            site_errors = {k: v for k, v in error.messages.items() if k in SITE_FIELDS}
            add_engine_errors(
                form, {k: v for k, v in error.messages.items() if k not in SITE_FIELDS}
            )
            if site_errors and site_form.is_bound:
                add_engine_errors(site_form, site_errors)
            elif site_errors:  # the default site: say so beside the design's own errors
                add_engine_errors(form, site_errors)
    return form, design


def _saved_design(request) -> SavedDesign | None:
    """The saved design named by ?design=, if the user may see it and no input was changed
    (then the page is a live design again)."""
    design_id = request.GET.get("design", "")
    if not design_id.isdigit() or set(request.GET) - PAGE_PARAMS:
        return None
    saved = (
        SavedDesign.objects.filter(
            pk=design_id, project__in=projects_visible_to(user=request.user).values("pk")
        )
        .select_related("project__customer")
        .first()
    )
    return design_snapshot_current(design=saved) if saved is not None else None


def _workload(request) -> str:
    """The TCO workload the page shows: ?workload= when it is a preset, else the default."""
    workload = request.GET.get("workload", "")
    return workload if workload in WORKLOAD_PRESETS else DEFAULT_WORKLOAD


def _tco_context(workload: str) -> dict:
    """What the panel prints beside the comparison: the workload and its choices."""
    return {
        "workload": workload,
        "preset": WORKLOAD_PRESETS[workload],
        "workload_choices": [(key, p.label) for key, p in WORKLOAD_PRESETS.items()],
    }


def _currency(request) -> str:
    currency = request.GET.get("currency", "CNY")
    return currency if currency in dict(CURRENCY_CHOICES) else "CNY"


def _requirements_query(form) -> str:
    """The URL query that reproduces this form's design, on its site (for links and the save
    form): the site measures the cables, so the schedule, drawing and pack need it too."""
    query = QueryDict(mutable=True)
    for name, value in form.data.items():
        if name not in PAGE_PARAMS and name not in SITE_PARAMS and value not in ("", None):
            query[name] = value
    site_form = getattr(form, "site_form", None)
    if site_form is not None and site_form.is_bound:
        for name, value in site_form.data.items():
            if value not in ("", None):
                query[name] = value
    return query.urlencode()


# The inline drawing's <style> is allowed by its hash, which also covers every drawing htmx swaps
# in later (a nonce would hold only for the first response).
def _style_src(style: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()}'"


DRAWING_STYLE_SRC = _style_src(DRAWING_STYLE)
ELEVATION_STYLE_SRC = _style_src(ELEVATION_STYLE)


def _site_context(site_form: SiteForm, design) -> dict:
    """The site fields, and the racks of a design small enough to lay out while typing."""
    given = site_form.is_bound
    context = {"site_form": site_form}
    if design is None or (given and not site_form.is_valid()):
        return context
    if design.topology.servers > ELEVATIONS_MAX_SERVERS:
        context["elevations_skipped"] = ELEVATIONS_MAX_SERVERS
        return context
    try:
        layout = design_install_layout(design=design, site=site_from_json(_site_values(site_form)))
    except InvalidInput as error:
        if given:
            add_engine_errors(site_form, error.messages)
        else:
            context["site_error"] = " ".join(
                engine_error_text(m) for messages in error.messages.values() for m in messages
            )
        return context
    return context | {
        "layout": layout,
        "elevations": "".join(rack_elevations_svg(layout, _)),
        "rows": layout.racks[-1].row + 1 if layout.racks else 0,
    }


@login_required
@require_GET
@csp_update({"style-src": [DRAWING_STYLE_SRC, ELEVATION_STYLE_SRC]})
def design_new(request):
    project = _project(request)
    saved = _saved_design(request)
    if project is None and saved is not None:
        project = saved.project
    if saved is not None:
        form, design = DesignForm(design_form_data(saved.requirements)), None
        form.is_valid()
        # The site the snapshot was measured on (the defaults left out, so the fields stay empty).
        site = design_site_inputs(saved)
        form.site_form = _site_form(
            {name: value for name, value in site.items() if value != default_of(SiteInputs, name)}
        )
    else:
        form, design = _design_from_query(request, project)
    currency = _currency(request)
    projects = projects_visible_to(user=request.user)
    workload = saved.workload if saved is not None else _workload(request)
    save_form = DesignSaveForm(
        projects=projects,
        initial={"project": project.pk if project else None, "workload": workload},
    )
    context = {
        "form": form,
        "design": design,
        "currency": currency,
        "project": project,
        "currencies": CURRENCY_CHOICES,
        "query": _requirements_query(form),
        "save_form": save_form,
        "workload": workload,
    }
    if saved is not None:  # the snapshot, as saved: no engine run
        messages = saved.engine_messages or {}
        drawing = drawing_in(saved.drawings, saved.drawing, translation.get_language())
        context |= {
            "design": saved,
            "summary": saved.result,
            "drawing": drawing,
            "priced": design_priced(design=saved, currency=currency),
            # Priced now from the rows the snapshot keeps, as the live page prices it.
            "rack_scale_priced": saved_rack_scale_other_priced(
                result=saved.result, currency=currency
            ),
            "rack_scale_unpriced": saved_rack_scale_other_unpriced(saved.result),
            "ufm_priced": design_ufm_option_priced(
                lines=saved.result.get("ufm_option") or [], currency=currency
            ),
            "warnings": [message_from_json(m) for m in messages.get("warnings", [])]
            or saved.result.get("warnings", []),
            "advice": [message_from_json(m) for m in messages.get("advice", [])]
            or saved.result.get("advice", []),
            "tco_query": f"design={saved.pk}",
        }
    elif design is not None:
        context |= {
            "summary": design.as_dict(),
            "drawing": fabric_svg(design, _),
            "priced": design_bom_priced(design=design, currency=currency),
            "non_rail_priced": design_non_rail_priced(design=design, currency=currency),
            "rack_scale_priced": design_rack_scale_other_priced(design=design, currency=currency),
            "ufm_priced": design_ufm_option_priced(lines=design.ufm_option, currency=currency),
            "warnings": design.warning_messages,
            "advice": design.advice_messages,
        }
    context |= _site_context(form.site_form, design)
    if context.get("summary"):
        context["spares_kit"] = spares_kit_ratios(
            bom=context["summary"].get("bom", []), currency=currency
        )
    if context.get("priced") is not None:
        context["catalog_names"] = product_names_shown(
            part_numbers=[line.sku for line in context["priced"].lines]
        )
    template = "quoting/_design_results.html" if request.htmx else "quoting/design_new.html"
    return render(request, template, context)


@login_required
@require_GET
def design_tco_panel(request):
    """What the network is worth: loaded after the design so designing stays instant."""
    saved = _saved_design(request)
    if saved is not None:
        return _saved_tco_panel(request, saved)
    form, design = _design_from_query(request)
    workload = _workload(request)
    context = {
        "design": design,
        "query": _requirements_query(form),
        "currency": _currency(request),
    } | _tco_context(workload)
    if design is not None:
        currency = _currency(request)
        priced = design_bom_priced(design=design, currency=currency)
        body = design_tco_body(
            design=design,
            bom_total=priced.total,
            currency=currency,
            yearly_total=priced.yearly_total,
            workload=workload,
        )
        try:
            result = tco_compute(data=body)
        except InvalidInput as error:  # e.g. no H100 server in the catalog to take TFLOPS from
            context["error"] = tco_error_worded(tco_error_reasons(error))
        else:
            best = max(o.network_efficiency for o in result.options) or 1.0
            context |= {
                "result": result,
                "tco_warnings": list(result.warnings),
                "rows": [(o, (1 - o.network_efficiency / best) * 100) for o in result.options],
                "tco_query": tco_page_query(body),
                "servers": tco_servers_described(body),
            }
    return render(request, "quoting/_design_tco.html", context)


def _saved_tco_panel(request, saved: SavedDesign):
    """The saved design's comparison from its snapshot; in another currency the TCO engine
    alone runs again (the fabric designs are in the snapshot)."""
    currency = _currency(request)
    comparison = saved.tco
    if saved.tco_inputs and (not comparison or comparison["currency"] != currency):
        comparison = tco_comparison(
            inputs=saved.tco_inputs, currency=currency, workload=saved.workload
        )
    context = {"design": saved, "saved": saved, "currency": currency} | _tco_context(saved.workload)
    if comparison and comparison.get("error"):
        # Never the engine's raw text: it names TCO fields the page does not show.
        context["error"] = tco_error_worded(comparison.get("error_reasons") or [])
    elif not comparison or not comparison.get("result"):
        context["error"] = _("This design can no longer be compared: design it again.")
    else:
        result = comparison["result"]
        best = max(o["network_efficiency"] for o in result["options"]) or 1.0
        context |= {
            "result": result,
            "tco_warnings": tco_warnings_worded(result),  # kept: worded in the reader's language
            "rows": [(o, (1 - o["network_efficiency"] / best) * 100) for o in result["options"]],
            "tco_query": tco_page_query(comparison["request"]),
            "servers": tco_servers_described(comparison["request"]),
        }
    return render(request, "quoting/_design_tco.html", context)


@login_required
@require_POST
def design_workload(request, pk: int):
    """Choose the job a saved design's comparison assumes; answers with the comparison."""
    saved = get_object_or_404(
        SavedDesign.objects.select_related("project__customer"),
        pk=pk,
        project__in=projects_visible_to(user=request.user).values("pk"),
    )
    saved = design_snapshot_current(design=saved)
    try:
        saved = design_workload_set(design=saved, workload=request.POST.get("workload", ""))
    except InvalidInput as error:
        return HttpResponse(
            " ".join(error.errors.get("workload", [str(error)])),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    return _saved_tco_panel(request, saved)


@login_required
@require_POST
def design_save_view(request):
    """Save the design into one of the user's projects. The design is the design form's current
    inputs, sent along with the save (htmx), or else the URL's query (a page without script)."""
    projects = projects_visible_to(user=request.user)
    sent_inputs = request.POST.copy()
    for name in (*DesignSaveForm.base_fields, "csrfmiddlewaretoken"):
        sent_inputs.pop(name, None)
    form, design = _design_from_query(request, params=sent_inputs or request.GET)
    save_form = DesignSaveForm(request.POST, projects=projects)
    saved = None
    if design is None:
        save_form.add_error(None, _("Correct the design's inputs before saving it."))
    elif save_form.is_valid():
        try:
            saved = design_save(
                project=save_form.cleaned_data["project"],
                name=save_form.cleaned_data["name"],
                requirements=form.requirements(),
                user=request.user,
                workload=save_form.cleaned_data["workload"],
                site=_site_values(form.site_form),
            )
        except QuoteError as error:
            save_form.add_error(
                error.field if error.field in save_form.fields else None, error.message
            )
        except InvalidInput as error:
            save_form.add_error(None, str(error))
    if saved is not None:  # a fresh form, ready to save the next variant to the same project
        save_form = DesignSaveForm(
            projects=projects, initial={"project": saved.project_id, "workload": saved.workload}
        )
    # 200 even with errors: htmx swaps only successful responses, and the errors are the content.
    return render(
        request,
        "quoting/_design_save.html",
        {"save_form": save_form, "saved": saved, "query": _requirements_query(form)},
    )


@login_required
@require_GET
def design_cable_schedule_csv(request):
    form, design = _design_from_query(request)
    if design is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    response = StreamingHttpResponse(
        cable_schedule_csv_lines(design), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = (
        f'attachment; filename="cable-schedule-{design.gpu_count}-gpus.csv"'
    )
    return response


def _pack_language(params) -> tuple[str | None, QueryDict, HttpResponse | None]:
    """(the pack's language, `params` without it, None), or (.., .., a 400): `language` is
    the pack's, not the design's; left out, the requester's."""
    params = params.copy()
    asked = params.pop("language", [None])[-1] or None
    if asked is not None and asked not in PACK_LANGUAGES:
        refused = HttpResponse(
            f"language: {_('Choose English or Simplified Chinese for the pack.')}",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
        return None, params, refused
    return pack_language(asked), params, None


def _pack_inputs(request, params):
    """(site form, design, None) of the design and site in `params`, or (.., .., a 400)."""
    form, design = _design_from_query(request, params=params)
    site_form = form.site_form
    if site_form.is_bound and not site_form.is_valid():
        refused = HttpResponse(site_form.errors.as_text(), status=400, content_type="text/plain")
        return site_form, None, refused
    if design is None:
        return (
            site_form,
            None,
            HttpResponse(form.errors.as_text(), status=400, content_type="text/plain"),
        )
    return site_form, design, None


def _site_refused(site_form: SiteForm, error: InvalidInput) -> HttpResponse:
    add_engine_errors(site_form, error.messages)
    return HttpResponse(site_form.errors.as_text(), status=400, content_type="text/plain")


@login_required
@require_GET
def design_install_pack_zip(request):
    """The installation pack of the design in the query, on the site in the query (defaults
    for what it leaves out). Past DESIGN_PACK_WAIT_MAX_GPUS it is built by a worker: 202 with
    the button that asks for it (a POST: a link in another site's page must not start one)."""
    language, params, refused = _pack_language(request.GET)
    if refused is not None:
        return refused
    site_form, design, refused = _pack_inputs(request, params)
    if refused is not None:
        return refused
    if not design_pack_waits(design):
        context = {
            "gpus": design.gpu_count,
            "limit": DESIGN_PACK_WAIT_MAX_GPUS,
            "query": request.GET.urlencode(),
        }
        return render(request, "quoting/design_pack.html", context, status=202)
    try:
        layout = design_install_layout(
            design=design, interactive=True, site=site_from_json(_site_values(site_form))
        )
    except InvalidInput as error:
        return _site_refused(site_form, error)
    response = StreamingHttpResponse(
        pack_zip_chunks(layout, translate=pack_translate(language)),
        content_type="application/zip",
    )
    response["Content-Disposition"] = (
        f'attachment; filename="install-pack-{design.gpu_count}-gpus.zip"'
    )
    response["Content-Language"] = language
    return response


@login_required
@require_POST
def design_install_pack_build(request):
    """Ask a worker for the pack of the design in `query` (the pack link's query); on to the
    pack's page."""
    language, params, refused = _pack_language(QueryDict(request.POST.get("query", "")))
    if refused is not None:
        return refused
    site_form, design, refused = _pack_inputs(request, params)
    if refused is not None:
        return refused
    try:
        pack = design_pack_request(
            user=request.user, design=design, site=_site_values(site_form), language=language
        )
    except InvalidInput as error:
        return _site_refused(site_form, error)
    return redirect("quoting:design-install-pack-state", pk=pack.pk)


# How long the pack's page waits before it asks again (its meta refresh and Retry-After).
PACK_WAIT_SECONDS = 5


@login_required
@require_GET
def design_install_pack_state(request, pk: int):
    """The pack's page: 202, reloading by itself, until the worker is done; then its link (or
    why it failed). Only the user who asked sees it."""
    pack = design_pack_of(user=request.user, pack_id=pk)
    if pack is None:
        raise Http404
    waiting = pack.status in (InstallPackStatus.PENDING, InstallPackStatus.BUILDING)
    context = {"pack": pack, "gpus": pack.gpu_count, "wait_seconds": PACK_WAIT_SECONDS * waiting}
    response = render(request, "quoting/design_pack.html", context, status=202 if waiting else 200)
    if waiting:
        response["Retry-After"] = str(PACK_WAIT_SECONDS)
    return response


@login_required
@require_GET
def design_install_pack_download(request, pk: int):
    pack = design_pack_of(user=request.user, pack_id=pk, archive=True)
    if pack is None or pack.status != InstallPackStatus.READY:
        raise Http404
    response = HttpResponse(bytes(pack.archive), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{pack.filename}"'
    return response


@login_required
@require_GET
def design_drawing_svg(request):
    form, design = _design_from_query(request)
    if design is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    response = HttpResponse(fabric_svg(design, _), content_type="image/svg+xml")
    response["Content-Disposition"] = f'attachment; filename="fabric-{design.gpu_count}-gpus.svg"'
    return response
