"""`generationConfig.stopSequences`: cut from the answer by the bridge (bounded)."""

from __future__ import annotations

from bridge.core.stop_sequences import MAX_STOP_CHARS, MAX_STOP_SEQUENCES
from bridge.gemini.fields import bad_field

PARAM = "generationConfig.stopSequences"


def stop_sequences(sequences: list[str] | None) -> list[str]:
    """The sequences to cut at (empty ones and repeats dropped); 400 for too many or too long."""
    sequences = list(sequences or [])
    if len(sequences) > MAX_STOP_SEQUENCES:
        raise bad_field(
            PARAM,
            f"Invalid `{PARAM}`: at most {MAX_STOP_SEQUENCES} sequences, got {len(sequences)}.",
            "array_above_max_length",
        )
    for index, sequence in enumerate(sequences):
        if len(sequence) > MAX_STOP_CHARS:
            raise bad_field(
                f"{PARAM}[{index}]",
                f"Invalid `{PARAM}[{index}]`: a stop sequence may have at most {MAX_STOP_CHARS} "
                f"characters, got {len(sequence)}.",
                "string_above_max_length",
            )
    return [sequence for sequence in dict.fromkeys(sequences) if sequence]
