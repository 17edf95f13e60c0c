"""Observers of a run that may add events: provenance, guardrails, verification.

A hook sees the state at three points and returns events made with the emitter it is
given (so ``seq`` stays monotonic). Hooks do no I/O of their own: the loop stays pure.
A hook may raise :class:`~citewise.errors.RunFailure` to block the run (a guardrail in
``block`` mode).

Two optional attributes change what the loop sends while a hook is on: ``buffers_answer``
(true: the answer is held back and sent once, after every ``on_answer``) and ``scrub``
(a ``str -> str`` function, or None: the model's reasoning — thoughts, and text beside
tool calls — goes through it before it is streamed, traced or stored, and thoughts are
then sent once per model call instead of delta by delta).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.agent.tools import ToolResult
    from citewise.answer import Answer
    from citewise.events import Event
    from citewise.models.base import ToolCall

__all__ = ["RunHook", "scrubber"]


class RunHook(Protocol):
    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        """Before the first model call (also on resume)."""
        ...

    def on_tool_result(
        self,
        state: RunState,
        call: ToolCall,
        result: ToolResult,
        duration_ms: float,
        emit: Emitter,
    ) -> Sequence[Event]:
        """After each tool call, before the model sees the observation."""
        ...

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        """After the answer is assembled and verified; may edit ``answer`` in place."""
        ...


def scrubber(hooks: Sequence[RunHook]) -> Callable[[str], str] | None:
    """The hooks' ``scrub`` functions applied in order, or None when no hook has one."""
    fns: list[Callable[[str], str]] = [
        f for h in hooks if (f := getattr(h, "scrub", None)) is not None]
    if not fns:
        return None

    def scrub(text: str) -> str:
        for f in fns:
            text = f(text)
        return text

    return scrub
