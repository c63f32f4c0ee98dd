"""The seller's #27 flows in Chromium, in English and Chinese, on a 1440 px desk and a 390 px
phone: the manager countersigns the customer's acceptance, the sales engineer edits a draft's
payment milestones and picks the TCO options the proposal shows, the company admin saves the
company profile, and a share link is e-mailed from the quote page. Each flow works, its page does
not run off to the right, and it logs no console error.

One world for the module (`shared_world`), no PDF rendered: the flows are the pages' own (the
signed copy made again after a countersignature and the e-mailed link's content have tests of
their own, tests/proposals)."""

from __future__ import annotations

import re
from decimal import Decimal
from unittest import mock

import pytest

from portal.models import COMPANY_ADMIN, CompanyProfile
from proposals.acceptance.services import share_accept
from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.quotes.models import Quote
from quoting.quotes.services.quotes import quote_add_free_text, quote_create
from tests.browser.conftest import console_errors, sign_in_as
from tests.browser.test_layout_browser import assert_no_horizontal_overflow
from tests.browser.worlds import speaking
from tests.conftest import catalog_seed, user_make
from tests.proposals.conftest import _quote_rich_draft, quote_sent
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"desk": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
EVERY_WAY = pytest.mark.parametrize(
    "language,size", [(lang, size) for lang in ("en", "zh-hans") for size in SIZES]
)


@pytest.fixture(scope="module")
def seller(shared_world, catalog_snapshot):
    """wang's and zhao's world with: a quote the customer accepted (zhao, a sales manager, may
    countersign it), a draft for its payment terms, a draft from a design with its TCO options,
    a sent quote to share, and a company admin. The PDFs' renders and the signed copy's maker
    are not queued while the module runs."""
    with (
        mock.patch("proposals.documents.services._enqueue"),
        mock.patch("proposals.acceptance.services.enqueue_or_leave_to_sweeper"),
    ):
        catalog_seed(catalog_snapshot)
        world = world_make(user_make)
        world.manager.first_name, world.manager.last_name = "Ming", "Zhao"
        world.manager.save()
        world.sales.email = "wang@reseller.example"
        world.sales.save()
        accepted = quote_sent(world)
        link, _ = share_link_create(quote=accepted, user=world.sales, recipient_name="Li Wei")
        share_accept(link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True)
        draft = quote_create(project=world.project, user=world.sales)
        quote_add_free_text(
            quote=draft,
            description="Site survey",
            quantity=1,
            unit_price="5000.00",
            user=world.sales,
            expected_version=draft.version,
        )
        world.accepted, world.draft = accepted, draft
        world.tco = _quote_rich_draft(world)
        world.sent = quote_sent(world)
        world.admin = user_make("qian", role=COMPANY_ADMIN)
        yield world


def _tab(browser, base: str, username: str, size: str):
    """A signed-in tab of `size`, and the list its console errors go into."""
    page = browser.new_page(viewport=SIZES[size])
    page.set_default_timeout(30_000)
    errors = console_errors(page)
    sign_in_as(page, base, username)
    return page, errors


def _fits_and_quiet(page, errors) -> None:
    assert_no_horizontal_overflow(page)
    assert errors == []
    page.close()


@EVERY_WAY
def test_a_sales_manager_countersigns_the_customers_acceptance(
    shared_world, seller, browser, language, size
):
    Acceptance.objects.filter(revision__quote=seller.accepted).update(
        countersigned_by=None, countersigned_at=None, countersigner_name=""
    )  # not countersigned yet: each language and size countersigns it once
    speaking(seller.manager, language)
    page, errors = _tab(browser, shared_world, "zhao", size)
    page.on("dialog", lambda dialog: dialog.accept())  # "Countersign this acceptance ...?"
    page.goto(f"{shared_world}/quotes/{seller.accepted.pk}/")
    page.locator(".acceptance-countersigned button[type=submit]").click()
    page.locator(".acceptance-countersigned", has_text="Ming Zhao").wait_for()
    acceptance = Acceptance.objects.get(revision__quote=seller.accepted)
    assert acceptance.countersigned_by == seller.manager
    assert errors == []
    _fits_and_quiet(page, errors)


