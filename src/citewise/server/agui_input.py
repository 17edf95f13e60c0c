"""AG-UI's request, ``RunAgentInput``, on ``/v1/runs`` and ``/v1/ask`` (issue 26).

A stock AG-UI client (``@ag-ui/client``'s ``HttpAgent``, CopilotKit-style front ends) POSTs
``{threadId, runId, messages, tools, context, state, forwardedProps, resume?}`` and reads
AG-UI events back (``Accept: text/event-stream``). The runs routes take that body beside
citewise's own (it has ``threadId``, ``runId`` and ``messages``, which no other body
has), and answer it here, in AG-UI unless ``?format=`` names another.

* **A turn**: the last message is the user's; its text is the question. ``threadId`` is
  the citewise thread (the client mints it; threads are per tenant, so it cannot reach
  another tenant's): a thread citewise knows keeps its own history — the turns it stored
  — and one it does not is created with the earlier ``user`` / ``assistant`` messages as
  its history. ``runId`` is the client's; the run has citewise's own id (in
  ``RUN_STARTED``), as AG-UI allows.
* **Front-end tools**: every entry of ``tools`` is offered to the model as an *external*
  tool (citewise never runs it). A model that calls one pauses the run; the stream shows the
  call (``TOOL_CALL_*``) and ends with outcome ``success`` and ``pendingToolCallIds``
  (:mod:`citewise.dialects.agui`). A model that calls no tools simply answers.
* **The continuation**: the client's next input on that thread ends with ``tool`` messages
  (``toolCallId``, ``content``, maybe ``error``): they answer the paused run's calls as
  ``result`` decisions and the run resumes — same run id — without those calls being
  announced again. ``resume`` entries (AG-UI's interrupts: ``interruptId``, ``status``
  ``resolved`` / ``cancelled``, ``payload``) answer approval interrupts: ``cancelled``
  rejects, ``resolved`` approves — or, when ``payload`` is a citewise decision object
  (``{"action": "edit", "input": …}``), decides that.
* ``state`` round-trips: it is sent back as a ``STATE_SNAPSHOT`` right after
  ``RUN_STARTED`` (citewise's agent has no state of its own to change it with).
  ``context`` and ``forwardedProps`` are accepted and not used.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from citewise.agent.state import Decision
from citewise.dialects import Dialect, get_dialect
from citewise.errors import InvalidInput, UsageError
from citewise.events import event_adapter
from citewise.server.formats import render_final, run_headers, wait_terminal
from citewise.server.manager import LiveRun
from citewise.server.run_options import RunOptions
from citewise.server.sse import HEARTBEAT, sse_response

__all__ = ["AgUiMessage", "AgUiResume", "AgUiRunInput", "AgUiTool", "run_agui"]

_TOOL_EVENTS = {"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"}


class _Loose(BaseModel):
    # AG-UI's own schemas are loose objects: fields a newer client adds are not an error.
    model_config = ConfigDict(extra="allow")


class AgUiMessage(_Loose):
    """One AG-UI message (user, assistant, tool, system, developer, …)."""

    id: str = Field(max_length=256, description="Message id (the client's).")
    role: Literal["user", "assistant", "tool", "system", "developer", "activity",
                  "reasoning"] = Field(description="Who said it.")
    content: str | Annotated[list[dict[str, Any]], Field(max_length=100)] | None = Field(
        default=None, description="Text, or content parts (their `text` parts are read).")
    toolCallId: str | None = Field(default=None, max_length=256,
                                   description="For a `tool` message: the call it answers.")
    error: str | None = Field(default=None, description="For a `tool` message: it failed.")


class AgUiTool(_Loose):
    """A front-end tool: executed by the client, offered to the model."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="Tool name.")
    description: str = Field(max_length=10_000, description="What it does (for the model).")
    parameters: dict[str, Any] | None = Field(default=None,
                                              description="JSON Schema of its arguments.")


class AgUiResume(_Loose):
    """An answer to one interrupt of a paused run."""

    interruptId: str = Field(max_length=128, description="The interrupt answered.")
    status: Literal["resolved", "cancelled"] = Field(description="Resolved or cancelled.")
    payload: Any = Field(default=None, description="A citewise decision object, optionally.")


