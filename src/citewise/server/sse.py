"""Server-Sent Events out of a run's durable log.

The native (``citewise``) stream is one frame per event: ``id: <seq>`` then
``data: <event JSON>``, so a client reconnecting with ``Last-Event-ID`` resumes exactly
after the last event it saw. The first frame sets the client's reconnection delay
(``retry:``); comment lines (``: ping``) keep proxies from closing a quiet stream.

Other dialects (``?format=NAME``) map the same events through their serialiser; their
``dialect.stream`` is a synchronous generator that may hold state between events, so it
runs in a helper thread fed one event at a time (see :func:`dialect_frames`).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from starlette.responses import StreamingResponse

from citewise.server.manager import Frame

if TYPE_CHECKING:
    from citewise.dialects.base import Dialect
    from citewise.events import Event

__all__ = ["HEARTBEAT", "SSE_HEADERS", "dialect_frames", "event_frame", "native_frames",
           "sse_response"]

HEARTBEAT = ": ping\n\n"
SSE_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # nginx: do not buffer the stream
}


def event_frame(frame: Frame) -> str:
    return f"id: {frame.seq}\ndata: {frame.data}\n\n"


async def native_frames(frames: AsyncIterator[Frame | None], retry_ms: int) -> AsyncIterator[str]:
    """The ``citewise`` dialect: events as they are, with ``id:``."""
    yield f"retry: {retry_ms}\n\n"
    async for frame in frames:
        yield HEARTBEAT if frame is None else event_frame(frame)


_END = object()


async def dialect_frames(frames: AsyncIterator[Frame | None],
                         dialect: Dialect) -> AsyncIterator[str]:
    """Any other dialect: its objects as SSE frames, then its terminator."""
    from citewise.events import event_adapter

    loop = asyncio.get_running_loop()
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    out: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def post(item: tuple[str, Any]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody reads any more
            loop.call_soon_threadsafe(out.put_nowait, item)

    def events() -> Iterator[Event]:
        while True:
            item = inbox.get()
            if item is _END:
                return
            yield item

    def work() -> None:
        try:
            for obj in dialect.stream(events()):
                post(("frame", dialect.sse(obj)))
            if dialect.terminator:
                post(("frame", dialect.terminator))
            post(("end", None))
        except BaseException as exc:
            post(("error", exc))

    async def pump() -> None:
        try:
            async for frame in frames:
                if frame is None:
                    out.put_nowait(("frame", HEARTBEAT))
                else:
                    inbox.put(event_adapter.validate_json(frame.data))
        finally:
            inbox.put(_END)

    thread = threading.Thread(target=work, name=f"citewise-dialect-{dialect.name}", daemon=True)
    thread.start()
    feeder = asyncio.create_task(pump())
    try:
        while True:
            kind, value = await out.get()
            if kind == "frame":
                yield value
            elif kind == "end":
                break
            else:
                raise value
    finally:
        feeder.cancel()
        with contextlib.suppress(BaseException):
            await feeder
        inbox.put(_END)


def sse_response(body: AsyncIterator[str], *, status: int = 200,
                 headers: dict[str, str] | None = None) -> StreamingResponse:
    return StreamingResponse(body, status_code=status, media_type="text/event-stream",
                             headers={**SSE_HEADERS, **(headers or {})})
