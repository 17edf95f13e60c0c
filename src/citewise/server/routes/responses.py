"""OpenAI Responses API: ``POST /v1/responses`` and ``GET /v1/responses/{id}`` (issue 26).

Why beside chat completions: the Responses API is the one OpenAI's SDKs give citations
(``file_citation`` annotations) and server-side tool items, so ``client.responses.create``
and ``client.responses.stream`` show the agent's sources and steps unchanged (the mapping
is :mod:`citewise.dialects.openai_responses`).

* ``model``: ``citewise`` or ``citewise-strict`` (as for chat completions);
* ``input``: a string (the question) or a list of message items; the last must be the
  user's and is the question, earlier ``user``/``assistant`` messages become the history of
  a new thread (other item types are ignored: the agent runs its own tools);
* ``previous_response_id`` (``resp_<run id>``) continues that run's thread, as does
  ``conversation`` (a thread id, or ``{"id": …}``); earlier input messages are then ignored;
* a paused run's response lists ``mcp_approval_request`` items; the client answers as
  OpenAI's MCP approvals do — ``previous_response_id`` and ``input`` items
  ``{"type": "mcp_approval_response", "approval_request_id": …, "approve": …}`` (one per
  request; ``reason`` is what the model is told of a refusal) — and the run resumes:
  the same response id, its continuation streamed or answered like any other;
* ``stream: true`` answers the Responses event stream; a failed run is status 500 with
  ``{"error": …}`` (``x-should-retry: false``), or a ``response.failed`` event;
* the ``citewise`` request extension (``extra_body=``) takes ``strict``, ``max_steps``,
  ``output_schema``, ``thread_id``; ``instructions``, ``tools``, ``temperature``… are
  accepted and ignored (citewise's own instructions keep answers grounded).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from citewise.dialects.openai_responses import ResponsesDialect
from citewise.errors import InvalidInput, NotFound
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.formats import SSE_DOC, check_request, respond_in
from citewise.server.routes.chat import CitewiseOptions, _strict_of
from citewise.server.run_options import RunOptions

__all__ = ["ResponsesRequest", "router"]

router = APIRouter(prefix="/v1", tags=["openai"], responses=ERRORS)

_PREFIX = "resp_"


class InputPart(BaseModel):
    """One content part of an input message; text parts are understood."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str = Field(max_length=64, description="`input_text` or `output_text`.")
    text: str | None = Field(default=None, description="The text of a text part.")


class InputItem(BaseModel):
    """One input item; only messages (``role`` + ``content``) are read."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str | None = Field(default=None, max_length=64,
                             description="`message` (or absent), or `mcp_approval_response`.")
    approval_request_id: str | None = Field(default=None, max_length=256, description=(
        "`mcp_approval_response`: the approval request (an interrupt id) it answers."))
    approve: bool | None = Field(default=None,
                                 description="`mcp_approval_response`: run the call or not.")
    reason: str | None = Field(default=None, max_length=4000,
                               description="`mcp_approval_response`: why not (the model sees it).")
    role: Literal["user", "assistant", "system", "developer"] | None = Field(
        default=None, description="Who wrote it; the last message is the user's question.")
    content: str | list[InputPart] | None = Field(default=None, description="Text or parts.")


class ConversationRef(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    id: str = Field(min_length=1, max_length=128, description="A thread id.")


class ResponsesRequest(BaseModel):
    """OpenAI's ``responses.create`` body (other parameters are accepted and ignored)."""

    model_config = ConfigDict(extra="allow", strict=True)

    model: str = Field(default="citewise", min_length=1, max_length=128,
                       description="`citewise` or `citewise-strict`.")
    input: (Annotated[str, Field(min_length=1, max_length=1_000_000, pattern=r"\S")]
            | Annotated[list[InputItem], Field(min_length=1, max_length=1000)]) = Field(
        description="The question, or messages ending with the user's question.")
    stream: bool = Field(default=False, description="Answer with the Responses event stream.")
    previous_response_id: str | None = Field(
        default=None, min_length=1, max_length=140, description="Continue that response's thread.")
    conversation: str | ConversationRef | None = Field(
        default=None, description="Continue this thread (a citewise thread id).")
    citewise: CitewiseOptions | None = Field(default=None,
                                             description="citewise's request extension.")


def _text(item: InputItem) -> str:
    if item.content is None:
        return ""
    if isinstance(item.content, str):
        return item.content
    texts = []
    for part in item.content:
        if part.type not in ("input_text", "output_text", "text") or part.text is None:
            raise InvalidInput(f"content parts of type {part.type!r} are not supported "
                               "(only text)", code="unsupported_content",
                               details={"type": part.type})
        texts.append(part.text)
    return "\n".join(texts)


def _question_and_history(body: ResponsesRequest) -> tuple[str, list[tuple[str, str]]]:
    if isinstance(body.input, str):
        return body.input, []
    messages = [m for m in body.input if m.role is not None and m.type in (None, "message")]
    if not messages or messages[-1].role != "user":
        raise InvalidInput("the last input message must be the user's question",
                           code="invalid_messages")
    turns: list[tuple[str, str]] = []
    for m in messages[:-1]:
        if m.role == "user":
            turns.append((_text(m), ""))
        elif m.role == "assistant" and turns:
            q, a = turns[-1]
            turns[-1] = (q, f"{a}\n\n{_text(m)}" if a else _text(m))
    return _text(messages[-1]), turns


