"""The SQL of chunk embeddings in PostgreSQL with pgvector: one table, one HNSW index.

``chunk_embeddings(chunk_id, tenant, document_id, embedding vector(dim))``, created by
:class:`~citewise.knowledge.index.vectors_postgres.PostgresVectors` through the store's
migration lock (SQLite keeps its vectors in the
knowledge base's ``vec_*`` tables and an in-process index), so it is not part of the
shared :mod:`citewise.store.schema`.

Why it looks like this:

* ``chunk_id`` references ``chunks(id) ON DELETE CASCADE``: replacing or deleting a
  document removes its vectors in the same transaction, so the table can never hold a
  vector of a chunk that is gone (a changed document's vectors are re-put from the
  embedding cache by whoever syncs them, as the SQLite path does).
* ``tenant`` and ``document_id`` are copied from ``chunks`` at insert: ``put`` only ever
  attaches vectors to chunks of the given tenant, and the search filters on the copy
  without a join.
* The HNSW index uses cosine distance (``vector_cosine_ops``); scores returned are
  cosine similarities (``1 - distance``), like the in-process index's.
* pgvector < 0.8 filters *after* the HNSW scan, which yields at most ``hnsw.ef_search``
  candidates: the search raises ``ef_search`` for the query (``SET LOCAL``) so a filtered
  query still finds ``k`` rows unless the tenant holds a tiny share of the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from citewise.errors import ConfigError, InvalidInput
from citewise.store._sql import batched
from citewise.store.records import stored_indexed_text
from citewise.store.schema import chunks, documents

__all__ = [
    "TABLE_NAME", "all_ids", "count_missing", "delete", "dim_of", "ensure", "ids_of_documents", "missing",
    "put", "search", "table",
]

TABLE_NAME = "chunk_embeddings"
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
_EF_SEARCH_MIN = 40  # pgvector's default
_EF_SEARCH_MAX = 1000  # pgvector's limit


def table(dim: int) -> sa.Table:
    """The Core table for vectors of ``dim`` dimensions (its own MetaData)."""
    # Imported here, not at module level: a PostgresStore without vectors (and the
    # module importing this one) must work where pgvector is not installed.
    from pgvector.sqlalchemy import Vector

    return sa.Table(
        TABLE_NAME,
        sa.MetaData(),
        sa.Column(
            "chunk_id",
            sa.BigInteger,
            sa.ForeignKey(chunks.c.id, ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("tenant", sa.String(128), nullable=False),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("embedding", Vector(dim), nullable=False),
        sa.Index("ix_chunk_embeddings_document", "document_id"),
        sa.Index(
            "ix_chunk_embeddings_hnsw",
            "embedding",
            postgresql_using="hnsw",
            postgresql_with={"m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION},
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
    )


def dim_of(tbl: sa.Table) -> int:
    """The width of the table's ``embedding`` column."""
    dim = getattr(tbl.c.embedding.type, "dim", None)
    assert isinstance(dim, int)
    return dim


def ensure(conn: sa.Connection, dim: int) -> sa.Table:
    """Create the extension, table and index if missing (caller holds the migration lock);
    a table of another width is a configuration error, never silently altered."""
    if dim < 1 or dim > 16_000:
        raise ConfigError(f"vector_dim must be 1..16000, not {dim}", code="invalid_vector_dim")
    try:
        with conn.begin_nested():
            conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS vector")
    except sa.exc.DBAPIError as exc:
        reason = (str(exc.orig).strip().splitlines() or ["unknown"])[0]
        if getattr(exc.orig, "sqlstate", None) == "42501":  # insufficient_privilege
            raise ConfigError(
                f"this database user may not enable the vector extension ({reason}): "
                "a superuser runs `CREATE EXTENSION vector;` in this database once",
                code="pgvector_unavailable",
            ) from exc
        raise ConfigError(
            f"pgvector is not available on this PostgreSQL server ({reason}): install it, or "
            "turn dense retrieval off (KnowledgeBase.open_postgres(dense=False))",
            code="pgvector_unavailable",
        ) from exc
    try:
        tbl = table(dim)
    except ImportError as exc:
        raise ConfigError(
            f"vectors need the pgvector package ({exc}): pip install 'citewise[postgres]'",
            code="pgvector_unavailable",
        ) from exc
    tbl.create(conn, checkfirst=True)
    have = conn.execute(
        sa.text(
            "SELECT atttypmod FROM pg_attribute"
            " WHERE attrelid = CAST(:t AS regclass) AND attname = 'embedding'"
        ),
        {"t": TABLE_NAME},
    ).scalar_one()
    if have != dim:
        raise ConfigError(
            f"{TABLE_NAME} holds {have}-dimensional vectors, not {dim}: one embedding width "
            "per database (drop the table to switch models)",
            code="vector_dim_mismatch",
            details={"stored": have, "requested": dim},
        )
    return tbl


def _rows(dim: int, vectors: Any) -> list[list[float]]:
    import numpy as np

    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise InvalidInput(
            f"vectors must have {dim} dimensions, got shape {arr.shape}",
            code="vector_shape_mismatch",
        )
    if not np.isfinite(arr).all():
        raise InvalidInput("vectors must be finite", code="vector_not_finite")
    return arr.tolist()  # type: ignore[no-any-return]


