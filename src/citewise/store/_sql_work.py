"""The work queue of :mod:`citewise.store.work` in portable SQLAlchemy Core.

Leasing is one ``UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING``: on PostgreSQL the
inner select locks its rows ``FOR UPDATE SKIP LOCKED``, so concurrent workers take
disjoint jobs without waiting on each other; on SQLite the write transaction is already
exclusive (``BEGIN IMMEDIATE``), so the same statement is atomic there too.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from citewise.store._sql import SQLBase, batched
from citewise.store.records import stored_indexed_text
from citewise.store.schema import chunks, document_claims, documents, embed_jobs
from citewise.store.work import EMBED_BLOCK, MAX_ATTEMPTS, EmbedJob, QueueCounts

__all__ = ["WorkQueueMixin", "block_query"]

_J = embed_jobs.c
_RETURNED = (_J.id, _J.tenant, _J.document_id, _J.block, _J.chunks, _J.version, _J.attempts)


def _job(row: Any) -> EmbedJob:
    return EmbedJob(
        id=int(row.id), tenant=str(row.tenant), document_id=str(row.document_id),
        block=int(row.block), chunks=int(row.chunks), version=int(row.version),
        attempts=int(row.attempts),
    )


def block_query(document_id: str, block: int, *columns: Any) -> Any:
    """``columns`` of the chunks of one embedding job's block, in order."""
    lo = block * EMBED_BLOCK
    return (sa.select(*columns)
            .where(chunks.c.document_id == document_id, chunks.c.ordinal >= lo,
                   chunks.c.ordinal < lo + EMBED_BLOCK)
            .order_by(chunks.c.ordinal))


