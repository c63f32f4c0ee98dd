"""Fabric designs: the catalog, turned into engine specs, fed to the pure-Python engine."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from django.utils.translation import gettext

from catalog.models import Category, Product
from catalog.selectors import product_specs
from quoting.designs.selectors import PricedBom, bom_priced
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import (
    FabricDesign,
    FabricRequirements,
    designable_generations,
)
from quoting.engine.fabric.requirements import (  # noqa: F401 - the designs' names for them
    NIC_GENERATIONS,
    REQUIREMENT_FIELDS,
    requirements_from_json,
)
from quoting.engine.install import (
    SITE_FIELDS,
    InstallLayout,
    SiteInputs,
    design_on_site,
    design_placed,
    plan_layout,
)
from quoting.engine.install.layout import place_devices
from quoting.engine.install.site import FORMER_DEFAULT_RACK_KW
from quoting.engine.messages import Message, gettext_noop, message


def design_compute(
    *, requirements: FabricRequirements, site: SiteInputs | None = None
) -> FabricDesign:
    """Design a fabric from the current catalog, laid out on `site` (the default site when not
    given): the runs measured there pick the media and the cable lengths of the BOM. Raises
    InvalidInput naming the bad requirement or site field."""
    return design_on_site(requirements, product_specs(), site or SiteInputs())


def design_site(design: FabricDesign) -> SiteInputs:
    """The site a design was measured on (the default site for a design that was not)."""
    return SiteInputs(**design.lengths.site) if design.lengths else SiteInputs()


def design_nic_generations() -> list[tuple[str, str]]:
    """The NIC generations (value, label) the current catalog can design: the design and project
    forms offer only these, so no choice on the page is bound to fail."""
    designable = set(designable_generations(product_specs(), dict(NIC_GENERATIONS)))
    return [(value, label) for value, label in NIC_GENERATIONS if value in designable]


def design_server_defaults(*, part_number: str, family: str) -> dict:
    """What a catalog server says about fields a request leaves out: its GPUs per server and
    its NIC generation (on Ethernet, the Ethernet generation of the same speed). Empty for a
    part that is not a catalog server: the engine refuses it on its field."""
    server = Product.objects.filter(part_number=part_number, category=Category.SERVER).first()
    if server is None:
        return {}
    defaults = {}
    if server.gpu_count:
        defaults["gpus_per_server"] = server.gpu_count
    if server.generation:
        if family == "infiniband":
            defaults["nic_generation"] = server.generation
        elif server.generation in TWO_PLANE_ETHERNET:
            # An 800G ConnectX-8 cage runs Spectrum-X as 2 x 400GbE, one port on each plane.
            defaults["nic_generation"], defaults["planes"] = TWO_PLANE_ETHERNET[server.generation]
        else:
            defaults["nic_generation"] = ALTERNATIVE_GENERATION.get(
                server.generation, server.generation
            )
    return defaults


def design_bom_priced(*, design: FabricDesign, currency: str) -> PricedBom:
    """The design's BOM at list prices in one currency (bom_priced: the one pricing rule)."""
    return bom_priced(bom=design.bom, currency=currency)


def design_non_rail_priced(*, design: FabricDesign, currency: str) -> PricedBom | None:
    """The same request without rails, designed on the same site and priced, when the design
    says it needs fewer switches (rule 6, "show both"); None otherwise."""
    if design.non_rail_switches is None:
        return None
    try:
        flat = design_compute(
            requirements=replace(design.requirements, rail_optimized=False),
            site=design_site(design),
        )
    except InvalidInput:
        return None
    return design_bom_priced(design=flat, currency=currency)


def design_rack_scale_other_placed(*, design: FabricDesign) -> FabricDesign | None:
    """The other build of racks that are not whole scalable units (whole units beside the
    smallest fabric for the racks, or the smallest beside whole units: rules 5c and 5d), placed
    on the same site; None when the design has no other build or it cannot be placed there.

    The engine designed that build with this one (rack_scale_other_design): it is placed as it
    is, not designed again."""
    planned = design.rack_scale_other_design
    if design.rack_scale_other is None or planned is None:
        return None
    # The requirements asked (a distance planned at a nearer class for want of fibre is
    # measured on the site, as design_compute measures it), with the other build's choice.
    other_choice = planned.requirements.rack_scale_smallest
    planned = replace(
        planned, requirements=replace(design.requirements, rack_scale_smallest=other_choice)
    )
    try:
        return design_placed(planned, product_specs(), design_site(design))
    except InvalidInput:
        return None


def design_rack_scale_other_priced(*, design: FabricDesign, currency: str) -> PricedBom | None:
    """The other build (design_rack_scale_other_placed) priced; None without one."""
    other = design_rack_scale_other_placed(design=design)
    return None if other is None else design_bom_priced(design=other, currency=currency)


