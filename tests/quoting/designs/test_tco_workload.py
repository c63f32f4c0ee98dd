"""Honest TCO (issue 14): the workload is chosen on the design and on the quote, stored, and
printed; the quoted fabric's capex is the quote's own net after discount, the alternatives are
priced by the same rule, and the customer reads no internal note."""

from __future__ import annotations

from decimal import Decimal

import pytest

from proposals.documents.pdf import proposal_html
from quoting.designs.models import SavedDesign
from quoting.designs.selectors import bom_priced
from quoting.designs.services.saved import design_save
from quoting.designs.services.tco import tco_presented
from quoting.engine.tco.presets import DEFAULT_WORKLOAD, WORKLOAD_PRESETS
from quoting.errors import InvalidValue
from quoting.quotes.models import QuoteRevision
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import (
    quote_create_from_design,
    quote_revise,
    quote_send,
    quote_update_line,
    quote_update_terms,
)
from tests.quoting.api_world import token_client

REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}
# What our own provenance notes say; none of it may reach a customer.
INTERNAL_NOTES = (
    "the request",
    "not given",
    ": verify",
    "verify before",
    "not quoted",
    "§",
    "tco-model",
    "default: a 64-port",
    "stated efficiency",
)


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    """The shared world, made after the shipped catalog is loaded."""
    return world


def _saved(world, name="128 GPUs", **kwargs) -> SavedDesign:
    return design_save(
        project=world.project, name=name, user=world.sales, requirements=REQUIREMENTS, **kwargs
    )


def _quote(world, design=None, **kwargs):
    return quote_create_from_design(
        project=world.project, design=design or _saved(world), user=world.sales, **kwargs
    )


def _revision(quote) -> QuoteRevision:
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


# --- the design -----------------------------------------------------------------------------------


def test_a_design_assumes_large_model_pre_training_unless_told_otherwise(world):
    saved = _saved(world)
    assert DEFAULT_WORKLOAD == saved.workload == "llm_pretrain_70b"
    assert saved.tco["result"]["workload"]["key"] == "llm_pretrain_70b"
    assert saved.tco["request"]["workload"] == WORKLOAD_PRESETS["llm_pretrain_70b"].workload


def test_a_saved_design_keeps_the_workload_its_tco_was_computed_for(world):
    saved = _saved(world, workload="moe_47b")
    saved.refresh_from_db()
    assert saved.workload == "moe_47b"
    assert saved.tco["request"]["workload"] == WORKLOAD_PRESETS["moe_47b"].workload
    efficiency = [o["network_efficiency"] for o in saved.tco["result"]["options"]]
    assert min(efficiency) < max(efficiency), "expert all-to-all separates the fabrics"


def test_saving_a_design_with_an_unknown_workload_is_refused_naming_the_field(world):
    from quoting.engine.errors import InvalidInput

    with pytest.raises(InvalidInput) as refused:
        _saved(world, workload="llm_pretrain_1t")
    assert list(refused.value.errors) == ["workload"]
    assert not SavedDesign.objects.exists()


def test_the_design_page_compares_fabrics_for_the_workload_in_its_url(world, client):
    from tests.quoting.designs.test_snapshots import _page_query

    client.force_login(world.sales)
    query = _page_query(REQUIREMENTS)
    moe = client.get(f"/designs/tco/?{query}&currency=CNY&workload=moe_47b")
    default = client.get(f"/designs/tco/?{query}&currency=CNY&workload=nonsense")
    assert moe.status_code == default.status_code == 200
    assert moe.context["workload"] == "moe_47b"
    assert "Mixture-of-experts pre-training" in moe.content.decode()
    assert 'value="moe_47b" selected' in moe.content.decode()
    assert default.context["workload"] == DEFAULT_WORKLOAD, "an unknown one: the default"
    # The page carries it to the save form, which stores it.
    page = client.get(f"/designs/new/?{query}&workload=fine_tune_8b")
    assert page.context["save_form"].initial["workload"] == "fine_tune_8b"
    client.post(
        f"/designs/save/?{query}",
        {"project": world.project.pk, "name": "Tuning", "workload": "fine_tune_8b"},
    )
    assert SavedDesign.objects.get(name="Tuning").workload == "fine_tune_8b"


def test_choosing_a_workload_on_a_saved_design_computes_its_tco_again_and_keeps_it(world, client):
    saved = _saved(world)
    client.force_login(world.sales)
    panel = client.post(f"/designs/{saved.pk}/workload/?currency=CNY", {"workload": "fine_tune_8b"})
    assert panel.status_code == 200 and "Full fine-tuning, 8B" in panel.content.decode()
    saved.refresh_from_db()
    assert saved.workload == "fine_tune_8b"
    assert saved.tco["request"]["workload"] == WORKLOAD_PRESETS["fine_tune_8b"].workload

    refused = client.post(f"/designs/{saved.pk}/workload/", {"workload": "bogus"})
    assert refused.status_code == 400 and "choose one of" in refused.content.decode()
    saved.refresh_from_db()
    assert saved.workload == "fine_tune_8b"


