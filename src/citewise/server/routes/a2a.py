"""A2A (Agent2Agent, protocol v1.0): the Agent Card and the JSON-RPC 2.0 endpoint.

An A2A client (the official ``a2a-sdk``'s ``ClientFactory.create_from_url(BASE_URL)``)
reads ``GET /.well-known/agent-card.json`` — name, version, skill, ``capabilities.streaming``
and the one interface: JSON-RPC at ``POST /a2a`` — then calls these methods there:

* ``SendMessage``: the text parts of the message are the question; a run starts and the
  reply is ``{task}`` once the run ended or paused (A2A's blocking default), or at once,
  still working, with ``configuration.returnImmediately``;
* ``SendStreamingMessage``: the same run as SSE, one JSON-RPC response per event of the
  ``a2a`` dialect (:mod:`citewise.dialects.a2a`: the Task, status updates, the answer
  artifact), ending with the task's terminal or ``input-required`` status;
* ``GetTask`` / ``CancelTask`` (the run's Task; cancelling a finished one is -32002) and
  ``SubscribeToTask`` (a running or paused run's events from its start);
* ``ListTasks``, push notification configs and the extended card are not offered (-32004,
  -32003).

A task is a run (task id = run id) and a context is a thread (``contextId`` = thread id): a
message with a ``contextId`` asks in that thread (a new one under that id if the caller
has none, as A2A asks agents to keep client-chosen context ids). A message with the
``taskId`` of a paused run (``TASK_STATE_INPUT_REQUIRED``) and a data part
``{"decisions": [...]}`` — citewise ``Decision`` objects, one per interrupt — resumes it.

Auth and tenants are the API's: the JSON-RPC endpoint takes the API key like every route;
the card is public and names the key schemes when keys are required. Errors: see
:mod:`citewise.server.a2a_rpc`; a missing ``A2A-Version`` header is taken as 1.0 (the SDK
sends it), any other major.minor is -32009. A notification (a request without ``id``) gets
no reply, as JSON-RPC 2.0 asks: an empty 204, the method not run.

Hostile bodies are answered as what they are, never as -32603 with a logged traceback: a
body that is not JSON or nests deeper than ``a2a_rpc.MAX_JSON_DEPTH`` is a parse error
(-32700), and one over ``max_body_bytes`` (chunked or not) is the API's ``413
payload_too_large``, an HTTP-level refusal like 401 and 429.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from pydantic import TypeAdapter, ValidationError

from citewise.answer import Answer
from citewise.dialects.a2a import A2ADialect, A2AEncoder, task_of, working_task
from citewise.dialects.base import DataOnlySSE, Obj, sse_frame
from citewise.errors import CitewiseError, UsageError
from citewise.events import Event, Interrupt
from citewise.server import a2a_rpc as rpc
from citewise.server.auth import Principal
from citewise.server.deps import ERRORS, AppState, Caller, State
from citewise.server.errors import status_of
from citewise.server.formats import SSE_DOC, check_request, render_final, render_stream, wait_terminal
from citewise.server.manager import LiveRun
from citewise.server.sse import sse_response

__all__ = ["CARD_PATH", "RPC_PATH", "router"]

log = logging.getLogger("citewise.server")
_M = TypeVar("_M", bound=rpc.Params)
router = APIRouter(tags=["a2a"])

CARD_PATH = "/.well-known/agent-card.json"
"""Where A2A clients look for the card (the SDK's ``AGENT_CARD_WELL_KNOWN_PATH``)."""
RPC_PATH = "/a2a"
DIALECT = A2ADialect()

SKILL = {
    "id": "grounded-answers", "name": "Grounded answers",
    "description": "Answer questions from your documents with verified citations.",
    "tags": ["question-answering", "retrieval", "citations"],
    "examples": ["What is our refund policy?", "Which documents mention the Berlin office?"],
    "inputModes": ["text/plain"], "outputModes": ["text/markdown", "application/json"],
}


def _security(required: bool) -> Obj:
    if not required:
        return {}
    return {
        "securitySchemes": {
            "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer",
                                                  "description": "A citewise API key."}},
            "apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key",
                                                "description": "A citewise API key."}},
        },
        "securityRequirements": [{"schemes": {"bearer": {"list": []}}},
                                 {"schemes": {"apiKey": {"list": []}}}],
    }


