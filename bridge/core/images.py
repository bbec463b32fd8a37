"""Images and files in the input -> what the editor can take (pure functions).

The editor takes inline image data only (`DataPart` with an image MIME type) and cannot fetch
URLs or read uploaded files. So:
- a base64 `data:` URL whose bytes are a PNG, JPEG, GIF, WebP or BMP image (the five formats
  Copilot sends as images; it drops any other data) becomes image data, labelled with the type
  the bytes show (clients often declare the wrong one, and providers reject a mismatch); an
  image over 768 px on both sides is labelled PNG, because VS Code re-encodes those to PNG and
  keeps the label (the upstream then answers "Image does not match the provided media type");
- an `input_file` with inline data that is UTF-8 text is passed on as text, and one that is an
  image as image data;
- everything else (remote URLs, file ids, PDFs, other formats) becomes a short text note, so
  the model knows something was left out and the request still goes through.
"""

from __future__ import annotations

import base64
import binascii
import re

from bridge.core.backend import DataPart, MessagePart, TextPart
from bridge.core.image_tokens import image_size

_DATA_URL = re.compile(
    r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?P<params>(;[^;,]*)*),(?P<data>.*)$", re.S
)
_SHOWN_CHARS = 200  # of a URL quoted in a note
MAX_FILE_TEXT_CHARS = 200_000  # of a text file inlined; the rest is cut with a note
REENCODED_OVER_PX = 768  # VS Code re-encodes an image larger on both sides to PNG
FORMATS = "PNG, JPEG, GIF, WebP or BMP"


def sniff_image_type(data: bytes) -> str | None:
    """The MIME type the leading bytes (magic number) show, for the formats models accept."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM") and len(data) >= 26 and data[14:18] in _BMP_HEADER_SIZES:
        return "image/bmp"
    return None


# A BMP's info header size (BITMAPCOREHEADER ... BITMAPV5HEADER): "BM" alone is too common.
_BMP_HEADER_SIZES = {n.to_bytes(4, "little") for n in (12, 40, 52, 56, 64, 108, 124)}


def arriving_type(data: bytes) -> str | None:
    """The type the image will have when the model gets it (None: not one of the five).

    VS Code turns an image over 768 px on both sides into PNG before Copilot sends it."""
    mime = sniff_image_type(data)
    if mime is None or mime == "image/png":
        return mime
    size = image_size(data)
    if size is not None and min(size) > REENCODED_OVER_PX:
        return "image/png"
    return mime


def _image_data(raw: bytes, mime: str) -> DataPart:
    return DataPart(mimeType=mime, data=base64.b64encode(raw).decode("ascii"))


def _decode(data: str) -> bytes | None:
    try:
        # Whitespace sometimes sits in long base64 strings (line-wrapped); it carries nothing.
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return None


def _shown(url: str) -> str:
    return url if len(url) <= _SHOWN_CHARS else url[:_SHOWN_CHARS] + "..."


def image_part(url: str) -> MessagePart:
    """An `input_image` URL -> image data, or a note saying why it was left out."""
    match = _DATA_URL.match(url)
    if match is None:
        return TextPart(
            value=f"[image not included: {_shown(url)} (the editor cannot fetch image URLs; "
            "send the image inline as a base64 data URL)]"
        )
    if ";base64" not in (match.group("params") or ""):
        return TextPart(value="[image not included: its data URL is not base64 encoded]")
    raw = _decode(match.group("data"))
    if raw is None:
        return TextPart(value="[image not included: its data is not valid base64]")
    mime = arriving_type(raw)
    if mime is None:
        declared = match.group("mime") or "unknown type"
        return TextPart(
            value=f"[image not included: its bytes are not a {FORMATS} image "
            f"(declared as {declared})]"
        )
    return _image_data(raw, mime)


def image_reference_note(file_id: str | None) -> TextPart:
    """An `input_image` given by uploaded-file id: the editor cannot read OpenAI's files."""
    return TextPart(
        value=f"[image not included: {file_id or 'no image data'} (the editor takes only inline "
        "base64 images)]"
    )


def file_parts(
    filename: str | None, file_data: str | None, file_id: str | None, file_url: str | None
) -> list[MessagePart]:
    """An `input_file` -> its text or image when inline and readable, else a note."""
    name = filename or file_id or (_shown(file_url) if file_url else None) or "unnamed file"
    if file_data:
        match = _DATA_URL.match(file_data)
        raw = _decode(match.group("data") if match else file_data)
        if raw is None:
            return [TextPart(value=f"[file not included: {name} (its data is not valid base64)]")]
        mime = arriving_type(raw)
        if mime is not None:
            return [TextPart(value=f"[file {name}:]"), _image_data(raw, mime)]
        text = _as_text(raw)
        if text is not None:
            if len(text) > MAX_FILE_TEXT_CHARS:
                text = text[:MAX_FILE_TEXT_CHARS] + "\n[... the rest of the file was cut]"
            return [TextPart(value=f"[file {name}:]\n{text}")]
        return [
            TextPart(
                value=f"[file not included: {name} (binary content such as PDF cannot be "
                "passed to the editor; only text files and images can)]"
            )
        ]
    return [
        TextPart(
            value=f"[file not included: {name} (the editor cannot fetch files; send text or "
            "images inline as base64 `file_data`)]"
        )
    ]


def _as_text(raw: bytes) -> str | None:
    if b"\x00" in raw or raw.startswith(b"%PDF-"):
        # Text files have no NUL bytes; binary formats almost always do (a PDF's header is
        # ASCII, but what follows is not text a model can read).
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