def test_the_project_api_takes_and_returns_a_designs_workload(world):
    api = token_client(world.sales)
    url = f"/api/v1/projects/{world.project.pk}/designs/"
    made = api.post(url, {**REQUIREMENTS, "name": "API", "workload": "fine_tune_8b"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["workload"] == "fine_tune_8b"
    assert api.get(url).json()[0]["workload"] == "fine_tune_8b"
    plain = api.post(url, {**REQUIREMENTS, "name": "API default"}, format="json")
    assert plain.json()["workload"] == DEFAULT_WORKLOAD

    refused = api.post(url, {**REQUIREMENTS, "name": "Bad", "workload": "gpt5"}, format="json")
    assert refused.status_code == 400
    assert "workload" in str(refused.json())
    assert not SavedDesign.objects.filter(name="Bad").exists()


# --- the quote ------------------------------------------------------------------------------------


def test_a_quote_takes_its_designs_workload_unless_given_another(world):
    design = _saved(world, workload="moe_47b")
    assert _revision(_quote(world, design)).workload == "moe_47b"
    chosen = _revision(_quote(world, design, workload="fine_tune_8b"))
    assert chosen.workload == "fine_tune_8b"
    assert chosen.tco_snapshot["workload"]["key"] == "fine_tune_8b"
    assert chosen.tco.request["workload"] == WORKLOAD_PRESETS["fine_tune_8b"].workload


def test_changing_the_quotes_workload_computes_its_tco_again(world):
    quote = _quote(world)
    before = _revision(quote).tco_snapshot
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, workload="moe_47b"
    )
    revision = _revision(quote)
    assert revision.workload == "moe_47b"
    assert revision.tco_snapshot["workload"]["key"] == "moe_47b"
    assert revision.tco_snapshot["options"] != before["options"]
    assert revision.tco.request["workload"] == WORKLOAD_PRESETS["moe_47b"].workload
    assert quote.events.filter(verb="workload_changed").exists()


def test_an_unknown_workload_on_a_quote_is_refused_naming_the_field(world):
    quote = _quote(world)
    with pytest.raises(InvalidValue) as refused:
        quote_update_terms(
            quote=quote, user=world.sales, expected_version=quote.version, workload="bogus"
        )
    assert refused.value.field == "workload"
    assert _revision(quote).workload == DEFAULT_WORKLOAD


def test_the_quote_api_takes_and_returns_the_workload(world):
    design = _saved(world)
    api = token_client(world.sales)
    made = api.post(
        "/api/v1/quotes/", {"design": design.pk, "workload": "fine_tune_8b"}, format="json"
    )
    assert made.status_code == 201, made.content
    assert made.json()["workload"] == "fine_tune_8b"
    url = f"/api/v1/quotes/{made.json()['id']}/"
    changed = api.patch(url, {"workload": "moe_47b"}, format="json", HTTP_IF_MATCH=made["ETag"])
    assert changed.status_code == 200 and changed.json()["workload"] == "moe_47b"
    assert api.get(url).json()["workload"] == "moe_47b"
    assert api.get(f"{url}revisions/1/").json()["workload"] == "moe_47b"

    refused = api.patch(url, {"workload": "bogus"}, format="json", HTTP_IF_MATCH=changed["ETag"])
    assert refused.status_code == 400 and "workload" in str(refused.json())
    bad_create = api.post("/api/v1/quotes/", {"design": design.pk, "workload": "7b"}, format="json")
    assert bad_create.status_code == 400 and "workload" in str(bad_create.json())


def test_a_sent_revision_keeps_its_workload_and_tco_when_the_next_one_changes(world):
    quote = _quote(world)
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    frozen = QuoteRevision.objects.get(pk=sent.pk)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, workload="fine_tune_8b"
    )
    frozen_after = QuoteRevision.objects.get(pk=sent.pk)
    draft = _revision(quote)
    assert draft.number == 2 and draft.workload == "fine_tune_8b"
    assert frozen_after.workload == DEFAULT_WORKLOAD
    assert frozen_after.tco_snapshot == frozen.tco_snapshot
    assert frozen_after.tco.request["workload"] == WORKLOAD_PRESETS[DEFAULT_WORKLOAD].workload
    assert draft.tco_id != frozen_after.tco_id, "the draft's comparison is its own row"


def test_the_quote_page_shows_the_revisions_tco_and_changes_its_workload(world, client):
    quote = _quote(world)
    client.force_login(world.sales)
    panel = client.get(f"/quotes/{quote.pk}/tco/")
    body = panel.content.decode()
    assert panel.status_code == 200 and "LLM pre-training, 70B" in body
    assert "Network capex" in body and "the request" in body, "staff see the internal notes"
    posted = client.post(
        f"/quotes/{quote.pk}/workload/", {"workload": "moe_47b", "expected_version": quote.version}
    )
    assert posted.status_code == 302
    assert _revision(quote).workload == "moe_47b"
    refused = client.post(
        f"/quotes/{quote.pk}/workload/",
        {"workload": "bogus", "expected_version": quote.version + 1},
    )
    assert refused.status_code == 400 and _revision(quote).workload == "moe_47b"


