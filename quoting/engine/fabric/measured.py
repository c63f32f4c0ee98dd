"""Buying a measured tier: the media of each cable unit follow its own run (rule 10).

Host links choose per leaf cage (copper and AOC join a whole cage; a twin-port module serves
both ports of its cage, so one cage is one media), each port's fibre at its own length class.
Switch-to-switch links choose per rack pair when every switch pair gets whole cages, else one
optical media for the tier (a cage then joins two pairs). The cable schedule looks each link's
media and part up in the MeasuredTier this returns, so the BOM and the schedule agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric import parts
from quoting.engine.fabric.bom import Tally
from quoting.engine.fabric.lengths import CageRuns, MeasuredTier
from quoting.engine.fabric.parts import Media


def _part(
    catalog: list[ProductSpec], record: MeasuredTier, media: Media, run: float
) -> ProductSpec:
    key = (media.cable.part_number, run)
    found = record.part_by_run.get(key)
    if found is None:
        found = record.part_by_run[key] = parts.cable_for_length(catalog, media.cable, run)
    return found


def buy_uniform(
    catalog: list[ProductSpec], media: Media, runs: Counter
) -> tuple[MeasuredTier, list[tuple[ProductSpec, int]]]:
    """Every run of the tier on the tier's one media, each cable at its own length class:
    `runs` counts cable units (fibres for optics, cages for copper) by run."""
    record = MeasuredTier()
    bought: dict[str, tuple[ProductSpec, int]] = {}
    for run, n in sorted(runs.items()):
        record.media_by_run[run] = media
        part = _part(catalog, record, media, run)
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
    record = MeasuredTier(forced=frozenset(forced))
    free = Counter(cages)
    free.subtract(Counter(forced.values()))
    for pool, forced_media in ((free, None), (Counter(forced.values()), tier_media)):
        for (ports, endpoints), n in sorted(pool.items()):
            if n <= 0:
                continue
            longest = max(ports)
            media = forced_media or record.media_by_run.get(longest) or pick(longest)
            if forced_media is None:
                record.media_by_run[longest] = media
            if media.optical:
                tally.add(media.switch_module, n, role)
                tally.add(media.host_module, endpoints * n, role)
                for run in ports:
                    tally.add(_part(catalog, record, media, run), n, role)
            else:
                tally.add(_part(catalog, record, media, longest), n, role)
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
    record = MeasuredTier()
    for run, n in sorted(links.items()):
        media = record.media_by_run.get(run) or pick(run)
        record.media_by_run[run] = media
        cages = n // ports_per_cage
        if media.optical:
            tally.add(media.switch_module, 2 * cages, role)  # a module in each end's cage
            tally.add(_part(catalog, record, media, run), n, role)
        else:
            tally.add(_part(catalog, record, media, run), cages, role)
    return record
