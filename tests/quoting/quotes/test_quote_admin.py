"""The admin lists of the quoting models open, and quotes are read-only there."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from quoting.quotes.models import Quote, QuoteEvent, QuoteEventVerb
from quoting.quotes.services.demo import demo_data_ensure

MODELS = (
    "team",
    "customer",
    "project",
    "saveddesign",
    "tcoscenario",
    "fxrate",
    "quote",
    "quoterevision",
    "approval",
)


@pytest.fixture
def admin_client_with_demo(admin_client, seeded):
    demo_data_ensure()
    return admin_client


@pytest.mark.parametrize("model", MODELS)
def test_every_quoting_admin_list_opens(admin_client_with_demo, model):
    response = admin_client_with_demo.get(reverse(f"admin:quoting_{model}_changelist"))
    assert response.status_code == 200


def test_a_quote_opens_read_only_in_the_admin_with_its_revisions_and_trail(admin_client_with_demo):
    quote = Quote.objects.get()
    response = admin_client_with_demo.get(reverse("admin:quoting_quote_change", args=[quote.pk]))
    assert response.status_code == 200
    assert quote.number in response.text and "lines_from_design" in response.text
    assert admin_client_with_demo.get(reverse("admin:quoting_quote_add")).status_code == 403


def _cells(page: str, field: str) -> list[str]:
    return re.findall(rf'<td class="field-{field}">(.*?)</td>', page, flags=re.S)


def test_an_events_details_read_in_the_admin_users_language_beside_the_raw_json(
    admin_client_with_demo, admin_user
):
    from tests.portal.test_chinese_complete import english_words, visible_text

    quote = Quote.objects.get()
    kept = [
        (QuoteEventVerb.STATUS_CHANGED, {"before": "draft", "after": "sent"}),
        (
            QuoteEventVerb.LINE_CHANGED,
            {"line": 2, "before": {"quantity": 2}, "after": {"quantity": 4}},
        ),
        (
            QuoteEventVerb.DISCOUNT_CHANGED,
            {"before": "0", "after": "5", "reason": "edited after it was sent"},
        ),
    ]
    for verb, details in kept:
        QuoteEvent.objects.create(quote=quote, verb=verb, details=details)
    get_user_model().objects.filter(pk=admin_user.pk).update(language="zh-hans")

    page = admin_client_with_demo.get(reverse("admin:quoting_quote_change", args=[quote.pk])).text

    shown = _cells(page, "details_shown")
    assert len(shown) == quote.events.count()
    assert any("状态: 草稿 → 已发送" in cell for cell in shown), shown
    assert any("行: 2<br>数量: 2 → 4" in cell for cell in shown), shown
    assert any("整单折扣: 0 % → 5 %<br>原因: 发送后被编辑" in cell for cell in shown), shown
    designs = {event.details.get("design", "") for event in quote.events.all()}  # their names
    words = english_words(visible_text(" ".join(shown)), user_data=designs)
    assert not words, words
    raw = " ".join(_cells(page, "details_json"))  # the JSON as kept, for a data fix
    assert "edited after it was sent" in html.unescape(raw) and "quantity" in raw
