"""Pages with everything on them, for the layout and accessibility checks: one world per module
(`DeskPages` on `shared_world`), each quote in it built the first time a test asks for it."""

from __future__ import annotations

from dataclasses import replace

from django.utils import timezone

from proposals.models import LinkView, ShareLink
from proposals.share.services import share_link_create
from tests.browser.conftest import design_tco_loaded, sign_in_as
from tests.conftest import catalog_seed, user_make
from tests.proposals.choice_world import quote_with_choices
from tests.proposals.conftest import quote_rich
from tests.quoting.factories import ProjectFactory, world_make

DESK = {"width": 1440, "height": 900}


def speaking(user, language: str) -> None:
    user.language = language
    user.save()


class DeskPages:
    """The shipped catalog, the shared world (wang, li, zhao, a customer and its project) and,
    built when first asked for, a sent rich quote per language and a draft quote with
    alternatives and optional items. The tests only read them, each speaking its language."""

    def __init__(self, catalog_snapshot) -> None:
        catalog_seed(catalog_snapshot)
        self.world = world_make(user_make)
        self._sent: dict[str, object] = {}
        self._choices = self._awaiting = None

    def customer_speaking(self, language: str) -> None:
        """The customer's language, which the proposal panel offers first: each quote was
        built with its own, as a world of its own had it."""
        self.world.customer.language = language
        self.world.customer.save()

    def sent(self, language: str):
        """A sent quote of a real design with a ready proposal PDF and a share link opened
        once."""
        if language not in self._sent:
            # A project each: a project's design names are unique (quote_rich's "128 GPUs").
            project = ProjectFactory(customer=self.world.customer, name=f"GPU cluster {language}")
            self._sent[language] = _sent_and_read(replace(self.world, project=project), language)
        self.customer_speaking(language)
        return self._sent[language]

    def choices(self):
        """A draft quote with alternatives and optional items (tests/proposals/choice_world)."""
        if self._choices is None:
            self._choices = quote_with_choices(self.world, send=False)
        self.customer_speaking("en")
        return self._choices

    def awaiting_approval(self):
        """Another such draft, put to the manager for approval."""
        if self._awaiting is None:
            from quoting.quotes.services.quotes import quote_request_approval

            quote = quote_with_choices(self.world, send=False)
            quote_request_approval(
                quote=quote, user=self.world.sales, expected_version=quote.version
            )
            self._awaiting = quote
        self.customer_speaking("en")
        return self._awaiting


def _sent_and_read(world, language: str):
    quote = quote_rich(world, language=language)  # the send renders its PDFs (eager, on commit)
    link, _ = share_link_create(
        quote=quote,
        user=world.sales,
        recipient_name="Li Wei",
        recipient_email="li.wei@pengcheng-university.example.cn",
    )
    # Read for a while (every column of the panel filled: issue 15), and once by a scanner.
    LinkView.objects.create(
        link=link,
        revision_label="R1",
        browser="Chrome Mobile",
        os="Android",
        is_mobile=True,
        kind="real",
        script_ran=True,
        seconds=4985,
        sections={"cover": 65, "design": 320, "bom": 1200, "tco": 3300, "terms": 100},
    )
    LinkView.objects.create(
        link=link,
        revision_label="R1",
        browser="Other",
        os="Other",
        kind="scanner",
        scanner="Microsoft Office",
    )
    ShareLink.objects.filter(pk=link.pk).update(use_count=1, last_used_at=timezone.now())
    return quote


def design_page_open(page, base_url: str, pages: DeskPages, *, language: str):
    """The design page of the project, with its results, drawing, BOM and TCO loaded."""
    speaking(pages.world.sales, language)
    page.set_viewport_size(DESK)
    sign_in_as(page, base_url, "wang")
    page.goto(f"{base_url}/designs/new/?project={pages.world.project.pk}")
    page.wait_for_selector("#design-results table")
    design_tco_loaded(page)


def quote_page_open(page, base_url: str, pages: DeskPages, *, language: str):
    """The staff page of `pages.sent(language)`, its proposal ready and its TCO loaded."""
    speaking(pages.world.sales, language)
    quote = pages.sent(language)
    page.set_viewport_size(DESK)
    sign_in_as(page, base_url, "wang")
    page.goto(f"{base_url}/quotes/{quote.pk}/")
    page.wait_for_selector("#proposal-panel .share-links")
    page.wait_for_selector("#proposal-panel [data-status=ready]", timeout=60_000)
    page.wait_for_selector("#design-tco table, #design-tco .error-box", timeout=30_000)
    return quote
