"""The PROPOSALS_* settings and their defaults, read in one place (proposals_setting)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings

# Defaults of the PROPOSALS_* settings; a project setting of the same name replaces one.
PROPOSALS_DEFAULTS: dict[str, object] = {
    "PROPOSALS_MAX_ATTEMPTS": 3,  # renders of one document before it is failed (poison job)
    # Older than the render task's hard time limit: a row rendering this long lost its worker.
    "PROPOSALS_STUCK_AFTER": dt.timedelta(minutes=5),
    "PROPOSALS_QUEUE": None,  # None: Celery's default queue
    "PROPOSALS_LINK_DAYS": 30,
    "PROPOSALS_LINK_MAX_DAYS": 365,
    # Reminders to a link's recipient (proposals.share.mail), each once per link; 0 turns it off:
    # this many days before the link expires, and this many days after its first real open
    # when the customer has not answered.
    "PROPOSALS_REMINDER_DAYS_BEFORE_EXPIRY": 3,
    "PROPOSALS_REMINDER_OPENED_UNANSWERED_DAYS": 2,
    # The signer's one-time code (proposals.acceptance.signer_codes), asked before an accept on
    # a link with a recipient e-mail (PROPOSALS_SIGNER_CODE, from the environment): it lasts
    # this many minutes and allows this many wrong tries; a link gets a new one at most every
    # RESEND_SECONDS and at most PER_HOUR in an hour.
    "PROPOSALS_SIGNER_CODE": True,
    "PROPOSALS_SIGNER_CODE_MINUTES": 10,
    "PROPOSALS_SIGNER_CODE_TRIES": 5,
    "PROPOSALS_SIGNER_CODE_RESEND_SECONDS": 60,
    "PROPOSALS_SIGNER_CODES_PER_HOUR": 5,
}


def proposals_setting(name: str):
    return getattr(settings, name, PROPOSALS_DEFAULTS[name])
