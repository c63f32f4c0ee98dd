"""A quote line's price source is kept in English (the API gives it as it is) and read in the
reader's language (#27 item 4): a reference price, a price entered or set by hand, what a support
line follows; a price list's name and a conversion's figures as kept."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from quoting.kept_texts import price_source_text
from quoting.quotes.models import Quote, QuoteLine
from quoting.quotes.services.demo import demo_data_ensure


@pytest.mark.parametrize(
    ("kept", "chinese"),
    [
        ("NVIDIA list (CNY) (reference)", "NVIDIA list (CNY)（参考价）"),
        ("entered by hand", "手工录入"),
        ("set by hand (was 1200.00)", "手工设定（原为 1200.00）"),
        (
            "NVIDIA list (CNY) (reference) · per device: 6 switches on this offer",
            "NVIDIA list (CNY)（参考价） · 按设备计：本报价共 6 台交换机",
        ),
        (  # a conversion: names and figures, as kept
            "NVIDIA list (USD): USD 32000.00 x 7.123456 (2026-01-05)",
            "NVIDIA list (USD): USD 32000.00 x 7.123456 (2026-01-05)",
        ),
        ("Partner list (CNY)", "Partner list (CNY)"),
        ("", ""),
    ],
)
def test_a_price_source_reads_in_chinese(kept, chinese):
    with translation.override("zh-hans"):
        assert price_source_text(kept) == chinese
    with translation.override("en"):
        assert price_source_text(kept) == kept


def test_an_old_line_s_price_source_reads_in_chinese_in_the_admin_and_stays_english_in_the_api(
    admin_client, admin_user, seeded
):
    demo_data_ensure()
    revision = Quote.objects.get().current_revision
    line = revision.lines.order_by("position").first()
    QuoteLine.objects.filter(pk=line.pk).update(price_source="set by hand (was 1200.00)")
    get_user_model().objects.filter(pk=admin_user.pk).update(language="zh-hans")

    page = admin_client.get(reverse("admin:quoting_quoterevision_change", args=[revision.pk]))

    assert page.status_code == 200
    assert "手工设定（原为 1200.00）" in page.text
    assert "set by hand (was" not in page.text
    line.refresh_from_db()
    assert line.price_source == "set by hand (was 1200.00)"  # kept as it was: the API's
