"""Reading time on the share page, and what makes an open real (issue 15, item 4).

A page view is recorded as an open that has not shown a reader yet. The page's small script
(static/proposal/engage.js) counts the seconds each part of the proposal is on screen while the
page is visible and the reader active, and sends the running totals in beacons to
/p/<token>/beacon. The open is *real* once a beacon shows a script ran and two seconds or more
of reading; only then does the quote's owner hear of it and `quote.viewed` fire. Opens by HEAD
requests and known scanner or preview agents (proposals.share.scanners) never become real.

This module is the beacon's contract: pure functions, no database.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from portal.json_nesting import TOO_DEEP, json_nesting_exceeds

# The proposal's parts, in page order, as the share page marks them (data-section="…"): the
# offer card, cover and summary are the cover; services and totals belong to the bill of
# materials; the signature block to the terms.
SECTIONS: dict[str, object] = {
    "cover": _("Cover"),
    "design": _("Fabric design"),
    "bom": _("Bill of materials"),
    "tco": _("Total cost of ownership"),
    "terms": _("Terms"),
}

REAL_AFTER_SECONDS = 2.0  # shorter is a glance, a preview or a scanner that runs script
BEACON_MAX_BYTES = 1024  # a beacon is ~150 bytes; anything much larger is not ours
OPEN_KEY_BYTES = 16  # secrets.token_urlsafe(16): 22 characters
OPEN_KEY_MAX_LENGTH = 32
# A view cannot have been read longer than it has existed, nor, left open on a screen, longer
# than a sitting. The slack covers the script's rounding only: the open is recorded before the
# page is even sent, so a reader's seconds are always fewer than the server's (and a beacon
# forged right after the page cannot claim the two seconds of a real open).
CLOCK_SLACK_SECONDS = 0.5
MAX_VIEW_SECONDS = 3 * 3600


class BeaconRefused(ValueError):
    """A beacon that is not ours: nothing is recorded."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class Beacon:
    open_key: str
    sections: dict[str, float]  # seconds on screen since the page was opened, per section


def _no_constants(name: str):
    raise BeaconRefused(f"{name} is not a number of seconds")


def beacon_parse(body: bytes) -> Beacon:
    """The beacon in a request body: {"open": "<open id>", "sections": {"cover": 12.5, …}}.

    Refused: larger than BEACON_MAX_BYTES (413), nested deeper than any beacon (read before it
    is parsed: `[` a thousand times made json recurse into a 500), not JSON, not that shape, a
    section the page does not have, a value that is not a number (400). Negative and absurd
    numbers are not refused, they are clamped (seconds_clamped)."""
    if len(body) > BEACON_MAX_BYTES:
        raise BeaconRefused("too large", status=413)
    if json_nesting_exceeds(body):
        raise BeaconRefused(TOO_DEEP)
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BeaconRefused("not JSON") from exc
    if not isinstance(data, dict):
        raise BeaconRefused("not an object")
    open_key, sections = data.get("open"), data.get("sections")
    if not isinstance(open_key, str) or not 0 < len(open_key) <= OPEN_KEY_MAX_LENGTH:
        raise BeaconRefused("no open id")
    if not isinstance(sections, dict):
        raise BeaconRefused("no sections")
    seconds = {}
    for name, value in sections.items():
        if name not in SECTIONS:
            raise BeaconRefused(f"unknown section {name[:20]!r}")
        # bool is an int to Python, not to us
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BeaconRefused(f"{name}: not a number")
        seconds[name] = float(value)
    return Beacon(open_key=open_key, sections=seconds)


def seconds_clamped(sections: dict[str, float], *, elapsed: float) -> dict[str, float]:
    """Each section at least 0; all together at most the time the view has existed (and a
    sitting): if they add up to more, each is scaled down in proportion."""
    bound = max(0.0, min(elapsed + CLOCK_SLACK_SECONDS, MAX_VIEW_SECONDS))
    clean = {
        name: min(max(value, 0.0), bound) if math.isfinite(value) else (bound if value > 0 else 0.0)
        for name, value in sections.items()
    }
    total = sum(clean.values())
    if total > bound:
        clean = {name: value * bound / total for name, value in clean.items()}
    return clean


def seconds_merged(kept: dict, sent: dict[str, float], *, elapsed: float) -> dict[str, float]:
    """Beacons carry running totals and may arrive twice, late or out of order: the larger of
    what is kept and what is sent, per section, clamped."""
    merged = {name: float(kept.get(name) or 0) for name in SECTIONS if kept.get(name)}
    for name, value in seconds_clamped(sent, elapsed=elapsed).items():
        merged[name] = max(merged.get(name, 0.0), value)
    return seconds_clamped(merged, elapsed=elapsed)


def seconds_stored(sections: dict[str, float]) -> dict[str, int]:
    """Whole seconds, in page order, the sections never on screen left out."""
    return {name: round(sections[name]) for name in SECTIONS if round(sections.get(name, 0))}
