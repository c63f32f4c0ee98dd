"""python manage.py fabric_design --gpus 256 [--json]: the API's design, from the shell.
--language zh-hans words what a person reads (the summary, warnings, errors) in Chinese; the
pack follows it unless --pack-language says otherwise; --pack-language alone words the pack
only."""

import json
from collections.abc import Iterator
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation
from django.utils.translation import gettext, gettext_noop, ngettext

from quoting.designs.services.designs import (
    design_compute,
    design_install_layout,
    design_worded,
    site_from_json,
)
from quoting.designs.services.packs import PACK_LANGUAGES, pack_translate
from quoting.designs.services.requirements import requirements_from_request
from quoting.designs.svg.fabric import fabric_svg
from quoting.engine.contract import Spec, number_text, specs
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule_csv_lines
from quoting.engine.fabric.bom import bom_role_label
from quoting.engine.install import SiteInputs
from quoting.engine.install.pack import pack_write_dir
from quoting.engine.messages import Message

# option → request field; options left unset take the API's defaults.
OPTIONS = {
    "gpus": "gpu_count",
    "servers": "server_count",
    "gpus_per_node": "gpus_per_server",
    "nics_per_node": "nics_per_server",
    "generation": "nic_generation",
    "family": "family",
    "planes": "planes",
    "switch": "switch_part_number",
    "nic": "nic_part_number",
    "server": "server_part_number",
    "oversubscription": "oversubscription",
    "growth_gpus": "growth_gpus",
    "server_to_leaf": "server_to_leaf",
    "leaf_to_spine": "leaf_to_spine",
    "spine_to_core": "spine_to_core",
    "subnet_manager": "subnet_manager",
    "spares": "spares_percent",
    "storage_servers": "storage_servers",
    "storage_ports": "storage_ports_per_server",
    "storage_node_ports": "storage_ports_per_storage_server",
    "storage_oversubscription": "storage_oversubscription",
    "storage_capacity_tb": "storage_capacity_tb",
    "storage_read": "storage_read_gb_per_s",
    "storage_write": "storage_write_gb_per_s",
    "storage_server_tb": "storage_server_tb",
    "storage_server_read": "storage_server_read_gb_per_s",
    "storage_server_write": "storage_server_write_gb_per_s",
}

FLAG_OF = {field: f"--{option.replace('_', '-')}" for option, field in OPTIONS.items()}

REQUIREMENT_SPECS = specs(FabricRequirements)
SITE_SPECS = specs(SiteInputs)


def _argument(spec: Spec) -> dict:
    """argparse keywords for one requirement; the engine checks bounds and cross-field rules."""
    text = spec.label
    if spec.kind == "part":
        text = f"{spec.label} part number"
    elif spec.kind == "distance":
        text = f"{spec.label}: metres or {'/'.join(spec.values)}"
    elif spec.kind in ("int", "float"):
        text = f"{spec.label} ({number_text(spec.low)}-{number_text(spec.high)})"
    text = f"{text}. {spec.help}" if spec.help else text
    kwargs = {"help": text.replace("%", "%%")}  # argparse formats help with %
    if spec.kind == "choice":
        kwargs |= {"type": type(spec.values[0]), "choices": list(spec.values)}
    elif spec.kind in ("int", "float"):
        kwargs["type"] = int if spec.kind == "int" else float
    return kwargs


