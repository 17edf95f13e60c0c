"""A search hit: one chunk of one document, with exact offsets into the document text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citewise.answer import SnippetEvidence

__all__ = ["Hit"]


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
