"""What every SVG drawing of ours shares (fabric, racks, TCO charts)."""

import re

# The faces a drawing's text is set in, named as the proposal's pages name them
# (static/proposal/proposal.css). A bare `sans-serif` leaves Chinese glyphs to fontconfig's
# fallback, which takes Noto Sans CJK JP: a Chinese PDF then embeds a second CJK family beside the
# page's SC, ~180 KB more, with Japanese glyph shapes for some characters. A browser without these
# faces takes its own sans-serif. Single quotes: it goes into SVG attributes and style text; no
# space after a comma: WeasyPrint's SVG text splits the list on commas and strips only quotes.
SVG_FONT_FAMILY = "'Noto Sans','DejaVu Sans','Noto Sans CJK SC',sans-serif"

# How drawings stored before SVG_FONT_FAMILY named their text's family: the fabric drawing's and
# the rack elevations' stylesheets ("text{font:12px sans-serif;...", 10px) and the TCO charts'
# root attribute (font-family="sans-serif").
_BARE_FAMILY = re.compile(r'(?<=\btext\{font:)(\d+px) sans-serif;|font-family="sans-serif"')


def drawing_fonts_current(svg: str) -> str:
    """A stored drawing with its text set in SVG_FONT_FAMILY, as drawn now.

    Read, not stored: the snapshot keeps what was drawn (a sent revision's copy is frozen, and
    a PDF already made keeps its bytes); only what is rendered from now on names the stack, so
    a Chinese PDF of an older design embeds one CJK family, and the design page's inlined
    stylesheet is the one its Content-Security-Policy allows by hash. (Raising SNAPSHOT_VERSION
    would design every saved design again for a font name.)
    """
    # The first only: the stylesheet or root attribute comes before any text the drawing prints
    # (a design's name, which may say anything).
    return _BARE_FAMILY.sub(_current_family, svg, count=1)


def _current_family(found: re.Match) -> str:
    if found.group(1):
        return f"{found.group(1)} {SVG_FONT_FAMILY};"
    return f'font-family="{SVG_FONT_FAMILY}"'
