"""``/v1/ask`` and ``/v1/runs``: start, stream, attach, resume, cancel, provenance."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Discriminator, Tag
from starlette.responses import StreamingResponse

from citewise.answer import Answer
from citewise.errors import InvalidInput
from citewise.server.agui_input import AgUiRunInput, run_agui
from citewise.server.ai_sdk_chat import UseChatRequest, start_chat
from citewise.server.deps import ERRORS, AppState, Caller, State
from citewise.server.formats import render_final, run_headers, wait_terminal
from citewise.server.manager import LiveRun
from citewise.server.run_extras import Extras, ExtrasQuery, dialect_for, merged
from citewise.server.run_options import RunOptions
from citewise.server.schemas import (
    AskRequest,
    CancelResult,
    ResumeRequest,
    RunInfo,
    RunRequest,
)
from citewise.server.sse import native_frames, sse_response
from citewise.store.base import decoded

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["runs"], responses=ERRORS)

RunId = Annotated[str, Path(min_length=1, max_length=128, description="Run id.")]
#: The largest seq a client may name: what an ``INTEGER`` column holds on PostgreSQL
#: (SQLite's hold more). A larger one was sent to the database and cut the stream with
#: ``NumericValueOutOfRange``; now it is a 422 before anything is read.
MAX_SEQ = 2**31 - 1
#: The dialects of ``citewise.dialects`` (a test keeps this list equal to its registry).
FormatName = Literal["citewise", "trustgraph", "agentos", "agent-event", "conversation",
                     "answer", "ag-ui", "openai", "a2a", "ai-sdk"]
FormatQuery = Annotated[
    FormatName | None,
    Query(description="Wire format of the answer or stream (default `citewise`: our own "
          "events and Answer)."),
]

# One Server-Sent Event (as OpenAPI 3.2 describes sequential media types, and FastAPI's
# own SSE support documents them).
_SSE_DOC = {"schema": {
    "type": "object",
    "description": "One Server-Sent Event. Native format: `id` is the event's seq and `data` "
                   "the event JSON (`citewise.events`, discriminated on `kind`).",
    "properties": {
        "data": {"type": "string", "contentMediaType": "application/json"},
        "event": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    },
    "required": ["data"],
}}
_STREAM_OR_JSON: dict[int | str, dict[str, Any]] = {
    200: {"description": "The RunInfo (JSON; with `?format=`, that format's final response), "
                         "or an SSE stream when asked for",
          "content": {"application/json": {"schema": {"anyOf": [
              {"$ref": "#/components/schemas/RunInfo"},
              {"type": "object", "description": "`?format=` other than citewise: that "
               "format's final response"}]}},
              "text/event-stream": _SSE_DOC}},
}


def _dialect(name: str | None) -> Any:
    """None for the native format, else the dialect."""
    if name is None or name == "citewise":
        return None
    from citewise.dialects import get_dialect

    return get_dialect(name)


def _wants_sse(request: Request, stream: bool) -> bool:
    return stream or "text/event-stream" in request.headers.get("accept", "")


def _options(body: AskRequest, extras: Extras | None = None) -> RunOptions:
    more = merged(body, extras or Extras())  # persona, audio, image (seed 001)
    return RunOptions(strict=body.strict, max_steps=body.max_steps,
                      output_schema=body.output_schema, persona=more.persona,
                      audio=more.audio, image=more.image)


def _events_url(run_id: str) -> str:
    return f"/v1/runs/{run_id}/events"


async def _stream(state: AppState, tenant: str, run_id: str, after: int, dialect: Any,
                  headers: dict[str, str] | None = None) -> StreamingResponse:
    if dialect is None:
        batches = await state.manager.open_batches(tenant, run_id, after)
        body = native_frames(batches, state.config.sse_retry_ms)
    else:
        from citewise.server.formats import render_stream

        body = render_stream(dialect, await state.manager.open_tail(tenant, run_id, after))
        headers = {**(headers or {}), **getattr(dialect, "headers", {})}  # ai-sdk's protocol header
    return sse_response(body, headers=headers)


def live_info(live: LiveRun) -> RunInfo:
    terminal = live.terminal
    interrupts = list(getattr(terminal, "interrupts", None) or [])
    answer = getattr(terminal, "answer", None) if terminal is not None else None
    return RunInfo(run_id=live.run_id, thread_id=live.thread_id, status=live.status,  # type: ignore[arg-type]
                   question=live.question, last_seq=max(0, live.published_seq),
                   events_url=_events_url(live.run_id), created_at=live.created_at,
                   updated_at=live.updated_at, interrupts=interrupts, answer=answer)


async def _respond(request: Request, state: AppState, tenant: str, live: LiveRun, *,
                   stream: bool, background: bool, dialect: Any) -> Response:
    headers = run_headers(live)
    if background:
        # Answer once the run is in the store: the caller's next request may reach
        # another replica, which knows the run only from there.
        await live.durable()
        return JSONResponse(live_info(live).model_dump(mode="json"), status_code=202,
                            headers=headers)
    if _wants_sse(request, stream):
        after = live.first_seq - 1
        return await _stream(state, tenant, live.run_id, after, dialect, headers)
    terminal = await wait_terminal(live)
    if dialect is not None:  # the format's final response (seed 004: run() and resume())
        return JSONResponse(render_final(dialect, terminal), headers=headers)
    return JSONResponse(live_info(live).model_dump(mode="json"), headers=headers)


def _body_kind(body: Any) -> str:
    """Which request a body is, from the fields only it has — so that a bad citewise body
    is told what is wrong with it, not also every field AG-UI's would need (an empty
    ``question`` came back as "threadId, runId, messages missing")."""
    if not isinstance(body, dict):
        return "citewise"
    if "threadId" in body or "runId" in body:
        return "agui"
    return "ai_sdk" if "messages" in body else "citewise"


def _ask_kind(body: Any) -> str:
    return "agui" if _body_kind(body) == "ai_sdk" else _body_kind(body)  # no AI SDK here


AskBody = Annotated[Annotated[AskRequest, Tag("citewise")] | Annotated[AgUiRunInput, Tag("agui")],
                    Discriminator(_ask_kind)]
RunBody = Annotated[Annotated[RunRequest, Tag("citewise")] | Annotated[AgUiRunInput, Tag("agui")]
                    | Annotated[UseChatRequest, Tag("ai_sdk")], Discriminator(_body_kind)]


@router.post("/ask", response_model=None, summary="Ask one question",
             responses={200: {"description": "The Answer (JSON), the chosen format's final "
                              "response, or an SSE stream of events",
                              "content": {"application/json": {"schema": {"anyOf": [
                                  {"$ref": "#/components/schemas/Answer"},
                                  {"type": "object", "description": "`?format=` other than "
                                   "citewise: that format's final response"}]}},
                                  "text/event-stream": _SSE_DOC}}})
async def ask(body: AskBody, request: Request, state: State, who: Caller,
              extras: ExtrasQuery, format: FormatQuery = None) -> Response:
    """Run the agent on one question. JSON: the final Answer (or the dialect's final
    response); with `stream` or `Accept: text/event-stream`: every event as SSE. Also
    takes an AG-UI `RunAgentInput` (see `citewise.server.agui_input`)."""
    if isinstance(body, AgUiRunInput):
        return await run_agui(body, request, state, who.tenant, format, stream=False)
    options = _options(body, extras)
    dialect = dialect_for(_dialect(format), options.persona)
    live = await state.manager.start(who.tenant, body.question, thread_id=body.thread_id,
                                     options=options)
    if _wants_sse(request, body.stream):
        return await _stream(state, who.tenant, live.run_id, 0, dialect, run_headers(live))
    terminal = await wait_terminal(live)
    if dialect is not None:  # a run that failed is in the body, as in the native Answer
        return JSONResponse(render_final(dialect, terminal), headers=run_headers(live))
    from citewise.dialects.base import answer_of

    return JSONResponse(answer_of(terminal).model_dump(mode="json"),  # type: ignore[arg-type]
                        headers=run_headers(live))


@router.post("/runs", response_model=None, summary="Start an agent run",
             responses={**_STREAM_OR_JSON, 202: {"model": RunInfo,
                                                 "description": "Started in the background"}})
async def start_run(body: RunBody, request: Request,
                    state: State, who: Caller, extras: ExtrasQuery,
                    format: FormatQuery = None) -> Response:
    """Start a run. Streams its events (SSE) by default; `background: true` answers 202
    with the run id at once; `stream: false` waits and answers the RunInfo — or, with
    `?format=`, that format's final response. Also takes the body of a stock AI SDK
    `useChat` (`{id, messages, trigger}`: see `citewise.server.ai_sdk_chat`), streamed,
    and an AG-UI `RunAgentInput` (see `citewise.server.agui_input`)."""
    if isinstance(body, AgUiRunInput):
        return await run_agui(body, request, state, who.tenant, format)
    dialect = _dialect(format)
    if isinstance(body, UseChatRequest):
        live = await start_chat(state, who.tenant, body)
        return await _respond(request, state, who.tenant, live, stream=True, background=False,
                              dialect=dialect)
    options = _options(body, extras)
    live = await state.manager.start(who.tenant, body.question, thread_id=body.thread_id,
                                     options=options)
    dialect = dialect_for(dialect, options.persona)
    return await _respond(request, state, who.tenant, live, stream=body.stream,
                          background=body.background, dialect=dialect)


@router.get("/runs/{run_id}", response_model=RunInfo, summary="A run's status and answer")
async def get_run(run_id: RunId, state: State, who: Caller) -> RunInfo:
    live = state.manager.get_live(who.tenant, run_id)
    if live is not None and (not live.done or live.broken):
        return live_info(live)  # running here, or failed here with a log it could not write
    # Ended here, or driven elsewhere: once a run ended, another replica may have resumed
    # it, cancelled it or deleted its thread, so the store decides; this process's memory
    # (its terminal event, with the answer and error) is used while the two agree.
    record = await state.manager.record(who.tenant, run_id)
    if record is None:
        from citewise.errors import NotFound

        raise NotFound(f"unknown run {run_id!r}", code="unknown_run", details={"run_id": run_id})
    run_state = decoded(record.state) if record.state else {}
    if (live is not None and live.status == record.status
            and int(run_state.get("seq", 0) or 0) <= live.published_seq):
        return live_info(live)
    interrupts = run_state.get("interrupts") or [] if record.status == "paused" else []
    answer = None
    if record.answer is not None:
        try:
            answer = Answer.model_validate(record.answer)
        except ValueError:
            answer = None
    # The record's state is saved when the run starts, pauses and ends: a run going on in
    # another process, or one stopped from outside its loop (a cancel, a lost process: the
    # record only moved), has later events — the log says how far it got, and its
    # terminal event has the answer the record may lack.
    last_seq, logged = await asyncio.to_thread(
        _ending_of, state.manager.store, who.tenant, run_id, int(run_state.get("seq", 0) or 0))
    if answer is None and record.status in ("cancelled", "failed"):
        answer = logged
    return RunInfo(run_id=record.id, thread_id=record.thread_id, status=record.status,
                   question=record.question, last_seq=last_seq,
                   events_url=_events_url(record.id), created_at=record.created_at,
                   updated_at=record.updated_at, interrupts=interrupts, answer=answer)


def _ending_of(store: Any, tenant: str, run_id: str, after: int) -> tuple[int, Answer | None]:
    """The last seq of a run's log and the answer its terminal event carries."""
    last, answer = after, None
    while rows := store.read_events(tenant, run_id, after=last, limit=500):
        last = rows[-1].seq
        data = decoded(rows[-1].data)
        if isinstance(data.get("answer"), dict):
            try:
                answer = Answer.model_validate(data["answer"])
            except ValueError:
                answer = None
    return last, answer


