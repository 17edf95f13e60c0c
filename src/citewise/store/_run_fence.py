"""Run fencing: only the attempt that owns a run writes it, and nothing follows its end.

Why (issue 25): a replica stalled for longer than the run lease (SIGSTOP, an event loop
frozen by a regex) had its run ended ``run_lost`` by another replica, then woke up and
went on: the durable log held two terminal events, the status flipped failed → completed,
and replicas served different events for one seq.

Each attempt at executing a run — its start, each resume, the lease sweep that ends it as
lost — has a fencing token, stored as ``runs.owner``. Every write of the run's events and
record names its token and is checked against the run's row in the same transaction: on
PostgreSQL under the row's lock (``SELECT … FOR UPDATE``), so a sweep taking the run over
and a late write of the stalled process are ordered one after the other; SQLite has a
single writer. A write whose token is no longer the run's, or whose run is no longer
running, is refused. Whatever the token, no event is written after a run's final event
(``run_finished`` or ``error``; ``run_paused`` ends a segment, a resume continues the log).

A retried write that already landed (a commit whose outcome the client never heard) is
not refused: re-appending existing events and re-saving the same outcome are no-ops.

The row lock has a cost: a process stopped (SIGSTOP) inside such a transaction would hold
it for as long as it is stopped, and the sweep that must end its runs would wait for it
for ever. So on PostgreSQL every transaction that locks a run row for a run write says
``idle_in_transaction_session_timeout`` (:data:`HOLD_S`): the server ends a session that
sits idle in it for that long, its locks with it — far longer than such a transaction
ever waits between its statements, far shorter than a run lease.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from citewise.store._sql import batched
from citewise.store.base import EventRecord, RunRecord, decoded, not_owned
from citewise.store.schema import events, runs

__all__ = ["FINAL_KINDS", "HOLD_S", "check_save", "hold_limit", "refused_appends"]

#: Event kinds after which a run's log holds nothing more.
FINAL_KINDS = ("run_finished", "error")
_ENDED = frozenset({"completed", "failed", "cancelled"})
#: How long a run write's transaction may sit idle on PostgreSQL before the server ends it.
HOLD_S = 10
_HOLD = sa.text(f"SET LOCAL idle_in_transaction_session_timeout = '{HOLD_S}s'")

_STATE = (
    sa.select(runs.c.id, runs.c.status, runs.c.owner)
    .where(runs.c.tenant == sa.bindparam("tenant"),
           runs.c.id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(runs.c.id)  # one lock order for every writer
    .with_for_update()  # (compiled away on SQLite, whose writer is exclusive)
)
_FINAL = (
    sa.select(events.c.run_id).distinct()
    .where(events.c.tenant == sa.bindparam("tenant"),
           events.c.run_id.in_(sa.bindparam("ids", expanding=True)),
           events.c.kind.in_(FINAL_KINDS))
)
_STORED = (
    sa.select(events.c.run_id, events.c.seq, events.c.data)
    .where(events.c.tenant == sa.bindparam("tenant"),
           events.c.run_id.in_(sa.bindparam("ids", expanding=True)))
)


def hold_limit(c: sa.Connection) -> None:
    """Before a run write locks run rows (see the module docstring); PostgreSQL only."""
    if c.dialect.name == "postgresql":
        c.execute(_HOLD)


def _rows(c: sa.Connection, tenant: str, ids: Sequence[str]) -> dict[str, Any]:
    hold_limit(c)
    found: dict[str, Any] = {}
    for part in batched(sorted(ids)):
        for row in c.execute(_STATE, {"tenant": tenant, "ids": list(part)}):
            found[row.id] = row
    return found


def refused_appends(c: sa.Connection, tenant: str, records: Sequence[EventRecord],
                    owners: Mapping[str, str] | None) -> set[str]:
    """The runs among ``records`` whose events must not be written (inside the append's
    transaction, whose locks it takes)."""
    owners = owners or {}
    ids = {r.run_id for r in records}
    rows = _rows(c, tenant, list(ids))
    refused: set[str] = set()
    ended: list[str] = []
    for run_id in ids:
        row, token = rows.get(run_id), owners.get(run_id)
        if token is not None:
            if row is None or row.owner != token or row.status != "running":
                refused.add(run_id)
        elif row is not None and row.status in _ENDED:
            ended.append(run_id)  # written without a token: refused after its final event
    for part in batched(ended):
        refused.update(c.scalars(_FINAL, {"tenant": tenant, "ids": list(part)}))
    if refused:
        refused -= _replayed(c, tenant, records, refused)
    return refused


def _replayed(c: sa.Connection, tenant: str, records: Sequence[EventRecord],
              candidates: set[str]) -> set[str]:
    """Runs of ``candidates`` whose every event in ``records`` is stored already, the same
    event (a retry). Another event at that seq — the sweep's ``run_lost`` where the stalled
    process had its next action — is no replay."""
    stored: dict[tuple[str, int], Any] = {}
    for part in batched(sorted(candidates)):
        stored.update(((r.run_id, r.seq), r.data) for r in c.execute(
            _STORED, {"tenant": tenant, "ids": list(part)}))
    missing = {r.run_id for r in records if r.run_id in candidates
               and stored.get((r.run_id, r.seq)) != decoded(r.data)}
    return candidates - missing


def check_save(c: sa.Connection, run: RunRecord) -> None:
    """Raise ``run_not_owned`` unless ``run`` (saved with its ``owner`` token) may be
    written: a new run being started, or one its token still owns and that is still
    running (or already saved with this very outcome: a retry)."""
    row = _rows(c, run.tenant, [run.id]).get(run.id)
    if row is None:
        if run.status == "running":
            return  # its start
        raise not_owned(run.id, "its record is gone (its thread was deleted)")
    if row.owner != run.owner:
        raise not_owned(run.id, "another process took it over (its lease ran out)")
    if row.status != "running" and row.status != run.status:
        raise not_owned(run.id, f"it is {row.status} already")
