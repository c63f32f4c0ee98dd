"""python manage.py fabric_design --gpus 256 [--json]: the API's design, from the shell."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import cable_schedule_csv_lines
from quoting.services.designs import design_compute
from quoting.services.requirements import requirements_from_request
from quoting.svg.fabric import fabric_svg

# option → request field; options left unset take the API's defaults.
OPTIONS = {
    "gpus": "gpu_count", "servers": "server_count", "gpus_per_node": "gpus_per_server",
    "nics_per_node": "nics_per_server", "generation": "nic_generation", "family": "family",
    "planes": "planes", "switch": "switch_part_number", "nic": "nic_part_number",
    "server": "server_part_number",
    "oversubscription": "oversubscription", "growth_gpus": "growth_gpus",
    "server_to_leaf": "server_to_leaf", "leaf_to_spine": "leaf_to_spine",
    "spine_to_core": "spine_to_core", "subnet_manager": "subnet_manager",
    "spares": "spares_percent", "storage_servers": "storage_servers",
    "storage_ports": "storage_ports_per_server",
    "storage_node_ports": "storage_ports_per_storage_server",
    "storage_oversubscription": "storage_oversubscription",
}


class Command(BaseCommand):
    help = "Design a fabric from the catalog and print it (the same JSON as POST /api/v1/designs/)."

    def add_arguments(self, parser):
        parser.add_argument("--gpus", type=int)
        parser.add_argument("--servers", type=int)
        parser.add_argument("--gpus-per-node", type=int)
        parser.add_argument("--nics-per-node", type=int)
        parser.add_argument("--generation", help="HDR, NDR200, NDR, XDR, 400GbE ...")
        parser.add_argument("--family", choices=["infiniband", "ethernet"])
        parser.add_argument("--planes", type=int)
        parser.add_argument("--switch", help="switch part number, e.g. MQM9790-NS2F")
        parser.add_argument("--nic", help="NIC part number")
        parser.add_argument("--server", help="server part number, e.g. DGX-H100: its cages "
                            "decide the host optics")
        parser.add_argument("--oversubscription", type=float)
        parser.add_argument("--growth-gpus", type=int)
        parser.add_argument("--server-to-leaf", help="metres or same-rack/adjacent-rack/...")
        parser.add_argument("--leaf-to-spine")
        parser.add_argument("--spine-to-core")
        parser.add_argument("--subnet-manager")
        parser.add_argument("--spares", type=float, help="spares percentage")
        parser.add_argument("--storage-servers", type=int,
                            help="storage servers on a separate storage fabric")
        parser.add_argument("--storage-ports", type=int,
                            help="storage NIC ports per compute server (default 1)")
        parser.add_argument("--storage-node-ports", type=int,
                            help="ports per storage server (default 2)")
        parser.add_argument("--storage-oversubscription", type=float)
        parser.add_argument("--include-nics", action="store_true")
        parser.add_argument("--no-rail-optimized", action="store_true")
        parser.add_argument("--json", action="store_true", help="print the design as JSON")
        parser.add_argument("--cable-schedule", type=Path, help="also write the cable schedule CSV")
        parser.add_argument("--drawing", type=Path, help="also write the SVG drawing")

    def handle(self, *args, **options):
        data = {field: options[opt] for opt, field in OPTIONS.items()
                if options.get(opt) is not None}
        data["include_nics"] = options["include_nics"]
        data["rail_optimized"] = not options["no_rail_optimized"]
        try:
            design = design_compute(requirements=requirements_from_request(data))
        except InvalidInput as error:
            raise CommandError(_errors_text(error.errors)) from error
        if options["cable_schedule"]:
            with options["cable_schedule"].open("w", encoding="utf-8") as out:
                out.writelines(cable_schedule_csv_lines(design))
        if options["drawing"]:
            options["drawing"].write_text(fabric_svg(design), encoding="utf-8")
        summary = design.as_dict()
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False))
            return
        self.stdout.write(
            f"{summary['gpu_count']} GPUs on {summary['switch_sku']}: {summary['tiers']} tier(s), "
            f"{summary['leaf_count']} leaves, {summary['spine_count']} spines, "
            f"{summary['core_count']} core; {summary['links_per_leaf_per_spine']} links per "
            f"leaf per spine; ports {summary['ports']['used']} used / {summary['ports']['free']} "
            f"free; {summary['power_w']['typical']} W typical.")
        if summary["server_sku"]:
            self.stdout.write(f"Servers: {summary['node_count']} × {summary['server_sku']}.")
        ufm = summary["ufm_appliances"]
        if ufm:
            self.stdout.write(f"UFM: {ufm['appliances']} appliances, {ufm['links']} leaf links "
                              f"({ufm['media']}, {ufm['cable']}).")
        storage = summary["storage"]
        if storage:
            self.stdout.write(
                f"Storage fabric: {storage['endpoint_ports']} ports on {storage['switch_sku']}: "
                f"{storage['tiers']} tier(s), {storage['leaf_count']} leaves, "
                f"{storage['spine_count']} spines, {storage['core_count']} core.")
        for line in summary["bom"]:
            self.stdout.write(f"  {line['quantity']:>7} × {line['sku']:<22} {line['role']}")
        for warning in summary["warnings"]:
            self.stdout.write(f"  ! {warning}")


def _errors_text(errors: dict) -> str:
    return "; ".join(f"{field}: {' '.join(str(m) for m in messages)}"
                     for field, messages in errors.items())
