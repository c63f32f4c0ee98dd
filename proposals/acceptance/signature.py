"""The customer's signature as a PNG: drawn on the share page's canvas (sent as a data: URL) or
typed and rendered here, and the purchase details given with it. Every check raises InvalidValue
with the form field at fault and a message in the reader's language, before anything is saved.
"""

from __future__ import annotations

import base64
import binascii
import io
import unicodedata
from functools import cache
from pathlib import Path

from django.utils.translation import gettext as _
from PIL import Image, ImageDraw, ImageFont, UnidentifiedImageError
from stdnum.cn import uscc
from stdnum.exceptions import ValidationError as StdnumError

from quoting.errors import InvalidValue

MAX_SIGNATURE_BYTES = 200 * 1024  # the decoded PNG; a drawn signature is 5-30 KB
MAX_SIGNATURE_WIDTH, MAX_SIGNATURE_HEIGHT = 1600, 800  # a 2x-density canvas of 800x400 fits
DATA_URL_PREFIX = "data:image/png;base64,"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# A stroke darker than this on a white-or-transparent pad counts as ink.
INK_BELOW = 200


def _refuse(message: str) -> InvalidValue:
    return InvalidValue(message, field="signature")


def signature_from_data_url(data_url: str) -> bytes:
    """The PNG bytes of a drawn signature, checked: a PNG, not too large, not blank."""
    data_url = (data_url or "").strip()
    if not data_url:
        raise _refuse(_("Draw your signature in the box, or choose to type it."))
    # base64 is 4/3 of the bytes: a longer text cannot hold an allowed PNG (decoding it would
    # only cost memory).
    if len(data_url) > len(DATA_URL_PREFIX) + (MAX_SIGNATURE_BYTES * 4 // 3) + 4:
        raise _refuse(
            _("The signature image is larger than %(size)s KB; clear it and sign again.")
            % {"size": MAX_SIGNATURE_BYTES // 1024}
        )
    if not data_url.startswith(DATA_URL_PREFIX):
        raise _refuse(_("The signature must be a PNG image."))
    try:
        png = base64.b64decode(data_url[len(DATA_URL_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(_("The signature must be a PNG image.")) from None
    return signature_png_checked(png)


def signature_png_checked(png: bytes) -> bytes:
    if len(png) > MAX_SIGNATURE_BYTES:
        raise _refuse(
            _("The signature image is larger than %(size)s KB; clear it and sign again.")
            % {"size": MAX_SIGNATURE_BYTES // 1024}
        )
    if not png.startswith(PNG_MAGIC):
        raise _refuse(_("The signature must be a PNG image."))
    try:
        with Image.open(io.BytesIO(png)) as image:
            # The header's size, read before any pixel is decoded: a small file claiming a huge
            # image (a decompression bomb) is refused here.
            width, height = image.size
            if image.format != "PNG":
                raise _refuse(_("The signature must be a PNG image."))
            if width > MAX_SIGNATURE_WIDTH or height > MAX_SIGNATURE_HEIGHT:
                raise _refuse(
                    _("The signature image is larger than %(width)s×%(height)s pixels.")
                    % {"width": MAX_SIGNATURE_WIDTH, "height": MAX_SIGNATURE_HEIGHT}
                )
            image.load()
            if _blank(image):
                raise _refuse(
                    _(
                        "The signature box is empty: sign in the box, or choose to "
                        "type your signature."
                    )
                )
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise _refuse(_("The signature must be a PNG image.")) from None
    return png


def _blank(image: Image.Image) -> bool:
    """No ink: every pixel transparent or near white (a cleared canvas, a white rectangle)."""
    rgba = image.convert("RGBA")
    # Transparent pixels become white, then the darkest channel anywhere tells if there is ink.
    background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    flat = Image.alpha_composite(background, rgba).convert("L")
    darkest, _lightest = flat.getextrema()
    return darkest >= INK_BELOW


# --- typed -------------------------------------------------------------------------------------

# Script-like where the machine has one, else a plain font (the Docker image ships DejaVu and
# Noto CJK). Chinese names need a CJK font; the first that exists is used.
LATIN_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf",
)
CJK_FONTS = (
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2),  # index 2: SC
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
)
TYPED_HEIGHT, TYPED_FONT_SIZE, TYPED_MAX_WIDTH = 160, 84, 1600


@cache
def _font(cjk: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    candidates = [(path, 0) for path in LATIN_FONTS]
    if cjk:
        candidates = [*CJK_FONTS, *candidates]
    for path, index in candidates:
        if Path(path).is_file():
            return ImageFont.truetype(path, TYPED_FONT_SIZE, index=index)
    return ImageFont.load_default(size=TYPED_FONT_SIZE)


def _has_cjk(text: str) -> bool:
    return any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text)


TYPED_SIGNATURE_MAX = 100  # characters, as the accept form's field


def signature_typed_png(text: str) -> bytes:
    """The typed name drawn as a signature image: dark ink on a transparent background."""
    text = " ".join((text or "").split())
    font = _font(_has_cjk(text))
    left, top, right, bottom = font.getbbox(text)
    width = min(max(right - left + 40, 200), TYPED_MAX_WIDTH)
    image = Image.new("RGBA", (width, TYPED_HEIGHT), (255, 255, 255, 0))
    ImageDraw.Draw(image).text(
        (20 - left, (TYPED_HEIGHT - (bottom - top)) // 2 - top),
        text,
        font=font,
        fill=(20, 33, 61, 255),
    )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


# --- purchase details --------------------------------------------------------------------------

PO_NUMBER_MAX = 64


def po_number_checked(value: str) -> str:
    """1-64 printable characters (inner spaces allowed), or nothing."""
    value = (value or "").strip()
    # isprintable(): no control characters, line breaks or tabs (they would break a CRM's CSV).
    if value and not (len(value) <= PO_NUMBER_MAX and value.isprintable()):
        raise InvalidValue(
            _("A PO number is 1 to 64 printable characters (letters, digits, - / . and the like)."),
            field="po_number",
        )
    return value


def credit_code_checked(value: str) -> str:
    """A unified social credit code (统一社会信用代码), compact and upper case, or nothing."""
    value = (value or "").strip()
    if not value:
        return ""
    try:
        return uscc.validate(value)
    except StdnumError:
        raise InvalidValue(
            _(
                "This unified social credit code is not valid: it has 18 characters and its last "
                "one is a check character; copy it from the business licence."
            ),
            field="invoice_tax_id",
        ) from None
