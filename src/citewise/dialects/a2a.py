"""``a2a``: the Agent2Agent protocol's task objects (A2A v1.0, ProtoJSON: camelCase, enum names).

A run is one A2A ``Task``: its ``id`` is the citewise run id, its ``contextId`` the thread
id. Every stream object is one ``StreamResponse`` (exactly one of ``task``,
``statusUpdate``, ``artifactUpdate``), which is what A2A's HTTP+JSON binding sends as SSE
``data`` and what the JSON-RPC binding puts in each response's ``result``
(:mod:`citewise.server.routes.a2a` adds that envelope):

* run start → ``{task}`` in state ``TASK_STATE_WORKING``, its ``history`` the user's question
  (A2A: a task stream "MUST begin with the Task object");
* a thought (its deltas gathered into one message), a tool call, a tool result and a
  warning → ``{statusUpdate}`` still ``TASK_STATE_WORKING`` whose ``status.message`` is an
  agent message: a one-line text part and, except for thoughts, a data part holding the
  citewise event JSON; ``message.metadata.citewise.kind`` names the event;
* answer deltas → ``{artifactUpdate}`` chunks of the artifact ``answer`` (``append`` after
  the first); at the end the whole verified artifact replaces them (``append: false``,
  ``lastChunk: true``): a ``text/markdown`` text part (the answer with its ``[N]``
  markers) and an ``application/json`` data part (the citewise Answer JSON: citations,
  search documents, claims, usage). Verification may change the streamed text, so the
  replacement, not the chunks, is the answer;
* the end → ``{statusUpdate}`` in ``TASK_STATE_COMPLETED``; ``TASK_STATE_FAILED`` for a
  failed run and ``TASK_STATE_CANCELED`` for a cancelled one (message: the error text, and
  a data part ``{"error": {code, message, details}}``); ``TASK_STATE_INPUT_REQUIRED`` for a
  paused run (message: a data part ``{"interrupts": [...]}``, citewise's Interrupt JSON —
  answer with a message on the same task holding a data part ``{"decisions": [...]}``).

A2A v1.0 dropped v0.3's ``final`` flag: a stream is over when its task reaches a terminal
or interrupted state, which the last object always does. Citations and explain triples are
not streamed on their own: the citations are in the answer artifact, the provenance at
``/v1/runs/{id}/provenance``. ``final`` is a ``SendMessageResponse``: ``{task}`` with its
status, the answer artifact once completed, and the question as history.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from citewise.answer import Answer
from citewise.dialects.base import DataOnlySSE, Obj, answer_of, dumps, iso
from citewise.events import (
    Action,
    AnswerDelta,
    ErrorEvent,
    Event,
    Interrupt,
    Observation,
    RunFinished,
    RunPaused,
    RunStarted,
    Thought,
    Warning,
    now,
)

__all__ = ["ANSWER_ARTIFACT", "STATES", "A2ADialect", "A2AEncoder", "task_of", "working_task"]

ANSWER_ARTIFACT = "answer"
"""The artifact id of the answer (artifact ids are unique within their task)."""

WORKING = "TASK_STATE_WORKING"
STATES = {"running": WORKING, "completed": "TASK_STATE_COMPLETED",
          "failed": "TASK_STATE_FAILED", "cancelled": "TASK_STATE_CANCELED",
          "paused": "TASK_STATE_INPUT_REQUIRED"}
"""A2A's task state of each citewise run status."""


def _message(run_id: str, thread_id: str, message_id: str, parts: list[Obj], *,
             role: str = "ROLE_AGENT", kind: str | None = None) -> Obj:
    out: Obj = {"messageId": message_id, "contextId": thread_id, "taskId": run_id,
                "role": role, "parts": parts}
    if kind is not None:
        out["metadata"] = {"citewise": {"kind": kind}}
    return out


def _status(state: str, ts: datetime, message: Obj | None = None) -> Obj:
    out: Obj = {"state": state, "timestamp": iso(ts)}
    if message is not None:
        out["message"] = message
    return out


def _update(run_id: str, thread_id: str, status: Obj) -> Obj:
    return {"statusUpdate": {"taskId": run_id, "contextId": thread_id, "status": status}}


def _data(value: object) -> Obj:
    return {"data": value, "mediaType": "application/json"}


def _artifact(answer: Answer) -> Obj:
    return {"artifactId": ANSWER_ARTIFACT, "name": "answer",
            "description": "The answer with its verified citations.",
            "parts": [{"text": answer.text, "mediaType": "text/markdown"},
                      _data(answer.model_dump(mode="json"))]}


def _question(run_id: str, thread_id: str, question: str) -> list[Obj]:
    if not question:
        return []
    return [_message(run_id, thread_id, f"{run_id}:question", [{"text": question}],
                     role="ROLE_USER")]


def _interrupts_text(interrupts: Sequence[Interrupt]) -> str:
    asks = [f"{i.tool}({dumps(i.input)})" + (f": {i.reason}" if i.reason else "")
            for i in interrupts]
    return ("Waiting for a decision on: " + "; ".join(asks) + ". Reply on this task with a "
            'data part {"decisions": [...]}.') if asks else "Waiting for input."


def _state_of(answer: Answer) -> str:
    if answer.status == "completed" and answer.error is not None:
        return STATES["failed"]
    return STATES.get(answer.status, STATES["failed"])


