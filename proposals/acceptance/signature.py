"""The customer's signature as a PNG: drawn on the share page's canvas (sent as a data: URL) or
typed and rendered here, and the purchase details given with it. Every check raises InvalidValue
with the form field at fault and a message in the reader's language, before anything is saved.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import io
import struct
import threading
import unicodedata
import zlib
from functools import cache
from pathlib import Path

from django.core.cache import cache as shared_cache
from django.utils.translation import gettext as _
from PIL import Image, ImageDraw, ImageFile, ImageFont, UnidentifiedImageError
from stdnum.cn import uscc

from quoting.errors import InvalidValue

MAX_SIGNATURE_BYTES = 200 * 1024  # the decoded PNG; a drawn signature is 5-30 KB
MAX_SIGNATURE_WIDTH, MAX_SIGNATURE_HEIGHT = 1600, 800  # a 2x-density canvas of 800x400 fits
DATA_URL_PREFIX = "data:image/png;base64,"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# A stroke darker than this on a white-or-transparent pad counts as ink.
INK_BELOW = 200
# Chunks Pillow reads besides the pixels: text (tEXt; zTXt and iTXt, compressed), a colour
# profile (iCCP, compressed), Exif. A canvas writes none of them; a file stuffed with them costs
# decompressing them all, so more than a few KB of them is refused before anything is decoded.
METADATA_CHUNKS = frozenset({b"tEXt", b"zTXt", b"iTXt", b"iCCP", b"eXIf"})
METADATA_MAX_BYTES = 4 * 1024
# What is decoded: the header, the palette and its transparency, the pixels. No other chunk
# reaches Pillow, and only the pixels are kept (a fresh PNG).
DECODED_CHUNKS = frozenset({b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND"})


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
    """The drawn signature's pixels as a fresh PNG, once the file is checked: a whole PNG (walked
    chunk by chunk before anything is decoded), not too large, not blank. Nothing of the file
    but its pixels is kept."""
    if len(png) > MAX_SIGNATURE_BYTES:
        raise _refuse(
            _("The signature image is larger than %(size)s KB; clear it and sign again.")
            % {"size": MAX_SIGNATURE_BYTES // 1024}
        )
    if not png.startswith(PNG_MAGIC):
        raise _refuse(_("The signature must be a PNG image."))
    pixels_only = _png_walked(png)
    try:
        with Image.open(io.BytesIO(pixels_only)) as image:
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
            with _truncated_images_refused():
                image.load()
            rgba = image.convert("RGBA")
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise _refuse(_("The signature must be a PNG image.")) from None
    if _blank(rgba):
        raise _refuse(
            _("The signature box is empty: sign in the box, or choose to type your signature.")
        )
    return _fresh_png(rgba)


def _png_walked(png: bytes) -> bytes:
    """Walk the PNG's chunks (length, type, data, CRC) without decoding any: each whole, its CRC
    right, IHDR first, IEND last and nothing after it, at most METADATA_MAX_BYTES of text and
    profiles. Answers the same PNG with its DECODED_CHUNKS only."""
    not_png = _refuse(_("The signature must be a PNG image."))
    kept, metadata, at = [PNG_MAGIC], 0, len(PNG_MAGIC)
    kind = b""
    while kind != b"IEND":
        if at + 12 > len(png):
            raise not_png  # cut short: no IEND
        length, kind = struct.unpack_from(">I4s", png, at)
        end = at + 12 + length
        if end > len(png) or (kind == b"IHDR") != (at == len(PNG_MAGIC)):
            raise not_png
        if zlib.crc32(png[at + 4 : end - 4]) != struct.unpack_from(">I", png, end - 4)[0]:
            raise not_png
        if kind in METADATA_CHUNKS:
            metadata += length
            if metadata > METADATA_MAX_BYTES:
                raise _refuse(
                    _(
                        "The signature image carries more than %(size)s KB of text or colour "
                        "profile besides the drawing; clear it and sign again in the box."
                    )
                    % {"size": METADATA_MAX_BYTES // 1024}
                )
        if kind in DECODED_CHUNKS:
            kept.append(png[at:end])
        at = end
    if at != len(png):
        raise not_png  # bytes after IEND
    return b"".join(kept)


_decoding = threading.Lock()


@contextlib.contextmanager
def _truncated_images_refused():
    """Pillow's LOAD_TRUNCATED_IMAGES off while a signature's pixels are decoded. Importing
    WeasyPrint turns it on for the whole process (weasyprint/images.py), and with it on Pillow
    takes a truncated or corrupt PNG it refuses otherwise: the same file passed in the web
    process and failed in a shell. The lock keeps two decodes from restoring each other's
    setting; our own PDFs print only our assets and these fresh PNGs, never a truncated one."""
    with _decoding:
        was = ImageFile.LOAD_TRUNCATED_IMAGES
        ImageFile.LOAD_TRUNCATED_IMAGES = False
        try:
            yield
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = was


def _fresh_png(rgba: Image.Image) -> bytes:
    """The pixels, and nothing else of the file they came from (no chunk, no profile)."""
    fresh = Image.frombytes("RGBA", rgba.size, rgba.tobytes())
    out = io.BytesIO()
    fresh.save(out, format="PNG")
    return out.getvalue()


def _blank(rgba: Image.Image) -> bool:
    """No ink: every pixel transparent or near white (a cleared canvas, a white rectangle)."""
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
# Drawn signatures are kept in the shared cache by text and font: the preview asks for the same
# text many times as it is typed, and the acceptance stores the one previewed. Bump the version
# when the drawing changes, so that none drawn before is served.
TYPED_DRAWING_VERSION = 1
TYPED_KEPT_SECONDS = 3600


def _typed_text(text: str) -> str:
    return " ".join((text or "").split())


def _typed_key(text: str) -> str:
    font = _font(_has_cjk(text))
    drawn_with = (
        f"{TYPED_DRAWING_VERSION}|{getattr(font, 'path', '')}|{getattr(font, 'index', 0)}|"
        f"{TYPED_FONT_SIZE}|{TYPED_HEIGHT}|{TYPED_MAX_WIDTH}"
    )
    digest = hashlib.sha256(f"{drawn_with}\n{text}".encode()).hexdigest()
    return f"proposals:signature-typed:{digest}"


def signature_typed_kept(text: str) -> bytes | None:
    """The typed signature of `text` if drawn lately (the shared cache), else None: costs no
    drawing. With Redis down, None."""
    return shared_cache.get(_typed_key(_typed_text(text)))


def signature_typed_png(text: str) -> bytes:
    """The typed name drawn as a signature image: dark ink on a transparent background. Taken
    from the shared cache when drawn lately; what is drawn is kept there."""
    text = _typed_text(text)
    key = _typed_key(text)
    png = shared_cache.get(key)
    if png is None:
        png = _typed_drawn(text)
        shared_cache.set(key, png, TYPED_KEPT_SECONDS)
    return png


def _typed_drawn(text: str) -> bytes:
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


# GB 32100-2015 and the codes issued since: the 1st character is the registration authority (1
# establishment offices, 2 foreign affairs, 3 justice, 4 culture, 5 civil affairs, 6 tourism, 7
# religion, 8 trade unions, 9 market regulation, A the military's establishment office, N
# agriculture, Y others), the 2nd the organisation type within it (a digit 1-9; "Y" is always
# followed by 1). No authority and no type is coded 0: the all-zero code, whose check character
# happens to be right, is no code at all.
CREDIT_CODE_AUTHORITIES = frozenset("123456789ANY")
CREDIT_CODE_TYPES = frozenset("123456789")
_CREDIT_CODE_ALPHABET = frozenset("0123456789ABCDEFGHJKLMNPQRTUWXY")  # no I, O, S, V, Z


def credit_code_checked(value: str) -> str:
    """A unified social credit code (统一社会信用代码), compact and upper case, or nothing."""
    value = (value or "").strip()
    if not value:
        return ""
    code = uscc.compact(value)
    well_formed = (
        len(code) == 18
        and set(code) <= _CREDIT_CODE_ALPHABET
        and code[2:8].isdigit()  # the registering office's region (GB/T 2260)
        and code[-1] == uscc.calc_check_digit(code)
    )
    if not well_formed:
        raise InvalidValue(
            _(
                "This unified social credit code is not valid: it has 18 characters and its last "
                "one is a check character; copy it from the business licence."
            ),
            field="invoice_tax_id",
        )
    if code[0] not in CREDIT_CODE_AUTHORITIES or code[1] not in CREDIT_CODE_TYPES:
        raise InvalidValue(
            _(
                "This unified social credit code is not valid: its first character names no "
                "registration authority, or its second no type of organisation; copy it from "
                "the business licence."
            ),
            field="invoice_tax_id",
        )
    return code
