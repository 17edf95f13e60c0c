"""Embedding workers: drain the store's embedding queue, one leased block at a time.

Why a queue and not "embed before the ingest returns": embedding is ~100x slower than
reading and chunking, so an ingest now returns once its documents are stored and
lexically searchable (:mod:`.outbox` queues the jobs in its ``on_documents`` step), and
the vectors follow — from the ingesting process itself (``citewise ingest`` waits unless
``--no-wait``), from ``citewise serve``, or from any number of ``citewise worker``
processes on any machines sharing the database (:mod:`citewise.store.work`).

What never happens:

* **a finished vector lost** — a job is embedded in batches of :data:`BATCH` chunks, each
  committed by :meth:`VectorSearch.add_vectors` before the next is computed; a worker
  killed (``kill -9``, Ctrl-C, a dead machine) loses at most the batch it was computing;
* **a vector computed twice** — a worker embeds only chunks with no stored vector, holds
  its jobs' leases by renewing them every ``lease_s / 3`` s from a heartbeat thread, and
  stops a job whose lease another worker took (renewal said so) before its next batch.

A dead worker's jobs are free again when their lease runs out; on one machine (the
embedded knowledge base) a worker also takes back at once the jobs of an owner whose
process is gone (owners are ``host:pid:token``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from citewise.errors import ConfigError
from citewise.knowledge.index.sentences import encode
from citewise.knowledge.ingest.outbox import fault_point

if TYPE_CHECKING:
    from citewise.knowledge.index.contract import VectorSearch
    from citewise.knowledge.index.sentences import SentenceEncoder
    from citewise.store.base import Store
    from citewise.store.sentence_vectors import ChunkSource
    from citewise.store.work import EmbedJob

__all__ = [
    "BATCH", "LEASE_S", "BackgroundWorkers", "DrainStats", "EmbedWorker", "give_back_memory",
    "new_owner", "owner_is_dead",
]

Progress = Callable[[int, int], None]

#: Chunks embedded and committed together (what a kill can cost at most).
BATCH = 32
#: How long a lease lasts unless renewed (``CITEWISE_EMBED_LEASE_S`` overrides it).
LEASE_S = float(os.environ.get("CITEWISE_EMBED_LEASE_S", "30"))
#: After an error, a job waits this long before it is tried again.
RETRY_S = 10.0
_POLL_S = 0.2
_LEASE_AMONG = 500  # at most this many document ids in a lease's filter
_log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC)


def new_owner() -> str:
    """A lease owner: ``host:pid:token`` (unique per worker, names its process)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_is_dead(owner: str) -> bool:
    """Whether ``owner`` names a process of THIS machine that no longer exists."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False


def give_back_memory() -> None:
    """Return freed heap pages to the system (glibc keeps them otherwise: an ingest's
    hundreds of MB of texts, freed, stayed in the process's RSS while it embedded)."""
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


@dataclass(slots=True)
class DrainStats:
    """What a worker did: jobs completed, chunks given their vector (``embedded``: by the
    model, or from the cache when another chunk had the same text), chunks found embedded
    already (``skipped``)."""

    jobs: int = 0
    embedded: int = 0
    skipped: int = 0
    failed: int = 0
    sentences: int = 0  # chunks whose sentences' vectors were stored


class EmbedWorker:
    """One worker: leases jobs from ``store`` and embeds them into ``dense`` — and, with
    ``sentences``, each chunk's sentences too (:mod:`citewise.knowledge.index.sentences`).

    ``local``: the store is a file of this machine, so owners whose process is dead are
    taken back at once instead of after their lease. Use as a context manager (or call
    :meth:`close`): stopping gives back the jobs it holds.
    """

    def __init__(
        self, store: Store, dense: VectorSearch, *, lease_s: float = LEASE_S,
        local: bool = False, sentences: SentenceEncoder | None = None,
    ) -> None:
        self.store = store
        self.dense = dense
        self.sentences = sentences
        self.lease_s = lease_s
        self.local = local
        self.owner = new_owner()
        self._held: dict[int, EmbedJob] = {}
        self._lost: set[int] = set()
        self._guard = threading.Lock()
        self._stop_beat = threading.Event()
        self._beat: threading.Thread | None = None
        self.stats = DrainStats()

    # -- leases ---------------------------------------------------------------------------
    def _heartbeat(self) -> None:
        while not self._stop_beat.wait(self.lease_s / 3):
            with self._guard:
                ids = list(self._held)
            if not ids:
                continue
            try:
                kept = self.store.renew_embed_jobs(
                    self.owner, ids, until=_now() + timedelta(seconds=self.lease_s))
            except Exception:  # the database is away: the next beat tries again
                _log.warning("could not renew embedding leases", exc_info=True)
                continue
            with self._guard:
                self._lost.update(set(ids) - kept)

    def _start_beat(self) -> None:
        if self._beat is None:
            self._beat = threading.Thread(target=self._heartbeat, name="embed-lease",
                                          daemon=True)
            self._beat.start()

    def reclaim_dead(self) -> int:
        """Take back the jobs and claims of owners whose process (on this machine) died."""
        if not self.local:
            return 0
        now = _now()
        freed = 0
        for owner in self.store.embed_job_owners(now=now) | self.store.claim_owners(now=now):
            if owner_is_dead(owner):
                freed += self.store.release_embed_jobs(owner)
                self.store.release_claims_of(owner)
        return freed

    # -- work -----------------------------------------------------------------------------
    def run_once(self, document_ids: Sequence[str] | None = None,
                 tick: Callable[[int], None] | None = None,
                 on_document: Callable[[str], None] | None = None) -> bool:
        """Lease one job and do it; False when no job was free."""
        now = _now()
        jobs = self.store.lease_embed_jobs(
            self.owner, limit=1, now=now, until=now + timedelta(seconds=self.lease_s),
            document_ids=document_ids,
        )
        if not jobs:
            return False
        job = jobs[0]
        if on_document is not None:
            on_document(job.document_id)
        self._start_beat()
        with self._guard:
            self._held[job.id] = job
        try:
            self._do(job, tick or (lambda _n: None))
        except Exception as exc:
            _log.warning("embedding job %s (document %s) failed: %s", job.id,
                         job.document_id, exc)
            self.stats.failed += 1
            self.store.fail_embed_job(job, self.owner, f"{type(exc).__name__}: {exc}",
                                      retry_at=_now() + timedelta(seconds=RETRY_S))
        finally:
            with self._guard:
                self._held.pop(job.id, None)
                self._lost.discard(job.id)
        return True

    def _do(self, job: EmbedJob, tick: Callable[[int], None]) -> None:
        rows = self.store.block_chunks(job.document_id, job.block)
        ids = [cid for cid, _ in rows]
        have = self.dense.has_vectors(ids)
        sources = self._sentence_sources(job, ids)
        # Parts of BATCH chunks, each committed before the next is computed: its vectors,
        # then its sentences' vectors (a chunk embedded before these existed: only those).
        for i in range(0, len(rows), BATCH):
            with self._guard:
                if job.id in self._lost:  # another worker has it now: leave it theirs
                    return
            part = [(cid, text) for cid, text in rows[i : i + BATCH] if cid not in have]
            if part:
                done = self.dense.add_vectors(job.tenant, job.document_id, part)
                # Every chunk of the part has its vector now, the model's or a chunk's of
                # the same text (counting the model's calls said "embedded 4222" of 4224).
                self.stats.embedded += done.embedded + done.cached
            self.stats.skipped += min(BATCH, len(rows) - i) - len(part)
            these = set(ids[i : i + BATCH])
            self._embed_sentences([s for s in sources if s.id in these])
            tick(min(BATCH, len(rows) - i))
            fault_point("embed:after_batch")
        if job.block == 0:  # once per document: vectors of chunks it no longer has
            self.dense.drop_stale(self.store, [job.document_id])
        if self.store.complete_embed_job(job, self.owner):
            self.stats.jobs += 1

    def _sentence_sources(self, job: EmbedJob, ids: Sequence[int]) -> list[ChunkSource]:
        """The block's chunks that have no sentence vectors yet (none without an encoder,
        or when the store cannot say: see :meth:`_embed_sentences`)."""
        if self.sentences is None or not ids:
            return []
        try:
            done = self.store.sentence_vector_ids(self.sentences.model, ids)
            if len(done) == len(ids):
                return []
            return [s for s in self.store.block_sources(job.document_id, job.block)
                    if s.id not in done]
        except Exception as exc:
            _log.warning("sentence vectors of document %s skipped: %s", job.document_id, exc)
            return []

    def _embed_sentences(self, sources: Sequence[ChunkSource]) -> None:
        """Store the sentence vectors of ``sources``. They only make answers faster, so a
        failure here is logged and the job goes on: the chunks' own vectors, the ones
        search needs, are never held back by it (the next open queues what is missing).
        An encoder that cannot load its model is not tried again by this worker."""
        if self.sentences is None or not sources:
            return
        try:
            rows = encode(self.sentences, sources)
            self.stats.sentences += self.store.put_sentence_vectors(self.sentences.model, rows)
        except ConfigError as exc:
            _log.warning("sentence vectors are not computed: %s", exc)
            self.sentences = None
        except Exception as exc:
            _log.warning("sentence vectors of %d chunks not computed: %s", len(sources), exc)

    def drain(
        self,
        document_ids: Sequence[str] | None = None,
        *,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        on_document: Callable[[str], None] | None = None,
    ) -> DrainStats:
        """Work until no job (of ``document_ids``, or any) is pending — including those
        other workers hold: their leases are waited out, or taken over when they lapse.
        ``progress(done, total)`` counts chunks (embedded now or found embedded);
        ``on_document(id)`` names the document of each job as it starts."""
        total = self.store.pending_embed_jobs(document_ids)[1]
        done = 0

        def tick(n: int) -> None:
            nonlocal done, total
            done += n
            total = max(total, done)
            if progress is not None and n:
                progress(done, total)

        if progress is not None:
            progress(0, total)
        give_back_memory()  # what the ingest before this freed, before the model loads
        self.reclaim_dead()
        # Lease among these documents' jobs — or, for a very large ingest, among all: its
        # ids would not fit one query, and doing others' jobs meanwhile only helps.
        among = document_ids if document_ids is None or len(document_ids) <= _LEASE_AMONG \
            else None
        while stop is None or not stop.is_set():
            if self.run_once(among, tick, on_document):
                continue
            if not self.store.pending_embed_jobs(document_ids)[0]:
                break
            self.reclaim_dead()
            if stop is not None:
                stop.wait(_POLL_S)
            else:
                time.sleep(_POLL_S)
        if progress is not None and done < total:
            progress(total, total)
        return self.stats

    def run_forever(self, stop: threading.Event, *, idle_s: float = 1.0) -> DrainStats:
        """Work until ``stop`` is set, waiting ``idle_s`` whenever the queue is empty (a
        ``citewise worker`` process; a thread of ``citewise serve``)."""
        last_reclaim = 0.0
        while not stop.is_set():
            try:
                if time.monotonic() - last_reclaim > self.lease_s:
                    self.reclaim_dead()
                    last_reclaim = time.monotonic()
                if self.run_once():
                    continue
            except Exception:  # the database is away: keep trying, do not die
                _log.warning("embedding worker: cannot reach the queue", exc_info=True)
            stop.wait(idle_s)
        return self.stats

    def close(self) -> None:
        """Stop renewing and give back whatever this worker still holds."""
        self._stop_beat.set()
        if self._beat is not None:
            self._beat.join(timeout=5)
        with contextlib.suppress(Exception):
            self.store.release_embed_jobs(self.owner)

    def __enter__(self) -> EmbedWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BackgroundWorkers:
    """``count`` worker threads draining the queue until :meth:`stop` (``citewise serve``;
    a ``citewise worker`` process runs one in its main thread instead)."""

    def __init__(self, store: Store, dense: VectorSearch, *, count: int = 1,
                 local: bool = False, idle_s: float = 1.0,
                 sentences: SentenceEncoder | None = None) -> None:
        self._stop = threading.Event()
        self.workers = [EmbedWorker(store, dense, local=local, sentences=sentences)
                        for _ in range(count)]
        self._threads = [
            threading.Thread(target=w.run_forever, args=(self._stop,),
                             kwargs={"idle_s": idle_s}, name=f"embed-worker-{i}", daemon=True)
            for i, w in enumerate(self.workers)
        ]
        for t in self._threads:
            t.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop after the batch in progress, and give the jobs held back (again: no-op)."""
        if self._stop.is_set():
            return
        self._stop.set()
        for t in self._threads:
            t.join(timeout=timeout_s)
        for w in self.workers:
            w.close()