class Command(BaseCommand):
    help = "Design a fabric from the catalog and print it (the same JSON as POST /api/v1/designs/)."

    def add_arguments(self, parser):
        # Types, choices and help come from FabricRequirements' specs, as the API's do.
        for option, field_name in OPTIONS.items():
            parser.add_argument(
                f"--{option.replace('_', '-')}", **_argument(REQUIREMENT_SPECS[field_name])
            )
        parser.add_argument("--include-nics", action="store_true")
        parser.add_argument("--no-rail-optimized", action="store_true")
        parser.add_argument("--json", action="store_true", help="print the design as JSON")
        parser.add_argument("--cable-schedule", type=Path, help="also write the cable schedule CSV")
        parser.add_argument("--drawing", type=Path, help="also write the SVG drawing")
        parser.add_argument(
            "--pack", type=Path, help="also write the installation pack's files into this directory"
        )
        parser.add_argument(
            "--pack-language",
            choices=PACK_LANGUAGES,
            help="the words of the pack's README, elevations and labels (default: --language, "
            "else en)",
        )
        parser.add_argument(  # named and valued as the tco command's
            "--language",
            choices=PACK_LANGUAGES,
            help="the words of the summary, its warnings and the errors (default: en)",
        )
        for name, spec in SITE_SPECS.items():  # the site of the design and pack, as in the API
            parser.add_argument(
                f"--{name.replace('_', '-')}", dest=f"site_{name}", **_argument(spec)
            )

    def handle(self, *args, **options):
        # --pack-language alone words the pack only: the summary and the --json warnings that
        # scripts read stay as they were (English) unless --language asks.
        language = options.get("language") or "en"
        options["pack_language"] = options.get("pack_language") or language
        with translation.override(language):
            self._design(options)

    def _design(self, options):
        data = {
            field: options[opt] for opt, field in OPTIONS.items() if options.get(opt) is not None
        }
        data["include_nics"] = options["include_nics"]
        data["rail_optimized"] = not options["no_rail_optimized"]
        # The site lays the design out: its runs pick the cables, and the pack uses it too.
        site = {
            name: options[f"site_{name}"]
            for name in SITE_SPECS
            if options.get(f"site_{name}") is not None
        }
        try:
            design = design_compute(
                requirements=requirements_from_request(data), site=site_from_json(site)
            )
        except InvalidInput as error:
            raise CommandError(_errors_text(error.messages)) from error
        if options["cable_schedule"]:
            with options["cable_schedule"].open("w", encoding="utf-8") as out:
                out.writelines(cable_schedule_csv_lines(design))
        if options["drawing"]:
            options["drawing"].write_text(fabric_svg(design), encoding="utf-8")
        if options["pack"]:
            try:
                layout = design_install_layout(design=design, site=site_from_json(site))
            except InvalidInput as error:
                raise CommandError(_errors_text(error.messages)) from error
            written = pack_write_dir(
                layout, options["pack"], translate=pack_translate(options["pack_language"])
            )
            # Progress on stderr: with --json, stdout is the JSON alone (`| jq` reads it).
            self.stderr.write(
                gettext(
                    "Installation pack: %(files)s files in %(path)s (%(racks)s racks, "
                    "%(legs)s cable legs)."
                )
                % {
                    "files": len(written),
                    "path": options["pack"],
                    "racks": len(layout.racks),
                    "legs": len(layout.cables),
                }
            )
            for warning in layout.warning_messages:
                self.stderr.write(f"  ! {warning.render(gettext)}")
        summary = design_worded(design)  # the API's answer, the messages of its words too
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False))
            return
        for line in _summary_lines(summary):
            self.stdout.write(line)


def _errors_text(errors: dict) -> str:
    return "; ".join(
        f"{field}: {' '.join(_worded(m) for m in messages)}" for field, messages in errors.items()
    )


def _worded(reason) -> str:
    # The engine's reasons are messages where it words them; a serializer's are plain English.
    return reason.render(gettext) if isinstance(reason, Message) else str(reason)


# A UFM host's leaf links: a cable kind is a code (DAC, ACC, AOC), a fibre kind a word.
FIBRE_KINDS = {"multimode": gettext_noop("multimode"), "singlemode": gettext_noop("single-mode")}


def _media(kind: str) -> str:
    return gettext(FIBRE_KINDS[kind]) if kind in FIBRE_KINDS else kind.upper()


