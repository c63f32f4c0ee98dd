"""python manage.py fabric_design --gpus 256 [--json]: the API's design, from the shell."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

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
from quoting.engine.install import SiteInputs
from quoting.engine.install.pack import pack_write_dir

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
            default="en",
            help="the words of the pack's README, elevations and labels (default: en)",
        )
        for name, spec in SITE_SPECS.items():  # the site of the design and pack, as in the API
            parser.add_argument(
                f"--{name.replace('_', '-')}", dest=f"site_{name}", **_argument(spec)
            )

    def handle(self, *args, **options):
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
            raise CommandError(_errors_text(error.errors)) from error
        if options["cable_schedule"]:
            with options["cable_schedule"].open("w", encoding="utf-8") as out:
                out.writelines(cable_schedule_csv_lines(design))
        if options["drawing"]:
            options["drawing"].write_text(fabric_svg(design), encoding="utf-8")
        if options["pack"]:
            try:
                layout = design_install_layout(design=design, site=site_from_json(site))
            except InvalidInput as error:
                raise CommandError(_errors_text(error.errors)) from error
            written = pack_write_dir(
                layout, options["pack"], translate=pack_translate(options["pack_language"])
            )
            # Progress on stderr: with --json, stdout is the JSON alone (`| jq` reads it).
            self.stderr.write(
                f"Installation pack: {len(written)} files in {options['pack']} "
                f"({len(layout.racks)} racks, {len(layout.cables)} cable legs)."
            )
            for warning in layout.warnings:
                self.stderr.write(f"  ! {warning}")
        summary = design_worded(design)  # the API's answer, the messages of its words too
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False))
            return
        self.stdout.write(
            f"{summary['gpu_count']} GPUs on {summary['switch_sku']}: {summary['tiers']} tier(s), "
            f"{summary['leaf_count']} leaves, {summary['spine_count']} spines, "
            f"{summary['core_count']} core; {summary['links_per_leaf_per_spine']} links per "
            f"leaf per spine; ports {summary['ports']['used']} used / {summary['ports']['free']} "
            f"free; {summary['power_w']['typical']} W typical."
        )
        if summary["server_sku"]:
            self.stdout.write(f"Servers: {summary['node_count']} × {summary['server_sku']}.")
        ufm = summary["ufm_appliances"]
        if ufm:
            what = "appliances"
            if ufm["host_nic"]:
                what = f"hosts ({ufm['device']} with {ufm['host_nic']})"
            self.stdout.write(
                f"UFM: {ufm['appliances']} {what}, {ufm['links']} leaf links "
                f"({ufm['media']}, {ufm['cable']})."
            )
        storage = summary["storage"]
        if storage:
            self.stdout.write(
                f"Storage fabric: {storage['endpoint_ports']} ports on {storage['switch_sku']}: "
                f"{storage['tiers']} tier(s), {storage['leaf_count']} leaves, "
                f"{storage['spine_count']} spines, {storage['core_count']} core."
            )
        if summary["storage_sizing"]:
            self.stdout.write(_sizing_text(summary["storage_sizing"]))
        for line in summary["bom"]:
            self.stdout.write(f"  {line['quantity']:>7} × {line['sku']:<22} {line['role']}")
        for warning in summary["warnings"]:
            self.stdout.write(f"  ! {warning}")


def _errors_text(errors: dict) -> str:
    return "; ".join(
        f"{field}: {' '.join(str(m) for m in messages)}" for field, messages in errors.items()
    )


def _sizing_text(z: dict) -> str:
    """The storage sized from the workload, each figure against its ask."""
    figures = []
    for key, name, unit in (
        ("capacity_tb", "capacity", "TB"),
        ("read_gb_per_s", "read", "GB/s"),
        ("write_gb_per_s", "write", "GB/s"),
    ):
        f = z[key]
        text = f"{name} {f['delivered']:,g} {unit}"
        if f["asked"] is not None:
            text += f" for {f['asked']:,g} {unit} asked (+{f['headroom_percent']} %)"
        figures.append(text)
    return (
        f"Storage sized by {z['sized_by']}: {z['storage_servers']} storage servers, "
        f"{z['ports_per_storage_server']} ports each; {'; '.join(figures)}."
    )
