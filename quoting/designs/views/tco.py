"""The TCO page: fabric options side by side, recomputed as the sales engineer edits the inputs.

The form posts (htmx, on change) to the same URL and only the results partial comes back; the
field errors ride along as out-of-band swaps so they appear beside their fields without
re-rendering (and unfocusing) the form.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from quoting.designs.forms.tco import TcoForms
from quoting.designs.services.tco import tco_compute
from quoting.designs.svg.tco import cost_breakdown_chart, cost_per_hour_chart, efficiency_chart
from quoting.engine.errors import InvalidInput
from quoting.engine.tco import TcoResult
from quoting.engine.tco.model import busbw_command
from quoting.engine.tco.presets import WORKLOAD_PRESETS

TORNADO_BARS = 5  # the inputs that move the answer most; the rest are in the API


@login_required
@require_http_methods(["GET", "POST"])
def tco_page(request):
    if request.method == "POST":
        forms = TcoForms(request.POST)
    else:
        forms = TcoForms.from_query(request.GET) if request.GET else TcoForms()
    result, body = None, None
    if forms.is_valid():
        body = forms.body()
        try:
            result = tco_compute(data=body)
        except InvalidInput as error:
            forms.add_engine_errors(error.messages)
    context = {
        "forms": forms,
        "form": forms.form,
        "presets": {key: preset.workload for key, preset in WORKLOAD_PRESETS.items()},
    }
    if result is not None:
        context |= _results(result)
        # The nccl-tests run the predicted busbw is for (NCCL_ALGO=Ring: tco-model §4).
        context["busbw_command"] = busbw_command(body["gpus_per_node"])
    template = "quoting/_tco_results.html" if request.htmx else "quoting/tco.html"
    return render(request, template, context)


def _results(result: TcoResult) -> dict:
    best = max(o.network_efficiency for o in result.options) or 1.0  # 0 only at absurd inputs
    return {
        "result": result,
        "options": [
            {
                "o": o,
                "efficiency_percent": o.network_efficiency * 100,
                "loss_percent": (1 - o.network_efficiency / best) * 100,
            }
            for o in result.options
        ],
        "tornados": [(t, t.bars[:TORNADO_BARS]) for t in result.sensitivity],
        "charts": [efficiency_chart(result, gettext), cost_per_hour_chart(result, gettext),
                   cost_breakdown_chart(result, gettext)],
    }  # fmt: skip
