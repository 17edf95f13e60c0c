"""The run's evidence ledger: every document retrieved, numbered once, one-based.

Citation markers ``[N]`` in an answer refer to these numbers; they stay stable across
several searches in one run, so the model can cite anything it has been shown.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field, PrivateAttr

from citewise._construct import trusted
from citewise.answer import SearchDocument, Snippet, SnippetSource
from citewise.knowledge.retrieve.hits import Hit

__all__ = ["EvidenceLedger", "LedgerEntry"]


class LedgerEntry(BaseModel):
    """Where a hit landed in the ledger."""

    document_index: int
    snippet_index: int
    hit_chunk_id: int | None


class EvidenceLedger(BaseModel):
    """Serializable, so a paused run resumes with the same numbering."""

    documents: list[SearchDocument] = Field(default_factory=list)
    context_chunk_ids: list[int] = Field(default_factory=list)
    # Set in model_post_init, not by a PrivateAttr default: pydantic deep-copies a default,
    # and inspects a default_factory's signature, for every instance (~50 µs a run).
    _doc_pos: dict[str, int] = PrivateAttr()
    _chunk_pos: dict[int, tuple[int, int]] = PrivateAttr()

    @classmethod
    def empty(cls) -> EvidenceLedger:
        """A new, empty ledger (every run starts with one): what validating ``{}`` makes,
        without pydantic's per-instance private-attribute setup (~40k instructions)."""
        return trusted(cls, {"documents": [], "context_chunk_ids": []}, set(),
                       private={"_doc_pos": {}, "_chunk_pos": {}})

    def model_post_init(self, __context: object) -> None:
        self._doc_pos = {}
        self._chunk_pos = {}
        for d_i, doc in enumerate(self.documents):
            self._doc_pos[str(doc.document.get("id", doc.source))] = d_i
            for s_i, snip in enumerate(doc.snippets):
                if snip.chunk_id is not None:
                    self._chunk_pos[snip.chunk_id] = (d_i, s_i)

    def add(self, hits: Iterable[Hit]) -> list[LedgerEntry]:
        """Record hits; returns each hit's one-based document and snippet position."""
        entries: list[LedgerEntry] = []
        for hit in hits:
            known = self._chunk_pos.get(hit.chunk_id)
            if known is not None:
                d_i, s_i = known
                doc = self.documents[d_i]
                doc.score = max(doc.score, hit.score)
                entries.append(LedgerEntry(document_index=d_i + 1, snippet_index=s_i,
                                           hit_chunk_id=hit.chunk_id))
                continue
            d_i = self._doc_pos.get(hit.document_id, -1)
            if d_i < 0:
                meta = {"id": hit.document_id, "path": hit.source, **hit.metadata}
                if hit.title:
                    meta.setdefault("title", hit.title)
                self.documents.append(SearchDocument(source=hit.source, document=meta))
                d_i = len(self.documents) - 1
                self._doc_pos[hit.document_id] = d_i
            doc = self.documents[d_i]
            doc.snippets.append(
                Snippet(
                    text=hit.text,
                    score=hit.score,
                    chunk_id=hit.chunk_id,
                    source=SnippetSource(
                        start_char=hit.start_char, end_char=hit.end_char,
                        field_length=hit.field_length,
                    ),
                    evidence=hit.evidence,
                    page=hit.page,
                    page_label=hit.page_label,
                    section=hit.section,
                    line=hit.line,
                    anchor=hit.anchor,
                    anchors=hit.anchors,
                )
            )
            doc.score = max(doc.score, hit.score)
            s_i = len(doc.snippets) - 1
            self._chunk_pos[hit.chunk_id] = (d_i, s_i)
            self.context_chunk_ids.append(hit.chunk_id)
            entries.append(LedgerEntry(document_index=d_i + 1, snippet_index=s_i,
                                       hit_chunk_id=hit.chunk_id))
        return entries

    def position(self, chunk_id: int) -> tuple[int, int] | None:
        """Where chunk ``chunk_id`` sits: (one-based document index, snippet index)."""
        found = self._chunk_pos.get(chunk_id)
        return None if found is None else (found[0] + 1, found[1])

    def document(self, document_index: int) -> SearchDocument | None:
        """The document numbered ``document_index`` (one-based), or None."""
        if 1 <= document_index <= len(self.documents):
            return self.documents[document_index - 1]
        return None
