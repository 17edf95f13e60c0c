"""The dialect contract: a pure serialiser from citewise's events and Answer to one wire format.

A dialect maps, it does not decide: no storage, no HTTP, no agent — only the value model
(``citewise.answer``, ``citewise.events``, ``citewise.triples``) goes in, plain JSON-ready
dicts come out.

The contract is push-style: a live run produces its events one at a time (the agent's
async generator, the server tailing the durable log), so ``dialect.encoder()`` returns a
fresh :class:`Encoder` per stream and ``encoder.feed(event)`` returns the objects that
event produces. Whatever a dialect must remember between events (a buffered thought, the
open message or step) lives in that encoder, never in the dialect, so one shared dialect
instance serves any number of concurrent streams. ``dialect.stream(events)`` is the same
mapping over a complete iterable (see :func:`encode`); :mod:`citewise.dialects.aio` does
it over an async iterable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from citewise.answer import Answer, ErrorInfo
from citewise.events import ErrorEvent, Event, Interrupt, RunFinished, RunPaused

__all__ = [
    "SSE_MEDIA_TYPE",
    "DataOnlySSE",
    "Dialect",
    "Encoder",
    "Obj",
    "answer_of",
    "dumps",
    "encode",
    "final_of",
    "iso",
    "millis",
    "sse_frame",
    "sse_stream",
]

Obj = dict[str, Any]
"""One wire object: JSON-ready (str keys, JSON values only)."""

SSE_MEDIA_TYPE = "text/event-stream"


@runtime_checkable
class Encoder(Protocol):
    """The state of one stream in one dialect, fed one event at a time.

    Events go in in order (``seq`` order, as the run produced them). Once ``done`` is true
    the dialect has written its last object (its terminal one) and every later event
    produces nothing; dialects that have no such end (``citewise``, ``trustgraph``,
    ``agentos``) keep mapping whatever they are fed, as a resumed run continues its log.
    """

    done: bool
    """True once the stream is over in this dialect: stop feeding, send the terminator."""

    def feed(self, event: Event) -> list[Obj]:
        """The objects ``event`` produces in this dialect (often one, maybe none)."""
        ...


@runtime_checkable
class Dialect(Protocol):
    """One wire format."""

    name: str
    """Registry name, as in ``?format=NAME``."""
    media_type: str
    """Media type of the stream (``text/event-stream`` for all built-in dialects)."""
    terminator: str
    """SSE text sent after the last object (``data: [DONE]\\n\\n`` for OpenAI), or ``""``."""

    def encoder(self) -> Encoder:
        """A fresh encoder for one stream (the per-stream state lives there)."""
        ...

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        """Map a run's events, in order, to this dialect's stream objects.

        Exactly ``encode(self.encoder(), events)``: a convenience for a complete iterable.
        """
        ...

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        """The non-streaming response for ``answer``.

        ``interrupts`` are the pending decisions of a paused run (``answer.status ==
        "paused"``); the Answer itself does not carry them.
        """
        ...

    def sse(self, obj: Obj) -> str:
        """One SSE frame: ``data: {json}\\n\\n`` (plus ``id:`` where the protocol has it)."""
        ...


def dumps(obj: Any) -> str:
    """Compact JSON (what serde_json and most servers write); never NaN, never ASCII-escaped."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def sse_frame(obj: Obj, *, id: str | int | None = None, event: str | None = None) -> str:
    """Encode one SSE frame. JSON never contains a raw newline, so ``data`` is one line."""
    head = ""
    if id is not None:
        head += f"id: {id}\n"
    if event is not None:
        head += f"event: {event}\n"
    return f"{head}data: {dumps(obj)}\n\n"


class DataOnlySSE:
    """Defaults shared by dialects whose SSE frames are bare ``data:`` lines."""

    media_type: str = SSE_MEDIA_TYPE
    terminator: str = ""

    def encoder(self) -> Encoder:
        raise NotImplementedError  # each dialect's own

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        return encode(self.encoder(), events)

    def sse(self, obj: Obj) -> str:
        return sse_frame(obj)


def encode(encoder: Encoder, events: Iterable[Event]) -> Iterator[Obj]:
    """Feed ``events`` to ``encoder`` one by one, yielding what each produces; stops
    reading ``events`` once the encoder is done. What every ``Dialect.stream`` is."""
    for event in events:
        yield from encoder.feed(event)
        if encoder.done:
            return


def sse_stream(dialect: Dialect, events: Iterable[Event]) -> Iterator[str]:
    """The whole SSE body of a run in ``dialect``: every frame, then the terminator."""
    for obj in dialect.stream(events):
        yield dialect.sse(obj)
    if dialect.terminator:
        yield dialect.terminator


def answer_of(event: RunFinished | RunPaused | ErrorEvent) -> Answer:
    """The Answer a terminal event carries; an empty one with the right status if none.

    A paused run may end its stream without a partial answer, and an error event built
    by hand may lack one; dialects still need a thread id and a status to render.
    """
    if event.answer is not None:
        return event.answer
    if isinstance(event, ErrorEvent):
        cancelled = event.code == "run_cancelled"
        return Answer(
            run_id=event.run_id, thread_id=event.thread_id,
            status="cancelled" if cancelled else "failed",
            error=ErrorInfo(code=event.code, message=event.message, details=event.details),
        )
    return Answer(run_id=event.run_id, thread_id=event.thread_id, status="paused")


def iso(ts: datetime) -> str:
    """RFC 3339 UTC with a ``Z`` (what JavaScript's ``Date.toISOString`` writes)."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def millis(ts: datetime) -> int:
    """Milliseconds since the Unix epoch (AG-UI's timestamp convention)."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return int(ts.timestamp() * 1000)


def final_of(dialect: Dialect, event: RunFinished | RunPaused | ErrorEvent) -> Obj:
    """``dialect.final`` for a caller holding the terminal event rather than an Answer."""
    interrupts = event.interrupts if isinstance(event, RunPaused) else []
    return dialect.final(answer_of(event), interrupts=interrupts)
