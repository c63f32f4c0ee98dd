"""The proposal's TCO assumptions read with their units (issue 27 item 6, tco-model §7): shares as
percentages, money with its currency, energy in kW and kWh, hours a year, years; grouped, two a
row in the PDF; formatted when printed, so a result kept with raw numbers reads the same."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from proposals.documents.pdf import proposal_html, proposal_pdf
from quoting.designs.services.saved import design_save
from quoting.designs.services.tco import tco_presented
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_create_from_design
from quoting.templatetags.quoting_messages import assumption_value
from tests.proposals.conftest import pdf_reader

REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}


@pytest.fixture
def revision(seeded, world):
    design = design_save(
        project=world.project, name="128 GPUs", user=world.sales, requirements=REQUIREMENTS
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


def _assumptions(html: str) -> str:
    return html.split('class="lines assumptions', 1)[1].split("</table>", 1)[0]


def _values(table: str) -> list[str]:
    return re.findall(r'<td class="num">([^<]*)</td>', table)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            ["97 %", "85 %", "8 % a year", "49.54 CNY per GPU-hour", "8,760 h a year", "kW"],
        ),
        ("zh-hans", ["97 %", "85 %", "每年 8 %", "每 GPU 小时 49.54 CNY", "每年 8,760 小时", "kW"]),
    ],
)
def test_assumptions_print_percentages_and_units_never_raw_fractions(revision, language, expected):
    table = _assumptions(proposal_html(revision=revision, language=language))
    values = _values(table)
    for text in expected:
        assert any(text in value for value in values), (text, values)
    assert not [v for v in values if re.fullmatch(r"0\.\d+", v.strip())], values
    assert "CNY/kWh" in table


def test_assumptions_are_grouped_two_a_row_in_the_pdf(revision):
    html = proposal_html(revision=revision, language="en")
    table = _assumptions(html)
    groups = re.findall(r'<tr class="group"><th colspan="4">([^<]*)</th>', table)
    assert groups == ["Cluster and workload", "Network", "Costs"]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    rows_with_two = [r for r in rows if r.count('<td class="num">') == 2]
    assert len(rows_with_two) >= len(rows) - len(groups)  # only a group's odd last row is alone
    count = len(tco_presented(revision.tco_snapshot, revision.tco_options)["assumptions"])
    every = len(revision.tco_snapshot["assumptions"])
    assert count < every, "the unpriced build is not shown, nor are its leaf's rows"
    assert sum(r.count('<td class="num">') for r in rows) == count


def test_the_pdfs_assumptions_take_at_most_a_page(revision):
    """Before: one row each, 2.5 pages of the PDF. Measured from the page their first group
    is on to the page the next section starts on: the same page or the next."""
    pdf = pdf_reader(proposal_pdf(revision=revision, language="en"))
    pages = [(page.extract_text() or "").lower() for page in pdf.pages]
    start = next(i for i, text in enumerate(pages) if "cluster and workload" in text)
    end = next(i for i, text in enumerate(pages) if "services and support" in text)
    assert end - start <= 1, (start, end)


@pytest.mark.parametrize(
    ("kept", "english", "chinese"),
    [
        ({"key": "costs.utilisation", "value": "0.85", "unit": ""}, "85 %", "85 %"),
        ({"key": "transport.roce.efficiency", "value": 0.8, "unit": ""}, "80 %", "80 %"),
        ({"key": "costs.discount_rate", "value": "0.08", "unit": ""}, "8 % a year", "每年 8 %"),
        ({"key": "model.backward_share", "value": 0.6667, "unit": ""}, "66.67 %", "66.67 %"),
        ({"key": "costs.space_per_year", "value": "120000", "unit": "CNY"}, "120,000 CNY a year",
         "每年 120,000 CNY"),
        ({"key": "fabric.IB.oversubscription", "value": 2.0, "unit": ":1"}, "2:1", "2:1"),
        ({"key": "costs.server_power_kw", "value": "11.0", "unit": "kW"}, "11.0 kW", "11.0 kW"),
    ],
)  # fmt: skip
def test_a_snapshot_kept_with_raw_numbers_is_formatted_when_printed(kept, english, chinese):
    with translation.override("en"):
        assert assumption_value(kept) == english
    with translation.override("zh-hans"):
        assert assumption_value(kept) == chinese


def test_the_share_page_folds_the_same_grouped_assumptions_with_their_units(revision):
    """The customer's page (not for print) keeps one assumption a row, with its basis, inside
    its fold: the same groups and the same formatted values."""
    from django.template.loader import render_to_string

    from proposals.documents.pdf import TEMPLATE
    from proposals.documents.selectors import proposal_content

    with translation.override("zh-hans"):
        content = proposal_content(revision=revision, language="zh-hans")
        html = render_to_string(TEMPLATE, {"c": content, "language": "zh-hans", "for_print": False})
    fold = html.split('class="assumptions-fold"', 1)[1].split("</details>", 1)[0]
    groups = re.findall(r'<tr class="group"><th colspan="3">([^<]*)</th>', fold)
    assert groups == ["集群与工作负载", "网络", "成本"]
    values = _values(fold)
    assert "85 %" in values and "每年 8 %" in values
    assert not [v for v in values if re.fullmatch(r"0\.\d+", v.strip())], values
