"""The sentence vectors of :mod:`citewise.store.sentence_vectors` in portable SQLAlchemy
Core (SQLite and PostgreSQL alike; every write through the store's single writer)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from citewise.store._sql import SQLBase, batched
from citewise.store._sql_work import block_query
from citewise.store.records import decode_roles
from citewise.store.schema import chunks, sentence_vectors
from citewise.store.sentence_vectors import ChunkSource, SentenceRow

__all__ = ["SentenceVectorsMixin", "alive_query", "carried_rows"]

_S = sentence_vectors.c


def alive_query(ids: Sequence[int]) -> Any:
    """Those of ``ids`` that are chunks, locked ``FOR KEY SHARE`` on PostgreSQL: a delete
    of one waits for the writer's commit, while the rows' other updates (a heading
    rewritten) do not."""
    return sa.select(chunks.c.id).where(chunks.c.id.in_(ids)).with_for_update(
        read=True, key_share=True)


def carried_rows(c: sa.Connection, document_ids: Sequence[str],
                 chunk_rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``sentence_vectors`` rows of the chunks about to be replaced whose text, roles
    and section — all a chunk's sentences are cut from — a new chunk of the same document
    has: the same rows under the new chunk's id, to insert with it. A document re-read by
    a newer loader (every upgrade that bumps one) keeps most of its chunks, and cutting and
    embedding their sentences again was most of the re-read: 30 s of 33 for LilyPond's 18
    pages, whose 170 chunks were all "found embedded already" (review, 2026-12-06)."""
    # A page may say the same thing twice (two sections of one title and text): each new
    # chunk takes the rows of one old chunk, never two (both under one id broke the
    # re-read of Vim's help files with UNIQUE(chunk_id, model), 2026-12-07).
    wanted: dict[tuple[Any, ...], list[int]] = {}
    for r in chunk_rows:
        wanted.setdefault((r["document_id"], r["text"], r["roles"], r["section"]), []).append(
            r["id"])
    if not wanted:
        return []
    new_id: dict[int, int] = {}
    for part in batched(list(document_ids)):
        q = sa.select(chunks.c.id, chunks.c.document_id, chunks.c.text, chunks.c.roles,
                      chunks.c.section).where(chunks.c.document_id.in_(part))
        for i, d, t, r, sec in c.execute(q):
            if free := wanted.get((d, t, r, sec)):
                new_id[int(i)] = free.pop(0)
    rows: list[dict[str, Any]] = []
    for ids in batched(list(new_id)):
        q = sa.select(_S.chunk_id, _S.model, _S.texts, _S.vectors).where(_S.chunk_id.in_(ids))
        rows.extend({"chunk_id": new_id[int(r[0])], "model": r[1], "texts": r[2],
                     "vectors": r[3]} for r in c.execute(q))
    return rows


class SentenceVectorsMixin(SQLBase):
    """:class:`~citewise.store.sentence_vectors.SentenceVectorRecords` over
    ``sentence_vectors``; with the work queue's and the documents' mixins."""

    enqueue_embedding_chunks: Any
    list_chunk_ids: Any

    def block_sources(self, document_id: str, block: int) -> list[ChunkSource]:
        q = block_query(document_id, block, chunks.c.id, chunks.c.text, chunks.c.roles,
                        chunks.c.section)
        with self._read() as c:
            return [ChunkSource(int(i), str(t), decode_roles(r), s)
                    for i, t, r, s in c.execute(q)]

    def sentence_vector_ids(self, model: str, chunk_ids: Sequence[int]) -> set[int]:
        have: set[int] = set()
        with self._read() as c:
            for part in batched(list(dict.fromkeys(chunk_ids))):
                q = sa.select(_S.chunk_id).where(_S.model == model, _S.chunk_id.in_(part))
                have.update(int(i) for (i,) in c.execute(q))
        return have

    def put_sentence_vectors(self, model: str, rows: Sequence[SentenceRow]) -> int:
        if not rows:
            return 0
        with self._write() as c:
            # Only chunks that still exist: a document deleted while its job ran leaves
            # nothing (the foreign key would refuse the row, and the whole batch with it).
            ids = [r.chunk_id for r in rows]
            # FOR KEY SHARE on PostgreSQL: a chunk found alive stays so until this commits
            # (a delete waits), so the foreign key cannot refuse the batch (SQLite: the
            # write transaction is exclusive already, and the clause is not rendered).
            alive = {int(i) for part in batched(ids) for (i,) in c.execute(alive_query(part))}
            done = {int(i) for part in batched(ids) for (i,) in c.execute(
                sa.select(_S.chunk_id).where(_S.model == model, _S.chunk_id.in_(part)))}
            values = [
                {"chunk_id": r.chunk_id, "model": model, "vectors": r.vectors,
                 "texts": json.dumps(list(r.texts), ensure_ascii=False, separators=(",", ":"))}
                for r in rows if r.chunk_id in alive and r.chunk_id not in done
            ]
            if not values:
                return 0
            stmt = self._insert(sentence_vectors).on_conflict_do_nothing(
                index_elements=["chunk_id", "model"])
            c.execute(stmt, values)
            return len(values)

    def get_sentence_vectors(self, model: str, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        out: list[SentenceRow] = []
        with self._read() as c:
            for part in batched(list(dict.fromkeys(chunk_ids))):
                q = sa.select(_S.chunk_id, _S.texts, _S.vectors).where(
                    _S.model == model, _S.chunk_id.in_(part))
                out.extend(SentenceRow(int(i), tuple(json.loads(t)), bytes(v))
                           for i, t, v in c.execute(q))
        return out

    def queue_sentence_vectors(self, model: str, *, now: datetime) -> int:
        # Every open asks: two reads of ids (indexes only) and a write only when some
        # chunk has no row — never a scan of the chunks' texts under the writer's lock.
        with self._read() as c:
            have = {int(i) for (i,) in c.execute(sa.select(_S.chunk_id).where(_S.model == model))}
        missing = sorted(self.list_chunk_ids() - have)
        if not missing:
            return 0
        queued: int = self.enqueue_embedding_chunks(missing, now=now,
                                                    unless_in=(sentence_vectors, model))
        return queued

    def sentence_vector_counts(self, model: str) -> dict[str, int]:
        q = (sa.select(chunks.c.tenant, sa.func.count())
             .select_from(sentence_vectors.join(chunks, chunks.c.id == _S.chunk_id))
             .where(_S.model == model).group_by(chunks.c.tenant))
        with self._read() as c:
            return {str(t): int(n) for t, n in c.execute(q)}
