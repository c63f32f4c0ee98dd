"""Pages with everything on them, for the layout and accessibility checks."""

from __future__ import annotations

from django.utils import timezone

from proposals.models import LinkView, ShareLink
from proposals.share.services import share_link_create
from tests.browser.conftest import design_tco_loaded, sign_in_as
from tests.proposals.conftest import quote_rich
from tests.quoting.factories import world_make

DESK = {"width": 1440, "height": 900}


def speaking(user, language: str) -> None:
    user.language = language
    user.save()


def design_page_open(page, base_url: str, make_user, *, language: str):
    """The design page of a project, with its results, drawing, BOM and TCO loaded."""
    world = world_make(make_user)
    speaking(world.sales, language)
    page.set_viewport_size(DESK)
    sign_in_as(page, base_url, "wang")
    page.goto(f"{base_url}/designs/new/?project={world.project.pk}")
    page.wait_for_selector("#design-results table")
    design_tco_loaded(page)
    return world


def quote_page_open(page, base_url: str, make_user, *, language: str):
    """A sent quote of a real design with a ready proposal PDF and a share link opened once."""
    world = world_make(make_user)
    speaking(world.sales, language)
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
    page.set_viewport_size(DESK)
    sign_in_as(page, base_url, "wang")
    page.goto(f"{base_url}/quotes/{quote.pk}/")
    page.wait_for_selector("#proposal-panel .share-links")
    page.wait_for_selector("#proposal-panel [data-status=ready]", timeout=60_000)
    page.wait_for_selector("#design-tco table, #design-tco .error-box", timeout=30_000)
    return quote
