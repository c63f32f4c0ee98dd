"""Issue 23, part B: no cheap CPU sinks in the signature.

- A typed signature is drawn once per text (the shared cache), and a link draws at most
  PROPOSALS_LINK_PREVIEWS_ALLOWED new ones and makes PROPOSALS_LINK_ACCEPTS_ALLOWED accept
  attempts per window; then 429, with why. With Redis down the limits fail open.
- A drawn signature is walked chunk by chunk before anything is decoded: more than a few KB of
  text or colour profile is refused unread; what is stored is a fresh PNG of its pixels.
- The answer does not depend on WeasyPrint being imported (it turns Pillow's
  LOAD_TRUNCATED_IMAGES on for the whole process, as in the web and worker processes): this
  module imports it.
"""

from __future__ import annotations

import io
import struct
import zlib
from unittest import mock

import pytest
import weasyprint  # noqa: F401 - as in the web process: it sets LOAD_TRUNCATED_IMAGES
from PIL import Image, ImageFile

from proposals.acceptance import signature
from proposals.acceptance.signature import (
    METADATA_MAX_BYTES,
    signature_png_checked,
    signature_typed_png,
)
from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.errors import InvalidValue
from tests.proposals.acceptance.test_acceptance_signature import data_url, drawn_png

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    at, found = len(PNG_MAGIC), []
    while at < len(png):
        length, kind = struct.unpack_from(">I4s", png, at)
        found.append((kind, png[at + 8 : at + 8 + length]))
        at += 12 + length
    return found


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data)
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _png(chunks) -> bytes:
    return PNG_MAGIC + b"".join(_chunk(kind, data) for kind, data in chunks)


def with_chunks(png: bytes, *extra: tuple[bytes, bytes]) -> bytes:
    """The PNG with `extra` chunks right after its header, every CRC right."""
    header, *rest = _chunks(png)
    return _png([header, *extra, *rest])


# 1 MB of zeros compresses to ~1 KB: each of these asks Pillow to inflate 1 MB.
INFLATES_TO_1MB = zlib.compress(b"\0" * (1024 * 1024), 9)


def ztxt_stuffed(png: bytes, count: int = 60) -> bytes:
    return with_chunks(png, *[(b"zTXt", b"k%d\0\0" % n + INFLATES_TO_1MB) for n in range(count)])


