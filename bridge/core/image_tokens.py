"""What an input image costs in the context window, estimated from its pixel size.

The editor counts text only (`maestro/countTokens`), so the bridge estimates images itself,
the way the providers behind the editor bill them: an image is scaled down to fit within
1568 pixels on its long side and 1.15 megapixels (what Anthropic's models do; OpenAI's tiles
come to a similar count), then costs one token per 750 pixels, at least 85 (OpenAI's
low-detail price). An image whose size cannot be read from its header costs the most an
image can (1,600), so an unreadable image never lets an oversized request through.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct

from bridge.core.parts import ChatMessage, DataPart, ToolResultPart

MIN_IMAGE_TOKENS = 85
MAX_IMAGE_TOKENS = 1600
_MAX_SIDE = 1568
_MAX_PIXELS = 1_150_000
_PIXELS_PER_TOKEN = 750
_HEADER_BYTES = 64 * 1024  # where every format keeps its size (JPEG: after EXIF, usually)


def image_tokens(width: int, height: int) -> int:
    """The estimate for an image of `width` x `height` pixels."""
    if width <= 0 or height <= 0:
        return MAX_IMAGE_TOKENS
    scale = min(1.0, _MAX_SIDE / max(width, height), math.sqrt(_MAX_PIXELS / (width * height)))
    pixels = (width * scale) * (height * scale)
    return max(MIN_IMAGE_TOKENS, min(MAX_IMAGE_TOKENS, math.ceil(pixels / _PIXELS_PER_TOKEN)))


def image_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from the first bytes of a PNG, GIF, JPEG, WebP or BMP image, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
        return _unpack(">II", head, 16)
    if head.startswith((b"GIF87a", b"GIF89a")):
        return _unpack("<HH", head, 6)
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(head)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return _webp_size(head)
    if head.startswith(b"BM"):
        return _bmp_size(head)
    return None


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    if data[14:18] == b"\x0c\x00\x00\x00":  # BITMAPCOREHEADER: 16-bit sizes
        return _unpack("<HH", data, 18)
    try:
        width, height = struct.unpack_from("<ii", data, 18)
    except struct.error:
        return None
    return abs(width), abs(height)  # a negative height: stored top-down


def _unpack(fmt: str, data: bytes, offset: int) -> tuple[int, int] | None:
    try:
        width, height = struct.unpack_from(fmt, data, offset)
    except struct.error:
        return None
    return int(width), int(height)


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The size in the first start-of-frame segment (SOF0..SOF15 but DHT, JPG, DAC)."""
    offset = 2
    while offset + 4 <= len(data):
        if data[offset] != 0xFF:
            return None
        marker = data[offset + 1]
        if marker == 0xFF:  # fill byte
            offset += 1
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            size = _unpack(">HH", data, offset + 5)
            return None if size is None else (size[1], size[0])  # height comes first
        (length,) = struct.unpack_from(">H", data, offset + 2)
        offset += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        return width, 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8 " and len(data) >= 30:
        size = _unpack("<HH", data, 26)
        return None if size is None else (size[0] & 0x3FFF, size[1] & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    return None


def data_part_tokens(part: DataPart) -> int:
    """The estimate for an image part (0 for other data, which is not sent as an image)."""
    if not part.mimeType.startswith("image/"):
        return 0
    encoded = part.data[: _HEADER_BYTES // 3 * 4]  # whole base64 quanta only
    try:
        head = base64.b64decode(encoded)
    except (binascii.Error, ValueError):
        return MAX_IMAGE_TOKENS
    size = image_size(head)
    return MAX_IMAGE_TOKENS if size is None else image_tokens(*size)


def messages_image_tokens(messages: list[ChatMessage]) -> int:
    """The estimate for every image in the messages, tool results' images included."""
    total = 0
    for message in messages:  # a long history's every part: exact types, no generator
        for part in message.content:
            kind = type(part)
            if kind is DataPart:
                total += data_part_tokens(part)  # type: ignore[arg-type]
            elif kind is ToolResultPart:
                for inner in part.content:  # type: ignore[union-attr]
                    if type(inner) is DataPart:
                        total += data_part_tokens(inner)
    return total
