"""Which occurrence of a repeated sentence a claim cites: the one beside its neighbours'.

Why: a manual repeats sentences word for word between entries — BIRD's RPKI options
``refresh``, ``retry`` and ``expire`` each say "A keyword keep suppresses updating this
value by a cache server." and then their own "Default: …". Verification scores each claim
on its own, and among equal windows took the first; an answer quoting ``expire``'s sentence
and its "Default: 7200 seconds" cited ``refresh``'s copy of the sentence, so the citation
read "refresh defaults to 7200 seconds" (new-user review, 2026-12-06). The words are the
same, the place is not: a claim's citation should point where the answer took it from.

The answer does not say which copy it quoted, but its neighbours do: a claim next to
another of the same document, whose excerpt is found in one place only, is placed at the
tied occurrence nearest that excerpt, on either side (an answer need not quote in the
source's order: "Alpha is ignored in passive mode. This value is read once at startup."
quotes alpha's section backwards). A claim with no such neighbour keeps the first
occurrence, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from citewise.answer import SearchDocument
from citewise.grounding.verify import Excerpt

__all__ = ["excerpt_start", "placed"]

#: Where an excerpt of a document's snippet starts in the document, or None if unknown.
Position = Callable[[int, Excerpt], int | None]


def placed(chosen: Sequence[Excerpt | None], candidates: Sequence[Sequence[Excerpt]],
           numbers: Sequence[int], claims: Sequence[int], at: Position
           ) -> list[Excerpt | None]:
    """``chosen`` (one excerpt per citation, in answer order: ``numbers[i]`` its document,
    ``claims[i]`` its claim) with each excerpt found at several places moved to the place
    nearest its neighbouring claim's citation of the same document."""
    out = list(chosen)
    for i, excerpt in enumerate(chosen):
        if excerpt is None:
            continue
        ties = [c for c in candidates[i] if c.text == excerpt.text
                and c.lexical == excerpt.lexical and at(numbers[i], c) is not None]
        places = {at(numbers[i], c) for c in ties}
        if len(places) < 2:
            continue
        anchor = _neighbour(i, chosen, candidates, numbers, claims, at)
        if anchor is None:
            continue
        nearest = min(ties, key=lambda c: abs((at(numbers[i], c) or 0) - anchor))
        # The same words: the similarity an embedder gave the chosen copy is this one's.
        out[i] = replace(nearest, semantic=excerpt.semantic)
    return out


def _neighbour(i: int, chosen: Sequence[Excerpt | None], candidates: Sequence[Sequence[Excerpt]],
               numbers: Sequence[int], claims: Sequence[int], at: Position) -> int | None:
    """Where the next (or else the previous) claim's citation of the same document is, if
    its excerpt is found in one place only."""
    for j in (i + 1, i - 1):
        if not 0 <= j < len(chosen) or numbers[j] != numbers[i] or claims[j] == claims[i]:
            continue
        other = chosen[j]
        if other is None:
            continue
        where = at(numbers[j], other)
        copies = {at(numbers[j], c) for c in candidates[j]
                  if c.text == other.text and c.lexical == other.lexical}
        if where is not None and len(copies) == 1:
            return where
    return None


def excerpt_start(doc: SearchDocument | None, excerpt: Excerpt) -> int | None:
    """Where ``excerpt`` (of a snippet of ``doc``) starts in the document's text, or None
    when its snippet has no offsets."""
    if doc is None or not 0 <= excerpt.snippet_index < len(doc.snippets):
        return None
    source = doc.snippets[excerpt.snippet_index].source
    return None if source is None else source.start_char + excerpt.start
