"""Documents, chunks and the index outbox, in portable SQLAlchemy Core."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import sqlalchemy as sa

from citewise.store._sql import SQLBase, batched
from citewise.store._sql_sentences import carried_rows
from citewise.store.base import (
    ChunkContext,
    ChunkRecord,
    DocumentRecord,
    IndexOp,
    IndexRow,
    decode_roles,
    encode_roles,
    index_row,
)
from citewise.store.schema import chunks, documents, index_outbox, sentence_vectors, utcnow

__all__ = ["DocumentsMixin"]

_DOC_COLS = [c for c in documents.c if c.key != "text"]


# The search hot path: built once, so SQLAlchemy compiles it once (expanding IN list).
_CONTEXTS = (
    sa.select(*chunks.c, *(c.label(f"doc_{c.key}") for c in _DOC_COLS))
    .join_from(chunks, documents, chunks.c.document_id == documents.c.id)
    .where(
        chunks.c.tenant == sa.bindparam("tenant"),
        chunks.c.id.in_(sa.bindparam("ids", expanding=True)),
    )
)


_CHUNK_DOCUMENTS = sa.select(chunks.c.id, chunks.c.document_id).where(
    chunks.c.tenant == sa.bindparam("tenant"),
    chunks.c.id.in_(sa.bindparam("ids", expanding=True)),
)


_DELETE_CHUNKS = sa.delete(chunks).where(
    chunks.c.document_id.in_(sa.bindparam("ids", expanding=True))
)


def _chunk(row: Any) -> ChunkRecord:
    return ChunkRecord(
        id=row.id,
        document_id=row.document_id,
        ordinal=row.ordinal,
        start_char=row.start_char,
        end_char=row.end_char,
        text=row.text,
        page=row.page,
        section=row.section,
        line=row.line,
        roles=decode_roles(row.roles),
    )


def _document(row: Any) -> DocumentRecord:
    return DocumentRecord(
        id=row.id,
        tenant=row.tenant,
        collection=row.collection,
        source=row.source,
        title=row.title,
        content_type=row.content_type,
        content_hash=row.content_hash,
        text=row.text,
        metadata=dict(row.meta or {}),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class DocumentsMixin(SQLBase):
    # -- reads ----------------------------------------------------------------------------
    def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        q = sa.select(documents).where(documents.c.id == document_id, documents.c.tenant == tenant)
        with self._read() as c:
            row = c.execute(q).first()
        return _document(row) if row else None

    def find_document_by_source(self, tenant: str, source: str) -> DocumentRecord | None:
        q = sa.select(documents).where(documents.c.tenant == tenant, documents.c.source == source)
        with self._read() as c:
            row = c.execute(q.limit(1)).first()
        return _document(row) if row else None

    def list_documents(
        self, tenant: str, *, collection: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[DocumentRecord]:
        q = sa.select(documents).where(documents.c.tenant == tenant)
        if collection is not None:
            q = q.where(documents.c.collection == collection)
        q = q.order_by(documents.c.source, documents.c.id).limit(limit).offset(offset)
        with self._read() as c:
            return [_document(r) for r in c.execute(q)]

    def list_document_chunk_ids(self, tenant: str, *, limit: int = 100
                                ) -> list[tuple[str, list[int]]]:
        ids = (sa.select(documents.c.id).where(documents.c.tenant == tenant)
               .order_by(documents.c.source, documents.c.id).limit(limit))
        out: dict[str, list[int]] = {}
        with self._read() as c:
            for (doc_id,) in c.execute(ids):
                out[doc_id] = []
            for part in batched(list(out)):
                q = (sa.select(chunks.c.document_id, chunks.c.id)
                     .where(chunks.c.document_id.in_(part))
                     .order_by(chunks.c.document_id, chunks.c.ordinal))
                for doc_id, chunk in c.execute(q):
                    out[doc_id].append(chunk)
        return list(out.items())

    def get_chunks(self, chunk_ids: Sequence[int]) -> list[ChunkRecord]:
        found: dict[int, ChunkRecord] = {}
        with self._read() as c:
            for part in batched(list(chunk_ids)):
                for row in c.execute(sa.select(chunks).where(chunks.c.id.in_(part))):
                    found[row.id] = _chunk(row)
        return [found[i] for i in chunk_ids if i in found]

    def get_document_versions(
        self, tenant: str, document_ids: Sequence[str]
    ) -> dict[str, tuple[str, str, dict[str, Any]]]:
        cols = (documents.c.id, documents.c.content_hash, documents.c.collection, documents.c.meta)
        out: dict[str, tuple[str, str, dict[str, Any]]] = {}
        with self._read() as c:
            for part in batched(list(document_ids)):
                q = sa.select(*cols).where(documents.c.tenant == tenant, documents.c.id.in_(part))
                for r in c.execute(q):
                    out[r.id] = (r.content_hash, r.collection, dict(r.meta or {}))
        return out

    def get_document_chunks(self, tenant: str, document_id: str) -> list[ChunkRecord]:
        q = (
            sa.select(chunks)
            .where(chunks.c.tenant == tenant, chunks.c.document_id == document_id)
            .order_by(chunks.c.ordinal)
        )
        with self._read() as c:
            return [_chunk(r) for r in c.execute(q)]

    def get_chunk_contexts(self, tenant: str, chunk_ids: Sequence[int]) -> list[ChunkContext]:
        found: dict[int, ChunkContext] = {}
        with self._read() as c:
            for part in batched(list(chunk_ids)):
                for row in c.execute(_CONTEXTS, {"tenant": tenant, "ids": list(part)}):
                    found[row.id] = ChunkContext(
                        chunk=_chunk(row),
                        tenant=row.doc_tenant,
                        collection=row.doc_collection,
                        source=row.doc_source,
                        title=row.doc_title,
                        content_type=row.doc_content_type,
                        text_length=row.doc_text_length,
                        metadata=dict(row.doc_meta or {}),
                    )
        return [found[i] for i in chunk_ids if i in found]

    def documents_with_hashes(
        self, tenant: str, hashes: Sequence[str], *, collection: str
    ) -> list[tuple[str, str, str]]:
        cols = (documents.c.id, documents.c.source, documents.c.content_hash)
        out: list[tuple[str, str, str]] = []
        with self._read() as c:
            for part in batched(sorted(set(hashes))):
                q = sa.select(*cols).where(documents.c.tenant == tenant,
                                           documents.c.collection == collection,
                                           documents.c.content_hash.in_(part))
                out.extend((r.id, r.source, r.content_hash) for r in c.execute(q))
        return sorted(out, key=lambda r: (r[1], r[0]))

    def sources_named(self, tenant: str, file_name: str, *, limit: int = 3) -> list[str]:
        src, tail = documents.c.source, "/" + file_name
        # The last characters compared exactly: SQLite's LIKE ignores ASCII case, and the
        # same call must find the same sources on PostgreSQL.
        ends = sa.func.substr(src, sa.func.length(src) - (len(tail) - 1)) == tail
        q = (sa.select(src).where(documents.c.tenant == tenant, sa.or_(src == file_name, ends))
             .order_by(src).limit(limit))
        with self._read() as c:
            return [r[0] for r in c.execute(q)]

    def chunk_document_ids(self, tenant: str, chunk_ids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        with self._read() as c:
            for part in batched(list(chunk_ids)):
                rows = c.execute(_CHUNK_DOCUMENTS, {"tenant": tenant, "ids": list(part)})
                out.update((cid, doc) for cid, doc in rows)
        return out

    def document_facets(
        self, tenant: str, document_ids: Sequence[str] | None, *,
        metadata_keys: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        keys = list(dict.fromkeys(metadata_keys))
        # Each key extracted by the database (SQLite's json_extract, PostgreSQL's ->): an
        # HTML page's metadata carries thousands of anchor ids no filter reads.
        cols = [documents.c.id, documents.c.collection, documents.c.source,
                documents.c.content_type, *(documents.c.meta[k] for k in keys)]
        out: list[dict[str, Any]] = []
        parts: Iterable[Sequence[str] | None] = (
            [None] if document_ids is None else batched(list(dict.fromkeys(document_ids))))
        with self._read() as c:
            for part in parts:
                where = (documents.c.tenant == tenant,) if part is None else (
                    documents.c.tenant == tenant, documents.c.id.in_(part))
                try:
                    rows = [tuple(r) for r in c.execute(sa.select(*cols).where(*where))]
                except sa.exc.OperationalError:
                    # Metadata SQLite's json_extract cannot read (Python writes NaN and
                    # Infinity; JSONB cannot hold them at all): decoded here instead, as
                    # reading a hit does.
                    full = sa.select(*cols[:4], documents.c.meta).where(*where)
                    rows = [(*r[:4], *((r[4] or {}).get(k) for k in keys)) for r in c.execute(full)]
                for row in rows:
                    meta = {k: v for k, v in zip(keys, row[4:], strict=True) if v is not None}
                    out.append({"id": row[0], "collection": row[1], "source": row[2],
                                "content_type": row[3], "metadata": meta})
        return out

    def count_chunks(self, tenant: str | None = None) -> int:
        q = sa.select(sa.func.count()).select_from(chunks)
        if tenant is not None:
            q = q.where(chunks.c.tenant == tenant)
        with self._read() as c:
            return int(c.execute(q).scalar_one())

    def list_chunk_ids(self, tenant: str | None = None) -> set[int]:
        q = sa.select(chunks.c.id)
        if tenant is not None:
            q = q.where(chunks.c.tenant == tenant)
        with self._read() as c:
            return {r[0] for r in c.execute(q)}

    # -- writes ---------------------------------------------------------------------------
    def replace_documents(
        self, items: Sequence[tuple[DocumentRecord, Sequence[ChunkRecord]]]
    ) -> None:
        # A document listed twice: the last one wins (as if written one after the other).
        latest = {doc.id: (doc, doc_chunks) for doc, doc_chunks in items}
        if not latest:
            return
        now = utcnow()
        doc_rows = [
            {
                "id": doc.id,
                "tenant": doc.tenant,
                "collection": doc.collection,
                "source": doc.source,
                "title": doc.title,
                "content_type": doc.content_type,
                "content_hash": doc.content_hash,
                "text": doc.text,
                "text_length": len(doc.text),
                "meta": doc.metadata,
                "created_at": doc.created_at or now,
                "updated_at": now,
            }
            for doc, _ in latest.values()
        ]
        chunk_rows = [
            {
                "id": ch.id,
                "document_id": doc.id,
                "tenant": doc.tenant,
                "ordinal": ch.ordinal,
                "start_char": ch.start_char,
                "end_char": ch.end_char,
                "text": ch.text,
                "page": ch.page,
                "section": ch.section,
                "line": ch.line,
                "roles": encode_roles(ch.roles),
            }
            for doc, doc_chunks in latest.values()
            for ch in doc_chunks
        ]
        outbox_rows = [
            {"tenant": doc.tenant, "document_id": doc.id, "op": "upsert", "created_at": now}
            for doc, _ in latest.values()
        ]
        # Few statements, each an executemany: per-row statement building dominated ingest.
        with self._write() as c:
            c.execute(self._upsert_documents(), doc_rows)
            carried = carried_rows(c, list(latest), chunk_rows)  # an unchanged chunk's
            for part in batched(list(latest)):
                c.execute(_DELETE_CHUNKS, {"ids": list(part)})
            if chunk_rows:
                self._insert_chunk_rows(c, chunk_rows)
            if carried:
                c.execute(sa.insert(sentence_vectors), carried)
            c.execute(sa.insert(index_outbox), outbox_rows)

    def _insert_chunk_rows(self, c: sa.Connection, rows: list[dict[str, Any]]) -> None:
        """Bulk insert (a backend may override this with its fastest path)."""
        c.execute(sa.insert(chunks), rows)

    def _upsert_documents(self) -> Any:
        stmt = getattr(self, "_upsert_documents_stmt", None)
        if stmt is None:
            ins = self._insert(documents)
            keep = ("id", "created_at")
            stmt = ins.on_conflict_do_update(
                index_elements=["id"],
                set_={c.key: ins.excluded[c.key] for c in documents.c if c.key not in keep},
            )
            self._upsert_documents_stmt = stmt
        return stmt

    def delete_document(self, tenant: str, document_id: str) -> bool:
        with self._write() as c:
            owned = sa.and_(documents.c.id == document_id, documents.c.tenant == tenant)
            if c.execute(sa.select(documents.c.id).where(owned)).first() is None:
                return False
            c.execute(sa.delete(chunks).where(chunks.c.document_id == document_id))
            c.execute(sa.delete(documents).where(owned))
            c.execute(
                sa.insert(index_outbox).values(
                    tenant=tenant, document_id=document_id, op="delete", created_at=utcnow()
                )
            )
        return True

    # -- the index outbox -----------------------------------------------------------------
    def pending_index_ops(
        self, limit: int = 100_000, *, document_ids: Sequence[str] | None = None
    ) -> list[IndexOp]:
        if document_ids is None:
            selects = [sa.select(index_outbox).order_by(index_outbox.c.id).limit(limit)]
        else:
            selects = [sa.select(index_outbox).where(index_outbox.c.document_id.in_(part))
                       .order_by(index_outbox.c.id).limit(limit)
                       for part in batched(list(dict.fromkeys(document_ids)))]
        with self._read() as c:
            ops = [
                IndexOp(id=r.id, tenant=r.tenant, document_id=r.document_id, op=cast(Any, r.op))
                for q in selects for r in c.execute(q)
            ]
        if len(selects) > 1:
            ops.sort(key=lambda op: op.id)
        return ops[:limit]

    def index_rows(self, document_ids: Sequence[str]) -> list[IndexRow]:
        rows: list[IndexRow] = []
        with self._read() as c:
            for part in batched(list(document_ids)):
                q = (
                    sa.select(
                        chunks.c.id,
                        chunks.c.document_id,
                        documents.c.tenant,
                        documents.c.collection,
                        chunks.c.text,
                        documents.c.title,
                        chunks.c.section,
                        chunks.c.roles,
                    )
                    .join_from(chunks, documents, chunks.c.document_id == documents.c.id)
                    .where(chunks.c.document_id.in_(part))
                    .order_by(chunks.c.document_id, chunks.c.ordinal)
                )
                rows.extend(index_row(*r) for r in c.execute(q))
        return rows

    def complete_index_ops(self, op_ids: Sequence[int]) -> None:
        with self._write() as c:
            for part in batched(list(op_ids)):
                c.execute(sa.delete(index_outbox).where(index_outbox.c.id.in_(part)))

    def queue_full_reindex(self) -> int:
        now = utcnow()
        with self._write() as c:
            sel = sa.select(
                documents.c.tenant,
                documents.c.id,
                sa.literal("upsert", sa.String(16)),
                sa.literal(now, index_outbox.c.created_at.type),
            )
            result = c.execute(
                sa.insert(index_outbox).from_select(
                    ["tenant", "document_id", "op", "created_at"], sel
                )
            )
            return max(int(result.rowcount or 0), 0)
