"""Which `functionCall` a `functionResponse` answers: by id, or else by order and name.

Gemini CLI sends ids (ones it made up when the model gave none) on calls and responses alike;
older clients and Google's own examples send none, and then Google pairs a response with the
model's calls of that name in order. Calls without an id get one here (`gemini_call_N`, safe
for every provider's id rules), so the core's history pairing can treat them all alike. Only
the calls of the latest model turn wait for responses: a response that comes after a newer
model turn cannot be answering an older, abandoned call.
"""

from __future__ import annotations

# A call waiting for its response: (id, name, whether the client sent the id).
_Call = tuple[str, str, bool]


class CallPairing:
    def __init__(self) -> None:
        self._made_up = 0
        self._waiting: list[_Call] = []  # the latest model turn's calls not yet answered
        self._ids: set[str] = set()  # every call id seen, answered or not

    def new_turn(self) -> None:
        """A model turn begins: calls from before it no longer wait."""
        if self._waiting:
            self._waiting = []

    def call(self, call_id: str | None, name: str) -> str:
        """The id the call goes to the editor with."""
        if call_id:
            self._waiting.append((call_id, name, True))
        else:
            self._made_up += 1
            call_id = f"gemini_call_{self._made_up}"
            self._waiting.append((call_id, name, False))
        self._ids.add(call_id)
        return call_id

    def response(self, call_id: str | None, name: str) -> str:
        """The id of the call this response answers, or an id that pairs with none."""
        waiting = self._waiting
        if call_id:
            if waiting and waiting[0][0] == call_id:  # nearly always: calls answered in order
                del waiting[0]
                return call_id
            for index, (waiting_id, _, _) in enumerate(waiting):
                if waiting_id == call_id:
                    del waiting[index]
                    return call_id
            if call_id in self._ids:
                return call_id  # answered already: the history pairing labels it
        for index, (waiting_id, waiting_name, client_id) in enumerate(waiting):
            # A response without an id answers the first waiting call of its name; one with an
            # unknown id, only a call that had no id of its own.
            if waiting_name == name and (not call_id or not client_id):
                del waiting[index]
                return waiting_id
        return call_id or f"{name} (no id)"
