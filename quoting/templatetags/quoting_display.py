"""``{{ project.requirements|requirement_rows }}`` and ``{{ event|event_details }}``: stored
JSON as labelled, translated, formatted rows (quoting/quotes/display.py)."""

from __future__ import annotations

from django import template

from quoting.designs.display import (
    LengthsSaid,
    Row,
    cable_lengths,
    cable_lengths_said,
    requirement_rows,
)
from quoting.quotes.display import event_detail_rows
from quoting.quotes.selectors import (
    kits_follow_the_option,
    services_follow_the_option,
    whole_design_replaced,
)

register = template.Library()


@register.filter(name="requirement_rows")
def requirement_rows_filter(requirements) -> list[Row]:
    return requirement_rows(requirements or {})


@register.filter
def event_details(event) -> list[Row]:
    return event_detail_rows(event.verb, event.details, reason_message=event.reason_message)


@register.filter(name="cable_lengths")
def cable_lengths_filter(design) -> dict | None:
    return cable_lengths(design)


@register.filter(name="cable_lengths_said")
def cable_lengths_said_filter(lengths) -> LengthsSaid:
    return cable_lengths_said(lengths)


@register.filter(name="whole_design_replaced")
def whole_design_replaced_filter(revision) -> bool:
    """Whether the revision's options are priced by today's rule (the note under a list of
    options says it); a revision sent before was printed without it."""
    return whole_design_replaced(revision)


@register.filter(name="services_follow_the_option")
def services_follow_the_option_filter(revision) -> bool:
    """Whether the revision's options carry the services per node and the share-of-hardware
    support of their own (the note under a list of options says it); a revision sent before
    content version 7 does not."""
    return services_follow_the_option(revision)


@register.filter(name="kits_follow_the_option")
def kits_follow_the_option_filter(revision) -> bool:
    """Whether each of the revision's configurations offers its own spares kit only (the note
    under a list of options says it); a revision sent before content version 6 does not."""
    return kits_follow_the_option(revision)