@router.get(CARD_PATH, response_model=None, summary="A2A Agent Card",
            responses={200: {"description": "The A2A Agent Card (protocol v1.0)",
                             "content": {"application/json": {"schema": {"type": "object"}}}}})
async def agent_card(request: Request, state: State) -> JSONResponse:
    """What the agent is, what it can do and where its JSON-RPC endpoint is (public)."""
    from citewise import __version__

    card: Obj = {
        "name": "citewise",
        "description": "A grounded agent: answers questions from your documents, with "
                       "character-exact, verified citations.",
        "supportedInterfaces": [{"url": str(request.url_for("a2a_rpc")),
                                 "protocolBinding": "JSONRPC",
                                 "protocolVersion": rpc.PROTOCOL_VERSION}],
        "version": __version__,
        "capabilities": {"streaming": True, "pushNotifications": False,
                         "extendedAgentCard": False},
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/markdown", "application/json"],
        "skills": [SKILL],
        **_security(state.auth.required),
    }
    return JSONResponse(card)


class _Enveloped(DataOnlySSE):
    """The ``a2a`` dialect with each object wrapped in the request's JSON-RPC response."""

    name = "a2a"

    def __init__(self, request_id: rpc.RequestId) -> None:
        self.request_id = request_id

    def encoder(self) -> A2AEncoder:
        return DIALECT.encoder()

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        return DIALECT.stream(events)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        return DIALECT.final(answer, interrupts=interrupts)

    def sse(self, obj: Obj) -> str:
        return sse_frame(rpc.result_body(self.request_id, obj))


class _Call:
    """One JSON-RPC call: who asks, with which id and params."""

    def __init__(self, state: AppState, who: Principal, request_id: rpc.RequestId,
                 params: dict[str, Any]) -> None:
        self.state, self.who, self.id, self.params = state, who, request_id, params

    def parse(self, model: type[_M]) -> _M:
        try:
            return model.model_validate(self.params)
        except ValidationError as exc:
            errors = [{"loc": ".".join(map(str, e["loc"])), "msg": e["msg"]}
                      for e in exc.errors()[:20]]
            raise rpc.RpcError(rpc.INVALID_PARAMS, "the params are not valid",
                               code="validation_error", details={"errors": errors}) from None

    def ok(self, result: Any) -> JSONResponse:
        return JSONResponse(rpc.result_body(self.id, result))

    async def stream(self, live: LiveRun, after: int) -> Response:
        frames = await self.state.manager.open_tail(self.who.tenant, live.run_id, after)
        return sse_response(render_stream(_Enveloped(self.id), frames),
                            headers={"X-Run-Id": live.run_id, "X-Thread-Id": live.thread_id})


# -- tasks ---------------------------------------------------------------------------------


async def _task(call: _Call, run_id: str) -> Obj:
    from citewise.server.routes.runs import get_run

    info = await get_run(run_id, call.state, call.who)
    if info.status == "running":
        return working_task(info.run_id, info.thread_id, info.question)
    answer = info.answer or Answer(run_id=info.run_id, thread_id=info.thread_id,
                                   status=info.status)
    if not answer.question:
        answer = answer.model_copy(update={"question": info.question})
    return task_of(answer, info.interrupts)


async def get_task(call: _Call) -> Response:
    return call.ok(await _task(call, call.parse(rpc.TaskParams).id))


async def cancel_task(call: _Call) -> Response:
    task_id = call.parse(rpc.TaskParams).id
    try:
        await call.state.manager.cancel(call.who.tenant, task_id)
    except UsageError as exc:
        if exc.code != "run_finished":
            raise
        raise rpc.RpcError(rpc.TASK_NOT_CANCELABLE, exc.message, code=exc.code,
                           details=exc.details) from None
    return call.ok(await _task(call, task_id))


