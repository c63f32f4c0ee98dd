"""As-built checks of quote revisions: the fabric as discovered (ibnetdiscover's output) against
the revision's installation plan, cable by cable, kept as the acceptance record.

The plan is laid out again from what the revision's pack is built from: the latest ready pack's
requirements and site when the revision has one (the installer cabled from that pack), else the
design the customer booked on its own site. The check runs in the request: parsing and comparing
49,152 links takes about a second, the layout of the design a few more.
"""

from __future__ import annotations

import hashlib
import time

from quoting.designs.services.designs import (
    design_compute,
    design_install_layout,
    design_site_inputs,
    site_from_json,
)
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.install.as_built import (
    PlannedLink,
    compare,
    parse_discovered,
    plan_from_layout,
)
from quoting.engine.messages import gettext_noop, message
from quoting.quotes.models import AsBuiltCheck, InstallPack, InstallPackStatus, QuoteRevision
from quoting.quotes.services.install import design_to_install

# ibnetdiscover's output for 49,152 links is about 8 MB; a larger upload is not one of ours.
AS_BUILT_MAX_BYTES = 20 * 1024 * 1024
FIELD = "discovered"
PROBLEM_KINDS = ("missing", "unexpected", "miswired", "degraded", "devices_missing")


def as_built_too_large() -> InvalidInput:
    return InvalidInput.field(
        FIELD,
        message(
            gettext_noop("the file is larger than {mb} MB: upload ibnetdiscover's text output."),
            mb=AS_BUILT_MAX_BYTES // (1024 * 1024),
        ),
    )


def _text(content: bytes) -> str:
    """The upload as text; a binary file (a zip, a PDF) is refused with its reason."""
    if b"\0" in content[:65536]:
        raise InvalidInput.field(
            FIELD,
            gettext_noop("this is a binary file: upload ibnetdiscover's text output."),
        )
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = content[: error.start].count(b"\n") + 1
        raise InvalidInput.field(
            FIELD,
            message(gettext_noop("line {line}: the file is not UTF-8 text."), line=line),
        ) from None


def as_built_plan_inputs(revision: QuoteRevision) -> tuple[dict, dict]:
    """(requirements, site) the revision's installation plan is laid out from. Raises
    InvalidInput on "design" when the revision has no design to lay out."""
    saved = design_to_install(revision)
    designed_site = design_site_inputs(saved) if saved else {}
    pack = (
        InstallPack.objects.filter(revision=revision, status=InstallPackStatus.READY)
        .only("requirements", "site")
        .order_by("-created_at", "-pk")
        .first()
    )
    if pack is not None:
        return pack.requirements, {**designed_site, **pack.site}
    if saved is None or not saved.requirements:
        raise InvalidInput.field(
            "design", gettext_noop("this revision has no fabric design to lay out.")
        )
    return saved.requirements, designed_site


def as_built_plan(revision: QuoteRevision) -> list[PlannedLink]:
    """The revision's planned fabric links, cable by cable (see as_built_plan_inputs)."""
    return _plan(*as_built_plan_inputs(revision))


def _plan(requirements: dict, site_json: dict) -> list[PlannedLink]:
    try:
        site = site_from_json(site_json)
        design = design_compute(
            requirements=requirements_from_json(requirements, stored=True), site=site
        )
        layout = design_install_layout(design=design, site=site)
    except InvalidInput as error:
        raise InvalidInput.field(
            "design",
            message(gettext_noop("the design or site is not buildable: {error}"), error=str(error)),
        ) from None
    return plan_from_layout(layout)


def as_built_check_run(
    *, revision: QuoteRevision, user, filename: str, content: bytes
) -> AsBuiltCheck:
    """Compare an upload with the revision's plan and keep the result. Raises InvalidInput on
    "discovered" (with line numbers) for a file that is not ibnetdiscover's output, on "design"
    when there is no plan to compare with."""
    started = time.monotonic()
    if len(content) > AS_BUILT_MAX_BYTES:
        raise as_built_too_large()
    filename = (filename or "").replace("\\", "/").rsplit("/", 1)[-1][:255]
    discovered = parse_discovered(_text(content), filename=filename)
    requirements, site = as_built_plan_inputs(revision)
    plan = _plan(requirements, site)
    report = compare(plan, discovered).as_dict()
    return AsBuiltCheck.objects.create(
        revision=revision,
        uploaded_by=user,
        filename=filename,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        requirements=requirements,
        site=site,
        result=report,
        planned_count=len(plan),
        ok_count=report["ok_count"],
        **{f"{kind}_count": len(report[kind]) for kind in PROBLEM_KINDS},
        check_ms=round((time.monotonic() - started) * 1000),
    )


# --- reads ---------------------------------------------------------------------------------------

# What a list of checks shows: never the report itself (up to megabytes each).
LISTED = (
    "revision",
    "filename",
    "sha256",
    "size",
    "planned_count",
    "ok_count",
    *(f"{kind}_count" for kind in PROBLEM_KINDS),
    "check_ms",
    "uploaded_by",
    "created_at",
)


def as_built_checks_of(*, revision: QuoteRevision, limit: int = 5) -> list[AsBuiltCheck]:
    """The revision's newest checks, without their reports."""
    return list(
        AsBuiltCheck.objects.filter(revision=revision)
        .only(*LISTED)
        .select_related("uploaded_by")[:limit]
    )


def as_built_check_of(*, revision: QuoteRevision, check_id: int) -> AsBuiltCheck | None:
    return (
        AsBuiltCheck.objects.filter(revision=revision, pk=check_id)
        .select_related("uploaded_by", "revision__quote__customer")
        .first()
    )
