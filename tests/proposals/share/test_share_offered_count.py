"""The share page's "N offered" counts what the reader can tick in the configuration shown:
every optional item and that configuration's spares kit, not another option's kit (issue 26
item 8). As quoted on first load; the chosen option's after "Recalculate" without script."""

from __future__ import annotations

import re

import pytest

from proposals.share.services import share_link_create
from quoting.quotes.models import LineOrigin
from quoting.quotes.services.quotes import quote_send
from tests.quoting.kit_world import quote_with_kits

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    """Kits for "Better" only (the proposed design's taken off): as quoted one item is offered
    (the locker), with "Better" two (its kit and the locker)."""
    quote = quote_with_kits(world)
    quote.current_revision.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="").delete()
    return quote


@pytest.fixture
def token(quote, world):
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    return share_link_create(quote=quote, user=world.sales)[1]


def _count(html: str) -> str:
    return re.search(r"data-offered-count>([^<]*)<", html).group(1)


@pytest.mark.parametrize(("language", "one"), [("en", "1 offered"), ("zh-hans", "可选 1 项")])
def test_as_quoted_the_count_leaves_out_another_option_s_kit(client, token, language, one):
    assert _count(client.get(f"/p/{token}?lang={language}").content.decode()) == one


def test_with_an_option_chosen_the_count_is_that_option_s(client, token):
    page = client.post(
        f"/p/{token}/accept?lang=en",
        {"revision": 1, "name": "Li Wei", "alternative": "Better", "recalculate": "1"},
    )
    assert _count(page.content.decode()) == "2 offered"
