"""Writes a run to the store: its record, its event log (batched) and its thread turn."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from citewise.agent.state import RunState
from citewise.errors import NotFound, UsageError
from citewise.events import Event, event_json
from citewise.store.base import EventRecord, JSONText

if TYPE_CHECKING:
    from citewise.agent.group_commit import GroupCommit
    from citewise.store.base import Store

__all__ = ["RunRecorder"]


class RunRecorder:
    """Batches events into the durable log; a no-op without a store.

    The run's record at its start and its outcome at its end are written through
    ``group`` when given (committed with other runs' writes, see
    :mod:`citewise.agent.group_commit`); :meth:`begin` and :meth:`finish` return only once
    their write is durable either way.

    A run begun here (:meth:`begin`, its start or a resume) is fenced
    (:mod:`citewise.store._run_fence`): the recorder holds this attempt's token
    (``owner``), set on the run as it starts or resumes and named by every later write.
    Once the run is another's — its lease ran out while this process stalled and a sweep
    ended it — a write raises ``run_not_owned`` and nothing more is written. (A recorder
    that only records an outcome, a paused run's cancellation, holds no token.)
    """

    def __init__(self, store: Store | None, state: RunState, *, flush_every: int = 64,
                 group: GroupCommit | None = None) -> None:
        self.store = store
        self.state = state
        self.flush_every = flush_every
        self.group = group
        self._pending: list[EventRecord] = []
        #: This attempt's fencing token, from :meth:`begin` on.
        self.owner: str | None = None

    async def begin(self, *, resuming: bool) -> None:
        store, state = self.store, self.state
        if store is None:
            return
        self.owner = f"own_{os.urandom(10).hex()}"
        if resuming:
            from citewise.store.base import cancel_key

            # Atomic paused → running: a second resume (any process) finds it taken. A
            # cancel request of the run from before its pause goes with it: asked of the
            # running attempt, it was never seen, and the resume is a newer decision.
            if not store.transition_run(state.tenant, state.run_id, ("paused",), "running",
                                        drop_setting=cancel_key(state.tenant, state.run_id),
                                        new_owner=self.owner):
                raise UsageError(f"run {state.run_id} was already resumed",
                                 code="run_already_resumed")
            return
        if self.group is None:
            self._begin()
        else:
            await self.group.write(self._begin)

    def _begin(self) -> None:
        store, state = self.store, self.state
        assert store is not None
        # One transaction: the thread (created unless it exists) and the run's record.
        with store.transaction():
            store.create_thread(state.tenant, state.thread_id, title=state.question[:80])
            self._save(answer=None)

    def add(self, event: Event) -> None:
        if self.store is None:
            return
        self._pending.append(EventRecord(run_id=event.run_id, seq=event.seq, kind=event.kind,
                                         data=JSONText(event_json(event))))
        if len(self._pending) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        if self.store is not None and self._pending:
            batch, self._pending = self._pending, []
            self._append(batch)

    def _append(self, batch: list[EventRecord]) -> None:
        assert self.store is not None
        owners = {self.state.run_id: self.owner} if self.owner is not None else None
        if self.store.append_events(self.state.tenant, batch, owners=owners):
            from citewise.store.base import not_owned

            raise not_owned(self.state.run_id, "its lease ran out and another process "
                            "ended it")

    async def finish(self, terminal: Event) -> None:
        """Flush and record the outcome (before the terminal event reaches the caller)."""
        if self.store is None:
            return
        write = partial(self._write_outcome, terminal)
        if self.group is None:
            write()
        else:
            await self.group.write(write)
        self._pending.clear()

    def record_outcome(self, terminal: Event) -> None:
        """:meth:`finish` at once, for a caller outside an event loop."""
        if self.store is not None:
            self._write_outcome(terminal)
            self._pending.clear()

    def _write_outcome(self, terminal: Event) -> None:
        # The pending events are cleared only once this has committed: a group commit
        # that fails runs it again, alone, and a run whose outcome could not be written
        # still has them for its last flush.
        store, state = self.store, self.state
        assert store is not None
        answer = getattr(terminal, "answer", None)
        # One transaction: the last events, the outcome and the thread's turn land together.
        with store.transaction():
            if self._pending:
                self._append(self._pending)
            self._save(answer=JSONText(answer.model_dump_json()) if answer is not None else None)
            if terminal.kind == "run_finished" and answer is not None:
                from citewise.store.base import TurnRecord

                try:
                    store.add_turn(state.tenant, TurnRecord(
                        thread_id=state.thread_id, run_id=state.run_id, question=state.question,
                        answer=answer.text, created_at=datetime.now(UTC)))
                except NotFound:
                    # The thread was deleted while the run ran (the store refuses that
                    # while the run's lease is fresh: its process had stalled past it): no
                    # turn to add, and the run's own record and events are still written.
                    pass

    def _save(self, *, answer: JSONText | None) -> None:
        from citewise.store.base import RunRecord

        assert self.store is not None
        now = datetime.now(UTC)
        state = self.state
        self.store.save_run(RunRecord(
            id=state.run_id, tenant=state.tenant, thread_id=state.thread_id,
            question=state.question, status=state.status,
            state=JSONText(state.model_dump_json()), answer=answer,
            created_at=state.started_at, updated_at=now, owner=self.owner,
        ))
