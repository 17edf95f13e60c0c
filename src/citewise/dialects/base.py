"""The dialect contract: a pure serialiser from citewise's events and Answer to one wire format.

A dialect maps, it does not decide: no storage, no HTTP, no agent — only the value model
(``citewise.answer``, ``citewise.events``, ``citewise.triples``) goes in, plain JSON-ready
dicts come out. ``stream`` may keep state (to buffer a thought, to open and close a
message), but that state lives inside the call, so one dialect instance serves any number
of concurrent streams.
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
    "Obj",
    "answer_of",
    "dumps",
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
class Dialect(Protocol):
    """One wire format."""

    name: str
    """Registry name, as in ``?format=NAME``."""
    media_type: str
    """Media type of the stream (``text/event-stream`` for all built-in dialects)."""
    terminator: str
    """SSE text sent after the last object (``data: [DONE]\\n\\n`` for OpenAI), or ``""``."""

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        """Map a run's events, in order, to this dialect's stream objects."""
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

    def sse(self, obj: Obj) -> str:
        return sse_frame(obj)


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
