"""The store's own work queue: embedding jobs and per-document write claims.

Why the store and not a broker: the work (embed these chunks) and its result (their
vectors) live in the same database, so one deployment unit — a SQLite file embedded, one
PostgreSQL database scaled out — is also the queue, and a job can never outlive or
precede the chunks it names. The SQL is :mod:`citewise.store._sql_work`; the workers that
drain it are :mod:`citewise.knowledge.ingest.embed_worker`.

* An **embedding job** is one block of a document's chunks (ordinals ``block * size`` up
  to ``(block + 1) * size``). It is *leased*: taken by one worker (``FOR UPDATE SKIP
  LOCKED`` on PostgreSQL; SQLite serialises writers anyway) until ``lease_until``, renewed
  while the worker runs, and free again for any worker once that passes — a worker that
  died loses its jobs, never its finished vectors (they are committed per batch). A
  document rewritten while its job runs bumps the job's ``version``: the worker's
  completion then releases it instead of deleting it, so the new chunks are embedded too.
* A **document claim** says "this process is writing this document": two ingests of one
  file never both write it (the second waits and then finds it unchanged).

Times are the callers' clocks (UTC): machines sharing a database must keep them in step
(NTP) to well within a lease.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

__all__ = ["EMBED_BLOCK", "MAX_ATTEMPTS", "EmbedJob", "QueueCounts", "WorkQueue"]

#: Chunks per embedding job (ordinals ``block * EMBED_BLOCK`` … ``+ EMBED_BLOCK - 1``).
EMBED_BLOCK = 256
#: A job leased this many times without completing is failed (a poison job: its text
#: crashes or hangs the embedder) and shown as such; re-ingesting the document retries it.
MAX_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class EmbedJob:
    """One leased block of a document's chunks to embed."""

    id: int
    tenant: str
    document_id: str
    block: int
    #: Chunks in the block when it was queued (for progress; the worker reads them again).
    chunks: int
    #: Bumped when the document is rewritten meanwhile: completion must name the one leased.
    version: int
    attempts: int


@dataclass(frozen=True, slots=True)
class QueueCounts:
    """One tenant's embedding queue: ``pending`` jobs (``running`` of them leased now),
    the chunks they cover, and ``failed`` jobs (given up after :data:`MAX_ATTEMPTS`)."""

    pending: int = 0
    running: int = 0
    pending_chunks: int = 0
    failed: int = 0


class WorkQueue(Protocol):
    """What the knowledge base needs of the store's queue (see the module docstring)."""

    def enqueue_embedding(self, document_ids: Sequence[str], *, now: datetime) -> int:
        """Queue a job for every block of these documents' chunks (a block queued already
        gets its ``version`` bumped and is retried if it had failed); returns jobs queued
        or bumped. A document with no chunks (deleted) queues nothing."""
        ...

    def enqueue_embedding_chunks(
        self, chunk_ids: Sequence[int], *, now: datetime,
        unless_in: tuple[Any, str | None] | None = None,
    ) -> int:
        """:meth:`enqueue_embedding` for the blocks holding these chunks only, and only
        those not queued already (an open repairing a crash must not disturb running
        jobs). ``unless_in=(table, model)``: leave out, in the same statement, the chunks
        that have a row in that vector table (under ``model`` when given) by then — a
        worker may have committed them since the caller looked."""
        ...

    def lease_embed_jobs(
        self, owner: str, *, limit: int, now: datetime, until: datetime,
        document_ids: Sequence[str] | None = None,
    ) -> list[EmbedJob]:
        """Take up to ``limit`` jobs nobody holds (or whose lease ran out) until ``until``;
        ``document_ids``: only these documents' jobs."""
        ...

    def renew_embed_jobs(self, owner: str, job_ids: Sequence[int], *, until: datetime) -> set[int]:
        """Extend ``owner``'s leases; returns the ids it still holds (a job missing from
        the result was taken over: stop working on it)."""
        ...

    def complete_embed_job(self, job: EmbedJob, owner: str) -> bool:
        """Delete the job if ``owner`` still holds it at the leased version; a job bumped
        meanwhile is released for another run instead. True when deleted."""
        ...

    def fail_embed_job(
        self, job: EmbedJob, owner: str, error: str, *, retry_at: datetime
    ) -> None:
        """Give the job back after an error: retried from ``retry_at``, or failed for good
        after :data:`MAX_ATTEMPTS` leases."""
        ...

    def release_embed_jobs(self, owner: str) -> int:
        """Give back every job ``owner`` holds (a worker stopping cleanly, or a dead
        process's jobs taken back at once); returns how many."""
        ...

    def embed_job_owners(self, *, now: datetime) -> set[str]:
        """Owners holding a live lease (a worker checks which belong to dead processes)."""
        ...

    def pending_embed_jobs(self, document_ids: Sequence[str] | None = None) -> tuple[int, int]:
        """``(jobs, chunks)`` not done and not failed (of these documents, or of all)."""
        ...

    def queue_counts(self, *, now: datetime) -> dict[str, QueueCounts]:
        """:class:`QueueCounts` per tenant (tenants with no jobs are absent)."""
        ...

    def block_chunks(self, document_id: str, block: int) -> list[tuple[int, str]]:
        """``(chunk_id, text)`` of the chunks of one job's block, in order; the text as the
        embedder reads it (``citewise.store.records.indexed_text``)."""
        ...

    def document_chunk_ids(self, document_ids: Sequence[str]) -> dict[str, set[int]]:
        """``{document_id: its chunk ids}`` (documents without chunks are absent)."""
        ...

    def tenant_totals(self, tenant: str | None = None) -> dict[str, tuple[int, int]]:
        """``{tenant: (documents, chunks)}`` (of one tenant, or of every one)."""
        ...

    def claim_documents(
        self, tenant: str, document_ids: Sequence[str], owner: str, *, now: datetime,
        until: datetime,
    ) -> set[str]:
        """Claim the documents for writing; returns those ``owner`` now holds (a live
        claim of another owner is left alone)."""
        ...

    def release_documents(self, tenant: str, document_ids: Sequence[str], owner: str) -> None:
        ...

    def release_claims_of(self, owner: str) -> int:
        """Drop every claim ``owner`` holds (its process is known dead)."""
        ...

    def claim_owners(self, *, now: datetime) -> set[str]:
        """Owners of live document claims."""
        ...
