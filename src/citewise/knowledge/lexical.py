"""BM25 search over chunks with tantivy, in a folder beside the SQLite file.

The index is *derived*: SQLite is the source of truth and ``knowledge/sync.py`` keeps
this in step through the outbox. Fields: ``chunk_id`` (i64, indexed + stored + fast, so
hits come back without loading stored documents), ``document_id`` / ``tenant`` /
``collection`` (raw, untokenized: exact filters and delete-by-term), ``text`` (``en_stem``:
lower-cased, English-stemmed BM25).

User query text never meets tantivy's query parser: it is tokenized here with the same
analyzer as ``en_stem`` and turned into term queries, so no input can make a query fail.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tantivy

from citewise.store.base import IndexRow

__all__ = ["LexicalIndex", "WriterBusy"]

_TEXT_TOKENIZER = "en_stem"
_MAX_QUERY_TERMS = 64


class WriterBusy(RuntimeError):
    """Another process holds the index writer for longer than we were willing to wait."""


def _schema() -> Any:
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("chunk_id", stored=True, indexed=True, fast=True)
    sb.add_text_field("document_id", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("tenant", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("collection", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("text", tokenizer_name=_TEXT_TOKENIZER, index_option="position")
    return sb.build()


def _analyzer() -> Any:
    # The same pipeline as tantivy's built-in "en_stem" tokenizer.
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


class LexicalIndex:
    """One tantivy index directory. Thread-safe; one writer at a time per directory."""

    def __init__(self, path: str | Path, *, writer_heap_bytes: int = 128_000_000) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        #: True when the directory held no index before (a rebuild from SQLite is due).
        self.created = not (self.path / "meta.json").exists()
        self._schema = _schema()
        self._handle: tantivy.Index | None = tantivy.Index(
            self._schema, path=str(self.path), reuse=True
        )
        self._analyzer = _analyzer()
        self._heap = writer_heap_bytes
        self._write_lock = threading.Lock()

    @property
    def _index(self) -> tantivy.Index:
        if self._handle is None:
            raise RuntimeError(f"search index closed: {self.path}")
        return self._handle

    # -- writing --------------------------------------------------------------------------
    @contextmanager
    def writer(self, *, wait_s: float = 60.0) -> Iterator[_Batch]:
        """A batch of deletes and adds, committed once when the block exits normally.

        Waits up to ``wait_s`` for another process's writer; raises :class:`WriterBusy`
        after that. On an exception nothing of the batch is committed.
        """
        with self._write_lock:
            raw = self._acquire(wait_s)
            batch = _Batch(raw, self._schema)
            try:
                yield batch
                raw.commit()
            except BaseException:
                raw.rollback()
                raise
            finally:
                # Waits for merges and drops the writer, releasing the directory lock.
                raw.wait_merging_threads()
            self._index.reload()

    def _acquire(self, wait_s: float) -> Any:
        deadline = time.monotonic() + wait_s
        delay = 0.01
        while True:
            try:
                return self._index.writer(heap_size=self._heap)
            except ValueError as exc:
                if "LockBusy" not in str(exc) or time.monotonic() > deadline:
                    raise WriterBusy(f"index writer busy: {self.path}") from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    # -- reading --------------------------------------------------------------------------
    def query_terms(self, text: str) -> list[str]:
        """The distinct index terms of ``text`` (what a search will look for)."""
        seen = dict.fromkeys(self._analyzer.analyze(text))
        return list(seen)[:_MAX_QUERY_TERMS]

    def search(
        self,
        query: str,
        k: int,
        *,
        tenant: str,
        collections: Sequence[str] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``k`` ``(chunk_id, score)`` by BM25 among this tenant's chunks."""
        terms = self.query_terms(query)
        if not terms or k <= 0:
            return []
        if collections is not None and not collections:
            return []
        if document_ids is not None and not document_ids:
            return []
        Q, Occur = tantivy.Query, tantivy.Occur
        should = Q.boolean_query(
            [(Occur.Should, Q.term_query(self._schema, "text", t)) for t in terms]
        )
        clauses = [(Occur.Must, should), (Occur.Must, self._filter("tenant", [tenant]))]
        if collections is not None:
            clauses.append((Occur.Must, self._filter("collection", collections)))
        if document_ids is not None:
            clauses.append((Occur.Must, self._filter("document_id", document_ids)))
        searcher = self._index.searcher()
        result = searcher.search(Q.boolean_query(clauses), k, count=False)
        if not result.hits:
            return []
        ids = searcher.fast_field_values("chunk_id", [addr for _, addr in result.hits])
        return [
            (int(cid), float(score))
            for (score, _), cid in zip(result.hits, ids, strict=True)
            if cid is not None
        ]

    def _filter(self, field: str, values: Sequence[str]) -> Any:
        # Score-free: filters must not change BM25 ranking.
        Q = tantivy.Query
        inner = (
            Q.term_query(self._schema, field, values[0])
            if len(values) == 1
            else Q.term_set_query(self._schema, field, list(values))
        )
        return Q.const_score_query(inner, 0.0)

    def all_chunk_ids(self) -> set[int]:
        """Every chunk id in the index (for consistency checks; reads the whole index)."""
        self._index.reload()
        searcher = self._index.searcher()
        n = searcher.num_docs
        if n == 0:
            return set()
        result = searcher.search(tantivy.Query.all_query(), n, count=False)
        values = searcher.fast_field_values("chunk_id", [a for _, a in result.hits])
        return {int(v) for v in values if v is not None}

    def num_docs(self) -> int:
        self._index.reload()
        return int(self._index.searcher().num_docs)

    def reload(self) -> None:
        """See other processes' commits now (otherwise they show up shortly)."""
        self._index.reload()

    def close(self) -> None:
        """Drop the index handle, and with it the reader's file-watching thread."""
        with self._write_lock:
            self._handle = None


class _Batch:
    """Writes inside one :meth:`LexicalIndex.writer` block."""

    def __init__(self, raw: Any, schema: Any) -> None:
        self._raw = raw
        self._schema = schema
        self.added = 0

    def delete_document(self, document_id: str) -> None:
        self._raw.delete_documents_by_term("document_id", document_id)

    def delete_all(self) -> None:
        self._raw.delete_all_documents()

    def add(self, rows: Iterable[IndexRow]) -> None:
        for row in rows:
            doc = tantivy.Document()
            doc.add_integer("chunk_id", row.chunk_id)
            doc.add_text("document_id", row.document_id)
            doc.add_text("tenant", row.tenant)
            doc.add_text("collection", row.collection)
            doc.add_text("text", row.text)
            self._raw.add_document(doc)
            self.added += 1
