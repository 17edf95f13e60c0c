"""``ag-ui``: the AG-UI protocol's events (camelCase, ``type``-discriminated, SSE ``data:``).

* run start → ``RUN_STARTED`` ``{threadId, runId}``;
* each agent step → ``STEP_STARTED`` / ``STEP_FINISHED`` ``{stepName: "step-N"}``; the
  answer is streamed inside a last step named ``"answer"``;
* thought deltas → ``REASONING_START``, ``REASONING_MESSAGE_START`` (role ``reasoning``),
  ``REASONING_MESSAGE_CONTENT``, ``REASONING_MESSAGE_END``, ``REASONING_END``;
* a tool call → ``TOOL_CALL_START`` ``{toolCallId, toolCallName}``, one ``TOOL_CALL_ARGS``
  with the arguments as JSON text, ``TOOL_CALL_END``; its result → ``TOOL_CALL_RESULT``
  ``{messageId: "<toolCallId>:result", toolCallId, content, role: "tool"}``;
* answer deltas → ``TEXT_MESSAGE_START`` (role ``assistant``), ``TEXT_MESSAGE_CONTENT``
  ``{messageId, delta}``, ``TEXT_MESSAGE_END``;
* citations, explain events and warnings → ``CUSTOM`` events named ``citewise.citation``,
  ``citewise.explain`` and ``citewise.warning`` whose ``value`` is citewise's own JSON;
* the end → ``RUN_FINISHED`` with ``result`` (the citewise Answer JSON), ``usage`` (one
  TokenUsage per model; a resumed run's stream counts only the model calls made after the
  resume, as AG-UI asks — ``final`` alone cannot tell them apart and counts the whole
  run's) and ``outcome``: ``success``; ``interrupt`` for a paused run (one
  AG-UI Interrupt per pending call: ``id``, ``reason``, ``toolCallId``, ``responseSchema``,
  ``expiresAt``, ``metadata: {tool, input}``); ``cancelled`` for a cancelled run. A failed
  run ends with ``RUN_ERROR`` ``{message, code}``.

**Front-end tools** (a tool the client executes: an external tool, such as the ``tools`` of
an AG-UI ``RunAgentInput``): a run paused only on calls to such tools is, in AG-UI, a run
that *completed* leaving tool calls for the application — its stream has their
``TOOL_CALL_START`` / ``TOOL_CALL_ARGS`` / ``TOOL_CALL_END`` and ends with outcome
``success`` and ``pendingToolCallIds``, so that a stock client answers them with ``tool``
messages in its next input (an ``interrupt`` outcome would make it demand a ``resume``
instead). A resumed run announces its calls as it makes them, those too: the AG-UI route
(:mod:`citewise.server.agui_input`) leaves out the ones its client answered itself.

A resumed run keeps its citewise run id (a resume continues the run), so its
``RUN_STARTED`` repeats the interrupted run's ``runId``.

Open messages and steps are closed before ``RUN_FINISHED``. Timestamps are milliseconds
since the epoch. ``final`` is the terminal event alone (``RUN_FINISHED`` / ``RUN_ERROR``).
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.answer import Answer, Usage
from citewise.dialects.base import DataOnlySSE, Obj, answer_of, dumps, iso, millis
from citewise.events import (
    Action,
    AnswerDelta,
    Citation,
    ErrorEvent,
    Event,
    Explain,
    Interrupt,
    Observation,
    RunFinished,
    RunPaused,
    RunStarted,
    Thought,
    Warning,
    now,
)

__all__ = ["AgUiDialect", "AgUiEncoder", "client_side"]


def _usage(usage: Usage, after_step: int | None = None) -> list[Obj]:
    by_model: dict[str, Obj] = {}
    for step in usage.steps:
        if after_step is not None and step.step <= after_step:
            continue  # the interrupted run's model call (AG-UI: not this run's usage)
        row = by_model.setdefault(step.model, {"provider": "citewise", "model": step.model,
                                               "inputTokens": 0, "outputTokens": 0,
                                               "totalTokens": 0})
        row["inputTokens"] += step.input_tokens
        row["outputTokens"] += step.output_tokens
        row["totalTokens"] += step.input_tokens + step.output_tokens
    return list(by_model.values())


def _interrupt(i: Interrupt) -> Obj:
    out: Obj = {"id": i.id, "reason": i.reason or f"{i.tool} requires approval",
                "toolCallId": i.call_id, "responseSchema": i.response_schema,
                "metadata": {"tool": i.tool, "input": i.input}}
    if i.expires_at is not None:
        out["expiresAt"] = iso(i.expires_at)
    return out


def client_side(interrupt: Interrupt) -> bool:
    """Whether the interrupt waits for a tool the host executes (only a result or a
    rejection answers it, as its decision schema says)."""
    props = interrupt.response_schema.get("properties")
    action = props.get("action") if isinstance(props, dict) else None
    return isinstance(action, dict) and action.get("enum") == ["result", "reject"]


def _front_end_calls(interrupts: Sequence[Interrupt], ts: int) -> list[Obj]:
    out: list[Obj] = []
    for i in interrupts:
        out.append({"type": "TOOL_CALL_START", "timestamp": ts, "toolCallId": i.call_id,
                    "toolCallName": i.tool})
        out.append({"type": "TOOL_CALL_ARGS", "timestamp": ts, "toolCallId": i.call_id,
                    "delta": dumps(i.input)})
        out.append({"type": "TOOL_CALL_END", "timestamp": ts, "toolCallId": i.call_id})
    return out


def _terminal(answer: Answer, interrupts: Sequence[Interrupt], ts: int,
              resumed_step: int | None = None) -> Obj:
    if answer.status == "cancelled":
        outcome: Obj | None = {"type": "cancelled"}
    elif answer.error is not None:
        return {"type": "RUN_ERROR", "timestamp": ts, "message": answer.error.message,
                "code": answer.error.code}
    elif answer.status == "paused" and interrupts and all(map(client_side, interrupts)):
        outcome = {"type": "success", "pendingToolCallIds": [i.call_id for i in interrupts]}
    elif answer.status == "paused":
        # AG-UI requires at least one interrupt; a pause without any reports no outcome.
        outcome = ({"type": "interrupt", "interrupts": [_interrupt(i) for i in interrupts]}
                   if interrupts else None)
    else:
        outcome = {"type": "success"}
    out: Obj = {"type": "RUN_FINISHED", "timestamp": ts, "threadId": answer.thread_id,
                "runId": answer.run_id, "result": answer.model_dump(mode="json")}
    usage = _usage(answer.usage, resumed_step)
    if usage:
        out["usage"] = usage
    if outcome is not None:
        out["outcome"] = outcome
    return out


def _closes_a_closed(ev: Thought | AnswerDelta, reasoning: str | None,
                     text: str | None) -> bool:
    """An empty end-of-message for a message no longer open: reopening it would start the
    same message id twice."""
    is_open = reasoning if isinstance(ev, Thought) else text
    return ev.end_of_message and not ev.text and is_open != ev.message_id


class AgUiEncoder:
    """Tracks the open step, reasoning message and assistant message, so each is closed
    exactly once; done after ``RUN_FINISHED`` / ``RUN_ERROR``."""

    def __init__(self) -> None:
        self.done = False
        self._step: str | None = None  # the open step
        self._reasoning: str | None = None  # the open reasoning message
        self._text: str | None = None  # the open assistant message
        # A resumed run: the step whose calls it resumes (its model call was the
        # interrupted run's), known from the first event that names a step.
        self._resumed = False
        self._resumed_step: int | None = None

    def _close(self, ts: int) -> list[Obj]:
        out: list[Obj] = []
        if self._reasoning is not None:
            out.append({"type": "REASONING_MESSAGE_END", "timestamp": ts,
                        "messageId": self._reasoning})
            out.append({"type": "REASONING_END", "timestamp": ts, "messageId": self._reasoning})
            self._reasoning = None
        if self._text is not None:
            out.append({"type": "TEXT_MESSAGE_END", "timestamp": ts, "messageId": self._text})
            self._text = None
        if self._step is not None:
            out.append({"type": "STEP_FINISHED", "timestamp": ts, "stepName": self._step})
            self._step = None
        return out

    def _enter(self, name: str, ts: int) -> list[Obj]:
        if self._step == name:
            return []
        out = self._close(ts)
        self._step = name
        out.append({"type": "STEP_STARTED", "timestamp": ts, "stepName": name})
        return out

    def feed(self, ev: Event) -> list[Obj]:
        if self.done:
            return []
        ts = millis(ev.ts)
        out: list[Obj] = []
        if self._resumed and self._resumed_step is None and isinstance(
                ev, Thought | Action | Observation):
            self._resumed_step = ev.step
        if isinstance(ev, RunStarted):
            self._resumed = ev.resumed
            out.append({"type": "RUN_STARTED", "timestamp": ts, "threadId": ev.thread_id,
                        "runId": ev.run_id})
        elif isinstance(ev, Thought | AnswerDelta) and _closes_a_closed(ev, self._reasoning,
                                                                      self._text):
            pass  # (a log written before the loop closed reasoning before the answer)
        elif isinstance(ev, Thought):
            out += self._enter(f"step-{ev.step}", ts)
            if self._reasoning != ev.message_id:
                self._reasoning = ev.message_id
                out.append({"type": "REASONING_START", "timestamp": ts,
                            "messageId": ev.message_id})
                out.append({"type": "REASONING_MESSAGE_START", "timestamp": ts,
                            "messageId": ev.message_id, "role": "reasoning"})
            if ev.text:
                out.append({"type": "REASONING_MESSAGE_CONTENT", "timestamp": ts,
                            "messageId": ev.message_id, "delta": ev.text})
            if ev.end_of_message:
                out.append({"type": "REASONING_MESSAGE_END", "timestamp": ts,
                            "messageId": ev.message_id})
                out.append({"type": "REASONING_END", "timestamp": ts, "messageId": ev.message_id})
                self._reasoning = None
        elif isinstance(ev, Action):
            out += self._enter(f"step-{ev.step}", ts)
            out.append({"type": "TOOL_CALL_START", "timestamp": ts, "toolCallId": ev.call_id,
                        "toolCallName": ev.tool})
            out.append({"type": "TOOL_CALL_ARGS", "timestamp": ts, "toolCallId": ev.call_id,
                        "delta": dumps(ev.input)})
            out.append({"type": "TOOL_CALL_END", "timestamp": ts, "toolCallId": ev.call_id})
        elif isinstance(ev, Observation):
            out += self._enter(f"step-{ev.step}", ts)
            out.append({"type": "TOOL_CALL_RESULT", "timestamp": ts,
                        "messageId": f"{ev.call_id}:result", "toolCallId": ev.call_id,
                        "content": ev.text, "role": "tool"})
        elif isinstance(ev, AnswerDelta):
            out += self._enter("answer", ts)
            if self._text != ev.message_id:
                self._text = ev.message_id
                out.append({"type": "TEXT_MESSAGE_START", "timestamp": ts,
                            "messageId": ev.message_id, "role": "assistant"})
            if ev.text:
                out.append({"type": "TEXT_MESSAGE_CONTENT", "timestamp": ts,
                            "messageId": ev.message_id, "delta": ev.text})
            if ev.end_of_message:
                out.append({"type": "TEXT_MESSAGE_END", "timestamp": ts,
                            "messageId": ev.message_id})
                self._text = None
        elif isinstance(ev, Citation):
            out.append({"type": "CUSTOM", "timestamp": ts, "name": "citewise.citation",
                        "value": {**ev.citation.model_dump(mode="json"), "source": ev.source}})
        elif isinstance(ev, Explain):
            out.append({"type": "CUSTOM", "timestamp": ts, "name": "citewise.explain",
                        "value": {"explain_id": ev.explain_id, "graph": ev.graph,
                                  "triples": ev.triples.dump(exclude_none=True)}})
        elif isinstance(ev, Warning):
            out.append({"type": "CUSTOM", "timestamp": ts, "name": "citewise.warning",
                        "value": {"code": ev.code, "message": ev.message,
                                  "details": ev.details}})
        elif isinstance(ev, RunFinished | RunPaused | ErrorEvent):
            self.done = True
            interrupts = ev.interrupts if isinstance(ev, RunPaused) else []
            terminal = _terminal(answer_of(ev), interrupts, ts, self._resumed_step)
            if terminal["type"] == "RUN_FINISHED":
                out += self._close(ts)
                if "pendingToolCallIds" in terminal.get("outcome", {}):
                    out += _front_end_calls(interrupts, ts)
            out.append(terminal)
        return out


class AgUiDialect(DataOnlySSE):
    name = "ag-ui"

    def encoder(self) -> AgUiEncoder:
        return AgUiEncoder()

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        return _terminal(answer, interrupts, millis(now()))