# The key of a saved design's result keeping the other build's BOM rows (as "bom" keeps the
# design's), so a saved design prices it at read time in any currency without designing it.
RACK_SCALE_OTHER_BOM = "rack_scale_other_bom"


def design_rack_scale_other_bom(*, design: FabricDesign) -> list[dict] | None:
    """The rows a snapshot keeps of the other build's BOM (as_dict's "bom" rows); None when
    there is no other build to price (none, or it cannot be placed on the site)."""
    other = design_rack_scale_other_placed(design=design)
    return None if other is None else other.as_dict()["bom"]


def saved_rack_scale_other_priced(*, result: dict, currency: str) -> PricedBom | None:
    """A saved design's other build priced in `currency` from the rows its snapshot keeps;
    None when it keeps none (no other build, or a snapshot made before they were kept:
    saved_rack_scale_other_unpriced tells these apart)."""
    rows = result.get(RACK_SCALE_OTHER_BOM)
    return bom_priced(bom=rows, currency=currency) if rows else None


def saved_rack_scale_other_unpriced(result: dict) -> bool:
    """The saved design has an other build its snapshot cannot price: one made before the
    other build's BOM was kept (a design the current engine refuses keeps such a result)."""
    return bool(result.get("rack_scale_other")) and RACK_SCALE_OTHER_BOM not in result


def design_ufm_option_priced(*, lines: Iterable, currency: str) -> PricedBom | None:
    """The UFM option a design leaves out (rule 8: no licence without its hosts quoted and
    cabled) at list prices: a live design's FabricDesign.ufm_option, or a saved design's
    "ufm_option" rows, which its snapshot keeps. None when the design left nothing out."""
    lines = list(lines)
    return bom_priced(bom=lines, currency=currency) if lines else None


# The other fabric family's NIC generation at the same per-port speed.
ALTERNATIVE_GENERATION = {
    "NDR": "400GbE",
    "XDR": "800GbE",
    "HDR": "200GbE",
    "400GbE": "NDR",
    "800GbE": "XDR",
    "200GbE": "HDR",
}
# XDR hosts on Ethernet: NVIDIA's B300 Spectrum-X build splits each 800G cage over two 400GbE
# planes (no 800GbE switch is in the catalog).
TWO_PLANE_ETHERNET = {"XDR": ("400GbE", 2)}


