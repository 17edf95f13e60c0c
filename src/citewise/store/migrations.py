"""Numbered schema migrations: plain functions in ONE ordered list.

``migrate`` applies, in order, every migration whose name is not yet recorded in the
``_migrations`` table, inside the caller's transaction (on SQLite a ``BEGIN IMMEDIATE``
one, so two processes opening the same file never migrate at once). Running it again
applies nothing.

Rules for adding a migration (append only, never edit or reorder a shipped one):

* ``m001_initial`` creates the tables from :mod:`citewise.store.schema`, which always
  describes the *current* shape, so a fresh database already has every later change.
  Each later migration must therefore be a no-op when its change is present (use
  :func:`has_column` / ``checkfirst``) and :mod:`schema` must be updated to match.
* Use SQLAlchemy Core or dialect-neutral SQL: the same list runs on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa

from citewise.store import schema

__all__ = ["MIGRATIONS", "Migration", "applied_migrations", "has_column", "migrate"]

Migration = Callable[[sa.Connection], None]

_migrations = sa.Table(
    "_migrations",
    sa.MetaData(),
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("applied_at", schema.UTCDateTime, nullable=False),
)


def has_column(conn: sa.Connection, table: str, column: str) -> bool:
    """Whether ``table.column`` exists (for migrations that must be no-ops when done)."""
    return any(c["name"] == column for c in sa.inspect(conn).get_columns(table))


def m001_initial(conn: sa.Connection) -> None:
    """documents, chunks, threads, turns, runs, events, feedback, settings, index_outbox,
    api_keys (and every table a later migration adds: ``schema`` is the current shape)."""
    schema.metadata.create_all(conn, checkfirst=True)


def m002_vectors(conn: sa.Connection) -> None:
    """vec_cache, vec_chunks, vec_log: the knowledge base's stored embeddings.

    A database created before them gets them here (a fresh one already has them from
    ``m001_initial``); ``checkfirst`` makes this a no-op when they exist, including in a
    file where an earlier version created them outside the migrations.
    """
    schema.metadata.create_all(
        conn, tables=[schema.vec_cache, schema.vec_chunks, schema.vec_log], checkfirst=True
    )


def m003_runs_lease_index(conn: sa.Connection) -> None:
    """``ix_runs_status_updated``: the sweep for runs whose lease ran out reads only the
    running ones (a no-op where ``m001_initial`` already made it)."""
    index = next(i for i in schema.runs.indexes if i.name == "ix_runs_status_updated")
    index.create(conn, checkfirst=True)


def m004_feedback_once_per_target(conn: sa.Connection) -> None:
    """``ux_feedback_target``: one rating per (tenant, run, target), as the feedback API
    promises (it checked, then inserted: concurrent posts of one token stored several).
    Duplicates that race left are dropped first, keeping each target's first rating.
    (``IF NOT EXISTS`` rather than ``checkfirst``: SQLAlchemy cannot reflect an expression
    index on SQLite, and warns.)"""
    fb = schema.feedback
    target = (fb.c.tenant, fb.c.run_id, sa.func.coalesce(fb.c.document_index, 0),
              sa.func.coalesce(fb.c.snippet_index, -1))
    keep = sa.select(sa.func.min(fb.c.id)).group_by(*target)
    conn.execute(sa.delete(fb).where(fb.c.id.not_in(keep)))
    conn.execute(sa.schema.CreateIndex(schema.FEEDBACK_TARGET_INDEX, if_not_exists=True))


def m005_runs_owner(conn: sa.Connection) -> None:
    """``runs.owner``: the fencing token of the attempt executing a run (issue 25: a
    replica stalled past its lease kept writing a run another replica had ended)."""
    if not has_column(conn, "runs", "owner"):
        conn.execute(sa.text("ALTER TABLE runs ADD COLUMN owner VARCHAR(64)"))


def m006_work_queue(conn: sa.Connection) -> None:
    """``embed_jobs`` and ``document_claims``: the store's own work queue (issue 23:
    embedding became leased background work; one writer per document)."""
    schema.metadata.create_all(
        conn, tables=[schema.embed_jobs, schema.document_claims], checkfirst=True
    )


def m007_chunk_roles(conn: sa.Connection) -> None:
    """``chunks.roles``: the loader's role spans of each chunk (issue #27: a heading, a
    code block or a table told apart by the format, not guessed from the words). Chunks
    written before have none until their document is read again (the loaders' versions
    went up, so the next ingest of an unchanged file does that)."""
    if not has_column(conn, "chunks", "roles"):
        conn.execute(sa.text("ALTER TABLE chunks ADD COLUMN roles TEXT"))


def m008_sentence_vectors(conn: sa.Connection) -> None:
    """``sentence_vectors``: each chunk's candidate sentences embedded with the chunk
    (issue #27: embedding them per question was two thirds of an answer's time). A
    knowledge base made before has none; opening it queues them (``queue_sentences``)."""
    schema.metadata.create_all(conn, tables=[schema.sentence_vectors], checkfirst=True)


def m009_documents_hash_index(conn: sa.Connection) -> None:
    """``ix_documents_tenant_hash``: every ingest looks up the documents with the bytes of
    the files it saw, to tell a moved file (``knowledge.ingest.moves``); without it the
    lookup read the collection once per 900 hashes (783 ms for 5,000 of 50,000 documents,
    code review, 2026-12-08)."""
    index = next(i for i in schema.documents.indexes if i.name == "ix_documents_tenant_hash")
    index.create(conn, checkfirst=True)


MIGRATIONS: list[Migration] = [
    m001_initial,
    m002_vectors,
    m003_runs_lease_index,
    m004_feedback_once_per_target,
    m005_runs_owner,
    m006_work_queue,
    m007_chunk_roles,
    m008_sentence_vectors,
    m009_documents_hash_index,
]


def applied_migrations(conn: sa.Connection) -> list[str]:
    """Names of the migrations recorded as applied, in name (= number) order."""
    if not sa.inspect(conn).has_table("_migrations"):
        return []
    rows = conn.execute(sa.select(_migrations.c.name).order_by(_migrations.c.name))
    return [r[0] for r in rows]


def migrate(conn: sa.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> list[str]:
    """Apply pending migrations in list order; returns the names applied now.

    Must run inside a transaction on ``conn`` (the caller commits), so a migration that
    fails leaves nothing half-applied: DDL is transactional on SQLite and PostgreSQL.
    """
    _migrations.create(conn, checkfirst=True)
    done = set(applied_migrations(conn))
    applied: list[str] = []
    for migration in migrations:
        name = migration.__name__
        if name in done:
            continue
        migration(conn)
        conn.execute(sa.insert(_migrations).values(name=name, applied_at=schema.utcnow()))
        applied.append(name)
    return applied
