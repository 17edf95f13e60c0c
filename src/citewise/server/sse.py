"""Server-Sent Events out of a run's durable log.

The native (``citewise``) stream is one frame per event: ``id: <seq>`` then
``data: <event JSON>``, so a client reconnecting with ``Last-Event-ID`` resumes exactly
after the last event it saw. The first frame sets the client's reconnection delay
(``retry:``); comment lines (``: ping``) keep proxies from closing a quiet stream.

Other dialects (``?format=NAME``) map the same events through their push encoders
(:mod:`citewise.server.formats`, the dialects' side of the service).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.responses import StreamingResponse

from citewise.server.manager import Frame

__all__ = ["HEARTBEAT", "SSE_HEADERS", "event_frame", "native_frames", "sse_response"]

HEARTBEAT = ": ping\n\n"
SSE_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # nginx: do not buffer the stream
}


def event_frame(frame: Frame) -> str:
    return f"id: {frame.seq}\ndata: {frame.data}\n\n"


async def native_frames(batches: AsyncIterator[list[Frame] | None],
                        retry_ms: int) -> AsyncIterator[str]:
    """The ``citewise`` dialect: events as they are, with ``id:``; the frames that became
    durable together go out in one write."""
    yield f"retry: {retry_ms}\n\n"
    async for batch in batches:
        yield HEARTBEAT if batch is None else "".join(map(event_frame, batch))


def sse_response(body: AsyncIterator[str], *, status: int = 200,
                 headers: dict[str, str] | None = None) -> StreamingResponse:
    return StreamingResponse(body, status_code=status, media_type="text/event-stream",
                             headers={**SSE_HEADERS, **(headers or {})})