class WorkQueueMixin(SQLBase):
    """:class:`~citewise.store.work.WorkQueue` over ``embed_jobs`` / ``document_claims``."""

    # -- embedding jobs -------------------------------------------------------------------
    def _enqueue(self, where: Any, now: datetime, *, bump: bool = True) -> int:
        block = chunks.c.ordinal // EMBED_BLOCK
        sel = (
            sa.select(
                chunks.c.tenant, chunks.c.document_id, block.label("block"),
                sa.func.count().label("chunks"), sa.literal(1).label("version"),
                sa.literal(0).label("attempts"), sa.false().label("failed"),
                sa.literal(now, type_=embed_jobs.c.created_at.type).label("created_at"),
            )
            .where(where)
            .group_by(chunks.c.tenant, chunks.c.document_id, block)
        )
        ins = self._insert(embed_jobs).from_select(
            ["tenant", "document_id", "block", "chunks", "version", "attempts", "failed",
             "created_at"], sel,
        )
        stmt = ins.on_conflict_do_update(
            index_elements=["tenant", "document_id", "block"],
            set_={"version": _J.version + 1, "chunks": ins.excluded.chunks, "attempts": 0,
                  "failed": False, "error": None},
        ) if bump else ins.on_conflict_do_nothing(
            index_elements=["tenant", "document_id", "block"])
        with self._write() as c:
            return len(c.execute(stmt.returning(_J.id)).all())

    def enqueue_embedding(self, document_ids: Sequence[str], *, now: datetime) -> int:
        queued = 0
        for part in batched(list(dict.fromkeys(document_ids))):
            queued += self._enqueue(chunks.c.document_id.in_(part), now)
        return queued

    def enqueue_embedding_chunks(
        self, chunk_ids: Sequence[int], *, now: datetime,
        unless_in: tuple[Any, str | None] | None = None,
    ) -> int:
        queued = 0
        for part in batched(list(dict.fromkeys(chunk_ids))):
            where: Any = chunks.c.id.in_(part)
            if unless_in is not None:
                table, model = unless_in
                has: Any = table.c.chunk_id == chunks.c.id
                if model is not None:
                    has = sa.and_(has, table.c.model == model)
                where = sa.and_(where, ~sa.exists().where(has))
            queued += self._enqueue(where, now, bump=False)
        return queued

    def lease_embed_jobs(
        self, owner: str, *, limit: int, now: datetime, until: datetime,
        document_ids: Sequence[str] | None = None,
    ) -> list[EmbedJob]:
        free = (
            sa.select(_J.id)
            .where(~_J.failed, _J.attempts < MAX_ATTEMPTS,
                   sa.or_(_J.lease_until.is_(None), _J.lease_until < now))
            .order_by(_J.id)
            .limit(limit)
        )
        if document_ids is not None:
            free = free.where(_J.document_id.in_(list(document_ids)))
        with self._write() as c:
            if c.dialect.name == "postgresql":  # concurrent workers take disjoint rows
                free = free.with_for_update(skip_locked=True)
            stmt = (
                sa.update(embed_jobs)
                .where(_J.id.in_(free.scalar_subquery()))
                .values(owner=owner, lease_until=until, attempts=_J.attempts + 1)
                .returning(*_RETURNED)
            )
            return sorted((_job(r) for r in c.execute(stmt)), key=lambda j: j.id)

    def renew_embed_jobs(self, owner: str, job_ids: Sequence[int], *, until: datetime) -> set[int]:
        if not job_ids:
            return set()
        stmt = (
            sa.update(embed_jobs)
            .where(_J.id.in_(list(job_ids)), _J.owner == owner)
            .values(lease_until=until)
            .returning(_J.id)
        )
        with self._write() as c:
            return {int(r[0]) for r in c.execute(stmt)}

    def complete_embed_job(self, job: EmbedJob, owner: str) -> bool:
        mine = (_J.id == job.id) & (_J.owner == owner)
        with self._write() as c:
            done = c.execute(sa.delete(embed_jobs).where(mine, _J.version == job.version))
            if done.rowcount:
                return True
            # Rewritten meanwhile: the new chunks need a run of their own.
            c.execute(sa.update(embed_jobs).where(mine).values(
                owner=None, lease_until=None, attempts=0))
            return False

    def fail_embed_job(
        self, job: EmbedJob, owner: str, error: str, *, retry_at: datetime
    ) -> None:
        stmt = (
            sa.update(embed_jobs)
            .where(_J.id == job.id, _J.owner == owner)
            .values(owner=None, lease_until=retry_at, error=error[:2000],
                    failed=_J.attempts >= MAX_ATTEMPTS)
        )
        with self._write() as c:
            c.execute(stmt)

    def release_embed_jobs(self, owner: str) -> int:
        # Not an attempt that failed: the lease is given back as if never taken.
        stmt = (
            sa.update(embed_jobs)
            .where(_J.owner == owner)
            .values(owner=None, lease_until=None,
                    attempts=sa.case((_J.attempts > 0, _J.attempts - 1), else_=0))
        )
        with self._write() as c:
            return int(c.execute(stmt).rowcount or 0)

    def embed_job_owners(self, *, now: datetime) -> set[str]:
        q = sa.select(_J.owner).where(_J.owner.is_not(None), _J.lease_until >= now).distinct()
        with self._read() as c:
            return {str(r[0]) for r in c.execute(q)}

    def pending_embed_jobs(self, document_ids: Sequence[str] | None = None) -> tuple[int, int]:
        q = sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(_J.chunks), 0)).where(
            ~_J.failed, _J.attempts < MAX_ATTEMPTS)
        with self._read() as c:
            if document_ids is None:
                jobs, chunk_count = c.execute(q).one()
                return int(jobs), int(chunk_count)
            jobs = chunk_count = 0
            for part in batched(list(dict.fromkeys(document_ids))):
                j, n = c.execute(q.where(_J.document_id.in_(part))).one()
                jobs, chunk_count = jobs + int(j), chunk_count + int(n)
            return jobs, chunk_count

    def queue_counts(self, *, now: datetime) -> dict[str, QueueCounts]:
        dead = _J.failed | (_J.attempts >= MAX_ATTEMPTS)
        live = sa.and_(~dead, _J.lease_until.is_not(None), _J.lease_until >= now,
                       _J.owner.is_not(None))
        q = sa.select(
            _J.tenant,
            sa.func.sum(sa.case((dead, 0), else_=1)),
            sa.func.sum(sa.case((live, 1), else_=0)),
            sa.func.sum(sa.case((dead, 0), else_=_J.chunks)),
            sa.func.sum(sa.case((dead, 1), else_=0)),
        ).group_by(_J.tenant)
        with self._read() as c:
            return {
                str(t): QueueCounts(int(p or 0), int(r or 0), int(ch or 0), int(f or 0))
                for t, p, r, ch, f in c.execute(q)
            }

    def block_chunks(self, document_id: str, block: int) -> list[tuple[int, str]]:
        q = block_query(document_id, block, chunks.c.id, chunks.c.text, chunks.c.roles)
        with self._read() as c:
            return [(int(i), stored_indexed_text(str(t), r)) for i, t, r in c.execute(q)]

    def document_chunk_ids(self, document_ids: Sequence[str]) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        with self._read() as c:
            for part in batched(list(dict.fromkeys(document_ids))):
                q = sa.select(chunks.c.document_id, chunks.c.id).where(
                    chunks.c.document_id.in_(part))
                for doc, cid in c.execute(q):
                    out.setdefault(str(doc), set()).add(int(cid))
        return out

    def tenant_totals(self, tenant: str | None = None) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = {}
        with self._read() as c:
            for table, slot in ((documents, 0), (chunks, 1)):
                q = sa.select(table.c.tenant, sa.func.count()).group_by(table.c.tenant)
                if tenant is not None:
                    q = q.where(table.c.tenant == tenant)
                for t, n in c.execute(q):
                    out.setdefault(str(t), [0, 0])[slot] = int(n)
        return {t: (d, ch) for t, (d, ch) in sorted(out.items())}

    # -- document claims ------------------------------------------------------------------
    def claim_documents(
        self, tenant: str, document_ids: Sequence[str], owner: str, *, now: datetime,
        until: datetime,
    ) -> set[str]:
        ids = list(dict.fromkeys(document_ids))
        if not ids:
            return set()
        dc = document_claims.c
        ins = self._insert(document_claims)
        stmt = ins.on_conflict_do_update(
            index_elements=["tenant", "document_id"],
            set_={"owner": ins.excluded.owner, "expires_at": ins.excluded.expires_at},
            where=sa.or_(dc.expires_at < now, dc.owner == owner),
        )
        held: set[str] = set()
        with self._write() as c:
            for part in batched(ids):
                c.execute(stmt, [{"tenant": tenant, "document_id": d, "owner": owner,
                                  "expires_at": until} for d in part])
                held.update(str(r[0]) for r in c.execute(
                    sa.select(dc.document_id).where(
                        dc.tenant == tenant, dc.owner == owner, dc.document_id.in_(part))))
        return held

    def release_documents(self, tenant: str, document_ids: Sequence[str], owner: str) -> None:
        dc = document_claims.c
        with self._write() as c:
            for part in batched(list(document_ids)):
                c.execute(sa.delete(document_claims).where(
                    dc.tenant == tenant, dc.owner == owner, dc.document_id.in_(part)))

    def release_claims_of(self, owner: str) -> int:
        with self._write() as c:
            return int(c.execute(sa.delete(document_claims).where(
                document_claims.c.owner == owner)).rowcount or 0)

    def claim_owners(self, *, now: datetime) -> set[str]:
        dc = document_claims.c
        q = sa.select(dc.owner).where(dc.expires_at >= now).distinct()
        with self._read() as c:
            return {str(r[0]) for r in c.execute(q)}
