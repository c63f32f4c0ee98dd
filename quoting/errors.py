"""Domain errors of quoting, each with a message a user can read.

`status_code` is the HTTP answer a view or the API should give; `field` names the input at fault
where there is one, so a form can show the message beside it.
"""

from __future__ import annotations

from django.utils.translation import gettext

from quoting.engine.messages import listing


class QuoteError(Exception):
    status_code = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidValue(QuoteError):
    """A value is outside what the rules allow (a discount above 100 %, a negative quantity)."""


class MissingPrices(QuoteError):
    """Products without a price in any usable currency; `skus` lists them all."""

    def __init__(self, skus: list[str], currency: str) -> None:
        self.skus = sorted(set(skus))
        super().__init__(
            gettext(
                "No price in %(currency)s (nor one convertible with a known exchange rate) for: "
                "%(skus)s. Add them to a price list, or add an exchange rate."
            )
            % {"currency": currency, "skus": listing(self.skus).render(gettext)},
            field="lines",
        )


class NotAllowed(QuoteError):
    """The user's role does not allow this (approving without being a manager...)."""

    status_code = 403


class IllegalTransition(QuoteError):
    """The quote's status does not allow this step (sending an accepted quote...)."""

    status_code = 409


class RevisionFrozen(QuoteError):
    """A sent revision never changes; edit the quote to open the next revision."""

    status_code = 409


class ApprovalRequired(QuoteError):
    """A discount above the sender's threshold has no manager's approval yet."""

    status_code = 409


class ExportCheckRequired(QuoteError):
    """Classified lines for a listed destination: staff acknowledge the export-control note of
    the revision as it stands before it is sent. `problem_extra` names the lines."""

    status_code = 409


class QuoteExpired(QuoteError):
    """The validity date has passed."""

    status_code = 409


class StaleVersion(QuoteError):
    """Someone else changed the quote since it was loaded (maps to HTTP 412)."""

    status_code = 412

    def __init__(self, *, expected: int, current: int | None) -> None:
        self.expected = expected
        self.current = current
        super().__init__(
            f"This quote was changed by someone else (you edited version {expected}, it is now "
            f"version {current}). Reload it to see their changes, then make yours again.",
            field="version",
        )