async def subscribe(call: _Call) -> Response:
    task = await _task(call, call.parse(rpc.TaskParams).id)
    state = task["status"]["state"]
    if state not in ("TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"):
        raise rpc.RpcError(rpc.UNSUPPORTED_OPERATION, f"the task is over ({state})",
                           code="run_finished", details={"state": state})
    frames = await call.state.manager.open_tail(call.who.tenant, task["id"], 0)
    return sse_response(render_stream(_Enveloped(call.id), frames))


# -- messages ------------------------------------------------------------------------------

_DECISIONS: TypeAdapter[list[Any]] | None = None


def _decisions(raw: Any) -> list[Any]:
    global _DECISIONS
    from citewise.agent.state import Decision

    if _DECISIONS is None:
        _DECISIONS = TypeAdapter(list[Decision])
    try:
        return _DECISIONS.validate_python(raw)
    except ValidationError as exc:
        raise rpc.RpcError(rpc.INVALID_PARAMS, "the decisions are not valid",
                           code="invalid_decision",
                           details={"errors": [e["msg"] for e in exc.errors()[:20]]}) from None


def _content(message: rpc.Message) -> tuple[str, Any]:
    """The question (text parts, one per line) and the raw decisions (a data part's)."""
    texts: list[str] = []
    decisions: Any = None
    for part in message.parts:
        if part.url is not None or part.raw is not None:
            raise rpc.RpcError(rpc.CONTENT_TYPE_NOT_SUPPORTED,
                               "file parts are not supported: send the question as text",
                               code="unsupported_content",
                               details={"mediaType": part.media_type})
        if part.text is not None:
            texts.append(part.text)
        elif isinstance(part.data, dict) and "decisions" in part.data:
            decisions = part.data["decisions"]
    return "\n".join(texts), decisions


async def _resume(call: _Call, message: rpc.Message, raw: Any) -> LiveRun:
    from citewise.server.routes.runs import get_run

    info = await get_run(message.task_id, call.state, call.who)
    if message.context_id and message.context_id != info.thread_id:
        raise rpc.RpcError(rpc.INVALID_PARAMS, "the contextId is not the task's",
                           code="context_mismatch", details={"contextId": info.thread_id})
    if info.status != "paused":
        raise rpc.RpcError(rpc.UNSUPPORTED_OPERATION,
                           f"the task is {info.status}: only a task waiting for input "
                           "(paused) takes a reply; ask again with its contextId",
                           code="run_not_paused", details={"status": info.status})
    if raw is None:
        raise rpc.RpcError(rpc.INVALID_PARAMS,
                           'reply to a task waiting for input with a data part '
                           '{"decisions": [...]}, one decision per interrupt',
                           code="missing_decision")
    return await call.state.manager.resume(call.who.tenant, message.task_id, _decisions(raw))


async def _start(call: _Call, message: rpc.Message, question: str) -> LiveRun:
    state, tenant = call.state, call.who.tenant
    check_request(state, question)  # before a thread is written
    thread_id = message.context_id or None
    created = False
    if thread_id is not None:
        store = state.services.store
        if await asyncio.to_thread(store.get_thread, tenant, thread_id) is None:
            await asyncio.to_thread(store.create_thread, tenant, thread_id, question[:80])
            created = True
    try:
        return await state.manager.start(tenant, question, thread_id=thread_id)
    except BaseException:
        if created and thread_id is not None:
            await _forget(state, tenant, thread_id)
        raise


async def _forget(state: AppState, tenant: str, thread_id: str) -> None:
    """Delete the thread a refused start created — unless another request's run is on it
    by now (the same contextId): the delete goes through the thread claims for that."""
    manager = state.manager
    live = any(r.thread_id == thread_id for r in manager.active(tenant))
    try:
        with manager.threads.deleting(tenant, thread_id, live_run=live):
            await asyncio.to_thread(state.services.store.delete_thread, tenant, thread_id)
    except UsageError:  # thread_busy: it is someone else's thread now
        pass


async def _send(call: _Call, *, streaming: bool) -> Response:
    params = call.parse(rpc.SendParams)
    message = params.message
    question, decisions = _content(message)
    if message.task_id:
        live = await _resume(call, message, decisions)
    else:
        live = await _start(call, message, question)
    if streaming:
        return await call.stream(live, live.first_seq - 1)
    if params.configuration.return_immediately:
        return call.ok({"task": working_task(live.run_id, live.thread_id, live.question)})
    return call.ok(render_final(DIALECT, await wait_terminal(live)))


