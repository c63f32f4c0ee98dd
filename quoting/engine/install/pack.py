"""The installation pack as a zip, streamed: each file is written a chunk at a time into a
sink that hands its bytes on, so a 50,000-cable pack never sits whole in memory twice."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable, Iterator

from quoting.engine.install import exports, netbox
from quoting.engine.install.elevations import rack_elevations_svg
from quoting.engine.install.layout import InstallLayout
from quoting.engine.install.pdf import Translate, labels_pdf, rack_elevations_pdf

# Fixed member dates: the same design and site give the same bytes (and the same SHA-256).
MEMBER_DATE = (2026, 1, 1, 0, 0, 0)
FLUSH_BYTES = 1 << 16

Producer = Callable[[], Iterable[str | bytes]]


def pack_files(
    layout: InstallLayout, *, revision: str = "", translate: Translate | None = None
) -> list[tuple[str, Producer]]:
    """The pack's files by name, each a producer of its text: PACK_FILE_NAMES in order, the
    InfiniBand-only ones on InfiniBand, and after ibdiagnet.topo the system definitions it
    names (ibnl/<type>.ibnl).

    The files people read (LANGUAGE_FILES) are in the language of `translate` (the edge's
    gettext in the pack's language; English without); the files tools read are the same bytes
    in every language."""
    producers: dict[str, Producer] = {
        "README.txt": lambda: exports.readme_txt(layout, revision=revision, translate=translate),
        "cable-schedule.csv": lambda: exports.cable_schedule_csv(layout),
        "port-map.csv": lambda: exports.port_map_csv(layout),
        "racks.csv": lambda: exports.racks_csv(layout, translate),
        "rack-elevations.svg": lambda: rack_elevations_svg(layout, translate),
        "rack-elevations.pdf": lambda: rack_elevations_pdf(layout, translate),
        "labels.pdf": lambda: labels_pdf(layout, translate),
        "slurm-topology.conf": lambda: exports.slurm_topology(layout),
        "ibdiagnet.topo": lambda: exports.ibdiagnet_topo(layout),
        "ufm-ndt.csv": lambda: exports.ufm_ndt_csv(layout),
        **{
            name: (lambda produce=produce: produce(layout))
            for name, produce in netbox.PRODUCERS.items()
        },
        "bom-by-rack.csv": lambda: exports.bom_by_rack_csv(layout),
    }
    infiniband = layout.design.requirements.family == "infiniband"
    files: list[tuple[str, Producer]] = []
    for name in PACK_FILE_NAMES:
        if name in exports.INFINIBAND_ONLY and not infiniband:
            continue
        files.append((name, producers[name]))
        if name == "ibdiagnet.topo":
            files += [(n, lambda text=text: [text]) for n, text in exports.ibnl_files(layout)]
    return files


# The files that follow the pack's language (their words; never their codes or headers).
LANGUAGE_FILES = (
    "README.txt",
    "racks.csv",
    "rack-elevations.svg",
    "rack-elevations.pdf",
    "labels.pdf",
)


def pack_file_names(layout: InstallLayout) -> list[str]:
    return [name for name, _ in pack_files(layout)]


PACK_FILE_NAMES = (
    "README.txt",
    "cable-schedule.csv",
    "port-map.csv",
    "racks.csv",
    "rack-elevations.svg",
    "rack-elevations.pdf",
    "labels.pdf",
    "slurm-topology.conf",
    "ibdiagnet.topo",
    "ufm-ndt.csv",
    *netbox.NETBOX_FILES,
    "bom-by-rack.csv",
)


class _Sink:
    """A write-only stream for ZipFile (no seek: it writes data descriptors instead)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0

    def write(self, data) -> int:
        self.chunks.append(bytes(data))
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    def drain(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        self.size = 0
        return data


def zip_chunks(files: Iterable[tuple[str, Producer]]) -> Iterator[bytes]:
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, produce in files:
            info = zipfile.ZipInfo(name, date_time=MEMBER_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with archive.open(info, "w", force_zip64=True) as member:
                for chunk in produce():
                    member.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
                    if sink.size >= FLUSH_BYTES:
                        yield sink.drain()
            if sink.size:
                yield sink.drain()
    if sink.size:
        yield sink.drain()


def pack_zip_chunks(
    layout: InstallLayout, *, revision: str = "", translate: Translate | None = None
) -> Iterator[bytes]:
    return zip_chunks(pack_files(layout, revision=revision, translate=translate))


def pack_write_dir(
    layout: InstallLayout, directory, *, revision: str = "", translate: Translate | None = None
) -> list[str]:
    """Write every file of the pack into `directory` (a pathlib.Path); returns the names."""
    directory.mkdir(parents=True, exist_ok=True)
    names = []
    for name, produce in pack_files(layout, revision=revision, translate=translate):
        (directory / name).parent.mkdir(parents=True, exist_ok=True)  # ibnl/
        with (directory / name).open("wb") as out:
            for chunk in produce():
                out.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        names.append(name)
    return names
