"""Latency of the design page and the design API, end to end through Django.

Run: .venv/bin/python bench/bench_design_page.py [repeats]. Uses a throw-away SQLite database
with the seed catalog (set DATABASE_URL to measure PostgreSQL instead: it must be empty).
Prints p50 / p95 per cluster size; the product promise is "well under a second".
"""

from __future__ import annotations

import statistics
import sys
import time

from benchsetup import django_ready  # bench/, the script's folder, is on sys.path

django_ready()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from portal.models import User  # noqa: E402

# The distances are left to the site's layout (the page's default): every design is laid out
# and its cables measured. 100,000 XDR GPUs in rows of 20 racks run over a kilometre from the
# spines to the core, beyond every catalog optic: that size is sited in rows of 60 racks.
SIZES = [
    (16, "NDR", {}),
    (256, "NDR", {}),
    (2048, "NDR", {}),
    (16384, "NDR", {}),
    (100_000, "XDR", {"racks_per_row": 60}),
]
PAGE = (
    "/designs/new/?gpu_count={gpus}&gpus_per_server=8&nic_generation={gen}"
    "&family=infiniband&planes=1&oversubscription=1&subnet_manager=auto"
    "&spares_percent=0&rail_optimized=on&currency=CNY{site}"
)


def timed(call, repeats: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        response = call()
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.content[:500]
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.95) - 1)]


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    user, _ = User.objects.get_or_create(username="bench")
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    print(f"{'GPUs':>8} {'page p50':>10} {'page p95':>10} {'htmx p50':>10} {'API p50':>9}  (ms)")
    for gpus, gen, site in SIZES:
        url = PAGE.format(gpus=gpus, gen=gen, site="".join(f"&{k}={v}" for k, v in site.items()))
        page = timed(lambda url=url: client.get(url), repeats)
        partial = timed(lambda url=url: client.get(url, HTTP_HX_REQUEST="true"), repeats)
        api = timed(
            lambda gpus=gpus, gen=gen, site=site: client.post(
                "/api/v1/designs/",
                {"gpu_count": gpus, "nic_generation": gen, **site},
                content_type="application/json",
            ),
            repeats,
        )
        print(f"{gpus:>8} {page[0]:>10.1f} {page[1]:>10.1f} {partial[0]:>10.1f} {api[0]:>9.1f}")


if __name__ == "__main__":
    main()
