"""The guardrail seam: a guardrail is a :class:`~citewise.agent.hooks.RunHook` with a mode.

* ``warn`` — each finding becomes a ``warning`` event, streamed when it is found, and an
  entry in ``Answer.issues``; the run goes on.
* ``block`` — the first finding ends the run: :class:`GuardrailBlocked` (code
  ``guardrail_blocked``) becomes the run's one terminal ``error`` event.
* ``redact`` (only guardrails that can rewrite what they check, e.g. ``pii``) — the
  offending text is replaced, and a warning says so.

Findings are never exceptions thrown after text went out: a guardrail that may change or
withhold the answer sets ``buffers_answer`` and the loop then sends the answer only once,
after every ``on_answer`` hook ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from citewise.answer import Issue
from citewise.errors import ConfigError, RunFailure

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.agent.tools import ToolResult
    from citewise.answer import Answer
    from citewise.events import Event, Warning
    from citewise.models.base import ToolCall

__all__ = ["MODES", "Guardrail", "GuardrailBlocked"]

MODES = ("warn", "block", "redact")


class GuardrailBlocked(RunFailure):
    """A guardrail in ``block`` mode stopped the run; ``details`` name it and the finding."""

    code = "guardrail_blocked"


class Guardrail:
    """Base class: no-op hooks; subclasses override the points they check."""

    #: Registry name, also ``details["guardrail"]`` of every finding.
    name: ClassVar[str] = "guardrail"
    #: The modes this guardrail supports.
    modes: ClassVar[tuple[str, ...]] = ("warn", "block")

    def __init__(self, mode: str = "warn") -> None:
        if mode not in self.modes:
            raise ConfigError(
                f"guardrail {self.name!r} has no mode {mode!r} (one of: {', '.join(self.modes)})",
                code="invalid_guardrail_mode", details={"guardrail": self.name, "mode": mode})
        self.mode = mode

    @property
    def buffers_answer(self) -> bool:
        """True when this guardrail may rewrite or withhold the answer (read by the loop)."""
        return False

    # -- RunHook ------------------------------------------------------------------------
    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        return []

    def on_tool_result(self, state: RunState, call: ToolCall, result: ToolResult,
                       duration_ms: float, emit: Emitter) -> Sequence[Event]:
        return []

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        return []

    # -- for subclasses -------------------------------------------------------------------
    def flag(self, state: RunState, emit: Emitter, code: str, message: str,
             **details: Any) -> Warning:
        """Report one finding: raise in ``block`` mode, else a warning event + an issue."""
        info: dict[str, Any] = {"guardrail": self.name, "mode": self.mode, **details}
        if self.mode == "block":
            raise GuardrailBlocked(f"blocked by guardrail {self.name}: {message}",
                                   details={**info, "finding": code})
        state.issues.append(Issue(code=code, message=message, details=info))
        return emit.warning(code, message, **info)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(mode={self.mode!r})"