# 0 … MAX_SEQ (2147483647) exactly, as the spec's pattern: "[0-9]{0,10}" let a client (and
# schemathesis) send 9096772354, which the spec allowed and the route refused. The spec
# says the range; the header's validation refuses what is no number (``validation_error``)
# and the route what is out of range (``invalid_last_event_id``), as before.
_SEQ_PATTERN = (r"^(?:[0-9]{0,9}|0[0-9]{9}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}"
                r"|214[0-6][0-9]{6}|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}"
                r"|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])$")


def _last_event_id(value: str | None) -> int:
    if value is None or not value.strip():
        return 0
    try:
        seq = int(value.strip())
    except ValueError:
        raise InvalidInput("Last-Event-ID must be an event seq (an integer)",
                           code="invalid_last_event_id") from None
    if not 0 <= seq <= MAX_SEQ:
        raise InvalidInput(f"Last-Event-ID must be a seq from 0 to {MAX_SEQ}",
                           code="invalid_last_event_id", details={"max": MAX_SEQ})
    return seq


@router.get("/runs/{run_id}/events", summary="Stream or replay a run's events (SSE)",
            response_class=StreamingResponse,
            responses={200: {"description": "SSE stream", "content": {"text/event-stream":
                                                                      _SSE_DOC}}})
