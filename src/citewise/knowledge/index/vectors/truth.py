"""Stored embeddings: the source of truth the in-memory vector index is derived from.

Three tables in the knowledge base's own SQLite file, all prefixed ``vec_`` and defined
with the store's other tables in :mod:`citewise.store.schema` (created by its numbered
migrations, ``m002_vectors``):

* ``vec_cache(model, content_hash, vector)`` — the embedding cache: a text embedded once
  by a model is never embedded again (re-ingesting a changed file re-embeds only the
  chunks whose text changed).
* ``vec_chunks(model, chunk_id, content_hash, document_id)`` — which chunk has which
  vector (``document_id`` lets a changed document be diffed without a full scan).
* ``vec_log(seq, model, op, chunk_id)`` — an append-only log of every change to
  ``vec_chunks`` (``"a"`` add, ``"d"`` delete), written in the same transaction. The
  persisted vector index records the last ``seq`` it contains; on open it replays the
  log from there, or rebuilds from ``vec_chunks`` when the log was pruned past it.

Every method takes an optional SQLAlchemy ``Connection`` so a caller can make vector
writes part of its own transaction (chunks and their vectors commit together).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
)

from citewise.errors import InvalidInput
from citewise.store.migrations import migrate
from citewise.store.schema import chunks, vec_cache, vec_chunks, vec_log

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["LogEntry", "VectorStore"]

#: ``(seq, op, chunk_id)`` with ``op`` in ``{"a", "d"}``.
LogEntry = tuple[int, str, int]

_BATCH = 500  # rows per IN (...) query; well below SQLite's variable limit


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


class VectorStore:
    """The ``vec_*`` tables. Give it the store's engine, or a path to a SQLite file."""

    def __init__(self, engine: Engine | str | Path) -> None:
        """An ``Engine`` must reach a migrated store database; a path is opened (and
        migrated, which is a no-op when a store already did it) with its own engine."""
        if isinstance(engine, Engine):
            self.engine = engine
            self._owns_engine = False
        else:
            self.engine = create_engine(f"sqlite:///{Path(engine)}")
            event.listen(self.engine, "connect", _sqlite_pragmas)
            self._owns_engine = True
            with self.engine.begin() as conn:
                migrate(conn)

    def close(self) -> None:
        if self._owns_engine:
            self.engine.dispose()

    @contextmanager
    def _tx(self, conn: Connection | None) -> Iterator[Connection]:
        if conn is not None:
            yield conn
        else:
            with self.engine.begin() as own:
                yield own

    # -- the cache --------------------------------------------------------------------------

    def cached(
        self, model: str, hashes: Sequence[bytes], conn: Connection | None = None
    ) -> dict[bytes, bytes]:
        """Cached vectors (raw float32 bytes) for those of ``hashes`` that have one."""
        found: dict[bytes, bytes] = {}
        with self._tx(conn) as c:
            uniq = list(dict.fromkeys(hashes))
            for i in range(0, len(uniq), _BATCH):
                rows = c.execute(
                    select(vec_cache.c.content_hash, vec_cache.c.vector).where(
                        vec_cache.c.model == model,
                        vec_cache.c.content_hash.in_(uniq[i : i + _BATCH]),
                    )
                )
                found.update((bytes(h), bytes(v)) for h, v in rows)
        return found

    # -- chunk vectors ----------------------------------------------------------------------

    def put(
        self,
        model: str,
        chunk_ids: Sequence[int],
        hashes: Sequence[bytes],
        vectors: NDArray[np.float32],
        conn: Connection | None = None,
        *,
        document_ids: Sequence[str | None] | None = None,
    ) -> int:
        """Store the vectors of ``chunk_ids`` (cache + mapping + log, one transaction).

        ``vectors[i]`` is the embedding of the text whose hash is ``hashes[i]``; the chunk
        belongs to ``document_ids[i]``. Chunks that already have a vector under ``model``
        are left as they are. Returns the last log seq.
        """
        import numpy as np

        docs: Sequence[str | None] = (
            document_ids if document_ids is not None else [None] * len(chunk_ids)
        )
        if not len(chunk_ids) == len(hashes) == len(vectors) == len(docs):
            raise InvalidInput(
                "chunk_ids, hashes and vectors differ in length", code="vector_shape_mismatch"
            )
        vecs = np.ascontiguousarray(vectors, dtype="<f4")
        with self._tx(conn) as c:
            have = self._existing(c, model, chunk_ids)
            known = self.cached(model, hashes, c)
            cache_rows: dict[bytes, bytes] = {}  # hash -> vector bytes
            map_rows: list[dict[str, Any]] = []
            log_rows: list[dict[str, Any]] = []
            for i, (cid, h) in enumerate(zip(chunk_ids, hashes, strict=True)):
                if cid in have:
                    continue
                have.add(cid)
                if h not in known and h not in cache_rows:
                    cache_rows[h] = vecs[i].tobytes()
                map_rows.append(
                    {"model": model, "chunk_id": cid, "content_hash": h, "document_id": docs[i]}
                )
                log_rows.append({"model": model, "op": "a", "chunk_id": cid})
            if cache_rows:
                c.execute(
                    insert(vec_cache),
                    [
                        {"model": model, "content_hash": h, "vector": v}
                        for h, v in cache_rows.items()
                    ],
                )
            if map_rows:
                c.execute(insert(vec_chunks), map_rows)
                c.execute(insert(vec_log), log_rows)
            return self.last_seq(model, c)

    def delete(
        self, model: str | None, chunk_ids: Sequence[int], conn: Connection | None = None
    ) -> int:
        """Remove the vectors of ``chunk_ids`` (every model when ``model`` is None).

        Cache entries no chunk refers to any more are removed too, so a deleted document
        leaves no vector behind. Returns how many chunk vectors were removed.
        """
        removed = 0
        with self._tx(conn) as c:
            models = [model] if model is not None else self.models(c)
            for m in models:
                for i in range(0, len(chunk_ids), _BATCH):
                    part = list(chunk_ids[i : i + _BATCH])
                    rows = c.execute(
                        select(vec_chunks.c.chunk_id, vec_chunks.c.content_hash).where(
                            vec_chunks.c.model == m, vec_chunks.c.chunk_id.in_(part)
                        )
                    ).all()
                    if not rows:
                        continue
                    ids = [int(r[0]) for r in rows]
                    c.execute(
                        delete(vec_chunks).where(
                            vec_chunks.c.model == m, vec_chunks.c.chunk_id.in_(ids)
                        )
                    )
                    c.execute(
                        insert(vec_log), [{"model": m, "op": "d", "chunk_id": cid} for cid in ids]
                    )
                    self._prune_cache(c, m, {bytes(r[1]) for r in rows})
                    removed += len(ids)
        return removed

    def _prune_cache(self, c: Connection, model: str, hashes: set[bytes]) -> None:
        still = {
            bytes(h)
            for (h,) in c.execute(
                select(vec_chunks.c.content_hash).where(
                    vec_chunks.c.model == model, vec_chunks.c.content_hash.in_(list(hashes))
                )
            )
        }
        orphans = list(hashes - still)
        if orphans:
            c.execute(
                delete(vec_cache).where(
                    vec_cache.c.model == model, vec_cache.c.content_hash.in_(orphans)
                )
            )

    def existing(self, model: str, chunk_ids: Sequence[int]) -> set[int]:
        """Those of ``chunk_ids`` that have a vector under ``model``."""
        with self.engine.connect() as c:
            return self._existing(c, model, chunk_ids)

    def _existing(self, c: Connection, model: str, chunk_ids: Sequence[int]) -> set[int]:
        have: set[int] = set()
        ids = list(dict.fromkeys(chunk_ids))
        for i in range(0, len(ids), _BATCH):
            have.update(
                int(r[0])
                for r in c.execute(
                    select(vec_chunks.c.chunk_id).where(
                        vec_chunks.c.model == model, vec_chunks.c.chunk_id.in_(ids[i : i + _BATCH])
                    )
                )
            )
        return have

    def chunks_of_documents(
        self, model: str, document_ids: Sequence[str], conn: Connection | None = None
    ) -> dict[str, set[int]]:
        """``{document_id: chunk ids with a vector}`` (documents without any are absent)."""
        out: dict[str, set[int]] = {}
        with self._tx(conn) as c:
            uniq = list(dict.fromkeys(document_ids))
            for i in range(0, len(uniq), _BATCH):
                rows = c.execute(
                    select(vec_chunks.c.document_id, vec_chunks.c.chunk_id).where(
                        vec_chunks.c.model == model,
                        vec_chunks.c.document_id.in_(uniq[i : i + _BATCH]),
                    )
                )
                for doc, cid in rows:
                    out.setdefault(str(doc), set()).add(int(cid))
        return out

    def chunk_ids(self, model: str, conn: Connection | None = None) -> set[int]:
        """Every chunk that has a vector under ``model``."""
        with self._tx(conn) as c:
            return {
                int(r[0])
                for r in c.execute(select(vec_chunks.c.chunk_id).where(vec_chunks.c.model == model))
            }

    def vectors(
        self, model: str, chunk_ids: Sequence[int] | None = None, conn: Connection | None = None
    ) -> tuple[list[int], bytes]:
        """``(ids, float32 bytes)`` of the given chunks (all of ``model``'s when None).

        Returned as raw bytes so a million vectors cost one ``np.frombuffer``.
        """
        ids, _, blob = self._read_vectors(model, chunk_ids, conn, tenants=False)
        return ids, blob

    def tenant_vectors(
        self, model: str, chunk_ids: Sequence[int] | None = None, conn: Connection | None = None
    ) -> tuple[list[int], list[str | None], bytes]:
        """:meth:`vectors` plus each chunk's tenant, read from the store's ``chunks`` table
        in the same query (None for a vector whose chunk the store does not hold)."""
        return self._read_vectors(model, chunk_ids, conn, tenants=True)

    def _read_vectors(
        self, model: str, chunk_ids: Sequence[int] | None, conn: Connection | None, *,
        tenants: bool,
    ) -> tuple[list[int], list[str | None], bytes]:
        cols: list[Any] = [vec_chunks.c.chunk_id, vec_cache.c.vector]
        if tenants:
            cols.append(chunks.c.tenant)
        base = select(*cols).join(
            vec_cache,
            (vec_cache.c.model == vec_chunks.c.model)
            & (vec_cache.c.content_hash == vec_chunks.c.content_hash),
        )
        if tenants:
            base = base.outerjoin(chunks, chunks.c.id == vec_chunks.c.chunk_id)
        base = base.where(vec_chunks.c.model == model)
        ids: list[int] = []
        owners: list[str | None] = []
        blobs: list[bytes] = []
        with self._tx(conn) as c:
            if chunk_ids is None:
                parts: list[Any] = [base.order_by(vec_chunks.c.chunk_id)]
            else:
                uniq = list(dict.fromkeys(chunk_ids))
                parts = [
                    base.where(vec_chunks.c.chunk_id.in_(uniq[i : i + _BATCH]))
                    for i in range(0, len(uniq), _BATCH)
                ]
            for q in parts:
                for row in c.execute(q):
                    ids.append(int(row[0]))
                    blobs.append(bytes(row[1]))
                    if tenants:
                        owners.append(None if row[2] is None else str(row[2]))
        return ids, owners, b"".join(blobs)

    # -- the log ----------------------------------------------------------------------------

    def last_seq(self, model: str, conn: Connection | None = None) -> int:
        """The seq of ``model``'s latest change (0 if it never changed)."""
        with self._tx(conn) as c:
            value = c.execute(
                select(func.max(vec_log.c.seq)).where(vec_log.c.model == model)
            ).scalar()
            return int(value or 0)

    def log_since(
        self, model: str, seq: int, conn: Connection | None = None
    ) -> list[LogEntry] | None:
        """``model``'s changes after ``seq``, in order; None when they can no longer be
        replayed (the log was pruned past ``seq``, or ``seq`` is ahead of the log)."""
        with self._tx(conn) as c:
            last = self.last_seq(model, c)
            if seq > last:
                return None
            pruned_upto = c.execute(
                select(func.max(vec_log.c.chunk_id)).where(
                    vec_log.c.model == model, vec_log.c.op == "p"
                )
            ).scalar()
            if pruned_upto is not None and int(pruned_upto) > seq:
                return None
            rows = c.execute(
                select(vec_log.c.seq, vec_log.c.op, vec_log.c.chunk_id)
                .where(vec_log.c.model == model, vec_log.c.seq > seq, vec_log.c.op != "p")
                .order_by(vec_log.c.seq)
            )
            return [(int(s), str(o), int(cid)) for s, o, cid in rows]

    def prune_log(self, model: str, upto: int, conn: Connection | None = None) -> None:
        """Forget ``model``'s log entries up to ``upto`` (an index file has saved them).

        A ``"p"`` row (its ``chunk_id`` holds ``upto``) records the prune, so an older index
        file is rebuilt instead of replayed from a log with a hole in it.
        """
        with self._tx(conn) as c:
            c.execute(delete(vec_log).where(vec_log.c.model == model, vec_log.c.seq <= upto))
            c.execute(insert(vec_log), [{"model": model, "op": "p", "chunk_id": upto}])

    def models(self, conn: Connection | None = None) -> list[str]:
        with self._tx(conn) as c:
            return sorted({str(r[0]) for r in c.execute(select(vec_chunks.c.model).distinct())})

    def count(self, model: str, conn: Connection | None = None) -> int:
        with self._tx(conn) as c:
            return int(
                c.execute(
                    select(func.count()).select_from(vec_chunks).where(vec_chunks.c.model == model)
                ).scalar()
                or 0
            )
