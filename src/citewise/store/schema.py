"""The tables, in SQLAlchemy Core, shared by the SQLite and PostgreSQL backends.

This module describes the *current* shape of the database. A fresh database is created
from it directly; an existing one is brought here by the numbered migrations in
:mod:`citewise.store.migrations` (so every change to a table below needs a migration).

Every tenant-owned row carries a ``tenant`` column and every query filters on it: a
record of another tenant behaves exactly as if it did not exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect

from citewise.store.base import JSONText

__all__ = [
    "FEEDBACK_TARGET_INDEX",
    "UTCDateTime",
    "api_keys",
    "chunks",
    "document_claims",
    "documents",
    "embed_jobs",
    "events",
    "feedback",
    "index_outbox",
    "json_type",
    "metadata",
    "runs",
    "sentence_vectors",
    "settings",
    "threads",
    "turns",
    "utcnow",
    "vec_cache",
    "vec_chunks",
    "vec_log",
]


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend.

    SQLite has no time zones: values are stored as naive UTC and read back as aware UTC,
    so callers never compare naive with aware datetimes.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class _JSON(sa.types.TypeDecorator[Any]):
    """JSON text on SQLite, JSONB on PostgreSQL; Python ``None`` is stored as SQL NULL,
    and a :class:`~citewise.store.base.JSONText` as the JSON it already is."""

    impl = sa.JSON
    cache_ok = True

    def __init__(self) -> None:
        super().__init__(none_as_null=True)

    def load_dialect_impl(self, dialect: Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(JSONB(none_as_null=True))
        return dialect.type_descriptor(sa.JSON(none_as_null=True))

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        encode = super().bind_processor(dialect)
        as_is = _jsonb_text if dialect.name == "postgresql" else str

        # Events and run states arrive as pydantic's own JSON (one native call): encoding
        # them again from dicts with the json module was most of an event's write cost.
        def process(value: Any) -> Any:
            if type(value) is JSONText:
                return as_is(value)
            return encode(value) if encode is not None else value

        return process


def _jsonb_text(text: str) -> Any:
    from psycopg.types.json import Jsonb

    return Jsonb(json_without_nul(text), dumps=str)  # sent as the jsonb it already is


# A JSON ``\u0000`` escape: the backslash before ``u`` is not itself escaped.
_NUL_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u0000")


def json_without_nul(text: str) -> str:
    """``text`` (JSON) with every U+0000 in its strings replaced by U+FFFD: JSONB cannot
    hold U+0000, and a model's or a tool's output must not lose a run's log over one.
    (Input from callers that carries it — a question, a decision — is refused earlier.)"""
    if "\\u0000" not in text:
        return text
    return _NUL_ESCAPE.sub(r"\1\\ufffd", text)


def json_type() -> sa.types.TypeEngine[Any]:
    """JSON text on SQLite, JSONB on PostgreSQL; Python ``None`` is stored as SQL NULL."""
    return _JSON()


# 53-bit chunk ids: INTEGER PRIMARY KEY (the rowid itself) on SQLite, BIGINT elsewhere.
_ChunkId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

metadata = sa.MetaData()

documents = sa.Table(
    "documents",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("collection", sa.String(256), nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("title", sa.Text),
    sa.Column("content_type", sa.String(128), nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    # Code points; kept so a search hit never has to load the whole text for its length.
    sa.Column("text_length", sa.Integer, nullable=False),
    sa.Column("metadata", json_type(), nullable=False, key="meta"),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    # Last on purpose: SQLite reads a row's columns in order, so any column after a long
    # text would drag its overflow pages in on every search hit.
    sa.Column("text", sa.Text, nullable=False),
    sa.Index("ix_documents_tenant_collection", "tenant", "collection"),
    sa.Index("ix_documents_tenant_source", "tenant", "source"),
    # A moved file is found by its bytes (``knowledge.ingest.moves``) on every ingest.
    sa.Index("ix_documents_tenant_hash", "tenant", "collection", "content_hash"),
)

chunks = sa.Table(
    "chunks",
    metadata,
    sa.Column("id", _ChunkId, primary_key=True, autoincrement=False),
    sa.Column(
        "document_id",
        sa.String(64),
        sa.ForeignKey("documents.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("ordinal", sa.Integer, nullable=False),
    sa.Column("start_char", sa.Integer, nullable=False),
    sa.Column("end_char", sa.Integer, nullable=False),
    sa.Column("page", sa.Integer),
    sa.Column("section", sa.Text),
    sa.Column("line", sa.Integer),
    # The loader's role spans inside the chunk, JSON (store.base.encode_roles); NULL: none.
    sa.Column("roles", sa.Text),
    sa.Column("text", sa.Text, nullable=False),  # last, like documents.text
    sa.Index("ix_chunks_document", "document_id", "ordinal"),
)

threads = sa.Table(
    "threads",
    metadata,
    sa.Column("tenant", sa.String(128), primary_key=True),
    sa.Column("id", sa.String(128), primary_key=True),
    sa.Column("title", sa.Text),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Index("ix_threads_tenant_updated", "tenant", "updated_at"),
)

turns = sa.Table(
    "turns",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("thread_id", sa.String(128), nullable=False),
    sa.Column("run_id", sa.String(128), nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Index("ix_turns_thread", "tenant", "thread_id", "id"),
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.String(128), primary_key=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("thread_id", sa.String(128), nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("state", json_type(), nullable=False),
    sa.Column("answer", json_type()),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    # The fencing token of the attempt executing the run (see store._run_fence): a write of
    # the run's events or state must name it, so a process that lost the run writes nothing.
    sa.Column("owner", sa.String(64)),
    sa.Index("ix_runs_tenant_thread", "tenant", "thread_id", "created_at"),
    sa.Index("ix_runs_tenant_status", "tenant", "status"),
    # Runs whose lease ran out, across tenants (agent.lease), without reading every run.
    sa.Index("ix_runs_status_updated", "status", "updated_at"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("run_id", sa.String(128), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("kind", sa.String(64), nullable=False),
    sa.Column("data", json_type(), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

feedback = sa.Table(
    "feedback",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("run_id", sa.String(128), nullable=False),
    sa.Column("rating", sa.Integer, nullable=False),
    sa.Column("document_index", sa.Integer),
    sa.Column("snippet_index", sa.Integer),
    sa.Column("comment", sa.Text),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Index("ix_feedback_tenant_run", "tenant", "run_id"),
)
# "Once per target", enforced by the database: a target is the answer (no document), a
# document (no passage) or a passage; NULLs are distinct in a unique index, so the
# missing parts are keyed as 0 (documents count from 1) and -1 (passages from 0).
FEEDBACK_TARGET_INDEX = sa.Index(
    "ux_feedback_target", feedback.c.tenant, feedback.c.run_id,
    sa.func.coalesce(feedback.c.document_index, sa.literal_column("0")),
    sa.func.coalesce(feedback.c.snippet_index, sa.literal_column("-1")), unique=True,
)

# Per-install key/value pairs (the install secret, …): not tenant-owned.
settings = sa.Table(
    "settings",
    metadata,
    sa.Column("key", sa.String(256), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

# Pending work for the derived search index. A row is written in the same transaction as
# the document change it describes and deleted only after the index has committed it, so
# a crash in between is repaired by replaying the row (see knowledge/sync.py).
index_outbox = sa.Table(
    "index_outbox",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("document_id", sa.String(64), nullable=False),
    sa.Column("op", sa.String(16), nullable=False),  # "upsert" | "delete" (for humans)
    sa.Column("created_at", UTCDateTime, nullable=False),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("name", sa.String(256), nullable=False),
    sa.Column("key_hash", sa.String(128), nullable=False, unique=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("revoked_at", UTCDateTime),
    sa.Index("ix_api_keys_tenant", "tenant"),
)

# -- dense vectors of the embedded knowledge base (see knowledge/vector_store.py) -----------
# The SQLite knowledge base keeps every chunk's embedding here, beside the chunks, and
# derives its in-process vector index from these rows (a PostgreSQL deployment may keep
# its vectors in pgvector instead; these tables then simply stay empty there).

# The embedding cache: a text embedded once by a model is never embedded again.
vec_cache = sa.Table(
    "vec_cache",
    metadata,
    sa.Column("model", sa.String(200), primary_key=True),
    sa.Column("content_hash", sa.LargeBinary(32), primary_key=True),
    sa.Column("vector", sa.LargeBinary, nullable=False),  # float32 little-endian, unit length
)

# Which chunk has which vector (``document_id`` lets a changed document be diffed cheaply).
vec_chunks = sa.Table(
    "vec_chunks",
    metadata,
    sa.Column("model", sa.String(200), primary_key=True),
    sa.Column("chunk_id", sa.BigInteger, primary_key=True),
    sa.Column("content_hash", sa.LargeBinary(32), nullable=False),
    sa.Column("document_id", sa.String(64)),
    sa.Index("vec_chunks_hash", "model", "content_hash"),
    sa.Index("vec_chunks_doc", "model", "document_id"),
)

# Append-only log of every change to ``vec_chunks`` ("a" add, "d" delete, "p" pruned up
# to ``chunk_id``), written in the same transaction: a saved vector index replays it.
vec_log = sa.Table(
    "vec_log",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("op", sa.String(1), nullable=False),
    sa.Column("chunk_id", sa.BigInteger, nullable=False),
    sa.Index("vec_log_model_seq", "model", "seq"),
    sqlite_autoincrement=True,  # a seq is never reused, even after pruning
)

# -- the store's work queue (see store/work.py) ---------------------------------------------
# Embedding jobs: one row per block of a document's chunks, leased by a worker at a time.
embed_jobs = sa.Table(
    "embed_jobs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("tenant", sa.String(128), nullable=False),
    sa.Column("document_id", sa.String(64), nullable=False),
    sa.Column("block", sa.Integer, nullable=False),
    sa.Column("chunks", sa.Integer, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("failed", sa.Boolean, nullable=False),
    sa.Column("owner", sa.String(128)),
    sa.Column("lease_until", UTCDateTime),
    sa.Column("error", sa.Text),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("tenant", "document_id", "block", name="ux_embed_jobs_block"),
    sa.Index("ix_embed_jobs_lease", "failed", "lease_until"),
    sa.Index("ix_embed_jobs_document", "document_id"),
)

# Per-document write claims: two ingests of one file never both write it.
document_claims = sa.Table(
    "document_claims",
    metadata,
    sa.Column("tenant", sa.String(128), primary_key=True),
    sa.Column("document_id", sa.String(64), primary_key=True),
    sa.Column("owner", sa.String(128), nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=False),
)

# -- sentence vectors (see store/sentence_vectors.py) ----------------------------------------
# Each chunk's candidate sentences as the extractive model compares them with a question,
# and their vectors (float32 little-endian, ``len(texts)`` rows of the model's width),
# computed with the chunk's embedding job so that an answer does not embed them. One row
# per chunk and model, gone with its chunk (a deleted document leaves no vector behind).
sentence_vectors = sa.Table(
    "sentence_vectors",
    metadata,
    sa.Column("chunk_id", _ChunkId, sa.ForeignKey("chunks.id", ondelete="CASCADE"),
              primary_key=True, autoincrement=False),
    sa.Column("model", sa.String(200), primary_key=True),
    sa.Column("texts", sa.Text, nullable=False),  # JSON list of strings
    sa.Column("vectors", sa.LargeBinary, nullable=False),
)
