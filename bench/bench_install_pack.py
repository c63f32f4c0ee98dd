"""Time and peak memory of the installation pack: layout, then the zip streamed to nowhere.

Run: python bench/bench_install_pack.py. Peak memory is tracemalloc's (Python allocations),
measured over layout and zip together; the zip's bytes are counted, never kept.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_fabric import load_catalog  # noqa: E402

from quoting.engine.fabric import FabricRequirements  # noqa: E402
from quoting.engine.install import SiteInputs, design_on_site, plan_layout  # noqa: E402
from quoting.engine.install.pack import pack_zip_chunks  # noqa: E402

SIZES = (256, 4096, 16384)
# Each size plain, then with the out-of-band management network (a patch cord per server BMC
# and per switch in the schedule).
CASES = tuple((gpus, oob) for gpus in SIZES for oob in (False, True))


def main() -> None:
    catalog = load_catalog()
    print(
        f"{'GPUs':>6} {'oob':>4} {'cables':>7} {'racks':>6} {'layout s':>9} {'zip s':>7} "
        f"{'total s':>8} {'zip MB':>7} {'peak MB':>8}"
    )
    for gpus, oob in CASES:
        # Measured on the pack's site, as every design is: the pack buys the BOM's cables.
        design = design_on_site(
            FabricRequirements(gpu_count=gpus, outofband_management=oob), catalog, SiteInputs()
        )
        tracemalloc.start()
        start = time.perf_counter()
        layout = plan_layout(design, SiteInputs(), catalog)
        planned = time.perf_counter()
        size = sum(len(chunk) for chunk in pack_zip_chunks(layout))
        done = time.perf_counter()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{gpus:>6} {'yes' if oob else 'no':>4} {len(layout.cables):>7} "
            f"{len(layout.racks):>6} {planned - start:>9.2f} {done - planned:>7.2f} "
            f"{done - start:>8.2f} {size / 1e6:>7.2f} {peak / 1e6:>8.1f}"
        )
        # Without tracemalloc's own overhead; CPU time too, as the machine may be shared.
        start, cpu = time.perf_counter(), time.process_time()
        layout = plan_layout(design, SiteInputs(), catalog)
        sum(len(chunk) for chunk in pack_zip_chunks(layout))
        print(
            f"{'':>6} untraced: {time.perf_counter() - start:.2f} s wall, "
            f"{time.process_time() - cpu:.2f} s CPU"
        )


if __name__ == "__main__":
    main()
