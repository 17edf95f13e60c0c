"""Where each citation's ``[n]`` marker stands in the answer text.

Several wire formats locate a citation *in the output text* rather than in the source:
OpenAI Responses' ``file_citation.index``, the AI SDK's ``startIndex``/``endIndex``,
AgentOS' ``open_citation`` UI command. The Answer keeps citations in marker order
(``citation_index`` k is the k-th marker written back by verification), so the k-th
``[n]`` of the text is citation k — checked against its document number, and searched for
further along when a marker does not match (text a caller edited, a marker inside a code
span), so an offset is never that of another citation's marker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.answer import Answer, CitationOccurrence

__all__ = ["document_id", "marker_spans"]

# One marker as verification writes it back; not a markdown link `[1](…)` / reference `[1]:`.
_MARKER = re.compile(r"\[(\d{1,4})\](?![(:])")


def marker_spans(text: str, citations: Sequence[CitationOccurrence]
                 ) -> list[tuple[int, int] | None]:
    """For each citation, ``(start, end)`` of its ``[n]`` marker in ``text`` (code points;
    ``start`` is the ``[``), or None when the text has no such marker left."""
    found = [(m.start(), m.end(), int(m.group(1))) for m in _MARKER.finditer(text)]
    out: list[tuple[int, int] | None] = []
    at = 0  # markers before `at` are taken
    for c in citations:
        span = None
        for i in range(at, len(found)):
            start, end, number = found[i]
            if number == c.document_index:
                span, at = (start, end), i + 1
                break
        out.append(span)
    return out


def document_id(answer: Answer, document_index: int) -> str:
    """The stored id of the one-based document ``document_index`` (its source without one)."""
    if not 1 <= document_index <= len(answer.search_documents):
        return ""
    doc = answer.search_documents[document_index - 1]
    return str(doc.document.get("id") or doc.source)
