"""The stored texts an evaluation compares citations with, each read once.

Apart from :mod:`citewise.evaluation` because it is the one part that reads the knowledge
base: a document's text and its whitespace-collapsed index, the chunks' item starts (where
a quote's sentence ends) and the sources a question names. The bench scores every answer
twice (with and without the judged labels) with one of these, so each cited page is read
once, not once per scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from citewise.evaluation_match import normalised, source_matches
from citewise.sentences import item_starts

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase

__all__ = ["StoredTexts"]


@dataclass(slots=True)
class StoredTexts:
    """Stored document texts (and their whitespace-collapsed index), read once each: one
    shared by the answers :func:`score_answer` scores saves reading a page per answer."""

    kb: KnowledgeBase
    cache: dict[str, tuple[str, tuple[str, list[int]]] | None] = field(default_factory=dict)

    sources: dict[str, str] | None = None  # every document's source → id, listed once
    items: dict[int, list[int]] = field(default_factory=dict)  # chunk id → item/row starts
    terms: dict[int, list[int]] = field(default_factory=dict)  # chunk id → term line ends

    def get(self, document_id: str) -> tuple[str, tuple[str, list[int]]] | None:
        if document_id not in self.cache:
            text = self.kb.document_text(document_id)
            self.cache[document_id] = None if text is None else (text, normalised(text))
        return self.cache[document_id]

    def item_starts(self, chunk_id: int | None) -> list[int]:
        """Where the loader's list items, a table's rows and a help's lines in a code block
        begin in chunk ``chunk_id`` (:func:`citewise.sentences.item_starts`),
        as document offsets (none for a chunk that is gone or a format without roles); and
        where a ``hidden`` span begins and the line after it: a cell of a Markdown file's
        HTML table is no sentence with the tag lines around it ("<td> Do not …")."""
        return self._spans(chunk_id)[0]

    def term_ends(self, chunk_id: int | None) -> list[int]:
        """Where the terms the loader marked in chunk ``chunk_id`` end on a line of their
        own (a glossary's "A-label" over its definition), as document offsets."""
        return self._spans(chunk_id)[1]

    def _spans(self, chunk_id: int | None) -> tuple[list[int], list[int]]:
        """:meth:`item_starts` and :meth:`term_ends` of a chunk, read from it once."""
        if chunk_id is None:
            return [], []
        if chunk_id not in self.items:
            starts: set[int] = set()
            ends: set[int] = set()
            for c in self.kb.store.get_chunks([chunk_id]):
                starts |= {c.start_char + a for a in item_starts(c.text, c.roles)}
                for a, b, role in c.roles:
                    if role == "hidden":
                        starts |= {c.start_char + a, c.start_char + b + 1}
                    elif role == "term" and c.text[b:b + 1] == "\n":
                        ends.add(c.start_char + b)
            self.items[chunk_id] = sorted(starts)
            self.terms[chunk_id] = sorted(ends)
        return self.items[chunk_id], self.terms[chunk_id]

    def of(self, document: str) -> tuple[str, tuple[str, list[int]]] | None:
        """The stored text (and its index) of the document a question names: its source,
        or a trailing part of it — the first of several so named. None: no such document."""
        if self.sources is None:
            self.sources, offset = {}, 0
            while True:
                page = self.kb.list_documents(limit=500, offset=offset)
                self.sources.update((d.source, d.id) for d in page)
                if len(page) < 500:
                    break
                offset += 500
        found = next((i for src, i in self.sources.items() if source_matches(src, document)),
                     None)
        return None if found is None else self.get(found)