async def send_message(call: _Call) -> Response:
    return await _send(call, streaming=False)


async def send_streaming_message(call: _Call) -> Response:
    return await _send(call, streaming=True)


def _unsupported(rpc_code: int, what: str) -> Callable[[_Call], Awaitable[Response]]:
    async def refuse(call: _Call) -> Response:
        raise rpc.RpcError(rpc_code, f"{what} is not supported", code="unsupported_operation")

    return refuse


_PUSH = _unsupported(rpc.PUSH_NOT_SUPPORTED, "push notification")
METHODS: dict[str, Callable[[_Call], Awaitable[Response]]] = {
    "SendMessage": send_message,
    "SendStreamingMessage": send_streaming_message,
    "GetTask": get_task,
    "CancelTask": cancel_task,
    "SubscribeToTask": subscribe,
    "ListTasks": _unsupported(rpc.UNSUPPORTED_OPERATION, "ListTasks"),
    "GetExtendedAgentCard": _unsupported(rpc.UNSUPPORTED_OPERATION, "the extended card"),
    "CreateTaskPushNotificationConfig": _PUSH,
    "GetTaskPushNotificationConfig": _PUSH,
    "ListTaskPushNotificationConfigs": _PUSH,
    "DeleteTaskPushNotificationConfig": _PUSH,
}


# -- the endpoint --------------------------------------------------------------------------

_RPC_DOC: dict[str, Any] = {
    "requestBody": {"required": False, "content": {"application/json": {"schema": {
        "description": "A JSON-RPC 2.0 request: `{jsonrpc: \"2.0\", id, method, params}`; "
                       "methods: " + ", ".join(METHODS) + ". Anything else is answered "
                       "with a JSON-RPC error object."}}}},
}


@router.post(RPC_PATH, response_model=None, summary="A2A JSON-RPC 2.0 endpoint",
             openapi_extra=_RPC_DOC,
             responses={**ERRORS, 204: {"description": "A notification (no `id`): no reply"},
                        200: {
                 "description": "A JSON-RPC response object (a result or an error), or, for "
                                "SendStreamingMessage and SubscribeToTask, SSE whose `data` "
                                "are JSON-RPC responses",
                 "content": {"application/json": {"schema": {"type": "object"}},
                             "text/event-stream": SSE_DOC}}})
async def a2a_rpc(request: Request, state: State, who: Caller) -> Response:
    """Serve one A2A call (see the module notes)."""
    request_id: rpc.RequestId = None
    try:
        body = rpc.parse_body(await request.body())
        if isinstance(body, dict) and isinstance(body.get("id"), str | int) and not isinstance(
                body.get("id"), bool):
            request_id = body["id"]
        request_id, method, params = rpc.envelope(body)
        if "id" not in body:
            # A notification: JSON-RPC 2.0 forbids any reply, and every A2A method exists
            # for its reply, so it is acknowledged with an empty 204 and not run.
            return Response(status_code=204)
        rpc.check_version(request.headers.get("a2a-version", ""))
        handler = METHODS.get(method)
        if handler is None:
            raise rpc.RpcError(rpc.METHOD_NOT_FOUND, f"unknown method {method!r}",
                               code="method_not_found", details={"methods": list(METHODS)})
        return await handler(_Call(state, who, request_id, params))
    except rpc.RpcError as exc:
        return JSONResponse(rpc.error_body(request_id, exc))
    except HTTPException:
        raise  # the body limit's 413 (raised while reading): the app's handler answers it
    except CitewiseError as exc:
        status = status_of(exc)
        mapped = rpc.rpc_error_of(exc, status)
        if mapped is None:
            raise  # an HTTP-level refusal: the app's error handler answers it
        if status >= 500:
            log.error("A2A call failed: %s [%s]", exc.message, exc.code)
        return JSONResponse(rpc.error_body(request_id, mapped))
    except Exception:
        log.exception("A2A call crashed")
        return JSONResponse(rpc.error_body(request_id, rpc.RpcError(
            rpc.INTERNAL_ERROR, "internal error", code="internal_error")))

