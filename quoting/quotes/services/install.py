"""Installation packs of quote revisions: asked for now, built by a worker after commit.

A frozen (sent) revision keeps one pack per site and language: asking again returns it (or the
build on its way), so the customer's installer gets the very bytes that went with the offer; a
pack in the other language is a pack of its own, with its own SHA-256. A revision keeps its
INSTALL_PACKS_KEPT newest packs; asking for another deletes the older ones.
Idempotent through the row: only a pending pack is claimed (pending -> building, one UPDATE).
"""

from __future__ import annotations

import hashlib
import logging
import time

from django.db import transaction
from django.utils import timezone

from portal.queueing import enqueue_or_leave_to_sweeper
from quoting.designs.models import SavedDesign
from quoting.designs.services.designs import (
    design_compute,
    design_install_layout,
    design_site_inputs,
    site_from_json,
)
from quoting.designs.services.packs import pack_failed_fields, pack_failure, pack_translate
from quoting.engine.contract import field_errors
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.install.pack import pack_zip_chunks
from quoting.engine.messages import Message
from quoting.kept_messages import cleared_fields
from quoting.quotes.models import (
    InstallPack,
    InstallPackStatus,
    Quote,
    QuoteLine,
    QuoteRevision,
    Section,
)

logger = logging.getLogger(__name__)

# Packs kept per revision (a zip of 32,768 GPUs is 10 MB): asking for another deletes the older
# ones, sent or not. Asking a sent revision again for a site whose pack was deleted builds it
# again, from the requirements of the revision's design.
INSTALL_PACKS_KEPT = 3


def design_to_install(revision: QuoteRevision) -> SavedDesign | None:
    """The saved design a revision's pack lays out: the one the customer booked. When they
    chose an alternative on this revision, the design that alternative was priced from; else
    the revision's own design."""
    quote = Quote.objects.only("booked_revision", "booked_alternative").get(pk=revision.quote_id)
    if quote.booked_revision_id == revision.pk and quote.booked_alternative:
        line = (
            QuoteLine.objects.filter(
                revision=revision,
                section=Section.ALTERNATIVES,
                alternative_group=quote.booked_alternative,
                design__isnull=False,
            )
            .select_related("design")
            .first()
        )
        if line is not None:
            return line.design
    return revision.design


def install_pack_request(
    *, revision: QuoteRevision, user, site: dict, language: str | None = None
) -> InstallPack:
    """A pending pack row now (the build after commit), in `language` (default: the customer's:
    the pack goes to their installers). Raises InvalidInput on a site field, or on "design"
    when the revision has no design to lay out."""
    errors = field_errors(site_from_json(site))
    if errors:
        raise InvalidInput(errors)
    with transaction.atomic():
        # Lock the revision row only: its design (nullable) is read alongside.
        locked = (
            QuoteRevision.objects.select_for_update(of=("self",))
            .select_related("design")
            .get(pk=revision.pk)
        )
        design = design_to_install(locked)
        if language is None:
            language = (
                Quote.objects.select_related("customer").get(pk=locked.quote_id).customer.language
            )
        same = (
            InstallPack.objects.filter(revision=locked, site=site, language=language)
            .exclude(status=InstallPackStatus.FAILED)
            .order_by("pk")
        )
        if design is not None and design.pk != locked.design_id:
            # The customer booked an alternative: the quote's own design's packs are no longer
            # the ones asked for; only a pack of the alternative's design is.
            same = same.filter(requirements=design.requirements)
        existing = (
            same.first()
            if locked.is_frozen
            else same.filter(
                status__in=(InstallPackStatus.PENDING, InstallPackStatus.BUILDING)
            ).first()
        )
        if existing is not None:
            if existing.status == InstallPackStatus.PENDING:  # its first send may have failed
                transaction.on_commit(
                    lambda: enqueue_or_leave_to_sweeper("quoting.install_pack_build", existing.pk)
                )
            return existing
        if design is None or not design.requirements:
            raise InvalidInput.field("design", "this revision has no fabric design to lay out.")
        pack = InstallPack.objects.create(
            revision=locked,
            requirements=design.requirements,
            site=site,
            language=language,
            requested_by=user,
        )
        newest_first = InstallPack.objects.filter(revision=locked).order_by("-created_at", "-pk")
        InstallPack.objects.filter(
            pk__in=list(newest_first.values_list("pk", flat=True)[INSTALL_PACKS_KEPT:])
        ).delete()
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper("quoting.install_pack_build", pack.pk)
        )
    return pack


def install_pack_build(*, pack_id: int) -> str | None:
    """Build one pack; returns its status, or None when it was not ours to build."""
    claimed = InstallPack.objects.filter(pk=pack_id, status=InstallPackStatus.PENDING).update(
        status=InstallPackStatus.BUILDING
    )
    if not claimed:
        return None
    pack = InstallPack.objects.select_related("revision__quote", "revision__design").get(pk=pack_id)
    started = time.monotonic()
    try:
        # The quoted design's site, changed where the pack asks: the design is measured on the
        # site it is laid out on, so the pack buys what its own cable schedule needs.
        saved = design_to_install(pack.revision)
        site = site_from_json({**(design_site_inputs(saved) if saved else {}), **pack.site})
        design = design_compute(
            requirements=requirements_from_json(pack.requirements, stored=True), site=site
        )
        layout = design_install_layout(design=design, site=site)
        archive = b"".join(
            pack_zip_chunks(
                layout, revision=str(pack.revision), translate=pack_translate(pack.language)
            )
        )
    except InvalidInput as error:
        return _failed(pack_id, pack_failure(error))
    except Exception:
        logger.exception("install pack %s: build failed", pack_id)
        return _failed(pack_id, pack_failure())
    InstallPack.objects.filter(pk=pack_id, status=InstallPackStatus.BUILDING).update(
        status=InstallPackStatus.READY,
        archive=archive,
        sha256=hashlib.sha256(archive).hexdigest(),
        size=len(archive),
        build_ms=round((time.monotonic() - started) * 1000),
        **cleared_fields("error"),
        finished_at=timezone.now(),
    )
    return InstallPackStatus.READY


def _failed(pack_id: int, reason: Message) -> str:
    InstallPack.objects.filter(pk=pack_id, status=InstallPackStatus.BUILDING).update(
        **pack_failed_fields(reason)
    )
    return InstallPackStatus.FAILED


def install_pack_latest(
    *, revision: QuoteRevision, archive: bool = True, language: str | None = None
) -> InstallPack | None:
    """The revision's latest pack (in `language` when given); without its zip unless `archive`
    (a page shows its status)."""
    packs = InstallPack.objects.filter(revision=revision).order_by("-created_at", "-pk")
    if language is not None:
        packs = packs.filter(language=language)
    return (packs if archive else packs.defer("archive")).first()