def _outcome(answer: Answer, interrupts: Sequence[Interrupt]) -> Obj | None:
    """The status message of a run that did not simply complete."""
    state = _state_of(answer)
    if state == STATES["paused"]:
        parts = [{"text": _interrupts_text(interrupts)},
                 _data({"interrupts": [i.model_dump(mode="json") for i in interrupts]})]
        return _message(answer.run_id, answer.thread_id, f"{answer.run_id}:input-required",
                        parts, kind="run_paused")
    if state in (STATES["failed"], STATES["cancelled"]):
        error = answer.error
        body = error.model_dump(mode="json") if error is not None else {
            "code": "run_failed", "message": "the run failed", "details": {}}
        return _message(answer.run_id, answer.thread_id, f"{answer.run_id}:{answer.status}",
                        [{"text": body["message"]}, _data({"error": body})], kind="error")
    return None


def task_of(answer: Answer, interrupts: Sequence[Interrupt] = (), *,
            ts: datetime | None = None) -> Obj:
    """The A2A ``Task`` of a run that ended (or paused) with ``answer``."""
    state = _state_of(answer)
    task: Obj = {"id": answer.run_id, "contextId": answer.thread_id,
                 "status": _status(state, ts or now(), _outcome(answer, interrupts))}
    if state == STATES["completed"]:
        task["artifacts"] = [_artifact(answer)]
    history = _question(answer.run_id, answer.thread_id, answer.question)
    if history:
        task["history"] = history
    return task


def working_task(run_id: str, thread_id: str, question: str = "", *,
                 ts: datetime | None = None) -> Obj:
    """The A2A ``Task`` of a run still going on."""
    task: Obj = {"id": run_id, "contextId": thread_id, "status": _status(WORKING, ts or now())}
    history = _question(run_id, thread_id, question)
    if history:
        task["history"] = history
    return task


class A2AEncoder:
    """Gathers a thought's deltas into one status message and remembers whether the answer
    artifact was started (later chunks append); done after the terminal status."""

    def __init__(self) -> None:
        self.done = False
        self._thought: list[str] = []
        self._thought_id = ""
        self._thought_step = 0
        self._answer_started = False

    def _flush(self, ev: Event) -> list[Obj]:
        text, self._thought = "".join(self._thought), []
        if not text.strip():
            return []
        message = _message(ev.run_id, ev.thread_id, self._thought_id, [{"text": text}],
                           kind="thought")
        message["metadata"]["citewise"]["step"] = self._thought_step
        return [_update(ev.run_id, ev.thread_id, _status(WORKING, ev.ts, message))]

    def _progress(self, ev: Action | Observation | Warning, message_id: str,
                  text: str) -> Obj:
        message = _message(ev.run_id, ev.thread_id, message_id,
                           [{"text": text}, _data(ev.model_dump(mode="json"))], kind=ev.kind)
        return _update(ev.run_id, ev.thread_id, _status(WORKING, ev.ts, message))

    def feed(self, ev: Event) -> list[Obj]:
        if self.done:
            return []
        if isinstance(ev, Thought):
            # A new thought closes the one gathered so far.
            out = self._flush(ev) if ev.message_id != self._thought_id else []
            self._thought_id, self._thought_step = ev.message_id, ev.step
            self._thought.append(ev.text)
            return out + (self._flush(ev) if ev.end_of_message else [])
        out = self._flush(ev)
        if isinstance(ev, RunStarted):
            out.append({"task": working_task(ev.run_id, ev.thread_id, ev.question, ts=ev.ts)})
        elif isinstance(ev, Action):
            out.append(self._progress(ev, f"{ev.call_id}:action", f"Calling {ev.tool}"))
        elif isinstance(ev, Observation):
            verb = "failed" if ev.is_error else "returned"
            out.append(self._progress(ev, f"{ev.call_id}:observation", f"{ev.tool} {verb}"))
        elif isinstance(ev, Warning):
            out.append(self._progress(ev, f"{ev.run_id}:warning:{ev.seq}", ev.message))
        elif isinstance(ev, AnswerDelta) and ev.text:
            out.append({"artifactUpdate": {
                "taskId": ev.run_id, "contextId": ev.thread_id,
                "artifact": {"artifactId": ANSWER_ARTIFACT, "name": "answer",
                             "parts": [{"text": ev.text}]},
                "append": self._answer_started, "lastChunk": False}})
            self._answer_started = True
        elif isinstance(ev, RunFinished | RunPaused | ErrorEvent):
            self.done = True
            answer = answer_of(ev)
            interrupts = ev.interrupts if isinstance(ev, RunPaused) else []
            state = _state_of(answer)
            if state == STATES["completed"]:
                out.append({"artifactUpdate": {
                    "taskId": answer.run_id, "contextId": answer.thread_id,
                    "artifact": _artifact(answer), "append": False, "lastChunk": True}})
            out.append(_update(answer.run_id, answer.thread_id,
                               _status(state, ev.ts, _outcome(answer, interrupts))))
        return out


class A2ADialect(DataOnlySSE):
    name = "a2a"

    def encoder(self) -> A2AEncoder:
        return A2AEncoder()

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        return {"task": task_of(answer, interrupts)}
