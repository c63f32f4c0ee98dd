"""Installation packs of unsaved designs: the design page's and the design API's.

A pack of up to DESIGN_PACK_WAIT_MAX_GPUS is built while the request waits (half a second). A
larger one held a web worker for seconds (32,768 GPUs: 9-17 s of CPU, a 10 MB zip), so it is
asked for here and built by a worker after commit, as a quote revision's pack is
(quoting.quotes.services.install): the row is the truth, only a pending pack is claimed
(pending -> building, one UPDATE), the zip is stored with its SHA-256. The site is checked
before the row is written (the racks placed, milliseconds), so a site that cannot hold the
design is still a 400 on its field. Each person keeps their DESIGN_PACKS_KEPT newest packs:
asking for another deletes the older ones, and asking again for the same design on the same
site in the same language returns the pack already made or on its way.

A pack is made in a language (PACK_LANGUAGES, the site's codes): the words of the files people
read follow it, the files tools read never do (quoting.engine.install.pack.LANGUAGE_FILES).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import asdict

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext_noop

from portal.queueing import enqueue_or_leave_to_sweeper
from quoting.designs.models import DesignInstallPack, InstallPackStatus
from quoting.designs.services.designs import (
    design_compute,
    design_install_check,
    design_install_layout,
    site_from_json,
)
from quoting.designs.services.snapshots import gettext_in
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricDesign
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.install.pack import pack_zip_chunks
from quoting.engine.install.pdf import Translate
from quoting.engine.messages import Message, message
from quoting.kept_messages import cleared_fields, kept_fields

logger = logging.getLogger(__name__)

DESIGN_PACK_WAIT_MAX_GPUS = 2_048  # about 4,000 cables: 0.4 s for the layout and its zip
DESIGN_PACKS_KEPT = 3  # per person; the older ones are deleted when a new one is asked for
BUILD_TASK = "quoting.design_pack_build"


PACK_LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)  # "en", "zh-hans"


def pack_language(language: str | None = None) -> str:
    """The pack's language: the one asked for, else the active one (the requester's), else
    the site's default."""
    for code in (language, translation.get_language()):
        if code in PACK_LANGUAGES:
            return code
    return settings.LANGUAGE_CODE


def pack_translate(language: str) -> Translate | None:
    """What the engine translates a pack's words with: None in English (the engine's own
    words, so an English pack is the bytes it always was), else gettext in `language`."""
    return None if language == "en" else gettext_in(language)


def pack_failure(error: Exception | None = None) -> Message:
    """Why a pack (a design's or a quote's) failed, as its row keeps it (quoting.kept_messages):
    the design or site not buildable (`error`, the engine's words), else an internal error."""
    if isinstance(error, InvalidInput):
        return message(
            gettext_noop("The design or site is not buildable: {detail}"), detail=str(error)
        )
    return message(
        gettext_noop(
            "The pack could not be built (an internal error; the team can see the details)."
        )
    )


def pack_failed_fields(reason: Message) -> dict:
    """A pack's fields once it failed for `reason`: the English text (the API's) and its
    message (the page's)."""
    return {
        "status": InstallPackStatus.FAILED,
        **kept_fields("error", reason, max_length=500),
        "finished_at": timezone.now(),
    }


def design_pack_waits(design: FabricDesign) -> bool:
    """Whether this design's pack is built while the request waits (else by a worker)."""
    return design.gpu_count <= DESIGN_PACK_WAIT_MAX_GPUS


def design_pack_request(
    *, user, design: FabricDesign, site: dict, language: str | None = None
) -> DesignInstallPack:
    """A pending pack of `design` on `site` (the site fields given; the defaults for the rest)
    in `language` (default: the requester's), built after commit; or the same one already asked
    for by this user, unless it failed. Raises InvalidInput on the field at fault (the design's
    size, a site that cannot hold it)."""
    language = pack_language(language)
    design_install_check(design=design, site=site_from_json(site))
    # As the JSON columns give them back, so that the same request compares equal.
    requirements, site = _stored(asdict(design.requirements)), _stored(site)
    with transaction.atomic():
        kept = list(
            DesignInstallPack.objects.filter(requested_by=user)
            .defer("archive")
            .order_by("-created_at", "-pk")[:DESIGN_PACKS_KEPT]
        )
        for pack in kept:
            same = (
                pack.requirements == requirements
                and pack.site == site
                and pack.language == language
            )
            if same and pack.status != InstallPackStatus.FAILED:
                if pack.status == InstallPackStatus.PENDING:  # its first send may have failed
                    transaction.on_commit(
                        lambda pk=pack.pk: enqueue_or_leave_to_sweeper(BUILD_TASK, pk)
                    )
                return pack
        pack = DesignInstallPack.objects.create(
            requirements=requirements,
            site=site,
            gpu_count=design.gpu_count,
            language=language,
            requested_by=user,
        )
        older = DesignInstallPack.objects.filter(requested_by=user).order_by("-created_at", "-pk")
        DesignInstallPack.objects.filter(
            pk__in=list(older.values_list("pk", flat=True)[DESIGN_PACKS_KEPT:])
        ).delete()
        transaction.on_commit(lambda: enqueue_or_leave_to_sweeper(BUILD_TASK, pack.pk))
    return pack


def _stored(value: dict) -> dict:
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def design_pack_build(*, pack_id: int) -> str | None:
    """Build one pack; returns its status, or None when it was not ours to build (built, taken
    by another worker, or deleted since)."""
    claimed = DesignInstallPack.objects.filter(pk=pack_id, status=InstallPackStatus.PENDING).update(
        status=InstallPackStatus.BUILDING
    )
    if not claimed:
        return None
    pack = DesignInstallPack.objects.defer("archive").filter(pk=pack_id).first()
    if pack is None:
        return None
    started = time.monotonic()
    try:
        site = site_from_json(pack.site)
        design = design_compute(
            requirements=requirements_from_json(pack.requirements, stored=True), site=site
        )
        layout = design_install_layout(design=design, site=site)
        archive = b"".join(pack_zip_chunks(layout, translate=pack_translate(pack.language)))
    except InvalidInput as error:
        return _failed(pack_id, pack_failure(error))
    except Exception:
        logger.exception("design install pack %s: build failed", pack_id)
        return _failed(pack_id, pack_failure())
    DesignInstallPack.objects.filter(pk=pack_id, status=InstallPackStatus.BUILDING).update(
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
    DesignInstallPack.objects.filter(pk=pack_id, status=InstallPackStatus.BUILDING).update(
        **pack_failed_fields(reason)
    )
    return InstallPackStatus.FAILED


def design_pack_of(*, user, pack_id, archive: bool = False) -> DesignInstallPack | None:
    """One of the user's own packs (another's is None, as is a deleted one); without its zip
    unless `archive`."""
    if not 0 < pack_id < 2**63:  # past a bigint: no row, and no query either
        return None
    packs = DesignInstallPack.objects.filter(requested_by=user)
    return (packs if archive else packs.defer("archive")).filter(pk=pack_id).first()
