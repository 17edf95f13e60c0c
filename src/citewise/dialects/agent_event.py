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

from collections.abc import Iterable, Iterator, Sequence

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

__all__ = ["TERMINAL_TYPES", "AgentEventDialect"]

TERMINAL_TYPES = frozenset({"result", "error"})


def _paused(interrupts: Sequence[Interrupt]) -> Obj:
    pending = ", ".join(f"{i.tool} ({i.id})" for i in interrupts) or "a pending decision"
    return {"type": "error", "content": f"run paused: waiting for approval of {pending}"}


class AgentEventDialect(DataOnlySSE):
    name = "agent-event"

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        thought: list[str] = []
        for ev in events:
            if isinstance(ev, Thought):
                thought.append(ev.text)
                if ev.end_of_message:
                    text = "".join(thought)
                    thought = []
                    if text:
                        yield {"type": "thought", "content": text}
            elif isinstance(ev, Action):
                yield {"type": "action", "tool": ev.tool, "input": dumps(ev.input)}
            elif isinstance(ev, Observation):
                yield {"type": "observation", "content": ev.text}
            elif isinstance(ev, RunFinished):
                yield {"type": "result", "content": ev.answer.text}
                return
            elif isinstance(ev, RunPaused):
                yield _paused(ev.interrupts)
                return
            elif isinstance(ev, ErrorEvent):
                yield {"type": "error", "content": ev.message}
                return

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        if answer.status == "paused":
            return _paused(interrupts)
        if answer.error is not None:
            return {"type": "error", "content": answer.error.message}
        return {"type": "result", "content": answer.text}
