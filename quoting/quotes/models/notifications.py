"""What a staff member is told: an inbox row per event, and which of them also come by e-mail."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from quoting.quotes.models.quotes import Quote


class NotificationKind(models.TextChoices):
    """What happened. The value is stable (stored rows and preferences use it)."""

    LINK_OPENED = "link_opened", _("A share link is opened for the first time")
    QUOTE_ACCEPTED = "quote_accepted", _("The customer accepts a quote")
    QUOTE_DECLINED = "quote_declined", _("The customer declines a quote")
    APPROVAL_REQUESTED = "approval_requested", _("A discount approval is requested")
    APPROVAL_DECIDED = "approval_decided", _("A discount approval is decided")
    RENEWAL_DUE = "renewal_due", _("Support or licences come up for renewal")


class Notification(models.Model):
    """One event told to one user. The text is rendered when read, in the reader's language,
    from `kind` and `params` (never stored translated)."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("recipient"),
    )
    kind = models.CharField(_("kind"), max_length=30, choices=NotificationKind.choices)
    quote = models.ForeignKey(
        Quote, on_delete=models.CASCADE, related_name="notifications", verbose_name=_("quote")
    )
    params = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    # Set once the e-mail went out (or was not wanted): a duplicate task sends nothing.
    emailed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes = [
            models.Index(fields=["recipient", "-created_at"], name="notification_inbox_idx"),
            # The header's unread count on every page reads this small index only.
            models.Index(
                fields=["recipient"],
                condition=Q(read_at__isnull=True),
                name="notification_unread_idx",
            ),
            # The e-mail sweeper reads only the rows still waiting for their e-mail.
            models.Index(
                fields=["created_at"],
                condition=Q(emailed_at__isnull=True),
                name="notification_unsent_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.quote_id}) → {self.recipient_id}"

    @property
    def is_unread(self) -> bool:
        return self.read_at is None

    def subject(self) -> str:
        """A short title in the active language (translation.override for someone else's)."""
        p, kind = self.params, self.kind
        if kind == NotificationKind.LINK_OPENED:
            return gettext("%(number)s: the link was opened") % p
        if kind == NotificationKind.QUOTE_ACCEPTED:
            return gettext("%(number)s accepted") % p
        if kind == NotificationKind.QUOTE_DECLINED:
            return gettext("%(number)s declined") % p
        if kind == NotificationKind.APPROVAL_REQUESTED:
            return gettext("%(number)s: approval requested") % p
        if kind == NotificationKind.RENEWAL_DUE:
            return gettext("%(number)s: renewal due") % p
        if p.get("approved"):
            return gettext("%(number)s: discount approved") % p
        return gettext("%(number)s: discount rejected") % p

    def message(self) -> str:
        """One sentence saying what happened, in the active language."""
        p, kind = self.params, self.kind
        if kind == NotificationKind.LINK_OPENED:
            if p.get("who"):
                return (
                    gettext(
                        "%(who)s opened the link to %(number)s (%(customer)s) for the first time."
                    )
                    % p
                )
            return (
                gettext("The link to %(number)s (%(customer)s) was opened for the first time.") % p
            )
        if kind == NotificationKind.QUOTE_ACCEPTED:
            if p.get("who"):
                said = gettext("%(who)s of %(customer)s accepted %(number)s.") % p
            else:
                said = gettext("%(customer)s accepted %(number)s.") % p
            if p.get("booked"):  # the booked configuration's total (after 22: always)
                said += " " + gettext("Booked: %(booked)s %(currency)s.") % p
            return said
        if kind == NotificationKind.QUOTE_DECLINED:
            return gettext("%(customer)s declined %(number)s.") % p
        if kind == NotificationKind.APPROVAL_REQUESTED:
            return (
                gettext(
                    "%(who)s asks for approval of a %(discount)s %% discount on %(number)s "
                    "(%(customer)s)."
                )
                % p
            )
        if kind == NotificationKind.RENEWAL_DUE:
            return (
                gettext(
                    "Support or licences of %(number)s (%(customer)s) end on %(ends_on)s, "
                    "in %(days)s days: create the renewal quote."
                )
                % p
            )
        if p.get("approved"):
            return gettext("%(who)s approved the %(discount)s %% discount on %(number)s.") % p
        return gettext("%(who)s rejected the %(discount)s %% discount on %(number)s.") % p

    def note(self) -> str:
        """The person's own words (a reason, a request note), shown as they wrote them."""
        return self.params.get("note", "")

    def note_line(self) -> str:
        """The note with what it is ("Reason: ..."), or nothing."""
        note = self.note()
        if not note:
            return ""
        if self.kind == NotificationKind.APPROVAL_REQUESTED:
            return pgettext("notification", "Note: %(note)s") % {"note": note}
        return pgettext("notification", "Reason: %(note)s") % {"note": note}


class NotificationEmailOptOut(models.Model):
    """A kind a user does not want by e-mail. No row: the e-mail is sent (all on by default);
    the inbox always gets every kind."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    kind = models.CharField(_("kind"), max_length=30, choices=NotificationKind.choices)

    class Meta:
        verbose_name = _("e-mail opt-out")
        verbose_name_plural = _("e-mail opt-outs")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="one_opt_out_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: no e-mail for {self.kind}"