@EVERY_WAY
def test_the_sales_engineer_sets_a_drafts_payment_milestones(
    shared_world, seller, browser, language, size
):
    speaking(seller.sales, language)
    page, errors = _tab(browser, shared_world, "wang", size)
    page.goto(f"{shared_world}/quotes/{seller.draft.pk}/")
    rows = page.locator("#payment-terms [data-milestone-row]")
    first = f"Deposit {language} {size}"
    for row, (label, percent) in enumerate([(first, "40"), ("On delivery", "60")]):
        rows.nth(row).locator("input").nth(0).fill(label)
        rows.nth(row).locator("input").nth(1).fill(percent)
    for row in range(2, rows.count()):
        rows.nth(row).locator("input").nth(0).fill("")
        rows.nth(row).locator("input").nth(1).fill("")
    with page.expect_navigation():
        page.locator("#payment-terms button[type=submit]").click()
    page.locator("#payment-terms").wait_for()
    schedule = Quote.objects.get(pk=seller.draft.pk).current_revision.payment_schedule
    assert [(m["label"], Decimal(m["percent"])) for m in schedule][0] == (first, 40)
    assert sum(Decimal(m["percent"]) for m in schedule) == 100
    _fits_and_quiet(page, errors)


@EVERY_WAY
def test_the_sales_engineer_picks_the_tco_options_the_proposal_shows(
    shared_world, seller, browser, language, size
):
    speaking(seller.sales, language)
    page, errors = _tab(browser, shared_world, "wang", size)
    page.goto(f"{shared_world}/quotes/{seller.tco.pk}/")
    boxes = page.locator(".tco-options-form input[name=tco_options]")
    boxes.first.wait_for()
    names = boxes.evaluate_all("inputs => inputs.map(i => i.value)")
    assert len(names) >= 2, names
    left_out = names[list(SIZES).index(size) % len(names)]  # another one left out at each size
    for name in names:
        box = page.locator(f".tco-options-form input[value='{name}']")
        box.set_checked(name != left_out)
    with page.expect_navigation():  # a plain form: the quote page again
        page.locator(".tco-options-form button[type=submit]").click()
    page.locator(".tco-hidden").first.wait_for()  # "not in the proposal", beside the option
    revision = Quote.objects.get(pk=seller.tco.pk).current_revision
    assert left_out not in revision.tco_options and len(revision.tco_options) == len(names) - 1
    _fits_and_quiet(page, errors)


@EVERY_WAY
def test_the_company_admin_saves_the_company_profile(shared_world, seller, browser, language, size):
    speaking(seller.admin, language)
    page, errors = _tab(browser, shared_world, "qian", size)
    page.goto(f"{shared_world}/settings/company/")
    name = f"Shenzhen Fabric Networks ({language}, {size})"
    page.fill("#id_legal_name_en", name)
    page.fill("#id_legal_name_zh", "深圳织网科技有限公司")
    rows = page.locator("[data-milestone-row]")
    for row, (label, percent) in enumerate([("On order", "30"), ("On delivery", "70")]):
        rows.nth(row).locator("input").nth(0).fill(label)
        rows.nth(row).locator("input").nth(1).fill(percent)
    for row in range(2, rows.count()):
        rows.nth(row).locator("input").nth(0).fill("")
        rows.nth(row).locator("input").nth(1).fill("")
    with page.expect_navigation():
        page.locator("form.card button[type=submit]").click()
    assert page.locator(".error-box").count() == 0
    profile = CompanyProfile.objects.get()
    assert profile.legal_name_en == name
    assert [Decimal(m["percent"]) for m in profile.payment_schedule] == [30, 70]
    _fits_and_quiet(page, errors)


@EVERY_WAY
def test_the_sales_engineer_e_mails_a_share_link_from_the_quote_page(
    shared_world, seller, browser, language, size, mailoutbox
):
    speaking(seller.sales, language)
    page, errors = _tab(browser, shared_world, "wang", size)
    page.goto(f"{shared_world}/quotes/{seller.sent.pk}/")
    page.locator(".share-form").wait_for()
    assert page.is_checked("#id_send_email")
    page.fill("#id_recipient_name", "Li Wei")
    page.fill("#id_recipient_email", "li.wei@pcl.example")
    page.select_option("#id_language", language)
    page.locator(".share-form button[type=submit]").click()
    url = page.locator("#share-url")
    url.wait_for()
    page.locator('[data-email-state="sent"]').first.wait_for()
    (sent,) = mailoutbox
    assert url.input_value().split("/p/")[1] in sent.body
    assert bool(re.search("[\u4e00-\u9fff]", sent.subject)) == (language == "zh-hans")
    _fits_and_quiet(page, errors)
