"""Threads, turns, runs and the event log (portable Core)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from citewise.errors import InvalidInput, NotFound, UsageError
from citewise.store._run_fence import check_save, hold_limit, refused_appends
from citewise.store._sql import SQLBase, batched
from citewise.store.base import (
    LEASE_S,
    EventRecord,
    RunRecord,
    RunStatus,
    ThreadRecord,
    TurnRecord,
    cancel_key,
    run_setting_keys,
)
from citewise.store.schema import events, feedback, runs, settings, threads, turns, utcnow

__all__ = ["RunsMixin", "drop_setting_in", "drop_settings_in", "transition_statement"]

RUN_STATUSES: frozenset[str] = frozenset({"running", "paused", "completed", "failed", "cancelled"})
ENDED_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


def _thread(r: Any) -> ThreadRecord:
    return ThreadRecord(
        id=r.id, tenant=r.tenant, title=r.title, created_at=r.created_at, updated_at=r.updated_at
    )


def _run(r: Any) -> RunRecord:
    return RunRecord(
        id=r.id,
        tenant=r.tenant,
        thread_id=r.thread_id,
        question=r.question,
        status=r.status,
        state=dict(r.state or {}),
        answer=r.answer,
        created_at=r.created_at,
        updated_at=r.updated_at,
        owner=r.owner,
    )


def _check_status(status: str) -> None:
    if status not in RUN_STATUSES:
        raise InvalidInput(f"unknown run status {status!r}", code="invalid_run_status")


def transition_statement(
    tenant: str, run_id: str, from_status: Iterable[RunStatus], to_status: RunStatus,
    untouched_since: datetime | None, owner: str | None = None, new_owner: str | None = None,
) -> sa.Update:
    allowed = list(from_status)
    for status in (*allowed, to_status):
        _check_status(status)
    where = [runs.c.tenant == tenant, runs.c.id == run_id, runs.c.status.in_(allowed)]
    if untouched_since is not None:
        where.append(runs.c.updated_at < untouched_since)
    if owner is not None:  # fenced: only while this attempt owns the run (store._run_fence)
        where.append(runs.c.owner == owner)
    values: dict[str, Any] = {"status": to_status, "updated_at": utcnow()}
    if new_owner is not None:
        values["owner"] = new_owner
    return sa.update(runs).where(*where).values(**values)


def drop_setting_in(c: sa.Connection, key: str) -> None:
    """Deletes a setting inside the caller's transaction (see ``Store.transition_run``)."""
    c.execute(sa.delete(settings).where(settings.c.key == key))


def drop_settings_in(
    c: sa.Connection, key: str | None, tenant: str, run_id: str, to_status: RunStatus
) -> None:
    """What a run that moved deletes in the same transaction: the setting the caller
    named, and its cancel request once it is cancelled."""
    if key is not None:
        drop_setting_in(c, key)
    if to_status == "cancelled" and key != cancel_key(tenant, run_id):
        drop_setting_in(c, cancel_key(tenant, run_id))


