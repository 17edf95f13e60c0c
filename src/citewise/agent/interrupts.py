"""Human-in-the-loop: validating decisions against a paused run's interrupts."""

from __future__ import annotations

from datetime import UTC, datetime

from citewise.agent.state import Decision, RunState
from citewise.agent.tools import Toolset
from citewise.errors import UsageError

__all__ = ["apply_decisions"]


def apply_decisions(state: RunState, decisions: list[Decision], tools: Toolset) -> None:
    """Check ``decisions`` against ``state.interrupts`` and record them. Writes nothing else.

    Every interrupt needs exactly one decision; an unknown or expired interrupt id, or an
    edit whose new input does not validate, is refused with a stable code.
    """
    by_id = {i.id: i for i in state.interrupts}
    seen: set[str] = set()
    now = datetime.now(UTC)
    for d in decisions:
        interrupt = by_id.get(d.interrupt_id)
        if interrupt is None:
            raise UsageError(f"unknown interrupt {d.interrupt_id!r}", code="unknown_interrupt",
                             details={"interrupt_id": d.interrupt_id})
        if d.interrupt_id in seen:
            raise UsageError(f"interrupt {d.interrupt_id!r} decided twice",
                             code="duplicate_decision")
        seen.add(d.interrupt_id)
        if interrupt.expires_at is not None and interrupt.expires_at <= now:
            raise UsageError(f"interrupt {d.interrupt_id!r} expired at {interrupt.expires_at}",
                             code="interrupt_expired", details={"interrupt_id": d.interrupt_id})
        if d.action == "edit":
            tool = tools.get(interrupt.tool)
            if d.input is None or tool is None:
                raise UsageError("an edit decision needs `input`", code="invalid_decision")
            d.input = tool.validate(d.input)
    missing = sorted(set(by_id) - seen)
    if missing:
        raise UsageError(f"no decision for interrupt(s) {', '.join(missing)}",
                         code="missing_decision", details={"interrupt_ids": missing})
    state.decisions = decisions