async def run_events(
    run_id: RunId, state: State, who: Caller,
    after: Annotated[int | None, Query(ge=0, le=MAX_SEQ,
                                       description="Send events after this seq.")] = None,
    last_event_id: Annotated[str, Header(
        alias="Last-Event-ID", pattern=r"^[0-9]{0,10}$",
        json_schema_extra={"pattern": _SEQ_PATTERN},
        description="The seq of the last event received (sent by EventSource on reconnect).",
    )] = "",
    format: FormatQuery = None,
) -> StreamingResponse:
    """Every event after `Last-Event-ID` (or `?after=`), exactly once, live until the run
    ends or pauses; a finished run replays in full. Heartbeats are SSE comments."""
    dialect = _dialect(format)
    start = max(after or 0, _last_event_id(last_event_id))
    return await _stream(state, who.tenant, run_id, start, dialect, {"X-Run-Id": run_id})


@router.post("/runs/{run_id}/resume", response_model=None, summary="Resume a paused run",
             responses={**_STREAM_OR_JSON, 202: {"model": RunInfo,
                                                 "description": "Resumed in the background"},
                        409: {"model": ERRORS[400]["model"],
                              "description": "The run is not paused"}})
async def resume_run(run_id: RunId, body: ResumeRequest, request: Request, state: State,
                     who: Caller, format: FormatQuery = None) -> Response:
    """Continue a paused run with one decision per interrupt (approve, reject, edit, or an
    external result); streams the continuation like `POST /v1/runs`."""
    dialect = _dialect(format)
    live = await state.manager.resume(who.tenant, run_id, body.decisions)
    return await _respond(request, state, who.tenant, live, stream=body.stream,
                          background=body.background, dialect=dialect)


