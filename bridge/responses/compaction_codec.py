"""The `encrypted_content` of a compaction item: the summary, in a form only this bridge reads.

Clients treat the value as opaque and send it back in a later request's input. It is not
encryption (a stateless bridge has no key that outlives it); it is a versioned envelope,
`amcmp<version>.<base64url(checksum + zlib(JSON))>`, so that a damaged, truncated or foreign
value (such as OpenAI's own compaction items) is reported as bad input instead of being
read as a wrong summary.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib

MAGIC = "amcmp"
VERSION = 1
_CHECKSUM_BYTES = 8
# A summary is text the model wrote; far below this. Bounds what a crafted value can inflate to.
MAX_DECODED_BYTES = 16 * 1024 * 1024


class CompactionDecodeError(ValueError):
    """The value is not a compaction this bridge made (the message says why)."""


def encode_summary(summary: str) -> str:
    payload = zlib.compress(json.dumps({"summary": summary}, ensure_ascii=False).encode(), 9)
    checksum = hashlib.sha256(payload).digest()[:_CHECKSUM_BYTES]
    body = base64.urlsafe_b64encode(checksum + payload).decode().rstrip("=")
    return f"{MAGIC}{VERSION}.{body}"


def decode_summary(value: str) -> str:
    head, dot, body = value.partition(".")
    if not head.startswith(MAGIC) or not dot:
        raise CompactionDecodeError(
            "this compaction item was not made by Maestro Bridge (only its own "
            "`/v1/responses/compact` output can be read back)"
        )
    version = head.removeprefix(MAGIC)
    if version != str(VERSION):
        raise CompactionDecodeError(
            f"this compaction item has format version {version!r}; this Maestro Bridge reads "
            f"version {VERSION}"
        )
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise CompactionDecodeError("the compaction item's content is damaged") from None
    checksum, payload = raw[:_CHECKSUM_BYTES], raw[_CHECKSUM_BYTES:]
    if (
        len(checksum) < _CHECKSUM_BYTES
        or hashlib.sha256(payload).digest()[:_CHECKSUM_BYTES] != checksum
    ):
        raise CompactionDecodeError("the compaction item's content is damaged")
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(payload, MAX_DECODED_BYTES)
    except zlib.error:
        raise CompactionDecodeError("the compaction item's content is damaged") from None
    if inflater.unconsumed_tail:
        raise CompactionDecodeError("the compaction item's summary is too large")
    try:
        summary = json.loads(data).get("summary")
    except (ValueError, AttributeError):
        summary = None
    if not isinstance(summary, str):
        raise CompactionDecodeError("the compaction item's content is damaged")
    return summary
