"""No page logs a console error (#27 item 5): every staff page, signed in (the revision diff and
the 403 page too), the sign-in page and every page the customer reaches from a share link, in
English and Chinese, on a desk and a phone. A script
error, a failed request the page makes, or a Content-Security-Policy violation (Chromium logs
each as a console error) fails the test, naming the page, the language and the width."""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from proposals.acceptance.as_built import as_built_sign_off_ask
from proposals.acceptance.services import share_accept
from proposals.share.services import share_link_create
from quoting.quotes.services.as_built import as_built_check_run, as_built_plan
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_create,
    quote_request_approval,
    quote_revise,
    quote_send,
)
from tests.browser.conftest import sign_in_as
from tests.browser.worlds import speaking
from tests.conftest import catalog_seed, user_make
from tests.proposals.choice_world import quote_with_choices
from tests.proposals.conftest import quote_rich
from tests.quoting.api_world import quote_world_make
from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"1440": {"width": 1440, "height": 900}, "390": {"width": 390, "height": 844}}
LANGUAGES = ("en", "zh-hans")


@pytest.fixture(scope="module")
def portal(shared_world, catalog_snapshot):
    """Quotes in every state a page shows: a draft, one awaiting the manager's approval, one
    sent with a design and its TCO (open on its link), one accepted with an as-built check put
    to the customer, one revised after it was sent (its revision diff). Returns (staff pages,
    manager pages, open token, accepted token).

    Built once for the module's four tests (50-60 s each on the loaded machine): they only
    read it, the customer's two answers stopping short of recording anything (an accept
    refused, a decline not confirmed)."""
    catalog_seed(catalog_snapshot)
    qw = quote_world_make(user_make)
    world = qw.world
    accepted = qw.quote
    quote_send(quote=accepted, user=world.sales, expected_version=accepted.version)
    link, accepted_token = share_link_create(quote=accepted, user=world.sales)
    share_accept(link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True)
    accepted.refresh_from_db()
    revision = accepted.booked_revision
    check = as_built_check_run(
        revision=revision,
        user=world.sales,
        filename="fabric.txt",
        content=ibnetdiscover_text(links_of(as_built_plan(revision))).encode(),
    )
    as_built_sign_off_ask(check=check, user=world.sales)

    sent = quote_rich(world)
    _, open_token = share_link_create(quote=sent, user=world.sales, recipient_name="Li Wei")

    draft = quote_create(project=world.project, user=world.sales)
    quote_add_free_text(
        quote=draft,
        description="Site survey",
        quantity=1,
        unit_price="5000.00",
        user=world.sales,
        expected_version=draft.version,
    )
    revised = quote_create(project=world.project, user=world.sales)
    for description in ("Site survey", "Cabling plan"):  # R1 sent with one, R2 adds the other
        revised.refresh_from_db()
        quote_add_free_text(
            quote=revised,
            description=description,
            quantity=1,
            unit_price="5000.00",
            user=world.sales,
            expected_version=revised.version,
        )
        revised.refresh_from_db()
        if revised.current_revision.number == 1:
            quote_send(quote=revised, user=world.sales, expected_version=revised.version)
            revised.refresh_from_db()
            quote_revise(quote=revised, user=world.sales, expected_version=revised.version)
    waiting = quote_with_choices(world, send=False)
    quote_request_approval(quote=waiting, user=world.sales, expected_version=waiting.version)

    part_number = sent.current_revision.lines.exclude(sku="").first().sku
    staff = [
        "/",
        "/quotes/",
        f"/quotes/{draft.pk}/",
        f"/quotes/{sent.pk}/",
        f"/quotes/{sent.pk}/proposal/",
        f"/quotes/{revised.pk}/diff/?a=1&b=2",
        f"/quotes/{accepted.pk}/",
        f"/quotes/{accepted.pk}/revisions/{revision.number}/as-built/",
        f"/quotes/{accepted.pk}/revisions/{revision.number}/as-built/{check.pk}/",
        f"/designs/new/?project={world.project.pk}",
        "/tco/",
        "/customers/",
        f"/customers/{world.customer.pk}/",
        "/customers/new/",
        f"/customers/{world.customer.pk}/edit/",
        f"/customers/{world.customer.pk}/projects/new/",
        "/projects/",
        f"/projects/{world.project.pk}/",
        "/catalog/",
        f"/catalog/{part_number}/",
        "/inbox/",
        "/account/notifications/",
    ]
    manager = ["/", f"/quotes/{waiting.pk}/"]
    return world, staff, manager, open_token, accepted_token