async def _thread_of(state: Any, tenant: str, body: ResponsesRequest) -> str | None:
    ext = body.citewise or CitewiseOptions()
    if ext.thread_id is not None:
        return ext.thread_id
    if body.conversation is not None:
        return body.conversation if isinstance(body.conversation, str) else body.conversation.id
    if body.previous_response_id is None:
        return None
    ref = body.previous_response_id
    run_id = ref[len(_PREFIX):] if ref.startswith(_PREFIX) else ref
    record = await state.manager.record(tenant, run_id)
    if record is None:
        raise NotFound(f"previous response {ref!r} not found",
                       code="unknown_previous_response", details={"id": ref})
    return str(record.thread_id)


@router.post("/responses", summary="A response by the agent (OpenAI Responses API)",
             responses={200: {"description": "A `response`, or its SSE event stream",
                              "content": {"application/json": {"schema": {"type": "object"}},
                                          "text/event-stream": SSE_DOC}}})
async def create_response(body: ResponsesRequest, request: Request, state: State,
                          who: Caller) -> Response:
    """Ask the agent through OpenAI's Responses API (see the module notes)."""
    strict = _strict_of(body.model)
    approvals = [i for i in body.input if i.type == "mcp_approval_response"
                 ] if isinstance(body.input, list) else []
    if approvals:
        return await _resume(body, approvals, request, state, who.tenant)
    ext = body.citewise or CitewiseOptions()
    question, turns = _question_and_history(body)
    check_request(state, question, ext.output_schema)  # before a thread is written
    thread_id = await _thread_of(state, who.tenant, body)
    options = RunOptions(strict=strict if ext.strict is None else ext.strict,
                         max_steps=ext.max_steps, output_schema=ext.output_schema)
    wants_sse = body.stream or "text/event-stream" in request.headers.get("accept", "")
    return await respond_in(state, who.tenant, question, ResponsesDialect(model=body.model),
                            stream=wants_sse, thread_id=thread_id,
                            history=turns if thread_id is None else (), options=options)


async def _resume(body: ResponsesRequest, approvals: list[InputItem], request: Request,
                  state: Any, tenant: str) -> Response:
    """Resume the paused run of ``previous_response_id`` with the approvals' decisions."""
    from citewise.agent.state import Decision
    from citewise.server.formats import NO_RETRY, render_final, render_stream, run_headers, wait_terminal
    from citewise.server.sse import sse_response

    ref = body.previous_response_id
    if ref is None:
        raise InvalidInput("an mcp_approval_response needs the previous_response_id it answers",
                           code="invalid_messages")
    decisions = []
    for item in approvals:
        if item.approval_request_id is None or item.approve is None:
            raise InvalidInput("an mcp_approval_response needs approval_request_id and approve",
                               code="invalid_messages")
        decisions.append(Decision(interrupt_id=item.approval_request_id,
                                  action="approve" if item.approve else "reject",
                                  message=None if item.approve else item.reason))
    run_id = ref[len(_PREFIX):] if ref.startswith(_PREFIX) else ref
    live = await state.manager.resume(tenant, run_id, decisions)
    dialect = ResponsesDialect(model=body.model)
    headers = run_headers(live)
    if body.stream or "text/event-stream" in request.headers.get("accept", ""):
        frames = await state.manager.open_tail(tenant, run_id, live.first_seq - 1)
        return sse_response(render_stream(dialect, frames), headers=headers)
    terminal = await wait_terminal(live)
    failed = terminal.kind == "error"
    return JSONResponse(render_final(dialect, terminal), status_code=500 if failed else 200,
                        headers={**headers, **(NO_RETRY if failed else {})})


@router.get("/responses/{response_id}", summary="A response by id (OpenAI Responses API)",
            responses={200: {"description": "The `response` of a finished or paused run",
                             "content": {"application/json": {"schema": {"type": "object"}}}}})
async def get_response(
    response_id: Annotated[str, Path(min_length=1, max_length=140, description="`resp_<run id>`.")],
    state: State, who: Caller,
) -> Response:
    """The run's response once it ended (a running run: 409 `response_in_progress`)."""
    from citewise.answer import Answer
    from citewise.events import Interrupt
    from citewise.store.base import decoded

    run_id = response_id[len(_PREFIX):] if response_id.startswith(_PREFIX) else response_id
    record = await state.manager.record(who.tenant, run_id)
    if record is None:
        raise NotFound(f"response {response_id!r} not found", code="unknown_response",
                       details={"id": response_id})
    if record.answer is None:
        from citewise.errors import UsageError

        raise UsageError(f"response {response_id!r} has no answer yet",
                         code="response_in_progress", details={"status": record.status})
    answer = await asyncio.to_thread(Answer.model_validate, record.answer)
    run_state = decoded(record.state) if record.state else {}
    interrupts = [Interrupt.model_validate(i) for i in run_state.get("interrupts") or []
                  ] if record.status == "paused" else []
    body = ResponsesDialect().final(answer, interrupts=interrupts)
    return JSONResponse(body, status_code=500 if answer.error is not None else 200)