# --- capex: the quote's own prices ------------------------------------------------------------


def _discounted(world):
    """A quote with a line discount and a 4 % quote discount (within a sales limit)."""
    quote = _quote(world)
    line = _revision(quote).lines.order_by("-unit_price").first()
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version, discount_percent=5
    )
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, discount_percent=4
    )
    return quote


def test_the_quoted_fabrics_capex_is_the_quotes_net_after_discount(world):
    quote = _discounted(world)
    revision = _revision(quote)
    net = revision_totals(revision=revision).net
    this = revision.tco_snapshot["options"][0]
    assert this["pricing"] == "quoted"
    assert Decimal(this["network_capex"]) + Decimal(this["network_opex_per_year"]) == net
    assert net < revision_totals(revision=revision).subtotal < revision.design_list_value
    # The other designed fabric: its list price less the same overall discount.
    design = revision.design
    other_list = bom_priced(bom=design.tco_inputs["designs"][1]["bom"], currency="CNY").total
    other = revision.tco_snapshot["options"][1]
    assert other["pricing"] == "list_less_discount"
    factor = net / revision.design_list_value
    assert (
        abs(
            Decimal(other["network_capex"])
            + Decimal(other["network_opex_per_year"])
            - other_list * factor
        )
        < 1
    )
    # Servers are labelled apart, at list price, the same for every option.
    assert {o["server_capex"] for o in revision.tco_snapshot["options"]} == {
        revision.tco.request["costs"]["server_capex"]
    }


def test_the_proposal_prints_the_quoted_capex_apart_from_the_servers(world):
    from django.template.defaultfilters import floatformat
    from django.utils import translation

    quote = _discounted(world)
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=sent.pk)
    view = tco_presented(revision.tco_snapshot)
    net = revision.net
    assert view["quoted_total"] == net
    html = proposal_html(revision=revision, language="en")
    with translation.override("en"):
        printed_net = floatformat(net, "2g")
        printed_capex = floatformat(view["quoted"]["network_capex"], "0g")
        printed_servers = floatformat(view["server_capex"], "0g")
    assert f"its services and support, {printed_net} CNY before VAT" in html
    assert f">{printed_capex}</td>" in html
    assert f"Servers: {printed_servers} CNY for every option, at list price" in html
    assert (
        "at list price less this offer&#x27;s overall discount" in html
        or "at list price less this offer's overall discount" in html
    )
    assert "Workload:</strong> LLM pre-training, 70B" in html


def test_no_internal_note_reaches_the_proposal_in_either_language(world):
    quote = _discounted(world)
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=sent.pk)
    for language in ("en", "zh-hans"):
        html = proposal_html(revision=revision, language=language)
        start = html.index('<section class="tco"')
        tco = html[start : html.index("</section>", start)]
        for note in INTERNAL_NOTES:
            assert note not in tco, (language, note)
    english = proposal_html(revision=revision, language="en")
    assert "Chosen workload" in english and "Your cluster" in english


def test_editing_a_revised_quote_prices_its_tco_from_the_new_lines(world):
    quote = _quote(world)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, discount_percent=5
    )
    revision = _revision(quote)
    this = revision.tco_snapshot["options"][0]
    assert revision.number == 2
    assert (
        Decimal(this["network_capex"]) + Decimal(this["network_opex_per_year"])
        == revision_totals(revision=revision).net
    )
    first = QuoteRevision.objects.get(quote=quote, number=1)
    first_this = first.tco_snapshot["options"][0]
    assert (
        Decimal(first_this["network_capex"]) + Decimal(first_this["network_opex_per_year"])
        == first.net
    ), "the sent revision keeps the prices it was sent with"


def test_the_share_page_prints_the_workload_and_no_internal_note(
    world, client, django_capture_on_commit_callbacks
):
    from proposals.share.services import share_link_create

    quote = _discounted(world)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    with django_capture_on_commit_callbacks(execute=True):
        _link, token = share_link_create(quote=quote, user=world.sales)
    body = client.get(f"/p/{token}").content.decode()
    start = body.index('<section class="tco"')
    tco = body[start : body.index("</section>", start)]
    assert world.customer.language.startswith("zh")
    assert "大语言模型预训练，70B" in tco and "本报价折后价格" in tco
    for note in INTERNAL_NOTES:
        assert note not in tco, note


def test_the_chinese_proposal_names_the_quoted_option_in_chinese(world):
    from django.utils import translation

    from quoting.engine.tco.names import option_name_message

    quote = _discounted(world)
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=sent.pk)
    name = tco_presented(revision.tco_snapshot)["quoted"]["name"]
    with translation.override("zh-hans"):
        chinese = option_name_message(name).render(translation.gettext)

    html = proposal_html(revision=revision, language="zh-hans")

    assert chinese != name and f"{chinese}：网络资本支出" in html
    assert f"{chinese}：叶至脊收敛比" in html  # the assumptions name it too
    assert name not in html