def _summary_lines(summary: dict) -> Iterator[str]:
    """The design as a person reads it, in the active language: the fabric, its servers, UFM
    and storage, the bill of materials by role, the warnings."""
    yield gettext(
        "%(gpus)s GPUs on %(switch)s: %(tiers)s tier(s), %(leaves)s leaves, %(spines)s spines, "
        "%(cores)s core; %(links)s links per leaf per spine; ports %(used)s used / %(free)s "
        "free; %(watts)s W typical."
    ) % {
        "gpus": summary["gpu_count"],
        "switch": summary["switch_sku"],
        "tiers": summary["tiers"],
        "leaves": summary["leaf_count"],
        "spines": summary["spine_count"],
        "cores": summary["core_count"],
        "links": summary["links_per_leaf_per_spine"],
        "used": summary["ports"]["used"],
        "free": summary["ports"]["free"],
        "watts": summary["power_w"]["typical"],
    }
    if summary["server_sku"]:
        yield gettext("Servers: %(count)s × %(sku)s.") % {
            "count": summary["node_count"],
            "sku": summary["server_sku"],
        }
    ufm = summary["ufm_appliances"]
    if ufm:
        values = {
            "count": ufm["appliances"],
            "device": ufm["device"],
            "nic": ufm["host_nic"],
            "links": ufm["links"],
            "media": _media(ufm["media"]),
            "cable": ufm["cable"],
        }
        if ufm["host_nic"]:
            yield (
                gettext(
                    "UFM: %(count)s hosts (%(device)s with %(nic)s), %(links)s leaf links "
                    "(%(media)s, %(cable)s)."
                )
                % values
            )
        else:
            yield (
                gettext("UFM: %(count)s appliances, %(links)s leaf links (%(media)s, %(cable)s).")
                % values
            )
    storage = summary["storage"]
    if storage:
        yield gettext(
            "Storage fabric: %(ports)s ports on %(switch)s: %(tiers)s tier(s), %(leaves)s "
            "leaves, %(spines)s spines, %(cores)s core."
        ) % {
            "ports": storage["endpoint_ports"],
            "switch": storage["switch_sku"],
            "tiers": storage["tiers"],
            "leaves": storage["leaf_count"],
            "spines": storage["spine_count"],
            "cores": storage["core_count"],
        }
    if summary["storage_sizing"]:
        yield from _sizing_lines(summary["storage_sizing"])
    for line in summary["bom"]:
        role = bom_role_label(line["role"] or "").render(gettext)
        yield f"  {line['quantity']:>7} × {line['sku']:<22} {role}"
    for warning in summary["warnings"]:  # worded in the active language by design_worded
        yield f"  ! {warning}"


# Each figure of a sized storage, as the design page words it (templates/quoting/_storage_sizing):
# alone, and against its ask.
SIZING_FIGURES = (
    (
        "capacity_tb",
        gettext_noop("Capacity %(delivered)s TB"),
        gettext_noop("Capacity %(delivered)s TB for %(asked)s TB asked (+%(headroom)s %%)"),
    ),
    (
        "read_gb_per_s",
        gettext_noop("Read %(delivered)s GB/s"),
        gettext_noop("Read %(delivered)s GB/s for %(asked)s GB/s asked (+%(headroom)s %%)"),
    ),
    (
        "write_gb_per_s",
        gettext_noop("Write %(delivered)s GB/s"),
        gettext_noop("Write %(delivered)s GB/s for %(asked)s GB/s asked (+%(headroom)s %%)"),
    ),
)


def _sizing_lines(z: dict) -> Iterator[str]:
    """The storage sized from the workload (the input that sized it), each figure against its
    ask, in the design page's words."""
    # The input named as the option typed here (--storage-read), not the API's field.
    flag = FLAG_OF.get(z["sized_by"], z["sized_by"])
    yield gettext("Storage sized by %(input)s:") % {"input": flag}
    servers = z["storage_servers"]
    yield "  " + ngettext(
        "%(servers)s storage server, %(ports)s ports each",
        "%(servers)s storage servers, %(ports)s ports each",
        servers,
    ) % {"servers": servers, "ports": z["ports_per_storage_server"]}
    for key, alone, against in SIZING_FIGURES:
        f = z[key]
        values = {"delivered": f"{f['delivered']:,g}"}
        if f["asked"] is None:
            yield "  " + gettext(alone) % values
        else:
            values |= {"asked": f"{f['asked']:,g}", "headroom": f["headroom_percent"]}
            yield "  " + gettext(against) % values
