"""The customer's answer is recorded under the quote's row lock, on the revision they read
(issue 13, finding 6): the revision was checked before the row was locked, so with staff
re-sending in between, an acceptance of R1 was recorded on R2."""

from __future__ import annotations

import threading
import time

import pytest

from proposals.acceptance import services
from proposals.acceptance.services import OfferSuperseded, share_accept, share_decline
from proposals.share.services import share_link_create
from quoting.errors import QuoteError
from quoting.quotes.models import QuoteStatus
from quoting.quotes.services.quotes import quote_revise, quote_send
from tests.proposals.conftest import quote_sent
from tests.quoting.factories import quote_reload


def _re_send(quote, user):
    """Staff edit the sent quote (R2 opens) and send it."""
    quote = quote_reload(quote)
    quote_revise(quote=quote, user=user, expected_version=quote.version)
    quote_send(quote=quote, user=user, expected_version=quote.version)


def _answers(quote) -> list[str]:
    return [
        e.details["after"]
        for e in quote_reload(quote).events.filter(verb="status_changed")
        if e.details.get("after") in (QuoteStatus.ACCEPTED, QuoteStatus.DECLINED)
    ]


@pytest.fixture
def link(world, sent_quote):
    return share_link_create(quote=sent_quote, user=world.sales)[0]


@pytest.fixture
def re_send_inside_the_window(world, sent_quote, monkeypatch):
    """Staff re-send between the answer's checks and its record: the customer's page showed R1
    (what revision_shared returns), and R2 is sent before the answer is written."""
    original = services.revision_shared

    def staff_re_send_meanwhile(*, link):
        seen = original(link=link)
        _re_send(sent_quote, world.sales)
        return seen

    monkeypatch.setattr(services, "revision_shared", staff_re_send_meanwhile)


@pytest.mark.usefixtures("re_send_inside_the_window")
def test_an_accept_of_r1_is_refused_when_r2_is_sent_inside_the_window(link, sent_quote):
    with pytest.raises(OfferSuperseded) as caught:
        share_accept(link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True)
    assert caught.value.status_code == 409
    assert "your answer was not recorded" in caught.value.message
    assert quote_reload(sent_quote).status != QuoteStatus.ACCEPTED
    assert _answers(sent_quote) == []


@pytest.mark.usefixtures("re_send_inside_the_window")
def test_a_decline_of_r1_is_refused_when_r2_is_sent_inside_the_window(link, sent_quote):
    with pytest.raises(OfferSuperseded):
        share_decline(link=link, revision_number=1, reason="Over budget")
    assert _answers(sent_quote) == []


def test_an_accept_of_r1_after_r2_was_sent_is_refused_and_r2_can_be_accepted(
    world, link, sent_quote
):
    _re_send(sent_quote, world.sales)
    with pytest.raises(OfferSuperseded, match="replaced by a newer one"):
        share_accept(link=link, revision_number=1, name="Li Wei", title="", agreed=True)
    assert quote_reload(sent_quote).status == QuoteStatus.SENT

    share_accept(link=link, revision_number=2, name="Li Wei", title="", agreed=True)
    quote = quote_reload(sent_quote)
    assert (quote.status, quote.current_revision.number) == (QuoteStatus.ACCEPTED, 2)
    event = quote.events.filter(verb="status_changed").last()
    assert event.details["revision_label"] == "R2"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_re_send_waits_for_the_answer_and_the_answer_lands_on_r1(
    make_user, monkeypatch
):
    """Two connections: the customer's answer pauses holding the row lock; staff re-sending
    meanwhile wait for it, then find the quote accepted. The answer is on R1, which they read."""
    from django.db import connection

    from tests.conftest import service_missing
    from tests.quoting.factories import world_make

    if connection.vendor != "postgresql":
        service_missing("row locks need PostgreSQL (set DATABASE_URL)")
    world = world_make(make_user)
    quote = quote_sent(world)
    link = share_link_create(quote=quote, user=world.sales)[0]
    in_window, resume = threading.Event(), threading.Event()
    original, outcomes = services.revision_shared, {}

    def paused(*, link):
        revision = original(link=link)
        if threading.current_thread().name == "customer":
            in_window.set()
            resume.wait(timeout=30)
        return revision

    monkeypatch.setattr(services, "revision_shared", paused)

    def run(name, action):
        try:
            action()
            outcomes[name] = "done"
        except QuoteError as error:
            outcomes[name] = type(error).__name__
        finally:
            connection.close()

    customer = threading.Thread(
        name="customer",
        target=run,
        args=(
            "customer",
            lambda: share_accept(
                link=link, revision_number=1, name="Li Wei", title="", agreed=True
            ),
        ),
    )
    staff = threading.Thread(
        name="staff", target=run, args=("staff", lambda: _re_send(quote, world.sales))
    )
    customer.start()
    assert in_window.wait(timeout=30)
    staff.start()
    time.sleep(0.5)  # staff reach the row lock and wait there
    resume.set()
    customer.join(timeout=60)
    staff.join(timeout=60)

    assert outcomes["customer"] == "done"
    assert outcomes["staff"] in ("StaleVersion", "IllegalTransition")
    final = quote_reload(quote)
    assert (final.status, final.current_revision.number) == (QuoteStatus.ACCEPTED, 1)


def test_an_acceptance_through_a_link_records_who_signed_which_revision(link):
    from proposals.models import Acceptance

    share_accept(
        link=link,
        revision_number=1,
        name="Li Wei",
        title="CTO",
        agreed=True,
        user_agent="Mozilla/5.0 (iPhone) Safari/604.1",
        language="zh-hans",
    )
    acceptance = Acceptance.objects.get()
    assert (
        acceptance.revision.number,
        acceptance.link,
        acceptance.signer_name,
        acceptance.signer_title,
    ) == (1, link, "Li Wei", "CTO")
    assert (acceptance.os, acceptance.is_mobile, acceptance.language) == ("iOS", True, "zh-hans")
