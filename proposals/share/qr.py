"""The QR code of a share link, made here (segno), never by an outside service: Chinese buyers
open links in WeChat, whose scanner reads it from a screen or a printed page."""

from __future__ import annotations

import io

import segno

PNG_SCALE = 5  # pixels per module: a link of the portal (version 5, 37 modules) is 225 px


def link_qr(url: str) -> segno.QRCode:
    # A full QR code (WeChat reads no Micro QR), medium error correction: a phone photo of a
    # screen or of paper still reads.
    return segno.make(url, error="m", micro=False)


def link_qr_png(url: str) -> bytes:
    out = io.BytesIO()
    link_qr(url).save(out, kind="png", scale=PNG_SCALE, border=4)
    return out.getvalue()


def link_qr_svg(url: str, *, title: str = "") -> str:
    """An <svg> element to place in a page (no XML declaration)."""
    svg = link_qr(url).svg_inline(scale=4, border=4, title=title or None, svgclass="share-qr")
    return svg.replace("<svg ", '<svg role="img" ', 1)
