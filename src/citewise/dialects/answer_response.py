"""``answer``: seed 004's gateway response (``TGatewayResponse``, discriminated on ``kind``).

``kind: "ANSWER"`` is the seed's ``IAnswerResponse``:

* ``threadId``, ``text`` (with ``[N]`` markers), ``structured`` (only with an output schema);
* ``citations``: the ids of *every chunk given to the model*, as strings — not the ones
  the answer rests on (those are the ``citations`` of the ``conversation`` dialect);
* ``issues``: the run's warnings as ``IIssue`` ``{severity: "WARNING", code, message,
  details}`` — the seed's "WARNING issues of the call": informational issues (e.g.
  ``verification_unavailable``) stay in the citewise answer, not here;
* ``usage``: ``IUsage`` ``{inputTokens, outputTokens, totalTokens}`` summed over the steps;
* ``endedByTool`` only when a tool ended the run; ``debug`` (``{requests}``) only when the
  run was asked for a transcript.

The seed names only the ANSWER member of the union; citewise adds two, documented here and
in ``schemas/dialects/answer.schema.json``:

* ``kind: "INTERRUPT"`` — a paused run: ``threadId``, ``runId``, ``text`` (empty or partial),
  ``interrupts: [{id, toolCallId, tool, input, reason, responseSchema, expiresAt}]``,
  ``citations``, ``issues``, ``usage``; resume with the interrupt ids.
* ``kind: "ERROR"`` — a failed or cancelled run: ``threadId``, ``runId``,
  ``error: {code, message, details}``, ``issues``, ``usage``.

The seed is a response, not a stream: ``stream`` yields exactly one object, built from the
run's terminal event.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.answer import Answer, Issue, Usage
from citewise.dialects.base import DataOnlySSE, Obj, answer_of, iso
from citewise.events import ErrorEvent, Event, Interrupt, RunFinished, RunPaused

__all__ = ["AnswerDialect", "AnswerEncoder"]


def _issue(issue: Issue) -> Obj:
    return {"severity": issue.severity.upper(), "code": issue.code, "message": issue.message,
            "details": issue.details}


def _usage(usage: Usage) -> Obj:
    return {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens,
            "totalTokens": usage.total_tokens}


def _interrupt(i: Interrupt) -> Obj:
    out: Obj = {"id": i.id, "toolCallId": i.call_id, "tool": i.tool, "input": i.input,
                "reason": i.reason, "responseSchema": i.response_schema}
    if i.expires_at is not None:
        out["expiresAt"] = iso(i.expires_at)
    return out


class AnswerEncoder:
    """A response, not a stream: nothing until the terminal event, then the one response."""

    def __init__(self, dialect: AnswerDialect) -> None:
        self._dialect = dialect
        self.done = False

    def feed(self, ev: Event) -> list[Obj]:
        if self.done or not isinstance(ev, RunFinished | RunPaused | ErrorEvent):
            return []
        self.done = True
        interrupts = ev.interrupts if isinstance(ev, RunPaused) else []
        return [self._dialect.final(answer_of(ev), interrupts=interrupts)]


class AnswerDialect(DataOnlySSE):
    name = "answer"

    def encoder(self) -> AnswerEncoder:
        return AnswerEncoder(self)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        issues = [_issue(i) for i in answer.issues if i.severity == "warning"]
        usage = _usage(answer.usage)
        chunk_ids = [str(c) for c in answer.context_chunk_ids]
        if answer.status == "paused":
            return {"kind": "INTERRUPT", "threadId": answer.thread_id, "runId": answer.run_id,
                    "text": answer.text, "interrupts": [_interrupt(i) for i in interrupts],
                    "citations": chunk_ids, "issues": issues, "usage": usage}
        if answer.error is not None:
            return {"kind": "ERROR", "threadId": answer.thread_id, "runId": answer.run_id,
                    "error": answer.error.model_dump(mode="json"), "issues": issues,
                    "usage": usage}
        out: Obj = {"kind": "ANSWER", "threadId": answer.thread_id, "text": answer.text}
        if answer.structured is not None:
            out["structured"] = answer.structured
        out.update(citations=chunk_ids, issues=issues, usage=usage)
        if answer.ended_by_tool:
            out["endedByTool"] = answer.ended_by_tool
        if answer.debug is not None:
            out["debug"] = answer.debug.model_dump(mode="json")
        return out