class Tab:
    """A tab of its own for one page: the console errors it logs, each with the page it was on."""

    def __init__(self, context, label: str, at: str = "") -> None:
        self.page = context.new_page()
        self.page.set_default_timeout(60_000)
        self.label, self.at, self.errors = label, at, []
        # The one 4xx a step means to get: the document the server answers with and its status
        # (a faulty form's 400, its faults at their fields; the 403 page's 403). Chromium logs
        # any 4xx document as a failed load; a 4xx for anything else the page asks for, or
        # another status, still fails.
        self.refused_document: str | None = None
        self.refused_status = 400
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"{self.at} [{self.label}]: {e}"))

    def _console(self, message) -> None:
        if message.type != "error":
            return
        if (
            self.refused_document is not None
            and message.location.get("url") == self.refused_document
            and message.text.startswith(
                f"Failed to load resource: the server responded with a status of "
                f"{self.refused_status} "
            )
        ):
            return
        self.errors.append(f"{self.at} [{self.label}]: {message.text}")

    def settle(self) -> None:
        """Waits until the page's own requests (htmx fragments, the design's TCO) are done: an
        error they cause is logged before the test moves on."""
        # A page that keeps polling never idles: the errors it logged so far are counted.
        with contextlib.suppress(PlaywrightTimeout):
            self.page.wait_for_load_state("networkidle", timeout=20_000)

    def visit(self, base: str, path: str):
        """Opens `path` and waits for it to settle; returns the document's response."""
        self.at = path
        response = self.page.goto(base + path)
        self.settle()
        return response

    def close(self) -> list[str]:
        """Closes the tab; returns the errors it logged."""
        self.page.close()
        return self.errors


def visit_side_by_side(base: str, visits: list[tuple[object, str]], label: str) -> list[str]:
    """Opens every page of `visits` (a browser context, signed in or not, and a path each) in a
    tab of its own, all at once; then waits for each to load (failing on a timeout, as a visit
    does) and settle, and returns the errors they logged.

    Settling waits for half a second without requests (Playwright's "networkidle"): one tab
    visiting the 25 pages of a test in turn spent 13 of its 18-20 s waiting so; tabs side by
    side wait those half seconds together (9-11 s a test on the loaded 2-core machine)."""
    tabs = []
    for context, path in visits:
        tab = Tab(context, label, at=path)
        tab.page.goto(base + path, wait_until="commit")  # its load goes on beside the others'
        tabs.append(tab)
    errors = []
    for tab in tabs:
        tab.page.wait_for_load_state("load")
        tab.settle()
        errors += tab.close()
    return errors


# One test per language and width: four that xdist can share between its workers.
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_logs_a_console_error_in_either_language_on_a_desk_or_a_phone(
    portal, browser, shared_world, language, width
):
    world, staff, manager, open_token, accepted_token = portal
    base, errors, visited = shared_world, [], 0
    viewport = WIDTHS[width]
    speaking(world.sales, language)
    speaking(world.manager, language)
    label = f"{language} {width}"
    contexts, visits = [], []
    for username, paths in (("wang", staff), ("zhao", manager)):
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        signing_in = Tab(context, label, at="/accounts/login/")
        sign_in_as(signing_in.page, base, username)
        errors += signing_in.close()
        visits += [(context, path) for path in paths]
    # The customer's, its browser in the language: the sign-in page, signed out, reads it.
    locale = {"en": "en-US", "zh-hans": "zh-CN"}[language]
    context = browser.new_context(viewport=viewport, locale=locale)
    contexts.append(context)
    shared = f"/p/{open_token}?lang={language}"
    customer_pages = [
        "/accounts/login/",
        shared,
        f"/p/{open_token}/drawing?lang={language}",
        f"/p/{accepted_token}?lang={language}",  # the as-built sign-off
    ]
    visits += [(context, path) for path in customer_pages]
    errors += visit_side_by_side(base, visits, label)
    visited += len(visits)
    # A page the sales engineer's role does not include: the 403 page, its 403 expected.
    denied = Tab(contexts[0], label)
    denied.refused_document, denied.refused_status = f"{base}/settings/company/", 403
    assert denied.visit(base, "/settings/company/").status == 403
    assert denied.page.locator("h1").count() == 1  # the page, not a bare refusal
    visited += 1
    errors += denied.close()
    # Accepting without ticking the agreement: the page again, the fault at its field.
    customer = Tab(context, label)
    customer.visit(base, shared)
    page = customer.page
    customer.at = f"{shared} (accept, not agreed)"
    page.click("#accept summary")
    page.fill("#id_name", "Li Wei")
    page.evaluate("document.getElementById('accept-form').noValidate = true")
    customer.refused_document = f"{base}/p/{open_token}/accept?lang={language}"
    with page.expect_response(customer.refused_document) as answer:
        page.click("#accept-form button[type=submit]:not(.recalculate)")
    assert answer.value.status == 400  # the form again, nothing recorded
    page.wait_for_selector("[aria-invalid=true], #accept-error")
    customer.settle()
    customer.refused_document = None
    # Declining asks for a confirmation first.
    customer.visit(base, shared)
    customer.at = f"{shared} (decline, to confirm)"
    page.click("#decline summary")
    with page.expect_navigation():
        page.click("#decline button[type=submit]")
    page.wait_for_selector("button.danger")
    customer.settle()
    visited += 2
    errors += customer.close()
    for context in contexts:
        context.close()
    print(f"{visited} pages visited")
    assert errors == [], "\n".join(errors)
