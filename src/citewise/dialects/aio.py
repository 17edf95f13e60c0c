"""Dialects over a live, asynchronous event source.

A run in progress is an async iterable of events (``Agent.stream``, the client's
``Client.stream``, the server tailing the durable log). These are the async twins of
``Dialect.stream`` and :func:`~citewise.dialects.base.sse_stream`: one encoder per call,
fed each event as it arrives, so an object is out as soon as its event is.

Both stop reading ``events`` once the dialect is done (its terminal object is out); the
caller owns ``events`` and closes it (``contextlib.aclosing``) if it must not be left
suspended.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from citewise.dialects.base import Dialect, Obj
from citewise.events import Event

__all__ = ["astream", "sse_astream"]


async def astream(dialect: Dialect, events: AsyncIterable[Event]) -> AsyncIterator[Obj]:
    """``dialect``'s stream objects for ``events``, each yielded as soon as its event comes."""
    encoder = dialect.encoder()
    async for event in events:
        for obj in encoder.feed(event):
            yield obj
        if encoder.done:
            return


async def sse_astream(dialect: Dialect, events: AsyncIterable[Event]) -> AsyncIterator[str]:
    """The SSE body of a live run in ``dialect``: one frame per object, then the terminator
    (``data: [DONE]`` for OpenAI) once the events end or the dialect is done."""
    async for obj in astream(dialect, events):
        yield dialect.sse(obj)
    if dialect.terminator:
        yield dialect.terminator
