"""What every SVG drawing of ours shares (fabric, racks, TCO charts)."""

# The faces a drawing's text is set in, named as the proposal's pages name them
# (static/proposal/proposal.css). A bare `sans-serif` leaves Chinese glyphs to fontconfig's
# fallback, which takes Noto Sans CJK JP: a Chinese PDF then embeds a second CJK family beside the
# page's SC, ~180 KB more, with Japanese glyph shapes for some characters. A browser without these
# faces takes its own sans-serif. Single quotes: it goes into SVG attributes and style text; no
# space after a comma: WeasyPrint's SVG text splits the list on commas and strips only quotes.
SVG_FONT_FAMILY = "'Noto Sans','DejaVu Sans','Noto Sans CJK SC',sans-serif"
