"""``citewise``: the identity dialect — our own events and Answer, as they are.

Each SSE frame carries ``id: <seq>`` so a client can reconnect with ``Last-Event-ID``.
No ``event:`` line: a browser ``EventSource`` then delivers every frame to ``onmessage``
and the ``kind`` field inside the JSON says what it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from citewise.answer import Answer
from citewise.dialects.base import SSE_MEDIA_TYPE, Obj, encode, sse_frame
from citewise.events import Event, Interrupt

__all__ = ["CitewiseDialect", "CitewiseEncoder"]


class CitewiseEncoder:
    """Stateless: each event is its own JSON. Never done (a resumed run's log goes on)."""

    done = False

    def feed(self, event: Event) -> list[Obj]:
        return [event.model_dump(mode="json")]


class CitewiseDialect:
    name = "citewise"
    media_type = SSE_MEDIA_TYPE
    terminator = ""

    def encoder(self) -> CitewiseEncoder:
        return CitewiseEncoder()

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        return encode(self.encoder(), events)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        # The interrupts of a paused run travel in its run_paused event, not the Answer.
        return answer.model_dump(mode="json")

    def sse(self, obj: Obj) -> str:
        seq = obj.get("seq")
        return sse_frame(obj, id=seq if isinstance(seq, int) else None)
