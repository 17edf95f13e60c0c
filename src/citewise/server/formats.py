"""Wire formats over HTTP (issue 7): a run rendered in a dialect, streamed or final.

The run manager hands out a run's durable frames (``Frame``, or ``None`` for "send a
heartbeat"); :func:`render_stream` feeds them one at a time to the dialect's push encoder
(no helper thread, no buffering) and writes its SSE frames, ending with the dialect's
terminator (``data: [DONE]`` for OpenAI). :func:`render_final` is the non-streaming
answer. The compatibility routes (``/v1/chat/completions``, ``/v1/models``, TrustGraph's
``/api/v1/flow/{flow}/service/agent``) use them through :func:`respond_in`, A2A's
JSON-RPC endpoint (``/a2a``) calls them directly. This module knows no route: the app
factory registers the routers, which import it.

``?format=NAME`` on ``/v1/ask`` and ``/v1/runs`` is served by the runs routes; they can
call :func:`render_stream` / :func:`render_final` directly.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse, Response

from citewise.dialects import Dialect, final_of, get_dialect
from citewise.dialects.base import Obj
from citewise.errors import EmptyQuestion, InvalidInput, UsageError
from citewise.events import ErrorEvent, Event, RunFinished, RunPaused, event_adapter
from citewise.server.errors import ApiError
from citewise.server.manager import Frame, LiveRun
from citewise.server.run_options import RunOptions
from citewise.server.sse import HEARTBEAT, sse_response

if TYPE_CHECKING:

    from citewise.server.deps import AppState

__all__ = [
    "SSE_DOC",
    "check_request",
    "render_final",
    "render_stream",
    "respond_in",
    "run_headers",
    "seed_thread",
    "wait_terminal",
]

#: One Server-Sent Event of a dialect stream, for the OpenAPI document.
SSE_DOC: dict[str, Any] = {"schema": {
    "type": "object",
    "description": "One Server-Sent Event: `data` is one JSON object of the wire format "
                   "(or the literal `[DONE]` that ends an OpenAI stream).",
    "properties": {"data": {"type": "string"}},
    "required": ["data"],
}}

#: A failed run is answered 500, and OpenAI's SDKs retry a 5xx unless told not to: a retry
#: would run the agent (and its tools) again.
NO_RETRY = {"x-should-retry": "false"}


def _dialect(format: str | Dialect) -> Dialect:
    return get_dialect(format) if isinstance(format, str) else format


async def render_stream(format: str | Dialect,
                        frames: AsyncIterable[Frame | Event | None], *,
                        keep: Callable[[Obj], bool] | None = None) -> AsyncIterator[str]:
    """The SSE body of a run in ``format``: each event (a durable ``Frame`` or an
    ``Event``) is fed to the dialect's encoder as it arrives and its objects are written
    at once; ``None`` items become heartbeat comments. Stops reading when the dialect is
    done; then the dialect's terminator. ``keep`` may drop objects (OpenAI's usage chunk
    when the client did not ask for it)."""
    dialect = _dialect(format)
    encoder = dialect.encoder()
    try:
        async for item in frames:
            if item is None:
                yield HEARTBEAT
                continue
            event = event_adapter.validate_json(item.data) if isinstance(item, Frame) else item
            for obj in encoder.feed(event):
                if keep is None or keep(obj):
                    yield dialect.sse(obj)
            if encoder.done:
                break
        if dialect.terminator:
            yield dialect.terminator
    finally:
        # Done early, or the client went away: stop tailing the log now, not at GC.
        close = getattr(frames, "aclose", None)
        if close is not None:
            await close()


def render_final(format: str | Dialect, terminal: Event) -> Obj:
    """The non-streaming response of a run in ``format``, from its terminal event."""
    if not isinstance(terminal, RunFinished | RunPaused | ErrorEvent):
        raise TypeError(f"not a terminal event: {terminal.kind}")
    return final_of(_dialect(format), terminal)


async def wait_terminal(live: LiveRun) -> Event:
    """The run's terminal event, once it is durable (``run_lost`` 500 if it never is)."""
    terminal = await asyncio.shield(live.finished)
    if terminal is None:
        raise ApiError("the run stopped without a final event (its log could not be written)",
                       code="run_lost", status=500, details={"run_id": live.run_id},
                       headers=run_headers(live))
    return terminal


def run_headers(live: LiveRun) -> dict[str, str]:
    return {"X-Run-Id": live.run_id, "X-Thread-Id": live.thread_id,
            "Location": f"/v1/runs/{live.run_id}"}


def check_request(state: AppState, question: str,
                  output_schema: dict[str, Any] | None = None) -> None:
    """The run manager's refusals of a question (and output schema), made early: before a
    compatibility route writes a thread for a run that would then be refused."""
    if not question.strip():
        raise EmptyQuestion("the question is empty")
    limit = state.config.max_question_chars
    if len(question) > limit:
        raise InvalidInput(f"the question is longer than {limit} characters",
                           code="question_too_long", details={"max": limit})
    if output_schema is not None:
        from citewise.agent.structured import check_schema

        check_schema(output_schema)


async def seed_thread(state: AppState, tenant: str, turns: Sequence[tuple[str, str]],
                      title: str) -> str:
    """A new thread of ``tenant`` holding ``turns`` (question, answer) as its history —
    how a stateless client's conversation (OpenAI ``messages``, TrustGraph ``history``)
    becomes context the agent sees. Its turns' run ids are ``imported_N``."""
    from citewise.agent.runner import new_id
    from citewise.store.base import TurnRecord

    store = state.services.store
    thread_id = new_id("thread")

    def write() -> None:
        store.create_thread(tenant, thread_id, title=title[:80] or None)
        for i, (question, answer) in enumerate(turns, start=1):
            store.add_turn(tenant, TurnRecord(thread_id=thread_id, run_id=f"imported_{i}",
                                              question=question, answer=answer,
                                              created_at=datetime.now(UTC)))

    await asyncio.to_thread(write)
    return thread_id


async def respond_in(state: AppState, tenant: str, question: str, dialect: Dialect, *,
                     stream: bool, thread_id: str | None = None,
                     history: Sequence[tuple[str, str]] = (),
                     options: RunOptions | None = None,
                     keep: Callable[[Obj], bool] | None = None) -> Response:
    """Start a run and answer it in ``dialect``: its SSE stream, or (``stream`` false) its
    final object — status 200, or 500 when the run ended in an error (never retried).
    ``history`` (without ``thread_id``): earlier turns, seeded as a new thread for the run
    (see :func:`seed_thread`); a run refused at its start takes that thread with it."""
    seeded = None
    if history and thread_id is None:
        seeded = thread_id = await seed_thread(state, tenant, history, title=history[0][0])
    try:
        live = await state.manager.start(tenant, question, thread_id=thread_id,
                                         options=options)
    except BaseException:
        if seeded is not None:
            with contextlib.suppress(UsageError):  # thread_busy: a run took it after all
                await asyncio.to_thread(state.services.store.delete_thread, tenant, seeded)
        raise
    headers = run_headers(live)
    if stream:
        frames = await state.manager.open_tail(tenant, live.run_id, 0)
        return sse_response(render_stream(dialect, frames, keep=keep), headers=headers)
    terminal = await wait_terminal(live)
    body = render_final(dialect, terminal)
    if isinstance(terminal, ErrorEvent):
        return JSONResponse(body, status_code=500, headers={**headers, **NO_RETRY})
    return JSONResponse(body, headers=headers)
