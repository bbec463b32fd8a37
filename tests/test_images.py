"""`bridge.core.images`: image and file inputs -> image data with the real type, text, or a note."""

from __future__ import annotations

import base64

import pytest

from bridge.core.backend import DataPart, TextPart
from bridge.core.images import file_parts, image_part, sniff_image_type
from bridge.responses.convert_input import to_chat_messages
from bridge.responses.request import parse_create_request

# The leading bytes of each format, as real encoders write them, plus some payload.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04"
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00\x30\x01\x00\x9d\x01\x2a"


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def data_url(mime: str, raw: bytes) -> str:
    return f"data:{mime};base64,{b64(raw)}"


@pytest.mark.parametrize(
    ("raw", "mime"),
    [(PNG, "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp")],
)
def test_sniff_each_format(raw: bytes, mime: str) -> None:
    assert sniff_image_type(raw) == mime


@pytest.mark.parametrize(
    "raw", [b"", b"BM\x36\x00", b"<svg xmlns='http://www.w3.org/2000/svg'/>", b"RIFF1234WAVE"]
)
def test_sniff_other_bytes(raw: bytes) -> None:
    assert sniff_image_type(raw) is None


@pytest.mark.parametrize(
    ("declared", "raw", "real"),
    [
        ("image/png", JPEG, "image/jpeg"),  # a wrong declaration is corrected
        ("image/jpeg", PNG, "image/png"),
        ("application/octet-stream", GIF, "image/gif"),
        ("image/png", WEBP, "image/webp"),
    ],
)
def test_data_url_gets_the_type_its_bytes_show(declared: str, raw: bytes, real: str) -> None:
    assert image_part(data_url(declared, raw)) == DataPart(mimeType=real, data=b64(raw))


def test_data_url_without_a_declared_type() -> None:
    assert image_part(f"data:;base64,{b64(PNG)}") == DataPart(mimeType="image/png", data=b64(PNG))


def test_line_wrapped_base64_is_accepted() -> None:
    encoded = b64(PNG)
    wrapped = encoded[:10] + "\n" + encoded[10:]
    assert image_part(f"data:image/png;base64,{wrapped}") == DataPart(
        mimeType="image/png", data=encoded
    )


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("https://example.com/cat.png", "cannot fetch image URLs"),
        ("http://example.com/cat.png", "cannot fetch image URLs"),
        ("data:image/svg+xml,<svg/>", "not base64"),
        ("data:image/png;base64,@@not base64@@", "not valid base64"),
        (data_url("image/bmp", b"BM\x36\x00\x00\x00"), "not a PNG, JPEG, GIF, WebP or BMP"),
        ("", "cannot fetch"),
    ],
)
def test_images_the_editor_cannot_take_become_notes(url: str, says: str) -> None:
    part = image_part(url)
    assert isinstance(part, TextPart)
    assert part.value.startswith("[image not included")
    assert says in part.value


def test_long_url_is_shortened_in_the_note() -> None:
    part = image_part("https://example.com/" + "a" * 5000)
    assert isinstance(part, TextPart)
    assert len(part.value) < 400


def test_text_file_is_passed_as_text() -> None:
    parts = file_parts("notes.md", data_url("text/markdown", "# Títle\nbody".encode()), None, None)
    assert parts == [TextPart(value="[file notes.md:]\n# Títle\nbody")]


def test_text_file_as_bare_base64() -> None:
    parts = file_parts("a.txt", b64(b"plain"), None, None)
    assert parts == [TextPart(value="[file a.txt:]\nplain")]


def test_huge_text_file_is_cut_with_a_note() -> None:
    (part,) = file_parts("big.txt", b64(b"x" * 300_000), None, None)
    assert isinstance(part, TextPart)
    assert len(part.value) < 201_000
    assert part.value.endswith("[... the rest of the file was cut]")


def test_image_file_becomes_image_data() -> None:
    parts = file_parts("cat.gif", data_url("image/gif", GIF), None, None)
    assert parts == [
        TextPart(value="[file cat.gif:]"),
        DataPart(mimeType="image/gif", data=b64(GIF)),
    ]


@pytest.mark.parametrize(
    ("args", "shown", "says"),
    [
        (
            ("report.pdf", data_url("application/pdf", b"%PDF-1.7\n%\xe2\xe3"), None, None),
            "report.pdf",
            "binary content",
        ),
        (("blob.bin", b64(b"\x00\x01\x02"), None, None), "blob.bin", "binary content"),
        ((None, None, "file-abc", None), "file-abc", "cannot fetch files"),
        (
            (None, None, None, "https://example.com/a.pdf"),
            "https://example.com/a.pdf",
            "cannot fetch files",
        ),
        ((None, None, None, None), "unnamed file", "cannot fetch files"),
        (("x.txt", "@@@", None, None), "x.txt", "not valid base64"),
    ],
)
def test_files_the_editor_cannot_take_become_notes(
    args: tuple[str | None, str | None, str | None, str | None], shown: str, says: str
) -> None:
    (part,) = file_parts(*args)
    assert isinstance(part, TextPart)
    assert part.value.startswith("[file not included")
    assert shown in part.value and says in part.value
    assert "JVBER" not in part.value  # the file's bytes are not pasted into the prompt


def test_image_by_file_id_becomes_a_note() -> None:
    raw = {
        "model": "m",
        "input": [{"role": "user", "content": [{"type": "input_image", "file_id": "file-9"}]}],
    }
    (message,) = to_chat_messages(parse_create_request(raw))
    (part,) = message.content
    assert isinstance(part, TextPart) and "file-9" in part.value


def test_image_in_tool_output_keeps_its_real_type() -> None:
    raw = {
        "model": "m",
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "screenshot", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [
                    {"type": "input_text", "text": "The screen:"},
                    {"type": "input_image", "image_url": data_url("image/png", JPEG)},
                ],
            },
        ],
    }
    _, results = to_chat_messages(parse_create_request(raw))
    (result,) = results.content
    assert result.type == "toolResult"
    assert result.content == [
        TextPart(value="The screen:"),
        DataPart(mimeType="image/jpeg", data=b64(JPEG)),
    ]


# Copilot: the five formats, labelled as VS Code will send them.

BMP = b"BM" + bytes(12) + (40).to_bytes(4, "little") + (2).to_bytes(4, "little") * 2 + bytes(8)


def jpeg_of(width: int, height: int) -> bytes:
    size = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return b"\xff\xd8\xff\xc0\x00\x11\x08" + size + b"\x03" + bytes(12)


def test_bmp_is_one_of_the_five_formats() -> None:
    assert sniff_image_type(BMP) == "image/bmp"
    assert image_part(data_url("image/png", BMP)) == DataPart(mimeType="image/bmp", data=b64(BMP))


@pytest.mark.parametrize(
    ("width", "height", "label"),
    [
        (1000, 1000, "image/png"),  # VS Code re-encodes it to PNG and keeps the old label
        (1000, 700, "image/jpeg"),  # not over 768 on both sides: sent as it is
        (769, 769, "image/png"),
        (768, 2000, "image/jpeg"),
    ],
)
def test_an_image_over_768_px_on_both_sides_is_labelled_png(
    width: int, height: int, label: str
) -> None:
    raw = jpeg_of(width, height)
    assert image_part(data_url("image/jpeg", raw)) == DataPart(mimeType=label, data=b64(raw))
    inline = file_parts("big.jpg", b64(raw), None, None)
    assert inline[1] == DataPart(mimeType=label, data=b64(raw))
