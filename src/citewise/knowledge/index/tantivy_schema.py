"""The tantivy index's layout: its fields, its analyzer, and how a chunk becomes a document.

Apart from :mod:`.lexical_tantivy` (the search logic) because every change here changes
what is on disk: a new field or a new analysis needs a new ``ANALYSIS`` there, so that
indexes built by an older layout are rebuilt from SQLite on open.

Fields: ``chunk_id`` (i64, indexed + stored + fast, so hits come back without loading
stored documents), ``document_id`` / ``tenant`` / ``collection`` (raw, untokenized: exact
filters and delete-by-term), ``text`` (``en_stem``: lower-cased, English-stemmed BM25) and
``heading`` (the same analysis, of the document's title and the chunk's section path —
see :mod:`.headings`; frequencies without positions: it is only ever scored by term).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tantivy

from citewise.knowledge.index.headings import heading_text
from citewise.store.base import IndexRow
from citewise.text import search_text

__all__ = ["HEADING", "TEXT", "Batch", "analyzer", "schema"]

TEXT = "text"
HEADING = "heading"
_TEXT_TOKENIZER = "en_stem"


def schema() -> Any:
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("chunk_id", stored=True, indexed=True, fast=True)
    sb.add_text_field("document_id", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("tenant", tokenizer_name="raw", index_option="basic")
    sb.add_text_field("collection", tokenizer_name="raw", index_option="basic")
    sb.add_text_field(TEXT, tokenizer_name=_TEXT_TOKENIZER, index_option="position")
    sb.add_text_field(HEADING, tokenizer_name=_TEXT_TOKENIZER, index_option="freq")
    return sb.build()


def analyzer() -> Any:
    # The same pipeline as tantivy's built-in "en_stem" tokenizer.
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


class Batch:
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
            doc.add_text(TEXT, search_text(row.text, unigrams=True))
            heading = heading_text(row.title, row.section)
            if heading:
                doc.add_text(HEADING, search_text(heading, unigrams=True))
            self._raw.add_document(doc)
            self.added += 1
