"""A search hit: one chunk of one document, with exact offsets into the document text,
and how one is made from a stored chunk's context."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citewise.answer import SnippetEvidence

if TYPE_CHECKING:
    from citewise.store.base import ChunkContext

__all__ = ["Hit", "doc_view", "hit_from_context"]


@dataclass(frozen=True, slots=True)
class Hit:
    """``text == document_text[start_char:end_char]`` always holds (code points).

    ``evidence`` is the best sentence-level window of ``text`` for the query searched
    (``evidence.start_char`` is relative to ``text``), or None when none matches.
    """

    chunk_id: int
    document_id: str
    source: str
    text: str
    start_char: int
    end_char: int
    field_length: int
    score: float
    title: str | None = None
    page: int | None = None
    section: str | None = None
    line: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    evidence: SnippetEvidence | None = None
    # (start, end, role) relative to ``text``: what the loader said its spans are
    # (headings, code, tables…; ``citewise.knowledge.loaders.base.ROLES``).
    roles: tuple[tuple[int, int, str], ...] = ()
    anchor: str | None = None  # the page element id nearest before the chunk (HTML)
    anchors: dict[str, int] = field(default_factory=dict)  # ids inside the chunk (HTML)
    page_label: str | None = None  # the page's printed label, when not its number (PDF)


def doc_view(ctx: ChunkContext) -> dict[str, Any]:
    return {
        "id": ctx.chunk.document_id,
        "collection": ctx.collection,
        "source": ctx.source,
        "content_type": ctx.content_type,
        "metadata": ctx.metadata,
    }


def hit_from_context(ctx: ChunkContext, score: float, evidence: SnippetEvidence | None = None) -> Hit:
    chunk = ctx.chunk
    # A page's element ids (the HTML loader's ``anchors``: hundreds on a reference page)
    # stay with the document; a hit carries the one to link to. Repeated in every search
    # document they made an answer of a Python docs question ~48 KB.
    # A PDF's page labels likewise: a hit says its own page's.
    meta = {k: v for k, v in ctx.metadata.items() if k not in _PER_PAGE_ELEMENT}
    anchors = ctx.metadata.get("anchors")
    labels = ctx.metadata.get("page_labels")
    label = labels.get(str(chunk.page)) if isinstance(labels, dict) and chunk.page else None
    before, inside = (_anchors_near(anchors, chunk.start_char, chunk.end_char)
                      if isinstance(anchors, dict) else (None, {}))
    return Hit(
        chunk_id=chunk.id,
        document_id=chunk.document_id,
        source=ctx.source,
        text=chunk.text,
        start_char=chunk.start_char,
        end_char=chunk.end_char,
        field_length=ctx.text_length,
        score=score,
        title=ctx.title,
        page=chunk.page,
        section=chunk.section,
        line=chunk.line,
        metadata={
            **meta,
            "title": ctx.title,
            "collection": ctx.collection,
            "content_type": ctx.content_type,
        },
        evidence=evidence,
        roles=chunk.roles,
        anchor=before,
        anchors=inside,
        page_label=label if isinstance(label, str) else None,
    )


_PER_PAGE_ELEMENT = frozenset(("anchors", "page_labels"))


#: An id a generator numbers, no name of its own: docutils' "id2", Sphinx's "index-0".
_GENERATED = re.compile(r"(?:id|index-)\d+\Z")


def _anchors_near(anchors: dict[str, Any], start: int, end: int
                  ) -> tuple[str | None, dict[str, int]]:
    """The id whose offset is the greatest at or before ``start`` (None: none before it),
    of several there the last, the innermost element's: ``<div id="main"><a
    name="music-fragment-options"></a><h2>`` links to the section by its name, not to
    "#main" (LilyPond's review, 2026-12-06; the same place either way) — unless that one's
    id is generated, a docutils target's "id2" or an index entry's "index-0": Sphinx
    writes ``<section id="dynamic-contexts"><span id="id2"></span><h2>``, and citations
    linked to ``contexts.html#id2``, not to the heading's permalink (coverage.py's review,
    2026-12-08). And the ids after it and before ``end`` with their offsets, one per offset
    (the first, the outermost element's: a page of empty ``<span id>`` runs has hundreds at
    one place). One pass over a page's ids."""
    best: tuple[int, str] | None = None
    inside: dict[int, str] = {}
    for ident, offset in anchors.items():
        if not isinstance(offset, int) or isinstance(offset, bool):
            continue
        if offset <= start:
            if best is None or offset > best[0] or (
                    offset == best[0] and not (_GENERATED.match(ident)
                                               and not _GENERATED.match(best[1]))):
                best = (offset, ident)
        elif offset < end:
            inside.setdefault(offset, ident)
    return (best[1] if best is not None else None), {i: at for at, i in inside.items()}
