"""The store an :class:`~citewise.agent.runner.Agent` sees when the server runs it.

The agent persists synchronously (it is a library first). Inside the server those calls
would block the event loop for ~1 ms each, so this per-run view:

* queues the run's writes (events, the run record, thread, turn) on the
  :class:`~citewise.server.writer.LogWriter`, in order, without waiting;
* answers the reads the agent makes at the start of a run (its thread and turns) from
  what the run manager already loaded in a worker thread;
* passes everything else (``transition_run`` on resume, ``get_run``…) to the real store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.server.writer import Append, Call, LogWriter

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from citewise.store.base import (
        EventRecord,
        RunRecord,
        RunStatus,
        Store,
        ThreadRecord,
        TurnRecord,
    )

__all__ = ["RunStore"]


class RunStore:
    """A write-behind view of ``store`` for one run of one tenant."""

    def __init__(self, store: Store, writer: LogWriter, tenant: str, *,
                 thread: ThreadRecord | None = None,
                 turns: Sequence[TurnRecord] | None = None,
                 settings: Callable[[str], str | None] | None = None) -> None:
        self._store = store
        self._settings = settings
        self._writer = writer
        self._tenant = tenant
        self._thread = thread
        self._turns = list(turns) if turns is not None else None
        #: The fencing token of the run's attempt (store._run_fence), once it is known.
        self.owner: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    # -- reads answered from what was loaded up front ---------------------------------------
    def get_thread(self, tenant: str, thread_id: str) -> ThreadRecord | None:
        t = self._thread
        if t is not None and tenant == self._tenant and t.id == thread_id:
            return t
        return self._store.get_thread(tenant, thread_id)

    def list_turns(self, tenant: str, thread_id: str) -> list[TurnRecord]:
        t = self._thread
        if self._turns is not None and t is not None and tenant == self._tenant \
                and t.id == thread_id:
            return list(self._turns)
        return self._store.list_turns(tenant, thread_id)

    def touch_runs(self, runs: Sequence[tuple[str, str]]) -> None:
        """Nothing: the run manager renews the lease of all its runs in one statement."""

    def get_setting(self, key: str) -> str | None:
        # The feedback hook reads its secret for every answer: the manager has it in memory.
        if self._settings is not None:
            value = self._settings(key)
            if value is not None:
                return value
        return self._store.get_setting(key)

    # -- writes, queued -------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Nothing to open: the writes are queued, in order, and the log writer commits
        them. (Passing this on would take the real store's write lock on the event loop,
        waiting behind whatever batch the writer thread is committing.)"""
        yield

    def append_events(self, tenant: str, events: Sequence[EventRecord], *,
                      owners: Mapping[str, str] | None = None) -> list[str]:
        """Queued; a refusal comes back as the run's failed publish (see LogWriter)."""
        self._writer.submit(Append(tenant, list(events), dict(owners) if owners else None))
        return []

    def save_run(self, run: RunRecord) -> None:
        if run.owner is not None:
            self.owner = run.owner
        self._writer.submit(Call("save_run", (run,), run.id))

    def transition_run(self, tenant: str, run_id: str, from_status: Iterable[RunStatus],
                       to_status: RunStatus, **options: Any) -> bool:
        """Passed on (a resume's atomic paused → running), noting the new owner."""
        moved = self._store.transition_run(tenant, run_id, from_status, to_status, **options)
        if moved and options.get("new_owner") is not None:
            self.owner = options["new_owner"]
        return moved

    def add_turn(self, tenant: str, turn: TurnRecord) -> None:
        self._writer.submit(Call("add_turn", (tenant, turn), turn.run_id))

    def create_thread(self, tenant: str, thread_id: str, title: str | None = None) -> ThreadRecord:
        from citewise.store.base import ThreadRecord

        self._writer.submit(Call("create_thread", (tenant, thread_id, title)))
        now = datetime.now(UTC)
        record = ThreadRecord(id=thread_id, tenant=tenant, title=title, created_at=now,
                              updated_at=now)
        if tenant == self._tenant:
            self._thread, self._turns = record, []
        return record
