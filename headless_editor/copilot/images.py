"""Images as Copilot and its upstream treat them: five formats, checked against their label.

Only `image/png`, `jpeg`, `gif`, `webp` and `bmp` data parts count as images (Copilot's
isImageDataPart); anything else is dropped before the model. VS Code re-encodes an image
larger than 768 px on both sides to PNG but keeps the declared type (microsoft/vscode issues
275383, 307900), and the upstream refuses bytes that do not match their label.
"""

from __future__ import annotations

import base64
import binascii
import struct

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")
RESIZE_ABOVE = 768  # px, on both sides: VS Code re-encodes such an image to PNG


def is_image(mime_type: str) -> bool:
    return mime_type.lower() in IMAGE_TYPES


def decode(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return b""


def sniff(raw: bytes) -> str | None:
    """The image type the bytes are, from their signature; None for none of the five."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    if raw.startswith(b"BM"):
        return "image/bmp"
    return None


def size(raw: bytes, kind: str) -> tuple[int, int] | None:
    """(width, height) from the image's header; None when it cannot be read."""
    try:
        if kind == "image/png" and raw[12:16] == b"IHDR":
            width, height = struct.unpack(">II", raw[16:24])
            return int(width), int(height)
        if kind == "image/gif":
            width, height = struct.unpack("<HH", raw[6:10])
            return int(width), int(height)
        if kind == "image/bmp":
            width, height = struct.unpack("<ii", raw[18:26])
            return abs(int(width)), abs(int(height))
        if kind == "image/webp":
            return _webp_size(raw)
        if kind == "image/jpeg":
            return _jpeg_size(raw)
    except struct.error:
        return None
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(raw[24:27], "little") + 1
        height = int.from_bytes(raw[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L":
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    return None


def _jpeg_size(raw: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(raw):
        if raw[at] != 0xFF:
            return None
        marker = raw[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        (length,) = struct.unpack(">H", raw[at + 2 : at + 4])
        # Start-of-frame markers (but DHT, JPG, DAC) carry the height, then the width.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", raw[at + 5 : at + 9])
            return int(width), int(height)
        at += 2 + length
    return None


def refusal(mime_type: str, data: str) -> str | None:
    """Why the upstream refuses this image part (None when it takes it)."""
    label = mime_type.lower()
    raw = decode(data)
    kind = sniff(raw)
    if kind is not None and kind != "image/png":
        dims = size(raw, kind)
        if dims is not None and min(dims) > RESIZE_ABOVE:
            kind = "image/png"  # what VS Code sends after re-encoding, still labelled `label`
    if kind != label:
        return f"Image does not match the provided media type {label}"
    return None
