"""Human-in-the-loop: which calls pause a run, and validating the decisions
that resume it (cancelling a run is :mod:`citewise.agent.cancels`).

The loop (:mod:`citewise.agent.loop`) calls :func:`plan_interrupts` before it executes a
step and :func:`dynamic_interrupt` when a tool raises
:class:`~citewise.errors.ApprovalRequired`; the runner calls
:func:`load_for_resume`. Nothing here executes a tool.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from citewise.agent.context import RunContext
from citewise.agent.emitter import Emitter
from citewise.agent.state import Decision, RunSettings, RunState
from citewise.agent.tools import Tool, Toolset
from citewise.errors import InvalidInput, NotFound, UsageError
from citewise.events import Interrupt, RunPaused
from citewise.models.base import AssistantMessage, ToolCall, ToolMessage
from citewise.text import has_nul

if TYPE_CHECKING:
    from citewise.store.base import Store

log = logging.getLogger("citewise.agent")

__all__ = [
    "CLOSING_PROMPT",
    "ApprovalPolicy",
    "apply_decisions",
    "decision_schema",
    "dynamic_interrupt",
    "ended_by_tool",
    "is_approved",
    "load_for_resume",
    "pause_event",
    "plan_interrupts",
]

#: Decides per call whether it needs a human: truthy = pause (a string is the reason the
#: human is shown), falsy = run it. It runs on every call of every tool, e.g.
#: ``lambda call: call.arguments.get("amount", 0) > 100``.
ApprovalPolicy = Callable[[ToolCall], bool | str | None]

_APPROVED = "approved"  # key in RunContext.extra while an approved call runs


def is_approved(ctx: RunContext) -> bool:
    """True inside a call a human approved (or edited): a tool that raises
    :class:`~citewise.errors.ApprovalRequired` on its own checks this first."""
    return bool(ctx.extra.get(_APPROVED))


def set_approved(ctx: RunContext, decision: Decision | None) -> None:
    ctx.extra[_APPROVED] = decision is not None and decision.action in ("approve", "edit")


# -- pausing ---------------------------------------------------------------------------


def plan_interrupts(
    state: RunState, calls: Sequence[ToolCall], tools: Toolset, settings: RunSettings,
    policy: ApprovalPolicy | None = None,
) -> list[Interrupt]:
    """One interrupt per call of this step that needs a human, before any of them runs.

    A call whose arguments do not validate gets none: it fails as an observation anyway,
    and nobody should be asked to approve a call that cannot run.
    """
    out: list[Interrupt] = []
    for call in calls:
        t = tools.get(call.name)
        if t is None:
            continue
        reason = _needs_human(t, call, policy)
        if reason is None:
            continue
        try:
            t.validate(call.arguments)
        except InvalidInput:
            continue
        out.append(_interrupt(state, call, t, reason, settings))
    return out


def dynamic_interrupt(state: RunState, call: ToolCall, t: Tool, reason: str,
                      settings: RunSettings) -> Interrupt:
    """The interrupt for a tool that raised ``ApprovalRequired`` while it ran."""
    return _interrupt(state, call, t, reason or f"{t.name} asked for approval", settings)


def pause_event(state: RunState, emit: Emitter, interrupts: list[Interrupt],
                pending: Sequence[ToolCall]) -> RunPaused:
    """Record the pause in ``state`` and make the terminal ``run_paused`` event."""
    from citewise.grounding.assemble import assemble_answer

    state.interrupts = interrupts
    state.pending_calls = list(pending)
    state.decisions = []
    state.status = "paused"
    answer, _ = assemble_answer(state, "", settings=RunSettings(), ended_by_tool=None)
    answer.status = "paused"
    return emit(RunPaused, interrupts=list(interrupts), answer=answer)


def _needs_human(t: Tool, call: ToolCall, policy: ApprovalPolicy | None) -> str | None:
    if t.external:
        return f"{t.name} is executed by the host: answer with its result"
    if t.requires_approval:
        return f"{t.name} requires approval"
    if policy is None:
        return None
    try:
        verdict = policy(call)
    except Exception as exc:  # a broken policy must fail safe: ask the human
        return f"the approval policy failed ({type(exc).__name__}: {exc}); approval required"
    if isinstance(verdict, str):
        return verdict or None
    return f"the approval policy holds back this call to {t.name}" if verdict else None


def _interrupt(state: RunState, call: ToolCall, t: Tool, reason: str,
               settings: RunSettings) -> Interrupt:
    # Deterministic, URL- and CLI-safe (no ':'), unique per run, step and call.
    digest = hashlib.sha256(f"{state.run_id}/{state.step}/{call.id}".encode()).hexdigest()
    iid = f"int_{digest[:20]}"
    return Interrupt(
        id=iid, call_id=call.id, tool=t.name, input=call.arguments, reason=reason,
        response_schema=decision_schema(t, iid),
        expires_at=datetime.now(UTC) + timedelta(seconds=settings.interrupt_ttl_s),
    )


def decision_schema(t: Tool, interrupt_id: str | None = None) -> dict[str, Any]:
    """JSON Schema of an acceptable decision for a call to ``t``."""
    params = dict(t.spec().parameters)
    defs = params.pop("$defs", None)  # hoisted: "#/$defs/…" refs resolve from the root
    actions = ["result", "reject"] if t.external else ["approve", "reject", "edit", "result"]
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["action"],
        "properties": {
            "interrupt_id": {"const": interrupt_id} if interrupt_id else {"type": "string"},
            "action": {"enum": actions},
            "message": {"type": "string", "description": "reject: what the model is told"},
            "input": params,
            "result": {"description": "result: the output of the externally executed call"},
        },
    }
    if defs:
        schema["$defs"] = defs
    return schema


# -- run-ending tools ------------------------------------------------------------------

#: Asked of the model (not kept in the state) after an ``ends_run`` tool ran.
CLOSING_PROMPT = ("The tool {tool} has ended this conversation. Reply to the user with one "
                  "short closing sentence; do not call tools.")


def ended_by_tool(state: RunState, tools: Toolset) -> str | None:
    """The ``ends_run`` tool that ran without error in the step just executed, if any
    (a rejected or failed call does not end the run)."""
    failed: set[str] = set()
    for m in reversed(state.messages):
        if isinstance(m, ToolMessage):
            failed.update([m.call_id] if m.is_error else [])
        elif isinstance(m, AssistantMessage) and m.tool_calls:
            for call in m.tool_calls:
                t = tools.get(call.name)
                if t is not None and t.ends_run and call.id not in failed:
                    return t.name
            return None
    return None


# -- resuming ---------------------------------------------------------------------------


def load_for_resume(store: Store | None, tenant: str, run_id: str,
                    decisions: Sequence[Decision], tools: Toolset) -> RunState:
    """The paused run's state with ``decisions`` checked and recorded. Writes nothing:
    the atomic paused → running move happens when the run restarts (``RunRecorder``)."""
    if store is None:
        raise UsageError("resume needs a store", code="store_required")
    record = store.get_run(tenant, run_id)
    if record is None:
        raise NotFound(f"unknown run {run_id!r}", code="unknown_run")
    state = RunState.model_validate(record.state)
    if record.status != "paused":
        ids = {d.interrupt_id for d in decisions}
        seen = set(state.resolved_interrupts) | {i.id for i in state.interrupts}
        if record.status != "cancelled" and ids & seen:
            raise UsageError(f"run {run_id} was already resumed", code="run_already_resumed",
                             details={"status": record.status})
        raise UsageError(f"run {run_id} is {record.status}, not paused", code="run_not_paused",
                         details={"status": record.status})
    apply_decisions(state, list(decisions), tools)
    return state


def apply_decisions(state: RunState, decisions: list[Decision], tools: Toolset) -> None:
    """Check ``decisions`` against ``state.interrupts`` and record them. Writes nothing else.

    Every interrupt needs exactly one decision, valid against its ``response_schema``; an
    unknown, already answered or expired interrupt id is refused with a stable code, and so
    is an approve/edit for a tool this agent does not have (it could not run it).
    """
    from jsonschema.validators import validator_for

    by_id = {i.id: i for i in state.interrupts}
    seen: set[str] = set()
    now = datetime.now(UTC)
    for d in decisions:
        if has_nul([d.message, d.input, d.result]):
            raise UsageError("a decision contains the NUL character (U+0000)",
                             code="invalid_decision", details={"interrupt_id": d.interrupt_id})
        interrupt = by_id.get(d.interrupt_id)
        if interrupt is None:
            if d.interrupt_id in state.resolved_interrupts:
                raise UsageError(f"interrupt {d.interrupt_id!r} was already answered",
                                 code="run_already_resumed",
                                 details={"interrupt_id": d.interrupt_id})
            raise UsageError(f"unknown interrupt {d.interrupt_id!r}", code="unknown_interrupt",
                             details={"interrupt_id": d.interrupt_id,
                                      "pending": sorted(by_id)})
        if d.interrupt_id in seen:
            raise UsageError(f"interrupt {d.interrupt_id!r} decided twice",
                             code="duplicate_decision", details={"interrupt_id": d.interrupt_id})
        seen.add(d.interrupt_id)
        if interrupt.expires_at is not None and interrupt.expires_at <= now:
            raise UsageError(f"interrupt {d.interrupt_id!r} expired at "
                             f"{interrupt.expires_at.isoformat()}", code="interrupt_expired",
                             details={"interrupt_id": d.interrupt_id,
                                      "expires_at": interrupt.expires_at.isoformat()})
        body = d.model_dump(mode="json", exclude_none=True)
        if "result" in d.model_fields_set:
            body["result"] = d.result
        schema = interrupt.response_schema
        errors = list(validator_for(schema)(schema).iter_errors(body)) if schema else []
        if errors:
            where = ".".join(str(p) for p in errors[0].absolute_path) or "(decision)"
            raise UsageError(f"invalid decision for {d.interrupt_id!r}: {where}: "
                             f"{errors[0].message}", code="invalid_decision",
                             details={"interrupt_id": d.interrupt_id})
        _check_action(d, interrupt, tools.get(interrupt.tool))
    missing = sorted(set(by_id) - seen)
    if missing:
        raise UsageError(f"no decision for interrupt(s) {', '.join(missing)}",
                         code="missing_decision", details={"interrupt_ids": missing})
    state.decisions = decisions
    state.resolved_interrupts.extend(i for i in by_id if i not in state.resolved_interrupts)


def _check_action(d: Decision, interrupt: Interrupt, t: Tool | None) -> None:
    details = {"interrupt_id": d.interrupt_id, "tool": interrupt.tool}
    # Data the action would silently ignore: the caller meant something else.
    for field, action in (("input", "edit"), ("result", "result")):
        if getattr(d, field) is not None and d.action != action:
            raise UsageError(f"`{field}` belongs to a decision with action {action!r}, not "
                             f"{d.action!r}", code="invalid_decision", details=details)
    if d.action in ("approve", "edit"):
        if t is None:
            raise UsageError(f"this agent has no tool {interrupt.tool!r} to run; answer with "
                             "a result or a rejection, or resume where it is registered",
                             code="unknown_tool", details=details)
        if t.external:
            raise UsageError(f"{t.name} is executed by the host: answer with its result",
                             code="invalid_decision", details=details)
    if d.action == "edit":
        if d.input is None:
            raise UsageError("an edit decision needs `input`", code="invalid_decision",
                             details=details)
        assert t is not None
        try:
            d.input = t.validate(d.input)
        except InvalidInput as exc:
            raise UsageError(f"invalid decision for {d.interrupt_id!r}: {exc.message}",
                             code="invalid_decision", details=details) from None
    if d.action == "result" and "result" not in d.model_fields_set:
        raise UsageError("a result decision needs `result`", code="invalid_decision",
                         details=details)