def idat_cut(png: bytes) -> bytes:
    """The pixels' compressed stream cut in half, every chunk's CRC right, IEND in place."""
    return _png(
        [(kind, data[: len(data) // 2] if kind == b"IDAT" else data) for kind, data in _chunks(png)]
    )


def _refusal(png: bytes) -> str:
    try:
        signature_png_checked(png)
    except InvalidValue as exc:
        return exc.message
    return ""


@pytest.fixture
def token(world, sent_quote):
    return share_link_create(quote=sent_quote, user=world.sales, recipient_name="Li Wei")[1]


# --- the drawn signature: walked before it is decoded ------------------------------------------


def test_weasyprint_imported_turns_truncated_images_on_for_the_whole_process():
    """The condition every test below runs under, as the web process does."""
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True


def test_a_png_stuffed_with_compressed_text_is_refused_before_anything_is_decoded():
    stuffed = ztxt_stuffed(drawn_png())
    assert len(stuffed) < 200 * 1024  # small enough to pass the size check
    with mock.patch.object(signature.Image, "open", side_effect=AssertionError("decoded")):
        refusal = _refusal(stuffed)
    assert "more than 4 KB of text or colour profile" in refusal


@pytest.mark.parametrize("kind", [b"tEXt", b"zTXt", b"iTXt", b"iCCP", b"eXIf"])
def test_more_than_a_few_kb_of_text_or_profile_of_any_kind_is_refused(kind):
    just_over = with_chunks(drawn_png(), (kind, b"x" * (METADATA_MAX_BYTES + 1)))
    assert "more than 4 KB" in _refusal(just_over)
    spread = with_chunks(drawn_png(), *[(kind, b"x" * 1024)] * 5)  # 5 KB in five chunks
    assert "more than 4 KB" in _refusal(spread)


def test_what_is_stored_is_a_fresh_png_of_the_pixels_only():
    drawn = drawn_png()
    small_text = with_chunks(drawn, (b"tEXt", b"Comment\0hello"), (b"iCCP", b"p\0\0" + b"x" * 50))
    stored = signature_png_checked(small_text)
    assert [kind for kind, _ in _chunks(stored)] == [b"IHDR", b"IDAT", b"IEND"]
    with Image.open(io.BytesIO(stored)) as mine, Image.open(io.BytesIO(drawn)) as theirs:
        assert mine.info == {} or set(mine.info) <= {"dpi"}
        assert mine.convert("RGBA").tobytes() == theirs.convert("RGBA").tobytes()


SHAPES = {
    "a plain drawing": (drawn_png(), ""),
    "its pixels cut short (CRCs right)": (idat_cut(drawn_png()), "must be a PNG"),
    "no IEND": (drawn_png()[:-12], "must be a PNG"),
    "a chunk with a wrong CRC": (drawn_png()[:-1] + b"\0", "must be a PNG"),
    "bytes after IEND": (drawn_png() + b"tail", "must be a PNG"),
    "a small broken colour profile": (
        with_chunks(drawn_png(), (b"iCCP", b"p\0\0not zlib")),
        "",
    ),
    "a small profile inflating past Pillow's limits": (
        with_chunks(drawn_png(), (b"iCCP", b"p\0\0" + zlib.compress(b"\0" * (2 << 20), 9))),
        "",
    ),
    "60 zTXt of 1 MB each": (ztxt_stuffed(drawn_png()), "more than 4 KB"),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("truncated_allowed", [True, False], ids=["web process", "shell"])
def test_the_answer_does_not_depend_on_weasyprint_being_imported(shape, truncated_allowed):
    """The same file gets the same answer whatever LOAD_TRUNCATED_IMAGES says, and the setting
    is left as it was."""
    png, refused = SHAPES[shape]
    with mock.patch.object(ImageFile, "LOAD_TRUNCATED_IMAGES", truncated_allowed):
        refusal = _refusal(png)
        assert ImageFile.LOAD_TRUNCATED_IMAGES is truncated_allowed
    assert refusal == "" if not refused else refused in refusal


def test_pillow_alone_would_take_the_cut_pixels_in_the_web_process():
    """Why the decode forces LOAD_TRUNCATED_IMAGES off: left on, Pillow pads a cut stream."""
    with Image.open(io.BytesIO(idat_cut(drawn_png()))) as image:
        image.load()  # no error


def test_over_http_a_stuffed_or_cut_png_is_refused_and_nothing_recorded(client, token):
    for png, said in (
        (ztxt_stuffed(drawn_png()), "more than 4 KB"),
        (idat_cut(drawn_png()), "must be a PNG"),
    ):
        response = client.post(
            f"/p/{token}/accept?lang=en",
            {
                "revision": 1,
                "name": "Li Wei",
                "agreed": "on",
                "signature_kind": "drawn",
                "signature_data": data_url(png),
            },
        )
        assert response.status_code == 400 and said in response.content.decode()
    assert Acceptance.objects.count() == 0


# --- the typed signature: drawn once per text, a bounded number of times per link --------------


def test_a_preview_is_drawn_once_per_text_and_the_acceptance_stores_that_drawing(client, token):
    drawings = mock.Mock(wraps=signature._typed_drawn)
    with mock.patch.object(signature, "_typed_drawn", drawings):
        first = client.get(f"/p/{token}/signature.png", {"text": "李伟 Li Wei"})
        again = client.get(f"/p/{token}/signature.png", {"text": "  李伟   Li Wei "})
        assert drawings.call_count == 1
        answer = client.post(
            f"/p/{token}/accept?lang=en",
            {
                "revision": 1,
                "name": "Li Wei",
                "agreed": "on",
                "signature_kind": "typed",
                "signature_text": "李伟 Li Wei",
            },
        )
        assert drawings.call_count == 1  # the accept took the drawing previewed
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert answer.status_code == 302
    assert bytes(Acceptance.objects.get().signature_png) == first.content


def test_a_link_draws_a_bounded_number_of_new_previews_then_429(
    client, settings, token, world, sent_quote
):
    settings.PROPOSALS_LINK_PREVIEWS_ALLOWED = 3
    codes = [
        client.get(f"/p/{token}/signature.png", {"text": f"Li Wei {n}"}).status_code
        for n in range(3)
    ]
    refused = client.get(f"/p/{token}/signature.png", {"text": "Li Wei 3", "lang": "en"})
    assert codes == [200] * 3
    assert refused.status_code == 429 and refused["Retry-After"] == "600"
    assert "Too many signature previews" in refused.content.decode()
    # One drawn already is still served: it costs nothing.
    assert client.get(f"/p/{token}/signature.png", {"text": "Li Wei 1"}).status_code == 200
    # Another link has its own allowance.
    _, other = share_link_create(quote=sent_quote, user=world.sales)
    assert client.get(f"/p/{other}/signature.png", {"text": "Li Wei 3"}).status_code == 200


def test_the_429_speaks_the_readers_language(client, settings, token):
    settings.PROPOSALS_LINK_PREVIEWS_ALLOWED = 0
    refused = client.get(f"/p/{token}/signature.png", {"text": "李伟", "lang": "zh-hans"})
    assert refused.status_code == 429 and "签名预览的次数过多" in refused.content.decode()


def test_a_link_makes_a_bounded_number_of_accept_attempts_then_429(client, settings, token):
    settings.PROPOSALS_LINK_ACCEPTS_ALLOWED = 2
    attempt = {"revision": 1, "name": "Li Wei", "signature_kind": "typed"}  # not agreed
    codes = [client.post(f"/p/{token}/accept?lang=en", attempt).status_code for _ in range(2)]
    refused = client.post(f"/p/{token}/accept?lang=en", {**attempt, "agreed": "on"})
    assert codes == [400, 400]
    assert refused.status_code == 429 and refused["Retry-After"] == "600"
    assert "Too many attempts to accept this offer" in refused.content.decode()
    assert Acceptance.objects.count() == 0
    # Recalculating the choice's totals (no script) is not an attempt.
    recalculated = client.post(f"/p/{token}/accept?lang=en", {**attempt, "recalculate": "1"})
    assert recalculated.status_code == 200


def test_with_the_cache_down_previews_fail_open(client, settings, token):
    from portal import cache as portal_cache

    settings.CACHES = {
        "default": {
            "BACKEND": "portal.cache.ForgivingRedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    portal_cache._paused_until.clear()
    settings.PROPOSALS_LINK_PREVIEWS_ALLOWED = 1
    try:
        codes = [
            client.get(f"/p/{token}/signature.png", {"text": f"Li {n}"}).status_code
            for n in range(3)
        ]
    finally:
        portal_cache._paused_until.clear()
    assert codes == [200] * 3
    assert signature_typed_png("Li 0")  # drawn, not kept: nothing fails