class AgUiRunInput(_Loose):
    """AG-UI's ``RunAgentInput``."""

    threadId: str = Field(min_length=1, max_length=128, pattern=r"^[^\x00]+$",
                          description="The citewise thread.")
    runId: str = Field(min_length=1, max_length=256, description="The client's run id.")
    parentRunId: str | None = Field(default=None, description="Accepted, not used.")
    state: Any = Field(default=None, description="Sent back as a STATE_SNAPSHOT.")
    messages: list[AgUiMessage] = Field(min_length=1, max_length=1000,
                                        description="The conversation; the last is the "
                                        "user's question, or `tool` results.")
    tools: list[AgUiTool] = Field(default_factory=list, max_length=128,
                                  description="Front-end tools, offered to the model.")
    context: list[dict[str, Any]] = Field(default_factory=list, max_length=100,
                                          description="Not used.")
    forwardedProps: Any = Field(default=None, description="Accepted, not used.")
    resume: list[AgUiResume] | None = Field(default=None, max_length=100,
                                            description="Answers to pending interrupts.")


def _text(message: AgUiMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = message.content or []
    return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


def _history(messages: list[AgUiMessage]) -> list[tuple[str, str]]:
    """(question, answer) turns from the earlier user / assistant messages."""
    turns: list[tuple[str, str]] = []
    for m in messages:
        if m.role == "user":
            turns.append((_text(m), ""))
        elif m.role == "assistant" and turns and not turns[-1][1]:
            turns[-1] = (turns[-1][0], _text(m))
    return [t for t in turns if t[0]]


def _tools(state: Any, tools: list[AgUiTool]) -> tuple[Any, ...]:
    from citewise.agent.tools import Tool

    taken = {"search_knowledge", *(t.name for t in state.services.tools
                                   if hasattr(t, "name"))}
    out = []
    for t in tools:
        if t.name in taken:
            raise InvalidInput(f"front-end tool {t.name!r}: the agent has a tool of that name",
                               code="tool_name_taken", details={"tool": t.name})
        taken.add(t.name)
        out.append(Tool.from_json_schema(t.name, t.description, t.parameters or {},
                                         external=True))
    return tuple(out)


async def _new_thread(state: Any, tenant: str, body: AgUiRunInput) -> bool:
    """Create ``threadId`` (with its history) unless it exists; True if it was created."""
    from citewise.store.base import TurnRecord

    store = state.services.store
    turns = _history(body.messages[:-1])

    def write() -> bool:
        if store.get_thread(tenant, body.threadId) is not None:
            return False
        title = (turns[0][0] if turns else _text(body.messages[-1]))[:80] or None
        store.create_thread(tenant, body.threadId, title=title)
        for i, (question, answer) in enumerate(turns, start=1):
            store.add_turn(tenant, TurnRecord(thread_id=body.threadId, run_id=f"imported_{i}",
                                              question=question, answer=answer,
                                              created_at=datetime.now(UTC)))
        return True

    created: bool = await asyncio.to_thread(write)
    return created


async def _start(state: Any, tenant: str, body: AgUiRunInput) -> LiveRun:
    last = body.messages[-1] if body.messages else None
    question = _text(last) if last is not None and last.role == "user" else ""
    if not question.strip():
        raise InvalidInput("the last message of the input must be the user's question (or "
                           "`tool` messages answering the thread's paused run)",
                           code="no_question")
    options = RunOptions(tools=_tools(state, body.tools))
    created = await _new_thread(state, tenant, body)
    try:
        live: LiveRun = await state.manager.start(tenant, question, thread_id=body.threadId,
                                                  options=options)
    except BaseException:
        if created:
            with contextlib.suppress(UsageError):
                await asyncio.to_thread(state.services.store.delete_thread, tenant,
                                        body.threadId)
        raise
    return live


def _answers(body: AgUiRunInput) -> tuple[dict[str, AgUiMessage], dict[str, AgUiResume]]:
    """The trailing ``tool`` messages by call id, and the ``resume`` entries by interrupt."""
    tools: dict[str, AgUiMessage] = {}
    for m in reversed(body.messages):
        if m.role != "tool":
            break
        if m.toolCallId:
            tools[m.toolCallId] = m
    return tools, {r.interruptId: r for r in body.resume or []}


def _decision(interrupt: dict[str, Any], tool: AgUiMessage | None,
              resume: AgUiResume | None) -> Decision | None:
    iid = str(interrupt.get("id"))
    if tool is not None:
        result: Any = _text(tool)
        if tool.error:
            result = f"Error: {tool.error}" + (f"\n{result}" if result else "")
        return Decision(interrupt_id=iid, action="result", result=result)
    if resume is None:
        return None
    if resume.status == "cancelled":
        return Decision(interrupt_id=iid, action="reject", message="cancelled by the user")
    if isinstance(resume.payload, dict) and "action" in resume.payload:
        return Decision.model_validate({**resume.payload, "interrupt_id": iid})
    return Decision(interrupt_id=iid, action="approve")


async def _continue(state: Any, tenant: str, body: AgUiRunInput) -> tuple[LiveRun, set[str]]:
    """Resume the thread's paused run that the input answers; the call ids it answered."""
    from citewise.store.base import decoded

    tools, resumes = _answers(body)
    runs = await asyncio.to_thread(state.services.store.list_runs, tenant,
                                   thread_id=body.threadId, limit=50)
    for record in runs:
        if record.status != "paused":
            continue
        interrupts = (decoded(record.state) if record.state else {}).get("interrupts") or []
        if not any(i.get("call_id") in tools or i.get("id") in resumes for i in interrupts):
            continue
        decisions = [d for i in interrupts
                     if (d := _decision(i, tools.get(i.get("call_id")), resumes.get(i.get("id"))))]
        live: LiveRun = await state.manager.resume(tenant, record.id, decisions)
        return live, {i["call_id"] for i in interrupts if i.get("call_id") in tools}
    raise UsageError("no paused run of this thread waits for these tool results",
                     code="nothing_to_resume",
                     details={"thread_id": body.threadId, "tool_call_ids": sorted(tools)})


async def _events(state: Any, tenant: str, live: LiveRun, dialect: Dialect,
                  body: AgUiRunInput, answered: set[str]) -> AsyncIterator[str]:
    """The run in ``dialect``; in AG-UI with the input's state and without the calls its
    client answered itself."""
    agui = dialect.name == "ag-ui"
    encoder = dialect.encoder()
    frames = await state.manager.open_tail(tenant, live.run_id, live.first_seq - 1)
    try:
        async for frame in frames:
            if frame is None:
                yield HEARTBEAT
                continue
            for obj in encoder.feed(event_adapter.validate_json(frame.data)):
                if agui and obj["type"] in _TOOL_EVENTS and obj.get("toolCallId") in answered:
                    continue
                yield dialect.sse(obj)
                if agui and obj["type"] == "RUN_STARTED" and body.state is not None:
                    yield dialect.sse({"type": "STATE_SNAPSHOT", "timestamp": obj["timestamp"],
                                       "snapshot": body.state})
            if encoder.done:
                break
        if dialect.terminator:
            yield dialect.terminator
    finally:
        await frames.aclose()


async def run_agui(body: AgUiRunInput, request: Request, state: Any, tenant: str,
                   format: str | None, *, stream: bool = True) -> Response:
    """Answer an AG-UI ``RunAgentInput`` (see the module notes): a new turn or the
    continuation of the thread's paused run, streamed unless the client asked for JSON."""
    dialect = get_dialect(format if format and format != "citewise" else "ag-ui")
    tools, resumes = _answers(body)
    if tools or resumes:
        live, answered = await _continue(state, tenant, body)
    else:
        live, answered = await _start(state, tenant, body), set()
    headers = run_headers(live)
    accept = request.headers.get("accept", "")
    if stream or "text/event-stream" in accept:
        return sse_response(_events(state, tenant, live, dialect, body, answered),
                            headers=headers)
    terminal = await wait_terminal(live)
    return JSONResponse(render_final(dialect, terminal), headers=headers)

