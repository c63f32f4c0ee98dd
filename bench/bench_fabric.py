"""Time fabric designs (with their BOM, not the cable schedule) from 8 to 100,000 GPUs.

Run: python bench/bench_fabric.py. The 100,000-GPU design must take well under 100 ms.
"on site": the same design laid out on the default site with its cables measured (what the
design page, the API and the CLI compute); a design whose longest run no catalog part
reaches on that site says so instead of a time.
"""

from __future__ import annotations

import csv
import sys
import time
from dataclasses import fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quoting.engine.catalog import ProductSpec  # noqa: E402
from quoting.engine.errors import InvalidInput  # noqa: E402
from quoting.engine.fabric import FabricRequirements, design_fabric  # noqa: E402
from quoting.engine.install import SiteInputs, design_on_site  # noqa: E402

REPEATS = 50
SITE_REPEATS = 5


def load_catalog() -> list[ProductSpec]:
    kinds = {f.name: str(f.type) for f in fields(ProductSpec)}
    products = []
    with (ROOT / "catalog" / "data" / "nvidia_catalog.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            values = {}
            for name, kind in kinds.items():
                raw = row.get(name, "")
                if raw == "":
                    continue
                if "bool" in kind:
                    values[name] = raw.lower() == "true"
                elif "int" in kind:
                    values[name] = int(raw)
                elif "float" in kind:
                    values[name] = float(raw)
                else:
                    values[name] = raw
            products.append(ProductSpec(**values))
    return products


CASES = [
    (8, {}),
    (64, {}),
    (256, {}),
    (1024, {}),
    (2048, {}),
    (8192, {}),
    (32768, {}),
    (65536, {}),  # the QM9700 non-blocking limit
    (100_000, {"nic_generation": "XDR"}),
    (100_000, {"family": "ethernet", "nic_generation": "400GbE", "planes": 2}),
    (100_000, {"nic_generation": "NDR", "nics_per_server": 4}),
]


def on_site(req: FabricRequirements, catalog: list[ProductSpec]) -> str:
    try:
        design_on_site(req, catalog, SiteInputs())
    except InvalidInput as error:
        return "site: " + ",".join(error.messages)
    start = time.perf_counter()
    for _ in range(SITE_REPEATS):
        design_on_site(req, catalog, SiteInputs())
    return f"{(time.perf_counter() - start) / SITE_REPEATS * 1000:.1f}"


def main() -> None:
    catalog = load_catalog()
    print(
        f"{'GPUs':>8}  {'fabric':<26} {'tiers':>5} {'switches':>8} {'BOM lines':>9} "
        f"{'ms/design':>10} {'growth':>7} {'ms on site':>11}"
    )
    previous = None
    for gpus, extra in CASES:
        req = FabricRequirements(gpu_count=gpus, **extra)
        design = design_fabric(req, catalog)  # warm up
        start = time.perf_counter()
        for _ in range(REPEATS):
            design = design_fabric(req, catalog)
        ms = (time.perf_counter() - start) / REPEATS * 1000
        switches = design.leaf_count + design.spine_count + design.core_count
        fabric = f"{req.nic_generation} {design.switch.part_number}"
        growth = f"x{ms / previous:.2f}" if previous else ""
        print(
            f"{gpus:>8}  {fabric:<26} {design.topology.tiers:>5} {switches:>8} "
            f"{len(design.bom):>9} {ms:>10.3f} {growth:>7} {on_site(req, catalog):>11}"
        )
        previous = ms
    if ms >= 100:
        raise SystemExit(f"too slow: {ms:.1f} ms for {gpus} GPUs")


if __name__ == "__main__":
    main()