class _RunStatements:
    """The statements every run writes, built once per store (per dialect) and executed
    with parameters: building a Core statement and its cache key on each call cost more
    than SQLite's own work (measured ~3x per ``save_run``)."""

    def __init__(self, insert: Any) -> None:
        b = sa.bindparam
        self.thread_by_id = sa.select(threads).where(
            threads.c.tenant == b("tenant"), threads.c.id == b("id"))
        # Row locks on PostgreSQL (SQLite compiles them away: its writer is exclusive). A
        # run starting on an existing thread holds the share lock until its record commits;
        # a delete takes the update lock first, so it waits for that run and then sees it.
        self.thread_for_share = self.thread_by_id.with_for_update(read=True)
        self.thread_for_update = sa.select(threads.c.id).where(
            threads.c.tenant == b("tenant"), threads.c.id == b("id")).with_for_update()
        self.live_run_of_thread = sa.select(runs.c.id).where(
            runs.c.tenant == b("tenant"), runs.c.thread_id == b("id"),
            runs.c.status == "running", runs.c.updated_at >= b("live_since")).limit(1)
        self.insert_thread = insert(threads).on_conflict_do_nothing(
            index_elements=["tenant", "id"])
        self.touch_thread = sa.update(threads).where(
            threads.c.tenant == b("b_tenant"), threads.c.id == b("b_thread_id")
        ).values(updated_at=b("b_updated_at"))
        self.insert_turn = sa.insert(turns)
        ins = insert(runs)
        self.upsert_run = ins.on_conflict_do_update(
            index_elements=["id"],
            set_={k: ins.excluded[k] for k in _RUN_UPDATE},
            where=runs.c.tenant == ins.excluded.tenant,  # another tenant's id: left alone
        )
        self.run_by_id = sa.select(runs).where(runs.c.tenant == b("tenant"), runs.c.id == b("id"))
        self.insert_events = insert(events).on_conflict_do_nothing(
            index_elements=["run_id", "seq"])
        self.events_after = (
            sa.select(events)
            .where(events.c.tenant == b("tenant"), events.c.run_id == b("run_id"),
                   events.c.seq > b("after"))
            .order_by(events.c.seq)
            .limit(b("limit"))
        )


_RUN_UPDATE = ("thread_id", "question", "status", "state", "answer", "updated_at", "owner")