def put(
    conn: sa.Connection, tbl: sa.Table, tenant: str, chunk_ids: Sequence[int], vectors: Any
) -> int:
    """Insert or replace vectors of ``tenant``'s chunks; ids of unknown chunks (or another
    tenant's) are skipped. Returns how many were stored."""
    from sqlalchemy.dialects.postgresql import insert

    rows = _rows(dim_of(tbl), vectors)
    if len(rows) != len(chunk_ids):
        raise InvalidInput("ids and vectors differ in length", code="vector_shape_mismatch")
    by_id = dict(zip(chunk_ids, rows, strict=True))
    owned: dict[int, str] = {}
    for part in batched(list(by_id)):
        q = sa.select(chunks.c.id, chunks.c.document_id).where(
            chunks.c.tenant == tenant, chunks.c.id.in_(part)
        )
        owned.update((r.id, r.document_id) for r in conn.execute(q))
    if not owned:
        return 0
    ins = insert(tbl)
    stmt = ins.on_conflict_do_update(
        index_elements=["chunk_id"],
        set_={"embedding": ins.excluded.embedding, "document_id": ins.excluded.document_id},
    )
    conn.execute(
        stmt,
        [
            {"chunk_id": cid, "tenant": tenant, "document_id": doc, "embedding": by_id[cid]}
            for cid, doc in sorted(owned.items())  # a fixed lock order between writers
        ],
    )
    return len(owned)


def delete(conn: sa.Connection, tbl: sa.Table, tenant: str, chunk_ids: Sequence[int]) -> int:
    gone = 0
    for part in batched(list(chunk_ids)):
        result = conn.execute(
            sa.delete(tbl).where(tbl.c.tenant == tenant, tbl.c.chunk_id.in_(part))
        )
        gone += max(int(result.rowcount or 0), 0)
    return gone


def ids_of_documents(
    conn: sa.Connection, tbl: sa.Table, tenant: str, document_ids: Sequence[str]
) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for part in batched(list(document_ids)):
        q = sa.select(tbl.c.document_id, tbl.c.chunk_id).where(
            tbl.c.tenant == tenant, tbl.c.document_id.in_(part)
        )
        for r in conn.execute(q):
            out.setdefault(r.document_id, set()).add(r.chunk_id)
    return out


def search(
    conn: sa.Connection,
    tbl: sa.Table,
    tenant: str,
    query_vector: Any,
    k: int,
    *,
    collections: Sequence[str] | None = None,
) -> list[tuple[int, float]]:
    """``(chunk_id, cosine similarity)``, best first, at most ``k`` (approximate: HNSW)."""
    if k < 1:
        return []
    (vec,) = _rows(dim_of(tbl), [query_vector])
    ef = min(max(_EF_SEARCH_MIN, 4 * k), _EF_SEARCH_MAX)
    # A transaction-local setting: reset when the read transaction ends.
    conn.exec_driver_sql(f"SET LOCAL hnsw.ef_search = {int(ef)}")
    distance = tbl.c.embedding.cosine_distance(vec)
    q = sa.select(tbl.c.chunk_id, distance.label("distance")).where(tbl.c.tenant == tenant)
    if collections is not None:
        in_collections = sa.select(documents.c.id).where(
            documents.c.tenant == tenant, documents.c.collection.in_(list(collections))
        )
        q = q.where(tbl.c.document_id.in_(in_collections))
    q = q.order_by(distance).limit(k)
    return [(int(r.chunk_id), 1.0 - float(r.distance)) for r in conn.execute(q)]


def all_ids(conn: sa.Connection, tbl: sa.Table) -> set[int]:
    """Every chunk id with an embedding (all tenants)."""
    return {int(r[0]) for r in conn.execute(sa.select(tbl.c.chunk_id))}


def _without_vector(tbl: sa.Table) -> sa.FromClause:
    return chunks.outerjoin(tbl, tbl.c.chunk_id == chunks.c.id)


def count_missing(conn: sa.Connection, tbl: sa.Table) -> int:
    """Chunks without an embedding (all tenants)."""
    q = sa.select(sa.func.count()).select_from(_without_vector(tbl))
    return int(conn.execute(q.where(tbl.c.chunk_id.is_(None))).scalar_one())


def missing(
    conn: sa.Connection, tbl: sa.Table, *, after: int | None, limit: int
) -> list[tuple[str, int, str]]:
    """``(tenant, chunk_id, text)`` of chunks without an embedding, by id, after ``after``
    (None: from the start): what a sync after a crash, or a new replica, embeds. The text
    is as the embedder reads it (hidden spans blanked)."""
    q = (
        sa.select(chunks.c.tenant, chunks.c.id, chunks.c.text, chunks.c.roles)
        .select_from(_without_vector(tbl))
        .where(tbl.c.chunk_id.is_(None))
        .order_by(chunks.c.id)
        .limit(limit)
    )
    if after is not None:
        q = q.where(chunks.c.id > after)
    return [(r.tenant, int(r.id), stored_indexed_text(r.text, r.roles))
            for r in conn.execute(q)]


def missing_ids(conn: sa.Connection, tbl: sa.Table) -> list[int]:
    """Ids of every chunk without an embedding (what the embedding queue must cover)."""
    q = sa.select(chunks.c.id).select_from(_without_vector(tbl)).where(tbl.c.chunk_id.is_(None))
    return [int(r[0]) for r in conn.execute(q)]


def existing(conn: sa.Connection, tbl: sa.Table, chunk_ids: Sequence[int]) -> set[int]:
    """Those of ``chunk_ids`` that have an embedding."""
    found: set[int] = set()
    for part in batched(list(dict.fromkeys(chunk_ids))):
        q = sa.select(tbl.c.chunk_id).where(tbl.c.chunk_id.in_(part))
        found.update(int(r[0]) for r in conn.execute(q))
    return found
