"""Printable PDFs of the pack: cable labels and rack elevations, written directly as PDF.

A 16,384-GPU pack has about 100,000 labels (3,000 pages): an HTML-to-PDF renderer takes minutes
and holds every page in memory, so these two files are drawn with the PDF operators themselves
(rectangles, the standard Helvetica fonts), a page at a time, and stream like the CSVs. Text is
our own names and part numbers (ASCII); anything else is replaced, never interpreted.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from quoting.engine.install.layout import InstallLayout
from quoting.engine.install.weights import rack_weight_kg

A4 = (595.0, 842.0)
A4_LANDSCAPE = (842.0, 595.0)


def _text(value: str) -> str:
    """A PDF literal string: Latin-1, with its delimiters escaped."""
    safe = value.encode("latin-1", "replace").decode("latin-1")
    return "(" + safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return f"{r:.3f} {g:.3f} {b:.3f}"


class _Pdf:
    """Objects 1-4 are fixed (catalog, page tree, two fonts); pages follow as they come, the
    page tree is written last with every page's number."""

    def __init__(self, size: tuple[float, float], title: str) -> None:
        self.size, self.title = size, title
        self.offsets: dict[int, int] = {}
        self.position = 0
        self.pages: list[int] = []
        self.next_number = 5

    def _object(self, number: int, body: bytes) -> bytes:
        self.offsets[number] = self.position
        data = f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
        self.position += len(data)
        return data

    def start(self) -> bytes:
        head = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
        self.position = len(head)
        return head + b"".join(
            (
                self._object(1, b"<< /Type /Catalog /Pages 2 0 R >>"),
                self._object(
                    3,
                    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                    b"/Encoding /WinAnsiEncoding >>",
                ),
                self._object(
                    4,
                    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
                    b"/Encoding /WinAnsiEncoding >>",
                ),
            )
        )

    def page(self, content: str) -> bytes:
        stream = zlib.compress(content.encode("latin-1"), 6)
        content_number, page_number = self.next_number, self.next_number + 1
        self.next_number += 2
        self.pages.append(page_number)
        width, height = self.size
        return self._object(
            content_number,
            f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode()
            + stream
            + b"\nendstream",
        ) + self._object(
            page_number,
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width:g} {height:g}] "
                f"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents {content_number} 0 R"
                " >>"
            ).encode(),
        )

    def finish(self) -> bytes:
        kids = " ".join(f"{n} 0 R" for n in self.pages)
        info_number = self.next_number
        tail = self._object(
            2, f"<< /Type /Pages /Kids [{kids}] /Count {len(self.pages)} >>".encode()
        )
        tail += self._object(
            info_number,
            f"<< /Title {_text(self.title)} /Producer (FabricQuote) >>".encode("latin-1"),
        )
        xref_at = self.position
        count = info_number + 1
        lines = [f"xref\n0 {count}\n", "0000000000 65535 f \n"]
        lines += [f"{self.offsets[n]:010d} 00000 n \n" for n in range(1, count)]
        lines.append(
            f"trailer\n<< /Size {count} /Root 1 0 R /Info {info_number} 0 R >>\n"
            f"startxref\n{xref_at}\n%%EOF\n"
        )
        return tail + "".join(lines).encode()


# --- labels.pdf -----------------------------------------------------------------------------
LABEL_COLUMNS, LABEL_ROWS = 3, 12
LABEL_W, LABEL_H = 180.0, 62.0
LABEL_LEFT, LABEL_TOP = 27.5, 800.0


def _label(x: float, y: float, cable, end: str, text: str) -> str:
    part = f"{cable.part}  {cable.length_m:g} m  {cable.colour}"
    return (
        f"0.6 G 0.5 w {x:.1f} {y:.1f} {LABEL_W:.1f} {LABEL_H:.1f} re S "
        f"{_rgb(cable.colour_hex)} rg {x:.1f} {y:.1f} 8 {LABEL_H:.1f} re f 0 g "
        f"BT /F2 9 Tf {x + 12:.1f} {y + LABEL_H - 14:.1f} Td {_text(f'{cable.cable_id}  {end}')} Tj"
        f" /F1 7 Tf 0 -14 Td {_text(text.split(' > ')[0])} Tj"
        f" 0 -11 Td {_text('> ' + text.split(' > ')[1])} Tj"
        f" /F1 6 Tf 0 -13 Td {_text(part)} Tj ET\n"
    )


