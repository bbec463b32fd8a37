"""One chat's parts on their way from the editor to the HTTP side, with flow control.

All chats share the editor's pipe, so the language server cannot stop reading it for one slow
client. Instead the editor may have at most `window` parts sent and not yet acknowledged
(`maestro/chat` params); the server acknowledges parts with `maestro/chatAck` as the HTTP side
takes them, in batches of half a window, and the editor waits for credit before sending more.
A slow client thus pauses the model stream in the editor, and the parts held here stay below
a window. An editor that ignores the window (an older extension) still works while its
clients keep up; one that overruns the window by far fails the chat, so memory stays bounded.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from bridge.core.backend import EditorError, ResponsePart

# Parts the editor may send ahead of the HTTP side. One-word text parts are typical: a window
# is a few hundred KiB, and acks (one per half window) cost nothing next to the parts.
CHAT_WINDOW = 4096
# Parts queued beyond which an editor that ignores the window fails the chat.
OVERRUN_FACTOR = 16


class ChatStream:
    """The parts queued for one chat; `take` waits for the next batch."""

    def __init__(self, ack: Callable[[int], None], window: int = CHAT_WINDOW) -> None:
        self._ack = ack
        self.window = window
        self._ack_every = max(1, window // 2)
        self._hard_cap = window * OVERRUN_FACTOR
        # Each batch with the number of parts the editor sent for it (malformed ones dropped
        # still count: the editor's credit is in parts sent).
        self._batches: deque[tuple[list[ResponsePart], int]] = deque()
        self.queued = 0  # parts received, not yet taken by the HTTP side
        self._taken = 0  # parts taken and not yet acknowledged
        self._ended = False
        self._failure: EditorError | None = None
        self._wakeup = asyncio.Event()

    def put(self, parts: list[ResponsePart], sent: int | None = None) -> None:
        if self._ended or self._failure is not None:
            return
        self._batches.append((parts, len(parts) if sent is None else sent))
        self.queued += len(parts)
        if self.queued > self._hard_cap:
            # The editor ignores the window: drop what it sent rather than grow without end.
            self._batches.clear()
            self.queued = 0
            self._failure = EditorError(
                "Other",
                f"The editor sent more than {self._hard_cap} parts ahead of the client "
                f"(its window is {self.window}); update the Maestro Bridge extension.",
            )
        self._wakeup.set()

    def end(self) -> None:
        """No more parts will come (the chat's reply arrived, or the editor went away)."""
        self._ended = True
        self._wakeup.set()

    async def take(self) -> list[ResponsePart] | None:
        """Every part queued so far, in order (possibly none: malformed parts were dropped);
        None once the chat has ended and all is taken."""
        while not self._batches:
            if self._failure is not None:
                raise self._failure
            if self._ended:
                return None
            self._wakeup.clear()
            await self._wakeup.wait()
        if self._failure is not None:
            raise self._failure
        batch, sent = self._batches.popleft()
        while self._batches:  # parts that queued up go out together
            more, more_sent = self._batches.popleft()
            batch.extend(more)
            sent += more_sent
        self.queued = 0
        self._taken += sent
        if self._taken >= self._ack_every:
            self._ack(self._taken)
            self._taken = 0
        return batch
