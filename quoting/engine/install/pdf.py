"""Printable PDFs of the pack: cable labels and rack elevations, written directly as PDF.

A 16,384-GPU pack has about 100,000 labels (3,000 pages): an HTML-to-PDF renderer takes minutes
and holds every page in memory, so these two files are drawn with the PDF operators themselves
(rectangles, the standard Helvetica fonts), a page at a time, and stream like the CSVs. Text is
our own names and part numbers (ASCII) and the pack's words in its language: through `translate`
(the edge's gettext; English without), a line Helvetica cannot draw (Chinese) set in Noto Sans
CJK SC, embedded with the glyphs drawn (install/cjk.py). Text is never interpreted.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

from quoting.engine.install.cjk import CjkFont, needs_cjk
from quoting.engine.install.layout import InstallLayout
from quoting.engine.install.weights import model_of, rack_weight
from quoting.engine.messages import gettext_noop

Translate = Callable[[str], str]

A4 = (595.0, 842.0)
A4_LANDSCAPE = (842.0, 595.0)


def _text(value: str) -> str:
    """A PDF literal string: Latin-1, with its delimiters escaped."""
    safe = value.encode("latin-1", "replace").decode("latin-1")
    return "(" + safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _info_text(value: str) -> str:
    """A document-information string: Latin-1 as it was, else UTF-16BE with its mark."""
    if needs_cjk(value):
        return "<FEFF" + value.encode("utf-16-be").hex().upper() + ">"
    return _text(value)


def _same(text: str) -> str:
    return text


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return f"{r:.3f} {g:.3f} {b:.3f}"


class _Ink:
    """How a PDF sets its text: Helvetica (F1, bold F2), and a line it cannot draw in the CJK
    face (F3), which the PDF embeds only when its words are translated into Chinese (so an
    English PDF is what it always was); its words through `translate`."""

    def __init__(self, translate: Translate | None, title: str) -> None:
        self.tr = translate or _same
        self.cjk = CjkFont() if needs_cjk(self.tr(title)) else None

    def _cjk(self, text: str) -> bool:
        return self.cjk is not None and needs_cjk(text)

    def font(self, text: str, size: str, *, bold: bool = False) -> str:
        """The font operator for `text` at `size` (written as given: "10", "7.5")."""
        return f"/F3 {size} Tf" if self._cjk(text) else f"/F{2 if bold else 1} {size} Tf"

    def literal(self, text: str) -> str:
        return self.cjk.encode(text) if self._cjk(text) else _text(text)

    def width(self, text: str, size: float, *, bold: bool = False) -> float:
        if self._cjk(text):
            return self.cjk.width(text, size)
        return text_width(text, size, bold=bold)

    def fitted(self, text: str, width: float, size: float, floor: float) -> float:
        """The size at which `text` fits `width`: `size`, smaller when needed, never under
        `floor`; measured in the face the text is set in."""
        natural = self.width(text, size)
        return size if natural <= width else max(floor, size * width / natural)


class _Pdf:
    """Objects 1-4 are fixed (catalog, page tree, two fonts), 5-9 the CJK font's when the PDF
    has Chinese (written last, with the glyphs drawn); pages follow as they come, the page tree
    is written last with every page's number."""

    def __init__(
        self, size: tuple[float, float], title: str, *, subject: str = "", ink: _Ink | None = None
    ) -> None:
        self.size, self.title, self.subject = size, title, subject
        self.cjk = ink.cjk if ink else None
        self.offsets: dict[int, int] = {}
        self.position = 0
        self.pages: list[int] = []
        self.next_number = 10 if self.cjk else 5

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
        fonts = "/F1 3 0 R /F2 4 0 R" + (" /F3 5 0 R" if self.cjk else "")
        return self._object(
            content_number,
            f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode()
            + stream
            + b"\nendstream",
        ) + self._object(
            page_number,
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width:g} {height:g}] "
                f"/Resources << /Font << {fonts} >> >> /Contents {content_number} 0 R"
                " >>"
            ).encode(),
        )

    def finish(self) -> bytes:
        kids = " ".join(f"{n} 0 R" for n in self.pages)
        info_number = self.next_number
        tail = self._object(
            2, f"<< /Type /Pages /Kids [{kids}] /Count {len(self.pages)} >>".encode()
        )
        if self.cjk:
            tail += b"".join(self._object(n, body) for n, body in self.cjk.objects(5))
        tail += self._object(
            info_number,
            (
                f"<< /Title {_info_text(self.title)} "
                + (f"/Subject {_info_text(self.subject)} " if self.subject else "")
                + "/Producer (FabricQuote) >>"
            ).encode("latin-1"),
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


# --- text widths ----------------------------------------------------------------------------
# Helvetica's advance widths (its AFM, 1/1000 em) for printable ASCII, so that text is fitted
# to its box and numbers are right-aligned without a font library.
_HELVETICA = dict(
    zip(
        (chr(c) for c in range(32, 127)),
        (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278)
        + (556,) * 10
        + (278, 278, 584, 584, 584, 556, 1015)
        + (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833)
        + (722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611)
        + (278, 278, 278, 469, 556, 333)
        + (556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833)
        + (556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500)
        + (334, 260, 334, 584),
        strict=True,
    )
)
BOLD_WIDER = 1.08  # Helvetica-Bold runs about this much wider


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    em = sum(_HELVETICA.get(c, 556) for c in text) / 1000
    return em * size * (BOLD_WIDER if bold else 1.0)


# --- labels.pdf -----------------------------------------------------------------------------
MM = 72 / 25.4
# A named stock, so the grid lands on the die-cut labels: Avery L7163 (laser) / J8163 (inkjet)
# and the compatible sheets of other makers: A4, 2 x 7 labels of 99.1 x 38.1 mm, 15.15 mm top
# and bottom margins, 4.65 mm side margins, 2.5 mm between the columns. Use a durable
# (polyester or vinyl) stock of this layout on cables.
LABEL_STOCK = gettext_noop("Avery L7163 / J8163 layout: A4, 14 labels of 99.1 x 38.1 mm (2 x 7)")
LABEL_COLUMNS, LABEL_ROWS = 2, 7
LABEL_W, LABEL_H = 99.1 * MM, 38.1 * MM
LABEL_PITCH_X = (99.1 + 2.5) * MM
LABEL_LEFT, LABEL_TOP = 4.65 * MM, A4[1] - 15.15 * MM
# Each label is a flag (TIA-606 style): its middle band, printed in the rail colour, wraps the
# cable (up to about 6 mm across); the two ends stick back to back and carry the same text, so
# it reads from both sides.
FLAG_BAND = 20.0 * MM
LABELS_TITLE = gettext_noop("Cable labels")
FACE_W = (LABEL_W - FLAG_BAND) / 2
LABEL_PT, LABEL_ID_PT, LABEL_MIN_PT = 8.0, 10.0, 7.0
LABEL_SHEET_NOTE = gettext_noop(
    "Cable labels on {stock}. Print at 100 % (no fit to page); wrap each label's "
    "colour band round its cable, ends back to back."
)
# The colour names printed on a label (layout.RAIL_COLOURS, TIER_COLOURS, OTHER_COLOUR), in the
# pack's language; the CSVs keep the English name, a value a filter or script reads.
COLOUR_NAMES = {
    "blue": gettext_noop("blue"),
    "orange": gettext_noop("orange"),
    "green": gettext_noop("green"),
    "red": gettext_noop("red"),
    "purple": gettext_noop("purple"),
    "brown": gettext_noop("brown"),
    "pink": gettext_noop("pink"),
    "cyan": gettext_noop("cyan"),
    "yellow": gettext_noop("yellow"),
    "white": gettext_noop("white"),
    "grey": gettext_noop("grey"),
}


def _face(ink: _Ink, x: float, y: float, lines: list[str]) -> str:
    first, *rest = lines
    width = FACE_W - 8
    size = ink.fitted(first, width / BOLD_WIDER, LABEL_ID_PT, LABEL_MIN_PT)
    out = [
        f"BT {ink.font(first, f'{size:.1f}', bold=True)} {x + 4:.1f} {y + LABEL_H - 16:.1f} Td "
        f"{ink.literal(first)} Tj"
    ]
    for line in rest:
        size = ink.fitted(line, width, LABEL_PT, LABEL_MIN_PT)
        out.append(f" {ink.font(line, f'{size:.1f}')} 0 -12 Td {ink.literal(line)} Tj")
    return "".join(out) + " ET\n"


def _label(ink: _Ink, x: float, y: float, cable, end: str, text: str) -> str:
    near, far = text.split(" > ")
    colour = ink.tr(COLOUR_NAMES[cable.colour]) if cable.colour in COLOUR_NAMES else cable.colour
    lines = [
        f"{cable.cable_id}  {end}",
        near,
        f"> {far}",
        cable.part,
        f"{cable.length_m:g} m  {colour}",
    ]
    band = x + FACE_W
    return (
        f"{_rgb(cable.colour_hex)} rg {band:.1f} {y:.1f} {FLAG_BAND:.1f} {LABEL_H:.1f} re f "
        f"0.6 G 0.3 w {band:.1f} {y:.1f} {FLAG_BAND:.1f} {LABEL_H:.1f} re S 0 g\n"
        + _face(ink, x, y, lines)
        + _face(ink, band + FLAG_BAND, y, lines)
    )


def labels_pdf(layout: InstallLayout, translate: Translate | None = None) -> Iterator[bytes]:
    """Two flag labels per cable leg (A end and Z end), each with the cable ID, its own end
    first and the far end, part, length and the rail colour as the band round the cable; 14 to
    an A4 sheet of the named stock, which every page names. Its words through `translate`."""
    ink = _Ink(translate, LABELS_TITLE)
    tr = ink.tr
    stock = tr(LABEL_STOCK)
    pdf = _Pdf(
        A4,
        tr(LABELS_TITLE),
        subject=tr(gettext_noop("Label stock: {stock}")).format(stock=stock),
        ink=ink,
    )
    yield pdf.start()
    per_page = LABEL_COLUMNS * LABEL_ROWS
    sheet_note = tr(LABEL_SHEET_NOTE).format(stock=stock)
    note = (
        f"BT {ink.font(sheet_note, f'{LABEL_MIN_PT:g}')} {LABEL_LEFT:.1f} {A4[1] - 10 * MM:.1f} "
        f"Td {ink.literal(sheet_note)} Tj ET\n"
    )
    content: list[str] = [note]
    slot = 0
    for cable in layout.cables:
        a = layout.label(cable.a_device, cable.a_port, cable.z_device, cable.z_port)
        z = layout.label(cable.z_device, cable.z_port, cable.a_device, cable.a_port)
        for end, text in (("A", a), ("Z", z)):
            row, column = divmod(slot % per_page, LABEL_COLUMNS)
            x = LABEL_LEFT + column * LABEL_PITCH_X
            y = LABEL_TOP - (row + 1) * LABEL_H
            content.append(_label(ink, x, y, cable, end, text))
            slot += 1
            if slot % per_page == 0:
                yield pdf.page("".join(content))
                content = [note]
    if len(content) > 1 or not pdf.pages:
        yield pdf.page("".join(content))
    yield pdf.finish()


# --- rack-elevations.pdf --------------------------------------------------------------------
RACKS_PER_PAGE = 6
MARGIN = 30.0
U_SCALE_W = 16.0  # the U numbers left of each rack
U_SCALE_EVERY = 5


def _weight_lines(ink: _Ink, layout: InstallLayout, rack, width: float) -> list[str]:
    """The rack's weight; with devices of unknown weight, the known sum as a floor and their
    models on (at most) two more lines."""
    weight = rack_weight(layout, rack)
    if weight.complete:
        return [ink.tr(gettext_noop("{kg:,.0f} kg")).format(kg=weight.known_kg)]
    lines: list[str] = []
    for item in weight.unknown_text(ink.tr).split("; "):
        if lines and ink.width(f"{lines[-1]}; {item}", 7.0) <= width:
            lines[-1] += f"; {item}"
        else:
            lines.append(item)
    if len(lines) > 2:  # the second line shrinks to hold the rest
        lines = [lines[0], "; ".join(lines[1:])]
    floor = ink.tr(gettext_noop(">= {kg:,.0f} kg, weight unknown:")).format(kg=weight.known_kg)
    return [floor, *lines]


def _u_scale(x: float, bottom: float, u_h: float, rack_units: int) -> str:
    """A tick at every U and the numbers 1, 5, 10 ... and the top U, right-aligned."""
    size = max(4.0, min(7.0, u_h * 0.8))
    parts = ["0.34 0.38 0.42 RG 0.34 0.38 0.42 rg 0.3 w "]
    for u in range(1, rack_units + 1):
        y = bottom + (u - 1) * u_h
        numbered = u == 1 or u % U_SCALE_EVERY == 0 or u == rack_units
        parts.append(f"{x - (4 if numbered else 2):.1f} {y:.2f} m {x:.1f} {y:.2f} l S ")
        if numbered:
            label = str(u)
            left = x - 5 - text_width(label, size)
            parts.append(
                f"BT /F1 {size:.1f} Tf {left:.1f} {y + (u_h - size) / 2 + 1:.2f} Td "
                f"{_text(label)} Tj ET "
            )
    return "".join(parts) + "0 G 0 g\n"


def _device(ink: _Ink, d, x: float, y: float, width: float, u_h: float) -> str:
    """A device's box at its U with its name and model: on two lines where the box is tall
    enough, else on one, smaller when it would not fit."""
    fill = "0.91 0.95 0.98" if d.role == "server" else "0.87 0.95 0.89"
    height = d.units * u_h
    size = max(4.0, min(7.0, u_h * 0.8))
    box = f"{fill} rg {x + 2:.1f} {y:.2f} {width - 4:.1f} {height:.2f} re B 0 g "
    room, model = width - 8, ink.tr(model_of(d))
    if height >= 2 * size + 4:
        top = y + height - size - 1.5
        name_size = ink.fitted(d.name, room, size, 4.0)
        model_size = ink.fitted(model, room, size, 4.0)
        return (
            box + f"BT {ink.font(d.name, f'{name_size:.1f}', bold=True)} {x + 5:.1f} {top:.2f} "
            f"Td {ink.literal(d.name)} Tj {ink.font(model, f'{model_size:.1f}')} "
            f"0 {-(size + 1.5):.1f} Td {ink.literal(model)} Tj ET\n"
        )
    line = f"{d.name}  {model}"
    line_size = ink.fitted(line, room, size, 4.0)
    return (
        box + f"BT {ink.font(line, f'{line_size:.1f}')} {x + 5:.1f} "
        f"{y + (height - line_size) / 2 + 1:.2f} Td {ink.literal(line)} Tj ET\n"
    )


# A rack's heading: its name and kind (layout.Rack.kind), in the pack's language.
RACK_HEADINGS = {
    "compute": gettext_noop("{rack} (compute)"),
    "network": gettext_noop("{rack} (network)"),
    "storage": gettext_noop("{rack} (storage)"),
}


def _rack(
    ink: _Ink, layout: InstallLayout, rack, x: float, width: float, top: float, u_h: float
) -> str:
    site, tr = layout.site, ink.tr
    over = rack.over_budget(site.rack_power_kw)
    power = (
        tr(gettext_noop("{kw:.1f} kW max, liquid-cooled, own power")).format(kw=rack.max_kw)
        if rack.own_power
        else tr(gettext_noop("{kw:.1f} / {budget:g} kW max")).format(
            kw=rack.max_kw, budget=site.rack_power_kw
        )
    )
    height = site.rack_units * u_h
    bottom = top - height
    weight = "".join(
        f"BT {ink.font(line, f'{ink.fitted(line, width, 7.0, 4.0):.1f}')} {x:.1f} "
        f"{top + 25 - 9 * i:.1f} Td {ink.literal(line)} Tj ET\n"
        for i, line in enumerate(_weight_lines(ink, layout, rack, width))
    )
    heading = (
        tr(RACK_HEADINGS[rack.kind]).format(rack=rack.name)
        if rack.kind in RACK_HEADINGS
        else f"{rack.name} ({rack.kind})"
    )
    state = f"{power}, {rack.units_used}/{site.rack_units} U" + (
        "  " + tr(gettext_noop("OVER BUDGET")) if over else ""
    )
    parts = [
        f"BT {ink.font(heading, '10', bold=True)} {x:.1f} {top + 46:.1f} Td "
        f"{ink.literal(heading)} Tj ET\n",
        ("0.78 0.16 0.16 rg " if over else "0 g ")
        + f"BT {ink.font(state, '8')} {x:.1f} {top + 35:.1f} Td "
        + ink.literal(state)
        + " Tj ET 0 g\n",
        weight,
        ("0.99 0.93 0.92 rg " if over else "0.96 0.97 0.98 rg ")
        + f"{x:.1f} {bottom:.1f} {width:.1f} {height:.1f} re f "
        + ("0.78 0.16 0.16 RG 1.5 w " if over else "0.34 0.38 0.42 RG 0.8 w ")
        + f"{x:.1f} {bottom:.1f} {width:.1f} {height:.1f} re S 0 G 0.4 w\n",
        _u_scale(x, bottom, u_h, site.rack_units),
    ]
    for name in rack.devices:
        d = layout.devices[name]
        parts.append(_device(ink, d, x, bottom + (d.u - 1) * u_h, width, u_h))
    return "".join(parts)


ELEVATIONS_TITLE = gettext_noop("Rack elevations")


def rack_elevations_pdf(
    layout: InstallLayout, translate: Translate | None = None
) -> Iterator[bytes]:
    """Front views, six racks to a landscape A4 page in hall order, each with a U scale, its
    devices' names and models, kW against budget and its weight: to print and tape to the
    rack doors. Its words through `translate`."""
    ink = _Ink(translate, ELEVATIONS_TITLE)
    pdf = _Pdf(A4_LANDSCAPE, ink.tr(ELEVATIONS_TITLE), ink=ink)
    yield pdf.start()
    width = (A4_LANDSCAPE[0] - 2 * MARGIN) / RACKS_PER_PAGE
    top = A4_LANDSCAPE[1] - MARGIN - 60
    u_h = (top - MARGIN) / max(1, layout.site.rack_units)
    racks = layout.racks
    heading = ink.tr(gettext_noop("Rack elevations, racks {first}-{last} of {count}"))
    for first in range(0, max(1, len(racks)), RACKS_PER_PAGE):
        page = racks[first : first + RACKS_PER_PAGE]
        title = heading.format(first=first + 1, last=first + len(page), count=len(racks))
        header = (
            f"BT {ink.font(title, '12', bold=True)} {MARGIN:.1f} {A4_LANDSCAPE[1] - 22:.1f} Td "
            f"{ink.literal(title)} Tj ET\n"
        )
        body = "".join(
            _rack(
                ink, layout, rack, MARGIN + i * width + U_SCALE_W, width - U_SCALE_W - 6, top, u_h
            )
            for i, rack in enumerate(page)
        )
        yield pdf.page(header + body)
    yield pdf.finish()
