"""Proposal PDFs (one row per request: the row is the truth, not the task queue) and the share
links customers read them through."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quoting.quotes.models import AsBuiltCheck, Quote, QuoteRevision


class DocumentStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a worker")
    RENDERING = "rendering", _("Rendering")
    READY = "ready", _("Ready")
    FAILED = "failed", _("Failed")
    # A draft's preview once the revision is sent: kept for the record, never served again.
    RETIRED = "retired", _("Retired (the revision was sent)")


FINAL_STATUSES = (DocumentStatus.READY, DocumentStatus.FAILED, DocumentStatus.RETIRED)


class ProposalDocument(models.Model):
    """The PDF of one revision in one language.

    The bytes live in the database (not on a disk): web and worker processes on other machines
    reach them through the one connection they already have, a backup holds them together with
    the quote they belong to, and the 500-line cap keeps a PDF to a few hundred kilobytes.
    """

    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, related_name="proposal_documents"
    )
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=DocumentStatus.choices,
        default=DocumentStatus.PENDING,
        db_index=True,
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.CharField(_("error"), max_length=500, blank=True)
    # The error as its message (quoting.kept_messages): the page words it in its reader's
    # language; null on a row kept before messages (worded through quoting.kept_texts).
    error_message = models.JSONField(
        _("error, as its message"), null=True, blank=True, editable=False
    )
    # A preview of a revision still being edited: "Draft — not an offer" on every page, never
    # served on a share link, never bound to an acceptance; retired when the revision is sent.
    is_draft = models.BooleanField(_("draft preview"), default=False)
    # The fingerprint of the revision as the renderer read it (quoting.quotes.content_hash). A
    # document is the sent PDF only if this equals the fingerprint stored when the revision was
    # frozen.
    content_sha256 = models.CharField(
        _("content fingerprint"), max_length=80, blank=True, editable=False
    )
    # A fresh value per claim: a renderer whose claim was taken over (it was presumed dead)
    # cannot overwrite the result of the one that replaced it.
    claim = models.CharField(max_length=32, blank=True, editable=False)
    # Who holds the claim ("<host>:<pid>"): a job re-sent after its worker died, on the same
    # host, sees the process is gone and takes over at once (proposals.documents.claims).
    claimed_by = models.CharField(max_length=100, blank=True, editable=False)
    pdf = models.BinaryField(_("PDF"), null=True, blank=True, editable=False)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    size = models.PositiveIntegerField(_("size (bytes)"), null=True, blank=True)
    render_ms = models.PositiveIntegerField(_("render time (ms)"), null=True, blank=True)
    # Where this PDF prints its signature block, recorded as it is rendered (#27): {"page",
    # "bbox", "page_size"} (proposals.documents.pdf.signature_block_position), {} for none. The
    # signed copy stamps the filled block there, so a later template change cannot move the
    # stamp off an accepted PDF's block. None: rendered before positions were recorded (the
    # proposal is laid out again to find it).
    signature_block = models.JSONField(
        _("signature block position"), null=True, blank=True, editable=False
    )
    # The names this PDF prints in its signature block's party row, recorded as it is rendered:
    # {"seller": the company profile's legal name, "seller_language": the language it is written
    # in, "customer": the customer's company} (proposals.documents.pdf.parties_printed). The
    # signed copy's stamp lays its block out with them, so an edit of the profile or the
    # customer after the render cannot make the stamp disagree with the page it sits on. None:
    # rendered before they were recorded (proposals.documents.selectors.parties_of).
    parties = models.JSONField(_("party names printed"), null=True, blank=True, editable=False)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("proposal document")
        verbose_name_plural = _("proposal documents")
        indexes = [models.Index(fields=["revision", "language", "status"])]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="ready") | (Q(pdf__isnull=False) & ~Q(sha256="")),
                name="ready_document_has_pdf",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.revision} {self.language} {self.status}"

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def filename(self) -> str:
        draft = "-draft" if self.is_draft else ""
        return f"{self.revision.quote.number}-{self.revision.label}{draft}-{self.language}.pdf"


class EmailState(models.TextChoices):
    """Where the e-mail carrying a new link stands ("": none was asked for)."""

    NONE = "", _("not e-mailed")
    QUEUED = "queued", _("e-mail queued")
    SENT = "sent", _("e-mail sent")
    FAILED = "failed", _("e-mail failed")


class ShareLink(models.Model):
    """A link to a quote for one recipient. Only the token's SHA-256 is kept.

    It is not pinned to a revision: it shows the quote's latest *sent* revision, so a customer
    holding an old link reads the offer that stands, never a draft.
    """

    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="share_links")
    recipient_name = models.CharField(_("recipient"), max_length=100, blank=True)
    recipient_email = models.EmailField(_("recipient e-mail"), blank=True)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    last_used_at = models.DateTimeField(_("last opened"), null=True, blank=True)
    use_count = models.PositiveIntegerField(_("opens"), default=0)
    # The e-mail the portal sent with the link (proposals.share.mail), if it was asked to: the
    # message and language chosen, where it stands, and why it failed. The link itself is not
    # kept (only the token's hash), so no e-mail is ever sent again with it.
    email_state = models.CharField(
        _("e-mail"), max_length=10, choices=EmailState.choices, blank=True, default=""
    )
    email_language = models.CharField(_("e-mail language"), max_length=10, blank=True)
    email_message = models.TextField(_("message"), blank=True)
    emailed_at = models.DateTimeField(_("e-mailed"), null=True, blank=True)
    # Kept in English (the API gives it as it is) and as its message, which the quote page
    # words in its reader's language (quoting.kept_messages; a link kept before messages has
    # none, and its text goes through quoting.kept_texts).
    email_error = models.CharField(_("e-mail error"), max_length=300, blank=True)
    email_error_message = models.JSONField(
        _("e-mail error, as its message"), null=True, blank=True, editable=False
    )
    # Each reminder goes once (proposals.share.mail.share_link_reminders_send).
    reminded_expiry_at = models.DateTimeField(_("reminded before expiry"), null=True, blank=True)
    reminded_unanswered_at = models.DateTimeField(
        _("reminded, opened and not answered"), null=True, blank=True
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("share link")
        verbose_name_plural = _("share links")

    def __str__(self) -> str:
        return f"{self.quote} → {self.recipient_name or self.recipient_email or self.pk}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


class OpenKind(models.TextChoices):
    """What an open of a share link turned out to be (proposals.share.engagement). Only REAL opens
    count as the customer reading: they tell the owner and fire quote.viewed."""

    REAL = "real", _("reader")
    NO_SCRIPT = "no_script", _("no script ran")
    SHORT = "short", _("shorter than two seconds")
    SCANNER = "scanner", _("scanner or preview")
    HEAD = "head", _("HEAD request")


# Served and not (yet) shown to be a reader: a beacon may still make these real.
OPEN_KINDS_PENDING = (OpenKind.NO_SCRIPT, OpenKind.SHORT)


class LinkView(models.Model):
    """One open of a share link: when, what kind of device, what it turned out to be and how
    long each part was read. No IP address and no User-Agent is kept."""

    link = models.ForeignKey(ShareLink, on_delete=models.CASCADE, related_name="views")
    at = models.DateTimeField(_("opened"), auto_now_add=True)
    revision_label = models.CharField(_("revision"), max_length=8, blank=True)
    browser = models.CharField(_("browser"), max_length=20, blank=True)
    os = models.CharField(_("system"), max_length=20, blank=True)
    is_mobile = models.BooleanField(_("mobile"), default=False)
    kind = models.CharField(
        _("kind"), max_length=10, choices=OpenKind.choices, default=OpenKind.NO_SCRIPT
    )
    scanner = models.CharField(_("scanner"), max_length=40, blank=True)  # who, when known
    # Issued with the page, sent back by its beacons: they attach to this view only.
    open_key = models.CharField(max_length=32, null=True, blank=True, unique=True, editable=False)
    script_ran = models.BooleanField(_("script ran"), default=False)
    seconds = models.PositiveIntegerField(_("reading time (s)"), default=0)
    sections = models.JSONField(_("seconds per section"), default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = _("link view")
        verbose_name_plural = _("link views")

    def __str__(self) -> str:
        return f"{self.link_id} {self.at:%Y-%m-%d %H:%M}"


class SignatureKind(models.TextChoices):
    DRAWN = "drawn", _("Drawn")
    TYPED = "typed", _("Typed")


class Acceptance(models.Model):
    """The customer's signed yes to one revision: who signed, the exact PDF they accepted (by its
    SHA-256), what they chose among the offered options, their purchase details, and the signed
    copy a worker makes of it (the original's pages unchanged plus a certificate page).

    One per revision: a revision is accepted once (the quote's status guards a second answer).
    """

    revision = models.OneToOneField(
        QuoteRevision,
        on_delete=models.CASCADE,
        related_name="acceptance",
        verbose_name=_("revision"),
    )
    link = models.ForeignKey(
        ShareLink,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="acceptances",
        verbose_name=_("share link"),
    )
    # Who, when, from what
    signer_name = models.CharField(_("signer"), max_length=100)
    signer_title = models.CharField(_("title"), max_length=100, blank=True)
    signer_company = models.CharField(_("company"), max_length=200, blank=True)
    signed_at = models.DateTimeField(_("signed"), default=timezone.now)
    # The signer's own time zone as their browser named it (IANA, e.g. "Asia/Shanghai"), so the
    # certificate can print the time they saw; empty when no script ran.
    signer_timezone = models.CharField(_("signer's time zone"), max_length=64, blank=True)
    language = models.CharField(
        _("language"), max_length=10, choices=settings.LANGUAGES, blank=True
    )
    browser = models.CharField(_("browser"), max_length=20, blank=True)
    os = models.CharField(_("system"), max_length=20, blank=True)
    is_mobile = models.BooleanField(_("mobile"), default=False)
    user_agent = models.CharField(_("user agent"), max_length=400, blank=True)
    # The signature: drawn on a canvas, or typed and rendered; kept as the PNG shown.
    signature_kind = models.CharField(
        _("signature"), max_length=10, choices=SignatureKind.choices, blank=True
    )
    signature_text = models.CharField(_("typed signature"), max_length=100, blank=True)
    signature_png = models.BinaryField(_("signature image"), null=True, blank=True, editable=False)
    # The exact document accepted
    document = models.ForeignKey(
        ProposalDocument,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("accepted PDF"),
    )
    document_sha256 = models.CharField(_("accepted PDF's SHA-256"), max_length=64, blank=True)
    # What the customer chose (#15 item 2): the alternative (a line group of the alternatives
    # section; empty = the offer as quoted) and the optional lines included (their keys), with
    # the totals the server computed for that choice.
    chosen_alternative = models.CharField(_("chosen alternative"), max_length=100, blank=True)
    chosen_optional = models.JSONField(_("optional items included"), default=list, blank=True)
    subtotal = models.DecimalField(
        _("subtotal"), max_digits=16, decimal_places=2, null=True, blank=True
    )
    discount_amount = models.DecimalField(
        _("discount"), max_digits=16, decimal_places=2, null=True, blank=True
    )
    net = models.DecimalField(_("net"), max_digits=16, decimal_places=2, null=True, blank=True)
    tax_amount = models.DecimalField(
        _("VAT"), max_digits=16, decimal_places=2, null=True, blank=True
    )
    total = models.DecimalField(_("total"), max_digits=16, decimal_places=2, null=True, blank=True)
    # Purchase details (#15 item 3)
    po_number = models.CharField(_("PO number"), max_length=64, blank=True)
    invoice_company = models.CharField(_("invoice company name"), max_length=200, blank=True)
    invoice_tax_id = models.CharField(_("unified social credit code"), max_length=18, blank=True)
    invoice_address_phone = models.CharField(
        _("invoice address and phone"), max_length=300, blank=True
    )
    invoice_bank_account = models.CharField(
        _("invoice bank and account"), max_length=300, blank=True
    )
    # The seller's countersignature (#27): a sales manager or director approves the customer's
    # acceptance once; the name and title are kept as printed, whatever the user's become.
    countersigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("countersigned by"),
    )
    countersigned_at = models.DateTimeField(_("countersigned"), null=True, blank=True)
    countersigner_name = models.CharField(_("countersigner"), max_length=150, blank=True)
    countersigner_title = models.CharField(_("countersigner's title"), max_length=100, blank=True)
    # The signed copy, made by a worker
    signed_status = models.CharField(
        _("signed copy"),
        max_length=10,
        choices=DocumentStatus.choices,
        default=DocumentStatus.PENDING,
        db_index=True,
    )
    signed_attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    signed_error = models.CharField(_("error"), max_length=500, blank=True)
    # The error as its message (quoting.kept_messages): the page words it in its reader's
    # language; null on a row kept before messages (worded through quoting.kept_texts).
    signed_error_message = models.JSONField(
        _("error, as its message"), null=True, blank=True, editable=False
    )
    signed_pdf = models.BinaryField(_("signed copy"), null=True, blank=True, editable=False)
    signed_sha256 = models.CharField(_("signed copy's SHA-256"), max_length=64, blank=True)
    signed_ready_at = models.DateTimeField(_("signed copy made"), null=True, blank=True)
    # The signed copy's claim, as ProposalDocument.claim: a maker presumed dead by the sweeper
    # cannot overwrite the copy of the one that replaced it. The times let the sweeper find a
    # copy nobody makes (rendering too long, or pending with its message lost).
    signed_claim = models.CharField(max_length=32, blank=True, editable=False)
    signed_claimed_by = models.CharField(max_length=100, blank=True, editable=False)
    signed_started_at = models.DateTimeField(_("signed copy started"), null=True, blank=True)
    signed_updated_at = models.DateTimeField(_("signed copy updated"), null=True, blank=True)
    # The signer proved they read the link's recipient e-mail with a one-time code sent there
    # (SignerCode): the address and when. Empty when the link had no address (nothing to verify
    # against) or staff recorded the answer for the customer.
    signer_email = models.EmailField(_("signer's verified e-mail"), blank=True)
    signer_email_verified_at = models.DateTimeField(
        _("signer's e-mail verified"), null=True, blank=True
    )

    class Meta:
        ordering = ["-signed_at", "-pk"]
        verbose_name = _("acceptance")
        verbose_name_plural = _("acceptances")
        constraints = [
            models.CheckConstraint(
                condition=~Q(signed_status="ready")
                | (Q(signed_pdf__isnull=False) & ~Q(signed_sha256="")),
                name="ready_signed_copy_has_pdf",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.revision} {self.signer_name}"


class SignerCode(models.Model):
    """A one-time code e-mailed to a link's recipient: giving it back proves the signer reads that
    address (proposals.acceptance.signer_codes). Only its keyed hash is kept; it is bound to the
    link and the revision it was asked for, lasts a few minutes, allows a few wrong tries and
    is spent by the acceptance it verifies. A newer code for the link replaces it."""

    link = models.ForeignKey(ShareLink, on_delete=models.CASCADE, related_name="signer_codes")
    revision = models.ForeignKey(QuoteRevision, on_delete=models.CASCADE, related_name="+")
    email = models.EmailField(_("sent to"))
    code_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(_("sent"), auto_now_add=True, db_index=True)
    expires_at = models.DateTimeField(_("expires"))
    tries = models.PositiveSmallIntegerField(_("wrong tries"), default=0)
    used_at = models.DateTimeField(_("used"), null=True, blank=True)
    replaced_at = models.DateTimeField(_("replaced"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("signer's code")
        verbose_name_plural = _("signer's codes")

    def __str__(self) -> str:
        return f"{self.link_id} {self.created_at:%Y-%m-%d %H:%M}"


class AsBuiltSignOff(models.Model):
    """The customer's sign-off of the installed fabric: staff ask for it on one as-built check
    of the booked revision, and the customer signs its acceptance report through the quote's
    share link with the same signature as the offer's (typed or drawn). Unsigned, it is a
    request (one per quote: a newer one replaces it); signed, it is the record and the report
    prints the signature. A check with problems may be signed too ("accepted with the listed
    exceptions"): the report lists them above the signature."""

    as_built_check = models.OneToOneField(
        AsBuiltCheck,
        on_delete=models.CASCADE,
        related_name="sign_off",
        verbose_name=_("as-built check"),
    )
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("asked by"),
    )
    offered_at = models.DateTimeField(_("asked"), auto_now_add=True)
    link = models.ForeignKey(
        ShareLink,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="as_built_sign_offs",
        verbose_name=_("share link"),
    )
    signer_name = models.CharField(_("signer"), max_length=100, blank=True)
    signer_title = models.CharField(_("title"), max_length=100, blank=True)
    signer_company = models.CharField(_("company"), max_length=200, blank=True)
    signer_timezone = models.CharField(_("signer's time zone"), max_length=64, blank=True)
    remarks = models.TextField(_("remarks"), max_length=2000, blank=True)
    signed_at = models.DateTimeField(_("signed"), null=True, blank=True)
    language = models.CharField(
        _("language"), max_length=10, choices=settings.LANGUAGES, blank=True
    )
    user_agent = models.CharField(_("user agent"), max_length=400, blank=True)
    signature_kind = models.CharField(
        _("signature"), max_length=10, choices=SignatureKind.choices, blank=True
    )
    signature_text = models.CharField(_("typed signature"), max_length=100, blank=True)
    signature_png = models.BinaryField(_("signature image"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-offered_at", "-pk"]
        verbose_name = _("as-built sign-off")
        verbose_name_plural = _("as-built sign-offs")

    def __str__(self) -> str:
        return f"{self.as_built_check} sign-off"

    @property
    def signed(self) -> bool:
        return self.signed_at is not None
