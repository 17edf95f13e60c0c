"""``agent-event``: the ``AgentEvent`` enum of seed 002, exactly as serde serialises it.

Only five shapes exist and nothing else is ever emitted::

    {"type":"thought","content":"…"}          one per complete thought (deltas buffered)
    {"type":"action","tool":"…","input":"…"}  input = the arguments as a compact JSON string
    {"type":"observation","content":"…"}
    {"type":"result","content":"…"}          terminal: the verified answer text
    {"type":"error","content":"…"}            terminal: the failure message

The enum has no pause: a paused run ends with an ``error`` whose content starts with
``run paused:`` and names the pending approvals. Answer deltas, citations, warnings and
explain events have no variant and are dropped. SSE frames are ``data: {json}\\n\\n``.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.answer import Answer
from citewise.dialects.base import DataOnlySSE, Obj, dumps
from citewise.events import (
    Action,
    ErrorEvent,
    Event,
    Interrupt,
    Observation,
    RunFinished,
    RunPaused,
    Thought,
)

__all__ = ["TERMINAL_TYPES", "AgentEventDialect", "AgentEventEncoder"]

TERMINAL_TYPES = frozenset({"result", "error"})


def _paused(interrupts: Sequence[Interrupt]) -> Obj:
    pending = ", ".join(f"{i.tool} ({i.id})" for i in interrupts) or "a pending decision"
    return {"type": "error", "content": f"run paused: waiting for approval of {pending}"}


class AgentEventEncoder:
    """Buffers thought deltas into one ``thought``; done after ``result`` / ``error``."""

    def __init__(self) -> None:
        self.done = False
        self._thought: list[str] = []

    def feed(self, ev: Event) -> list[Obj]:
        if self.done:
            return []
        if isinstance(ev, Thought):
            self._thought.append(ev.text)
            if ev.end_of_message:
                text = "".join(self._thought)
                self._thought = []
                if text:
                    return [{"type": "thought", "content": text}]
            return []
        if isinstance(ev, Action):
            return [{"type": "action", "tool": ev.tool, "input": dumps(ev.input)}]
        if isinstance(ev, Observation):
            return [{"type": "observation", "content": ev.text}]
        if isinstance(ev, RunFinished):
            self.done = True
            return [{"type": "result", "content": ev.answer.text}]
        if isinstance(ev, RunPaused):
            self.done = True
            return [_paused(ev.interrupts)]
        if isinstance(ev, ErrorEvent):
            self.done = True
            return [{"type": "error", "content": ev.message}]
        return []  # answer deltas, citations, warnings, explain: no variant


class AgentEventDialect(DataOnlySSE):
    name = "agent-event"

    def encoder(self) -> AgentEventEncoder:
        return AgentEventEncoder()

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        if answer.status == "paused":
            return _paused(interrupts)
        if answer.error is not None:
            return {"type": "error", "content": answer.error.message}
        return {"type": "result", "content": answer.text}
