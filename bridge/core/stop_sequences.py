"""Stop sequences, which the editor's API does not take: the bridge cuts the answer itself.

Text arrives in deltas, and a stop sequence may straddle two of them, so the cutter holds back
the longest tail that could still become the start of a sequence and emits the rest at once.
When a sequence is found, the text before it is the last to go out and the answer ends there
(the caller closes the editor's request, as the output cut does). Only the answer's text is
searched: thinking and tool calls pass through, and a tool call or thinking part between two
texts releases what was held (a sequence cannot straddle them).
"""

from __future__ import annotations

from msgspec.structs import replace

from bridge.core.backend import ResponsePart, TextPart

# What a request may ask for (the dialects answer a 400 beyond). OpenAI takes up to 4, Google 5;
# clients built for other servers send a few more. The bound keeps the cutter's work per text
# delta small (it looks for every sequence in the held tail).
MAX_STOP_SEQUENCES = 16
MAX_STOP_CHARS = 1_000


class StopSequenceCutter:
    """Feed text deltas, get the text safe to emit now; `matched` names the sequence found."""

    def __init__(self, sequences: list[str]) -> None:
        self.sequences = [s for s in dict.fromkeys(sequences) if s]  # "" would stop at once
        self._longest = max((len(s) for s in self.sequences), default=0)
        self._held = ""
        self.matched: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.sequences)

    def feed(self, text: str) -> str:
        """The text that can go out now; after a match, the text before it and then ""."""
        if self.matched is not None:
            return ""
        if not self.sequences:
            return text
        buffer = self._held + text
        found = self._first_match(buffer)
        if found is not None:
            at, sequence = found
            self.matched, self._held = sequence, ""
            return buffer[:at]
        keep = self._possible_start(buffer)
        self._held = buffer[len(buffer) - keep :] if keep else ""
        return buffer[: len(buffer) - keep]

    def flush(self) -> str:
        """The held tail, at the end of the text (it can no longer start a sequence)."""
        held, self._held = self._held, ""
        return held

    def _first_match(self, buffer: str) -> tuple[int, str] | None:
        """The earliest sequence in `buffer` (the longest of those starting there)."""
        best: tuple[int, str] | None = None
        for sequence in self.sequences:
            at = buffer.find(sequence)
            if at < 0:
                continue
            if best is None or at < best[0] or (at == best[0] and len(sequence) > len(best[1])):
                best = (at, sequence)
        return best

    def _possible_start(self, buffer: str) -> int:
        """Length of the longest tail of `buffer` that some sequence begins with."""
        for size in range(min(len(buffer), self._longest - 1), 0, -1):
            tail = buffer[len(buffer) - size :]
            if any(s.startswith(tail) for s in self.sequences):
                return size
        return 0

    def cut_parts(self, parts: list[ResponsePart]) -> list[ResponsePart]:
        """A batch of parts with its text cut; nothing after a match (check `matched`)."""
        if not self.sequences:
            return parts
        admitted: list[ResponsePart] = []
        for part in parts:
            if self.matched is not None:
                break
            if isinstance(part, TextPart):
                text = self.feed(part.value)
                if text:
                    admitted.append(replace(part, value=text))
                continue
            held = self.flush()  # a thinking or tool part ends the text before it
            if held:
                admitted.append(TextPart(value=held))
            admitted.append(part)
        return admitted

    def end_parts(self) -> list[ResponsePart]:
        """At the end of the answer: the held tail as a text part, if any."""
        held = self.flush()
        return [TextPart(value=held)] if held and self.matched is None else []
