"""Buying a measured tier: the media of each cable unit follow its own run (rule 10).

Host links choose per leaf cage (copper and AOC join a whole cage; a twin-port module serves
both ports of its cage, so one cage is one media), each port's fibre at its own length class.
Switch-to-switch links choose per rack pair when every switch pair gets whole cages. Otherwise a
cage joins two switch pairs: the tier keeps one fibre type (a module's two ports share one, and
so do a link's two ends, which chains every cage of the tier), and each cage takes the module of
that type its longest run needs, so one long run buys long-reach modules for its two cages only.
The cable schedule looks each link's media and part up in the MeasuredTier this returns, so the
BOM and the schedule agree.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric import parts
from quoting.engine.fabric.bom import Tally
from quoting.engine.fabric.lengths import CageRuns, MeasuredTier
from quoting.engine.fabric.parts import Media


class _ByReach:
    """A choice by run, made once per step of the catalog: every pick keeps the parts whose
    length or reach covers the run, so all runs up to the same catalog length or reach choose
    alike (a 6.1 m and a 9.7 m run both choose among the parts of 10 m and more)."""

    def __init__(self, catalog: list[ProductSpec]) -> None:
        self.steps = sorted(
            {
                value
                for p in catalog
                if p.category in ("cable", "transceiver")
                for value in (p.length_m, p.reach_m)
                if value
            }
        )
        self.chosen: dict[tuple, object] = {}

    def step(self, run: float) -> float:
        at = bisect.bisect_left(self.steps, run - 1e-9)
        return self.steps[at] if at < len(self.steps) else run

    def get(self, key: tuple, run: float, choose: Callable[[], object]):
        key = (*key, self.step(run))
        if key not in self.chosen:
            self.chosen[key] = choose()
        return self.chosen[key]


def _part(
    catalog: list[ProductSpec],
    record: MeasuredTier,
    media: Media,
    run: float,
    steps: _ByReach | None = None,
) -> ProductSpec:
    key = (media.cable.part_number, run)
    found = record.part_by_run.get(key)
    if found is None:
        steps = steps or _ByReach(catalog)
        found = record.part_by_run[key] = steps.get(
            ("cable", media.cable.part_number),
            run,
            lambda: parts.cable_for_length(catalog, media.cable, run),
        )
    return found


def buy_uniform(
    catalog: list[ProductSpec], media: Media, runs: Counter
) -> tuple[MeasuredTier, list[tuple[ProductSpec, int]]]:
    """Every run of the tier on the tier's one media, each cable at its own length class:
    `runs` counts cable units (fibres for optics, cages for copper) by run."""
    record, steps = MeasuredTier(), _ByReach(catalog)
    bought: dict[str, tuple[ProductSpec, int]] = {}
    for run, n in sorted(runs.items()):
        record.media_by_run[run] = media
        part = _part(catalog, record, media, run, steps)
        bought[part.part_number] = (part, bought.get(part.part_number, (part, 0))[1] + n)
    return record, list(bought.values())


def buy_host_cages(
    tally: Tally,
    catalog: list[ProductSpec],
    role: str,
    *,
    pick: Callable[[float], Media],
    cages: Counter,
    forced: dict[tuple[int, int], CageRuns],
    tier_media: Media,
) -> MeasuredTier:
    """Host links on cages that choose their own media: `cages` counts CageRuns over every
    plane; `forced` are the (leaf, cage)s a UFM port shares, which keep `tier_media`."""
    record, steps = MeasuredTier(forced=frozenset(forced)), _ByReach(catalog)
    free = Counter(cages)
    free.subtract(Counter(forced.values()))
    for pool, forced_media in ((free, None), (Counter(forced.values()), tier_media)):
        for (ports, endpoints), n in sorted(pool.items()):
            if n <= 0:
                continue
            longest = max(ports)
            media = forced_media or steps.get(("media",), longest, lambda run=longest: pick(run))
            if forced_media is None:
                record.media_by_run[longest] = media
            if media.optical:
                tally.add(media.switch_module, n, role)
                tally.add(media.host_module, endpoints * n, role)
                for run in ports:
                    tally.add(_part(catalog, record, media, run, steps), n, role)
            else:
                tally.add(_part(catalog, record, media, longest, steps), n, role)
    return record


def buy_trunk_pairs(
    tally: Tally,
    catalog: list[ProductSpec],
    role: str,
    *,
    pick: Callable[[float], Media],
    links: Counter,
    ports_per_cage: int,
) -> MeasuredTier:
    """Switch-to-switch links whose switch pairs all get whole cages: each rack pair's run
    picks copper or optics; `links` counts links by run over every plane."""
    record, steps = MeasuredTier(), _ByReach(catalog)
    for run, n in sorted(links.items()):
        media = record.media_by_run[run] = steps.get(("media",), run, lambda run=run: pick(run))
        cages = n // ports_per_cage
        if media.optical:
            tally.add(media.switch_module, 2 * cages, role)  # a module in each end's cage
            tally.add(_part(catalog, record, media, run, steps), n, role)
        else:
            tally.add(_part(catalog, record, media, run, steps), cages, role)
    return record


def buy_trunk_cages(
    tally: Tally,
    catalog: list[ProductSpec],
    role: str,
    *,
    media: Media,
    module_for: Callable[[float], ProductSpec],
    cages: Counter,
    links: Counter,
) -> MeasuredTier:
    """Optical switch-to-switch links whose cages join several switch pairs: `cages` counts the
    cages at both ends by their longest run, each buying the module `module_for` that run; `links`
    counts links by run, each a fibre of the tier's media at its own length class."""
    record, steps = MeasuredTier(), _ByReach(catalog)
    for run, n in sorted(cages.items()):
        module = steps.get(("module",), run, lambda run=run: module_for(run))
        record.module_by_run[run] = module
        tally.add(module, n, role)
    for run, n in sorted(links.items()):
        record.media_by_run[run] = media
        tally.add(_part(catalog, record, media, run, steps), n, role)
    return record
