"""`stop`: a string or a list of strings, cut from the answer by the bridge (bounded)."""

from __future__ import annotations

from bridge.core.errors import invalid_request
from bridge.core.stop_sequences import MAX_STOP_CHARS, MAX_STOP_SEQUENCES

__all__ = ["MAX_STOP_CHARS", "MAX_STOP_SEQUENCES", "stop_sequences"]


def stop_sequences(stop: str | list[str] | None) -> list[str]:
    """The sequences to cut at (empty ones dropped); 400 for too many or too long."""
    sequences = [stop] if isinstance(stop, str) else list(stop or [])
    if len(sequences) > MAX_STOP_SEQUENCES:
        raise invalid_request(
            f"Invalid `stop`: at most {MAX_STOP_SEQUENCES} sequences, got {len(sequences)}.",
            param="stop",
            code="array_above_max_length",
        )
    for index, sequence in enumerate(sequences):
        if len(sequence) > MAX_STOP_CHARS:
            param = "stop" if isinstance(stop, str) else f"stop[{index}]"
            raise invalid_request(
                f"Invalid `{param}`: a stop sequence may have at most {MAX_STOP_CHARS} "
                f"characters, got {len(sequence)}.",
                param=param,
                code="string_above_max_length",
            )
    return [sequence for sequence in dict.fromkeys(sequences) if sequence]