class RunsMixin(SQLBase):
    @property
    def _stmts(self) -> _RunStatements:
        built: _RunStatements | None = self.__dict__.get("_run_statements")
        if built is None:
            built = self.__dict__.setdefault("_run_statements", _RunStatements(self._insert))
        return built

    def _run_write(self, c: sa.Connection, name: str, params: dict[str, Any]) -> int:
        """Execute the write statement ``name`` of :class:`_RunStatements` on ``c``; the
        number of rows it changed. A backend may run it more directly (SQLite does)."""
        return int(c.execute(getattr(self._stmts, name), params).rowcount)

    def _run_write_many(self, c: sa.Connection, name: str, rows: list[dict[str, Any]]) -> None:
        """:meth:`_run_write` for many rows (one executemany)."""
        c.execute(getattr(self._stmts, name), rows)

    # -- threads & turns ------------------------------------------------------------------
    def create_thread(
        self, tenant: str, thread_id: str, title: str | None = None
    ) -> ThreadRecord:
        """Create the thread; if this tenant already has it, return it unchanged."""
        now = utcnow()
        with self._write() as c:
            if self._run_write(c, "insert_thread", {
                    "tenant": tenant, "id": thread_id, "title": title,
                    "created_at": now, "updated_at": now}) == 1:
                # New: it is what was just written (no read back on every run's start).
                # An INSERT's row count may be unknown (-1: psycopg): then it is read.
                return ThreadRecord(id=thread_id, tenant=tenant, title=title,
                                    created_at=now, updated_at=now)
            row = c.execute(self._stmts.thread_for_share,
                            {"tenant": tenant, "id": thread_id}).one()
        return _thread(row)

    def get_thread(self, tenant: str, thread_id: str) -> ThreadRecord | None:
        with self._read() as c:
            row = c.execute(self._stmts.thread_by_id, {"tenant": tenant, "id": thread_id}).first()
        return _thread(row) if row else None

    def list_threads(
        self, tenant: str, *, limit: int = 100, offset: int = 0
    ) -> list[ThreadRecord]:
        """Most recently updated first."""
        q = (
            sa.select(threads)
            .where(threads.c.tenant == tenant)
            .order_by(threads.c.updated_at.desc(), threads.c.id)
            .limit(limit)
            .offset(offset)
        )
        with self._read() as c:
            return [_thread(r) for r in c.execute(q)]

    def rename_thread(self, tenant: str, thread_id: str, title: str) -> ThreadRecord | None:
        """Set the thread's title (its ``updated_at``, the time of its last turn, stays)."""
        with self._write() as c:
            changed = c.execute(sa.update(threads).where(
                threads.c.tenant == tenant, threads.c.id == thread_id).values(title=title)).rowcount
        return self.get_thread(tenant, thread_id) if changed else None

    def delete_thread(self, tenant: str, thread_id: str) -> bool:
        """Delete the thread with its turns, runs, their events and feedback; refused with
        ``thread_busy`` while a run of it is running in any process sharing the database
        (its lease is fresh: a run whose process died does not keep its thread)."""
        key = {"tenant": tenant, "id": thread_id}
        with self._write() as c:
            c.execute(self._stmts.thread_for_update, key)
            live = c.execute(self._stmts.live_run_of_thread, {
                **key, "live_since": utcnow() - timedelta(seconds=LEASE_S)}).first()
            if live is not None:
                raise UsageError("a run of this thread is in progress; cancel it first",
                                 code="thread_busy",
                                 details={"thread_id": thread_id, "run_id": live.id})
            gone = c.execute(
                sa.delete(threads).where(threads.c.tenant == tenant, threads.c.id == thread_id)
            ).rowcount
            run_ids = sa.select(runs.c.id).where(
                runs.c.tenant == tenant, runs.c.thread_id == thread_id
            )
            owned = [k for (rid,) in c.execute(run_ids) for k in run_setting_keys(tenant, rid)]
            for i in range(0, len(owned), 500):
                c.execute(sa.delete(settings).where(settings.c.key.in_(owned[i:i + 500])))
            c.execute(
                sa.delete(events).where(events.c.tenant == tenant, events.c.run_id.in_(run_ids))
            )
            c.execute(
                sa.delete(feedback).where(
                    feedback.c.tenant == tenant, feedback.c.run_id.in_(run_ids)
                )
            )
            c.execute(sa.delete(runs).where(runs.c.tenant == tenant, runs.c.thread_id == thread_id))
            c.execute(
                sa.delete(turns).where(turns.c.tenant == tenant, turns.c.thread_id == thread_id)
            )
        return bool(gone)

    def list_turns(self, tenant: str, thread_id: str) -> list[TurnRecord]:
        """Oldest first."""
        q = (
            sa.select(turns)
            .where(turns.c.tenant == tenant, turns.c.thread_id == thread_id)
            .order_by(turns.c.id)
        )
        with self._read() as c:
            return [
                TurnRecord(
                    thread_id=r.thread_id,
                    run_id=r.run_id,
                    question=r.question,
                    answer=r.answer,
                    created_at=r.created_at,
                )
                for r in c.execute(q)
            ]

    def add_turn(self, tenant: str, turn: TurnRecord) -> None:
        """Append a turn; raises ``NotFound`` (``thread_not_found``) for an unknown thread."""
        with self._write() as c:
            touched = self._run_write(c, "touch_thread", {
                "b_tenant": tenant, "b_thread_id": turn.thread_id,
                "b_updated_at": turn.created_at,
            })
            if not touched:
                raise NotFound(
                    f"unknown thread {turn.thread_id!r}",
                    code="thread_not_found",
                    details={"thread_id": turn.thread_id},
                )
            self._run_write(c, "insert_turn", {
                "tenant": tenant, "thread_id": turn.thread_id, "run_id": turn.run_id,
                "question": turn.question, "answer": turn.answer,
                "created_at": turn.created_at,
            })

    # -- runs -----------------------------------------------------------------------------
    def save_run(self, run: RunRecord) -> None:
        """Insert or update the run (a run id owned by another tenant is left alone). Saved
        with an ``owner`` token, only while that token owns it (``run_not_owned``)."""
        _check_status(run.status)
        values = {
            "id": run.id,
            "tenant": run.tenant,
            "thread_id": run.thread_id,
            "question": run.question,
            "status": run.status,
            "state": run.state,
            "answer": run.answer,
            "created_at": run.created_at,
            "updated_at": run.updated_at,
            "owner": run.owner,
        }
        with self._write() as c:
            if run.owner is not None:
                check_save(c, run)
            self._run_write(c, "upsert_run", values)
            if run.status in ENDED_STATUSES:
                # A cancel request, if any, is answered — or came too late: asked while
                # the run was running, it finished before its process saw the request.
                drop_setting_in(c, cancel_key(run.tenant, run.id))

    def get_run(self, tenant: str, run_id: str) -> RunRecord | None:
        with self._read() as c:
            row = c.execute(self._stmts.run_by_id, {"tenant": tenant, "id": run_id}).first()
        return _run(row) if row else None

    def list_runs(
        self, tenant: str, *, thread_id: str | None = None, limit: int = 100
    ) -> list[RunRecord]:
        """Newest first."""
        q = sa.select(runs).where(runs.c.tenant == tenant)
        if thread_id is not None:
            q = q.where(runs.c.thread_id == thread_id)
        q = q.order_by(runs.c.created_at.desc(), runs.c.id).limit(limit)
        with self._read() as c:
            return [_run(r) for r in c.execute(q)]

    def transition_run(
        self, tenant: str, run_id: str, from_status: Iterable[RunStatus], to_status: RunStatus,
        *, untouched_since: datetime | None = None, drop_setting: str | None = None,
        owner: str | None = None, new_owner: str | None = None,
    ) -> bool:
        """One ``UPDATE … WHERE status IN (…)``: of two racing callers, exactly one wins."""
        stmt = transition_statement(tenant, run_id, from_status, to_status, untouched_since,
                                    owner, new_owner)
        with self._write() as c:
            hold_limit(c)  # it locks the run's row (store._run_fence)
            moved = bool(c.execute(stmt).rowcount)
            if moved:
                drop_settings_in(c, drop_setting, tenant, run_id, to_status)
            return moved

    def touch_runs(self, runs_: Sequence[tuple[str, str]]) -> None:
        by_tenant: dict[str, list[str]] = {}
        for tenant, run_id in runs_:
            by_tenant.setdefault(tenant, []).append(run_id)
        if not by_tenant:
            return
        now = utcnow()
        with self._write() as c:
            hold_limit(c)  # it locks run rows (store._run_fence)
            for tenant, ids in by_tenant.items():
                for part in batched(ids):
                    c.execute(
                        sa.update(runs)
                        .where(runs.c.tenant == tenant, runs.c.id.in_(part),
                               runs.c.status == "running")
                        .values(updated_at=now)
                    )

    def stale_runs(self, before: datetime, *, limit: int = 100) -> list[RunRecord]:
        q = (
            sa.select(runs)
            .where(runs.c.status == "running", runs.c.updated_at < before)
            .order_by(runs.c.updated_at)
            .limit(limit)
        )
        with self._read() as c:
            return [_run(r) for r in c.execute(q)]

    # -- the event log --------------------------------------------------------------------
    def append_events(self, tenant: str, events_: Sequence[EventRecord], *,
                      owners: Mapping[str, str] | None = None) -> list[str]:
        """Append events; re-appending an existing ``(run_id, seq)`` is a no-op (retries).
        The runs whose events are refused (see ``store._run_fence``) are returned, sorted;
        the others' events are written."""
        if not events_:
            return []
        now = utcnow()
        rows = [
            {
                "run_id": e.run_id,
                "seq": e.seq,
                "tenant": tenant,
                "kind": e.kind,
                "data": e.data,
                "created_at": now,
            }
            for e in events_
        ]
        with self._write() as c:
            refused = refused_appends(c, tenant, events_, owners)
            if refused:
                rows = [r for r in rows if r["run_id"] not in refused]
            if rows:
                self._run_write_many(c, "insert_events", rows)
        return sorted(refused)

    def read_events(
        self, tenant: str, run_id: str, *, after: int = 0, limit: int = 1000
    ) -> list[EventRecord]:
        """Events with ``seq > after``, in ``seq`` order."""
        params = {"tenant": tenant, "run_id": run_id, "after": after, "limit": limit}
        with self._read() as c:
            return [
                EventRecord(run_id=r.run_id, seq=r.seq, kind=r.kind, data=r.data)
                for r in c.execute(self._stmts.events_after, params)
            ]
