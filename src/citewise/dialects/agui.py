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
  TokenUsage per model) and ``outcome``: ``success``; ``interrupt`` for a paused run (one
  AG-UI Interrupt per pending call: ``id``, ``reason``, ``toolCallId``, ``responseSchema``,
  ``expiresAt``, ``metadata: {tool, input}``); ``cancelled`` for a cancelled run. A failed
  run ends with ``RUN_ERROR`` ``{message, code}``.

Open messages and steps are closed before ``RUN_FINISHED``. Timestamps are milliseconds
since the epoch. ``final`` is the terminal event alone (``RUN_FINISHED`` / ``RUN_ERROR``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

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

__all__ = ["AgUiDialect"]


def _usage(usage: Usage) -> list[Obj]:
    by_model: dict[str, Obj] = {}
    for step in usage.steps:
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


def _terminal(answer: Answer, interrupts: Sequence[Interrupt], ts: int) -> Obj:
    if answer.status == "cancelled":
        outcome: Obj | None = {"type": "cancelled"}
    elif answer.error is not None:
        return {"type": "RUN_ERROR", "timestamp": ts, "message": answer.error.message,
                "code": answer.error.code}
    elif answer.status == "paused":
        # AG-UI requires at least one interrupt; a pause without any reports no outcome.
        outcome = ({"type": "interrupt", "interrupts": [_interrupt(i) for i in interrupts]}
                   if interrupts else None)
    else:
        outcome = {"type": "success"}
    out: Obj = {"type": "RUN_FINISHED", "timestamp": ts, "threadId": answer.thread_id,
                "runId": answer.run_id, "result": answer.model_dump(mode="json")}
    usage = _usage(answer.usage)
    if usage:
        out["usage"] = usage
    if outcome is not None:
        out["outcome"] = outcome
    return out


class AgUiDialect(DataOnlySSE):
    name = "ag-ui"

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        step: str | None = None  # the open step
        reasoning: str | None = None  # the open reasoning message
        text: str | None = None  # the open assistant message

        def close(ts: int) -> Iterator[Obj]:
            nonlocal step, reasoning, text
            if reasoning is not None:
                yield {"type": "REASONING_MESSAGE_END", "timestamp": ts, "messageId": reasoning}
                yield {"type": "REASONING_END", "timestamp": ts, "messageId": reasoning}
                reasoning = None
            if text is not None:
                yield {"type": "TEXT_MESSAGE_END", "timestamp": ts, "messageId": text}
                text = None
            if step is not None:
                yield {"type": "STEP_FINISHED", "timestamp": ts, "stepName": step}
                step = None

        def enter(name: str, ts: int) -> Iterator[Obj]:
            nonlocal step
            if step != name:
                yield from close(ts)
                step = name
                yield {"type": "STEP_STARTED", "timestamp": ts, "stepName": name}

        for ev in events:
            ts = millis(ev.ts)
            if isinstance(ev, RunStarted):
                yield {"type": "RUN_STARTED", "timestamp": ts, "threadId": ev.thread_id,
                       "runId": ev.run_id}
            elif isinstance(ev, Thought):
                yield from enter(f"step-{ev.step}", ts)
                if reasoning != ev.message_id:
                    reasoning = ev.message_id
                    yield {"type": "REASONING_START", "timestamp": ts, "messageId": reasoning}
                    yield {"type": "REASONING_MESSAGE_START", "timestamp": ts,
                           "messageId": reasoning, "role": "reasoning"}
                if ev.text:
                    yield {"type": "REASONING_MESSAGE_CONTENT", "timestamp": ts,
                           "messageId": reasoning, "delta": ev.text}
                if ev.end_of_message:
                    yield {"type": "REASONING_MESSAGE_END", "timestamp": ts, "messageId": reasoning}
                    yield {"type": "REASONING_END", "timestamp": ts, "messageId": reasoning}
                    reasoning = None
            elif isinstance(ev, Action):
                yield from enter(f"step-{ev.step}", ts)
                yield {"type": "TOOL_CALL_START", "timestamp": ts, "toolCallId": ev.call_id,
                       "toolCallName": ev.tool}
                yield {"type": "TOOL_CALL_ARGS", "timestamp": ts, "toolCallId": ev.call_id,
                       "delta": dumps(ev.input)}
                yield {"type": "TOOL_CALL_END", "timestamp": ts, "toolCallId": ev.call_id}
            elif isinstance(ev, Observation):
                yield from enter(f"step-{ev.step}", ts)
                yield {"type": "TOOL_CALL_RESULT", "timestamp": ts,
                       "messageId": f"{ev.call_id}:result", "toolCallId": ev.call_id,
                       "content": ev.text, "role": "tool"}
            elif isinstance(ev, AnswerDelta):
                yield from enter("answer", ts)
                if text != ev.message_id:
                    text = ev.message_id
                    yield {"type": "TEXT_MESSAGE_START", "timestamp": ts, "messageId": text,
                           "role": "assistant"}
                if ev.text:
                    yield {"type": "TEXT_MESSAGE_CONTENT", "timestamp": ts, "messageId": text,
                           "delta": ev.text}
                if ev.end_of_message:
                    yield {"type": "TEXT_MESSAGE_END", "timestamp": ts, "messageId": text}
                    text = None
            elif isinstance(ev, Citation):
                yield {"type": "CUSTOM", "timestamp": ts, "name": "citewise.citation",
                       "value": {**ev.citation.model_dump(mode="json"), "source": ev.source}}
            elif isinstance(ev, Explain):
                yield {"type": "CUSTOM", "timestamp": ts, "name": "citewise.explain",
                       "value": {"explain_id": ev.explain_id, "graph": ev.graph,
                                 "triples": [t.model_dump(mode="json", exclude_none=True)
                                             for t in ev.triples]}}
            elif isinstance(ev, Warning):
                yield {"type": "CUSTOM", "timestamp": ts, "name": "citewise.warning",
                       "value": {"code": ev.code, "message": ev.message, "details": ev.details}}
            elif isinstance(ev, RunFinished | RunPaused | ErrorEvent):
                answer = answer_of(ev)
                terminal = _terminal(answer, ev.interrupts if isinstance(ev, RunPaused) else [],
                                     ts)
                if terminal["type"] == "RUN_FINISHED":
                    yield from close(ts)
                yield terminal
                return

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        return _terminal(answer, interrupts, millis(now()))
