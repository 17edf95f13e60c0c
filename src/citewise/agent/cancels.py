"""Cancelling runs not driven by this process: a paused one at once, a running one by a
request its own process sees (:mod:`citewise.agent.cancel_watch`).

Apart from :mod:`citewise.agent.interrupts` because a paused run's cancellation writes its
terminal event through the :class:`~citewise.agent.persist.RunRecorder`, which itself needs
nothing of the interrupts: the two stay one-way.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.agent.emitter import Emitter
from citewise.agent.persist import RunRecorder
from citewise.agent.state import RunSettings, RunState
from citewise.answer import Answer, ErrorInfo
from citewise.events import ErrorEvent
from citewise.store.base import CANCEL_PREFIX, cancel_key

if TYPE_CHECKING:
    from citewise.store.base import Store

__all__ = ["cancel_paused_run", "cancel_requests", "cancel_run"]


def cancel_run(store: Store, tenant: str, run_id: str) -> bool:
    """Cancel a run not driven by this process: a paused one at once (its log gets the
    terminal ``run_cancelled`` error), a running one by asking its process to stop.
    False when there is nothing to cancel (unknown or already ended)."""
    record = store.get_run(tenant, run_id)
    if record is None:
        return False
    if record.status == "paused":
        return cancel_paused_run(store, tenant, run_id) is not None
    if record.status == "running":
        store.set_setting(cancel_key(tenant, run_id), datetime.now(UTC).isoformat())
        return True
    return False


def cancel_paused_run(store: Store, tenant: str, run_id: str) -> ErrorEvent | None:
    """paused → cancelled (atomic: it loses cleanly against a concurrent resume), then the
    terminal ``error`` event with code ``run_cancelled`` appended to the run's log."""
    from citewise.grounding.assemble import assemble_answer

    if not store.transition_run(tenant, run_id, ("paused",), "cancelled",
                                drop_setting=cancel_key(tenant, run_id)):
        return None
    record = store.get_run(tenant, run_id)  # read after the move: nobody changes it now
    assert record is not None
    state = RunState.model_validate(record.state)
    state.status = "cancelled"
    message = "the paused run was cancelled"
    details: dict[str, Any] = {"interrupt_ids": [i.id for i in state.interrupts]}
    answer: Answer
    answer, _ = assemble_answer(state, "", settings=RunSettings(), ended_by_tool=None)
    answer.status = "cancelled"
    answer.error = ErrorInfo(code="run_cancelled", message=message, details=details)
    event = Emitter(state)(ErrorEvent, code="run_cancelled", message=message, details=details,
                           answer=answer)
    recorder = RunRecorder(store, state)
    recorder.add(event)
    recorder.record_outcome(event)
    return event



def cancel_requests(store: Store, since: datetime) -> set[str] | None:
    """Keys of the cancel requests written since ``since``, in one query on an SQL store;
    None on another store (ask it key by key)."""
    keys_since = getattr(store, "setting_keys_since", None)
    if keys_since is None:
        return None
    found: set[str] = keys_since(CANCEL_PREFIX, since)
    return found
