"""One transaction for a whole writer tick, on the SQL stores.

The :class:`~citewise.store.base.Store` protocol commits each call on its own; a tick of
the log writer holds hundreds of them (every run's thread, record, events and turn), and
on a busy 2-core machine each separate commit costs 5-15 ms of GIL hand-offs between the
writer thread and the event loop. Here the same writes run as the store methods do them
(same tables, same conflict rules — see ``store/_sql_runs.py``) but inside ONE
transaction of the store's single writer connection.

Only the four writes runs make are batched; a store that is not a :class:`SQLBase`, or
a batch that fails, is replayed call by call through the public methods (so a bad row
fails alone). TODO(store): replace with a ``Store.write_batch`` once the store offers one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

if TYPE_CHECKING:
    from citewise.store._sql import SQLBase
    from citewise.store.base import EventRecord, RunRecord, TurnRecord

__all__ = ["BATCHABLE", "run_batch"]

#: Store methods :func:`run_batch` knows how to write inside a shared transaction.
BATCHABLE = frozenset({"append_events", "save_run", "create_thread", "add_turn"})


def run_batch(store: SQLBase, ops: Sequence[tuple[str, tuple[Any, ...]]]) -> None:
    """Apply ``(method name, args)`` writes in order, in one transaction (all or none)."""
    from citewise.store.schema import events, runs, threads, turns, utcnow

    insert = store._insert
    with store._write() as c:
        for name, args in ops:
            if name == "append_events":
                tenant, records = args
                _append(c, insert, events, tenant, records, utcnow())
            elif name == "save_run":
                _save_run(c, insert, runs, args[0])
            elif name == "create_thread":
                tenant, thread_id, title = args
                now = utcnow()
                c.execute(insert(threads).values(
                    tenant=tenant, id=thread_id, title=title, created_at=now, updated_at=now,
                ).on_conflict_do_nothing(index_elements=["tenant", "id"]))
            elif name == "add_turn":
                _add_turn(c, threads, turns, *args)
            else:  # pragma: no cover - callers check BATCHABLE
                raise ValueError(f"not batchable: {name}")


def _append(c: sa.Connection, insert: Any, table: sa.Table, tenant: str,
            records: Sequence[EventRecord], now: Any) -> None:
    if not records:
        return
    rows = [{"run_id": e.run_id, "seq": e.seq, "tenant": tenant, "kind": e.kind,
             "data": e.data, "created_at": now} for e in records]
    c.execute(insert(table).on_conflict_do_nothing(index_elements=["run_id", "seq"]), rows)


def _save_run(c: sa.Connection, insert: Any, table: sa.Table, run: RunRecord) -> None:
    values = {"id": run.id, "tenant": run.tenant, "thread_id": run.thread_id,
              "question": run.question, "status": run.status, "state": run.state,
              "answer": run.answer, "created_at": run.created_at, "updated_at": run.updated_at}
    update = {k: v for k, v in values.items() if k not in ("id", "tenant", "created_at")}
    c.execute(insert(table).values(**values).on_conflict_do_update(
        index_elements=["id"], set_=update, where=table.c.tenant == run.tenant))


def _add_turn(c: sa.Connection, threads: sa.Table, turns: sa.Table, tenant: str,
              turn: TurnRecord) -> None:
    owned = sa.and_(threads.c.tenant == tenant, threads.c.id == turn.thread_id)
    touched = c.execute(sa.update(threads).where(owned)
                        .values(updated_at=turn.created_at)).rowcount
    if not touched:  # the thread was deleted meanwhile: like the store, keep no orphan turn
        return
    c.execute(sa.insert(turns).values(tenant=tenant, thread_id=turn.thread_id,
                                      run_id=turn.run_id, question=turn.question,
                                      answer=turn.answer, created_at=turn.created_at))