def design_servers_per_leaf(design: FabricDesign) -> int:
    """Servers a job can span without crossing the spine layer (the TCO's cross-leaf share)."""
    t = design.topology
    if t.tiers == 1:
        return t.servers  # one switch per plane: no spine to cross
    if t.rail_optimized:
        return t.group_servers  # a rail group: each server has its ports of each rail on one leaf
    return max(1, t.leaf_capacity // t.rails)  # a server's ports all on one leaf


def design_other_family(design: FabricDesign) -> FabricDesign | None:
    """The same cluster on the other fabric family (InfiniBand <-> RoCE) at the same port speed,
    for the TCO comparison; None when the catalog cannot build it."""
    req = design.requirements
    other_family = "ethernet" if req.family == "infiniband" else "infiniband"
    other_generation, planes = ALTERNATIVE_GENERATION.get(req.nic_generation), 1
    if other_family == "ethernet" and req.nic_generation in TWO_PLANE_ETHERNET:
        other_generation, planes = TWO_PLANE_ETHERNET[req.nic_generation]
    elif design.server is not None and design.server.generation in TWO_PLANE_ETHERNET:
        other_generation = design.server.generation  # the server's own cages, one plane
    if not other_generation:
        return None
    try:
        return design_compute(
            requirements=replace(
                req,
                family=other_family,
                nic_generation=other_generation,
                planes=planes,
                switch_part_number=None,
                nic_part_number=None,
                subnet_manager="auto",
            ),
            site=design_site(design),
        )
    except InvalidInput:
        return None  # the catalog cannot build it: compare with what it can


# What the TCO model reads of a design: kept in the saved design's snapshot, so its comparison
# can be priced in another currency without designing again.
TCO_FACTS = (
    "endpoint_ports",
    "node_count",
    "subnet_manager",
    "injection_gbps",
    "power_w",
    "oversubscription",
    "bom",
)


def design_tco_facts(design: FabricDesign, summary: dict | None = None) -> dict:
    summary = summary if summary is not None else design.as_dict()
    return {key: summary[key] for key in TCO_FACTS} | {
        "family": design.switch.family,
        "servers_per_leaf": design_servers_per_leaf(design),
    }


def design_tco_inputs(design: FabricDesign, summary: dict | None = None, gpu: str = "H100") -> dict:
    """Everything the design's TCO comparison needs except prices: this design and the other
    family's (the engine runs here, once), with the GPUs and servers it is for."""
    req = design.requirements
    if design.server is not None and design.server.gpu_model:
        gpu = design.server.gpu_model  # the chosen server's GPUs and price, not the cheapest
    designs = [design_tco_facts(design, summary)]
    other = design_other_family(design)
    if other is not None:
        designs.append(design_tco_facts(other))
    return {
        "gpu": gpu,
        "gpus_per_server": req.gpus_per_server,
        "server_part_number": req.server_part_number,
        "family": req.family,
        "designs": designs,
    }


# --- messages in a snapshot ---------------------------------------------------------------------


def message_json(message: Message) -> dict:
    """An engine Message as a snapshot keeps it, so a page can still translate it."""
    return message.as_json()


def message_from_json(data) -> Message | str:
    return Message.from_json(data)


def messages_worded(kept: list | None) -> list[str]:
    """Kept messages (message_json) in the active language; one kept as text reads as it is."""
    worded = (message_from_json(data) for data in kept or [])
    return [m.render(gettext) if isinstance(m, Message) else m for m in worded]


def design_worded(design: FabricDesign) -> dict:
    """The design as the API gives it, its warnings and advice in the active language (the
    request's): the engine's as_dict() words them in English. The messages they are worded
    from go beside them, so an answer kept as it is (an idempotent replay) can be worded again
    in another reader's language (design_words_again)."""
    return (
        design.as_dict()
        | {
            "warnings": [m.render(gettext) for m in design.warning_messages],
            "advice": [m.render(gettext) for m in design.advice_messages],
        }
        | {MESSAGES_OF[key]: kept for key, kept in design_messages_json(design).items()}
    )


# Where a design answer keeps the messages its warnings and advice are worded from (the TCO
# answer's name, warning_messages).
MESSAGES_OF = {"warnings": "warning_messages", "advice": "advice_messages"}


def design_words_again(answer: dict) -> dict:
    """A design answer (design_worded's, kept) with its warnings and advice worded in the
    active language from the messages beside them; one kept without them, as it is."""
    return answer | {
        key: messages_worded(answer[kept])
        for key, kept in MESSAGES_OF.items()
        if isinstance(answer.get(kept), list)
    }


def design_messages_json(design: FabricDesign) -> dict:
    return {
        "warnings": [message_json(m) for m in design.warning_messages],
        "advice": [message_json(m) for m in design.advice_messages],
    }


def design_site_inputs(design) -> dict:
    """The site a saved design is measured on: the one its snapshot was computed for (a snapshot
    from before sites changed the BOM has none: the defaults).

    A snapshot without a rack power budget was made when the default rack was the 40 kW one: it
    keeps that budget, so designing it again (a newer snapshot version, its installation pack)
    does not move its servers onto today's default IDC racks and change its cables."""
    site = dict((design.result or {}).get("site") or {})
    site.setdefault("rack_power_kw", FORMER_DEFAULT_RACK_KW)
    return site


def site_from_json(data: dict) -> SiteInputs:
    """SiteInputs from posted or typed values; unknown keys are refused, not ignored. The
    engine checks bounds and the rules across fields when it plans the layout."""
    unknown = sorted(set(data) - set(SITE_FIELDS))
    if unknown:
        raise InvalidInput({key: ["is not a site input."] for key in unknown})
    return SiteInputs(**data)


# The largest pack of an unsaved design (design API, design page): about 100,000 cable legs,
# built by a worker past quoting.designs.services.packs.DESIGN_PACK_WAIT_MAX_GPUS; a larger one
# is built for a quote revision.
INSTALL_PACK_INTERACTIVE_MAX_GPUS = 32_768


def design_install_layout(
    *, design: FabricDesign, site: SiteInputs, interactive: bool = False
) -> InstallLayout:
    """Racks, placed devices and labelled cables of a design on a site (the installation pack's
    source). Raises InvalidInput naming the site field at fault."""
    if interactive:
        _interactive_size_check(design)
    return plan_layout(design, site, product_specs())


def design_install_check(*, design: FabricDesign, site: SiteInputs) -> None:
    """What design_install_layout(interactive=True) would refuse, without routing a cable: the
    size of the design, and its racks placed on the site (milliseconds for 32,768 GPUs, where
    the whole layout and its zip take seconds). Raises InvalidInput naming the field."""
    _interactive_size_check(design)
    place_devices(design, site, product_specs())


def _interactive_size_check(design: FabricDesign) -> None:
    if design.gpu_count > INSTALL_PACK_INTERACTIVE_MAX_GPUS:
        raise InvalidInput.field(
            "gpu_count",
            message(
                gettext_noop(
                    "an installation pack of more than {gpus} GPUs is built by a worker: "
                    "save the design, quote it and ask for the revision's pack."
                ),
                gpus=f"{INSTALL_PACK_INTERACTIVE_MAX_GPUS:,}",
            ),
        )
