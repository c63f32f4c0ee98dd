"""A refused answer keeps the reader where they were (#27 item 3), in headless Chromium, in
Chinese and English on a phone and a desk: the reader chooses "Better" and an optional item,
fills the form with a unified social credit code whose check character is wrong, ticks "I
accept" and sends it. The page comes back with the focus in that field, on screen, marked for
the eye (its border in the error colour) and for a screen reader (aria-invalid, described by its
message); the tick, the choice and its total are as they left them; correcting the one field
accepts."""

from __future__ import annotations

import pytest

from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.quotes.selectors import offer_choice
from tests.browser.conftest import csp_watch
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1440, "height": 900}
BAD_CODE, GOOD_CODE = "91110000600037341X", "91110000600037341L"
ERROR_RED = "rgb(179, 38, 30)"  # share.css --error
# The message under the field, in the page's language.
CREDIT_CODE_WORDS = {"zh-hans": "统一社会信用代码", "en": "unified social credit code"}


@pytest.mark.parametrize(
    ("language", "size"),
    [("zh-hans", PHONE), ("en", PHONE), ("zh-hans", DESK), ("en", DESK)],
    ids=["zh-phone", "en-phone", "zh-desk", "en-desk"],
)
def test_a_wrong_credit_code_comes_back_focused_with_the_tick_and_the_choice_kept(
    live_server, browser, make_user, language, size
):
    world = world_make(make_user)
    quote = quote_with_choices(world)
    optics = optional_line(quote, "Spare optics kit")
    chosen = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    phone = size is PHONE
    context = browser.new_context(viewport=size, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(30_000)
    violations = csp_watch(page)
    page.goto(f"{live_server.url}/p/{token}?lang={language}")
    page.check("input[name=alternative][value=Better]")
    page.check(f"input[name=optional][value='{optics.key}']")
    page.click("#accept summary")
    page.fill("#id_name", "李伟")
    page.fill("#id_invoice_tax_id", BAD_CODE)
    page.check("#id_agreed")
    page.click("#accept-form button[type=submit]:not(.recalculate)")

    page.wait_for_selector("#fault-invoice_tax_id")
    assert page.evaluate("document.activeElement.id") == "id_invoice_tax_id"
    field = page.locator("#id_invoice_tax_id")
    assert field.get_attribute("aria-invalid") == "true"
    assert "fault-invoice_tax_id" in field.get_attribute("aria-describedby")
    box = field.bounding_box()
    assert box is not None and 0 <= box["y"] <= size["height"] - box["height"]  # on screen
    assert CREDIT_CODE_WORDS[language] in page.locator("#fault-invoice_tax_id").inner_text()
    # Marked for the eye too: the field at fault in the error colour, a field without none.
    border = "e => getComputedStyle(e).borderTopColor"
    assert field.evaluate(border) == ERROR_RED
    assert page.locator("#id_name").evaluate(border) != ERROR_RED
    assert page.is_checked("#id_agreed")
    assert page.is_checked("input[name=alternative][value=Better]")
    assert page.is_checked(f"input[name=optional][value='{optics.key}']")
    assert page.locator(".offer-total").inner_text().startswith(f"{chosen.total:,.2f}")
    assert page.locator("#choice-total").inner_text().startswith(f"{chosen.total:,.2f}")

    field.fill(GOOD_CODE)
    page.click("#accept-form button[type=submit]:not(.recalculate)")
    page.wait_for_selector("p.ok[role=status]")
    context.close()
    assert violations == []
    acceptance = Acceptance.objects.get()
    assert (acceptance.invoice_tax_id, acceptance.total) == (GOOD_CODE, chosen.total)
    assert acceptance.chosen_alternative == "Better"