def labels_pdf(layout: InstallLayout) -> Iterator[bytes]:
    """Two flag labels per cable leg (A end and Z end), each with the cable ID, its own end
    first and the far end, part, length and the rail colour as a stripe; 36 to an A4 page."""
    pdf = _Pdf(A4, "Cable labels")
    yield pdf.start()
    per_page = LABEL_COLUMNS * LABEL_ROWS
    content: list[str] = []
    slot = 0
    for cable in layout.cables:
        a = layout.label(cable.a_device, cable.a_port, cable.z_device, cable.z_port)
        z = layout.label(cable.z_device, cable.z_port, cable.a_device, cable.a_port)
        for end, text in (("A", a), ("Z", z)):
            row, column = divmod(slot % per_page, LABEL_COLUMNS)
            x = LABEL_LEFT + column * LABEL_W
            y = LABEL_TOP - (row + 1) * LABEL_H
            content.append(_label(x, y, cable, end, text))
            slot += 1
            if slot % per_page == 0:
                yield pdf.page("".join(content))
                content = []
    if content or not pdf.pages:
        yield pdf.page("".join(content))
    yield pdf.finish()


# --- rack-elevations.pdf --------------------------------------------------------------------
RACKS_PER_PAGE = 6
MARGIN = 30.0


def _weight(layout: InstallLayout, rack) -> str:
    kg = rack_weight_kg(layout, rack)
    return "weight n/a" if kg is None else f"{kg:,.0f} kg"


def _rack(layout: InstallLayout, rack, x: float, width: float, top: float, u_h: float) -> str:
    site = layout.site
    over = rack.max_kw > site.rack_power_kw + 1e-9
    height = site.rack_units * u_h
    bottom = top - height
    parts = [
        f"BT /F2 10 Tf {x:.1f} {top + 24:.1f} Td {_text(f'{rack.name} ({rack.kind})')} Tj ET\n",
        ("0.78 0.16 0.16 rg " if over else "0 g ")
        + f"BT /F1 8 Tf {x:.1f} {top + 13:.1f} Td "
        + _text(
            f"{rack.max_kw:.1f} / {site.rack_power_kw:g} kW max, "
            f"{rack.units_used}/{site.rack_units} U" + ("  OVER BUDGET" if over else "")
        )
        + " Tj ET 0 g\n",
        f"BT /F1 7 Tf {x:.1f} {top + 3:.1f} Td {_text(_weight(layout, rack))} Tj ET\n",
        ("0.99 0.93 0.92 rg " if over else "0.96 0.97 0.98 rg ")
        + f"{x:.1f} {bottom:.1f} {width:.1f} {height:.1f} re f "
        + ("0.78 0.16 0.16 RG 1.5 w " if over else "0.34 0.38 0.42 RG 0.8 w ")
        + f"{x:.1f} {bottom:.1f} {width:.1f} {height:.1f} re S 0 G 0.4 w\n",
    ]
    font = max(4.0, min(7.0, u_h * 0.8))
    for name in rack.devices:
        d = layout.devices[name]
        y = bottom + (d.u - 1) * u_h
        fill = "0.91 0.95 0.98" if d.role == "server" else "0.87 0.95 0.89"
        parts.append(
            f"{fill} rg {x + 2:.1f} {y:.2f} {width - 4:.1f} {d.units * u_h:.2f} re B 0 g "
            f"BT /F1 {font:.1f} Tf {x + 5:.1f} {y + min(d.units * u_h, font + 2) - font:.2f} Td "
            f"{_text(f'U{d.u} {name}')} Tj ET\n"
        )
    return "".join(parts)


def rack_elevations_pdf(layout: InstallLayout) -> Iterator[bytes]:
    """Front views, six racks to a landscape A4 page in hall order, with kW against budget:
    to print and tape to the rack doors."""
    pdf = _Pdf(A4_LANDSCAPE, "Rack elevations")
    yield pdf.start()
    width = (A4_LANDSCAPE[0] - 2 * MARGIN) / RACKS_PER_PAGE
    top = A4_LANDSCAPE[1] - MARGIN - 50
    u_h = (top - MARGIN) / max(1, layout.site.rack_units)
    racks = layout.racks
    for first in range(0, max(1, len(racks)), RACKS_PER_PAGE):
        page = racks[first : first + RACKS_PER_PAGE]
        title = f"Rack elevations, racks {first + 1}-{first + len(page)} of {len(racks)}"
        header = (
            f"BT /F2 12 Tf {MARGIN:.1f} {A4_LANDSCAPE[1] - MARGIN - 8:.1f} Td "
            f"{_text(title)} Tj ET\n"
        )
        body = "".join(
            _rack(layout, rack, MARGIN + i * width + 6, width - 12, top, u_h)
            for i, rack in enumerate(page)
        )
        yield pdf.page(header + body)
    yield pdf.finish()
