"""What the installer's site gives: rack size and power, hall geometry, cable routing.

Each field carries its Spec (quoting/engine/contract.py), so the API, the CLI and the engine
accept and refuse the same values. `check_site` adds the rules across fields that need the
design's server (a rack too small for one server).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quoting.engine.contract import field_errors, spec
from quoting.engine.errors import InvalidInput
from quoting.engine.messages import gettext_noop as _
from quoting.engine.messages import message

CABLE_ROUTES = (("overhead", _("Overhead tray")), ("raised-floor", _("Raised floor")))
# A rack unit is 1.75 in.
U_METRES = 0.04445
# The tray above the racks, or the cable space under a raised floor.
TRAY_CLEARANCE_M = 0.3
# Without a catalog server: an 8-GPU HGX/DGX-class system (NVIDIA: DGX H100 8 U, 10.2 kW max).
DEFAULT_SERVER_UNITS = 8
DEFAULT_SERVER_KW = 10.2
# Storage servers are not catalog items: a typical 2 U all-flash node.
STORAGE_SERVER_UNITS = 2
STORAGE_SERVER_KW = 1.2
# A rack's power budget when the site gives none: a typical Chinese IDC rack. Leased IDC halls
# in China are built for 8-12 kW racks (issue #26: 139 of them for 127 DGX H100);
# 12 kW is the top of that range and the smallest common budget that powers one 10.2 kW
# DGX/HGX H100. Denser servers (DGX B200 14.3 kW) need the high-density rack, one choice away.
TYPICAL_IDC_RACK_KW = 12.0
# A high-density rack (liquid or rear-door cooled), room for three 10.2 kW DGX H100 or two DGX
# B200/B300 per rack.
HIGH_DENSITY_RACK_KW = 40.0
# The budget before sites defaulted to the IDC rack: what a stored site without one meant.
FORMER_DEFAULT_RACK_KW = 40.0
# The presets offered beside the budget (kW, label).
RACK_POWER_PRESETS = (
    (TYPICAL_IDC_RACK_KW, _("Typical Chinese IDC rack (12 kW)")),
    (HIGH_DENSITY_RACK_KW, _("High-density rack (40 kW)")),
)


NAME_PREFIX_PATTERN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)?"


@dataclass(frozen=True, slots=True)
class SiteInputs:
    rack_units: int = field(
        default=48, metadata=spec("int", label=_("Rack height (U)"), low=1, high=60)
    )
    rack_power_kw: float = field(
        default=TYPICAL_IDC_RACK_KW,
        metadata=spec(
            "float",
            label=_("Power budget per rack (kW)"),
            low=0,
            low_open=True,
            high=500,
            help=_(
                "Empty: 12 kW, a typical Chinese IDC rack. DGX B200 and denser servers need a "
                "high-density rack (40 kW)."
            ),
        ),
    )
    servers_per_rack: int | None = field(
        default=None,
        metadata=spec(
            "int",
            label=_("Servers per rack"),
            low=1,
            high=64,
            help=_("Empty: as many as the rack's height and power budget allow."),
        ),
    )
    racks_per_row: int = field(
        default=20, metadata=spec("int", label=_("Racks per row"), low=1, high=200)
    )
    rows: int | None = field(
        default=None,
        metadata=spec(
            "int",
            label=_("Rows in the hall"),
            low=1,
            high=1000,
            help=_("Empty: as many rows as the design needs."),
        ),
    )
    rack_pitch_m: float = field(
        default=0.6, metadata=spec("float", label=_("Rack pitch (m)"), low=0.3, high=3)
    )
    row_spacing_m: float = field(
        default=3.0, metadata=spec("float", label=_("Row spacing (m)"), low=0.5, high=50)
    )
    cable_slack_m: float = field(
        default=1.0, metadata=spec("float", label=_("Cable slack (m)"), low=0, high=20)
    )
    cable_route: str = field(
        default="overhead", metadata=spec("choice", label=_("Cable route"), choices=CABLE_ROUTES)
    )
    server_units: int | None = field(
        default=None,
        metadata=spec(
            "int",
            label=_("Server height (U)"),
            low=1,
            high=20,
            help=_("Empty: the catalog server's, else 8 U."),
        ),
    )
    server_power_kw: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Server power, max (kW)"),
            low=0,
            low_open=True,
            high=200,
            help=_("Empty: the catalog server's, else 10.2 kW."),
        ),
    )
    site_name: str = field(
        default="DC1", metadata=spec("text", label=_("Site name"), max_length=64, blank=False)
    )
    # Every device name of the design starts with it: names stay unique when several designs
    # share one NetBox (it finds an interface's device by name alone) or one hall.
    name_prefix: str = field(
        default="",
        metadata=spec(
            "text",
            label=_("Device name prefix"),
            max_length=24,
            pattern=NAME_PREFIX_PATTERN,
            pattern_error=_("use letters, digits and hyphens, not at either end."),
            help=_(
                "Letters, digits and hyphens, e.g. bj1-pod2: every device of this design is "
                "named bj1-pod2-su1-r01-node01 ... Empty: no prefix."
            ),
        ),
    )


SITE_FIELDS = tuple(SiteInputs.__dataclass_fields__)


def check_site(
    site: SiteInputs, *, server_units: int, server_max_kw: float, own_rack: bool = False
) -> None:
    """Every field against its spec, then: the rack must hold at least one server. A rack-scale
    system (`own_rack`, GB200 NVL72) is a liquid-cooled rack with its own power shelves: the
    site's air-cooled budget is not its, and it is one per rack."""
    errors = field_errors(site)
    if errors:
        raise InvalidInput(errors)
    if server_units > site.rack_units:
        errors["rack_units"] = [
            message(
                _("a {rack} U rack cannot hold one {server} U server."),
                rack=site.rack_units,
                server=server_units,
            )
        ]
    if server_max_kw > site.rack_power_kw and not own_rack:
        errors["rack_power_kw"] = [_underpowered(site.rack_power_kw, server_max_kw)]
    if own_rack and (site.servers_per_rack or 1) > 1:
        errors["servers_per_rack"] = [
            message(_("a rack-scale system is a rack of its own: one per rack."))
        ]
    elif site.servers_per_rack and site.servers_per_rack * server_units > site.rack_units:
        errors["servers_per_rack"] = [
            message(
                _("{servers} servers of {server} U do not fit a {rack} U rack."),
                servers=site.servers_per_rack,
                server=server_units,
                rack=site.rack_units,
            )
        ]
    if errors:
        raise InvalidInput(errors)


def _underpowered(rack_kw: float, server_kw: float):
    """The budget too low for one server; the high-density rack named when it is enough."""
    if server_kw <= HIGH_DENSITY_RACK_KW:
        return message(
            _(
                "a {rack:g} kW rack cannot power one {server:g} kW server: choose the "
                "high-density rack ({dense:g} kW), or enter the site's own budget."
            ),
            rack=rack_kw,
            server=server_kw,
            dense=HIGH_DENSITY_RACK_KW,
        )
    return message(
        _("a {rack:g} kW rack cannot power one {server:g} kW server."),
        rack=rack_kw,
        server=server_kw,
    )
