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
tied occurrence nearest that excerpt — before it when the neighbour follows, after it when
it precedes. A claim with no such neighbour keeps the first occurrence, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citewise.grounding.verify import Excerpt

__all__ = ["placed"]

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
        where, after = anchor
        # Before a neighbour that follows, after one that precedes: the nearest such copy.
        sided = [c for c in ties if (at(numbers[i], c) or 0) < where] if not after else [
            c for c in ties if (at(numbers[i], c) or 0) > where]
        if sided:
            out[i] = min(sided, key=lambda c: abs((at(numbers[i], c) or 0) - where))
    return out


def _neighbour(i: int, chosen: Sequence[Excerpt | None], candidates: Sequence[Sequence[Excerpt]],
               numbers: Sequence[int], claims: Sequence[int], at: Position
               ) -> tuple[int, bool] | None:
    """Where the next (or else the previous) claim's citation of the same document is, if
    its excerpt is found in one place only, and whether that neighbour precedes."""
    for j, after in ((i + 1, False), (i - 1, True)):
        if not 0 <= j < len(chosen) or numbers[j] != numbers[i] or claims[j] == claims[i]:
            continue
        other = chosen[j]
        if other is None:
            continue
        where = at(numbers[j], other)
        copies = {at(numbers[j], c) for c in candidates[j]
                  if c.text == other.text and c.lexical == other.lexical}
        if where is not None and len(copies) == 1:
            return where, after
    return None