@router.post("/runs/{run_id}/cancel", response_model=CancelResult, summary="Cancel a run",
             responses={409: {"model": ERRORS[400]["model"], "description": "Already ended"}})
async def cancel_run(run_id: RunId, state: State, who: Caller) -> CancelResult:
    """Cancel a running or paused run: it ends with one terminal `error` event, code
    `run_cancelled`."""
    status = await state.manager.cancel(who.tenant, run_id)
    return CancelResult(run_id=run_id, status=status)  # type: ignore[arg-type]


_PROV_TYPES = {"turtle": "text/turtle", "json-ld": "application/ld+json",
               "trig": "application/trig", "nquads": "application/n-quads"}


@router.get("/runs/{run_id}/provenance", summary="A run's provenance (PROV-O)",
            response_class=Response,
            responses={200: {"description": "The run's explain triples",
                             "content": {t: {"schema": {"type": "string"}}
                                         for t in _PROV_TYPES.values()}}})
async def provenance(
    run_id: RunId, state: State, who: Caller,
    format: Annotated[Literal["turtle", "json-ld", "trig", "nquads"],
                      Query(description="RDF serialization.")] = "turtle",
) -> Response:
    """The run's explain events as RDF (Turtle, JSON-LD, TriG or N-Quads)."""
    from citewise.grounding.provenance import run_provenance

    text = await asyncio.to_thread(run_provenance, state.services.store, who.tenant, run_id,
                                   format)
    return Response(text, media_type=_PROV_TYPES[format])
