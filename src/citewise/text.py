"""Text primitives shared by chunking, retrieval and grounding.

All offsets are Python ``str`` indices, i.e. Unicode code points — the unit every
``start_char``/``end_char`` in citewise counts in.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["STOPWORDS", "content_terms", "line_of", "overlap", "sentence_spans", "terms"]

# A sentence ends at . ! ? … followed by closing quotes/brackets and space, after CJK 。！？,
# or at a blank line. The match starts AT the punctuation (not with a look-behind after
# it): the regex engine can then skip ahead to candidate characters instead of trying
# the look-behind at every position (~2x faster); the cut is placed after the
# punctuation, which gives exactly the spans of the look-behind form (tests/test_text.py
# proves it against that implementation).
_SENT_END = re.compile(r"[.!?…][\"'”’)\]]*\s+|[。！？]|\n\s*\n")
# The gap after punctuation that sits just before ``start`` (outside the searched range).
_GAP = re.compile(r"[\"'”’)\]]*\s+")
_WORD = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not now of off on once
    only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves tell explain describe please does do give
    list say says said much many
    """.split()  # noqa: SIM905 - a word list reads better as prose
)


def terms(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return [w.lower() for w in _WORD.findall(text)]


def content_terms(text: str) -> list[str]:
    """Word tokens without stopwords, stemmed lightly (plural/verb endings)."""
    return [_stem(t) for t in terms(text) if t not in STOPWORDS]


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    # Deliberately tiny: enough that "refunds"/"refunded"/"refund" meet, never clever.
    for suffix in ("ing", "edly", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of ``text[start:end]``, trimmed of surrounding space."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    pos = start
    if 0 < start < end and text[start - 1] in ".!?…":
        # A range that starts right after a sentence's punctuation starts in its gap.
        gap = _GAP.match(text, start, end)
        if gap is not None:
            pos = gap.end()
    for m in _SENT_END.finditer(text, pos, end):
        at = m.start()
        # A blank line ends the sentence before it; punctuation ends it after itself
        # (closing quotes and brackets go with the gap, as they always have).
        _push(text, pos, at if text[at] == "\n" else at + 1, spans)
        pos = m.end()
    _push(text, pos, end, spans)
    return spans


def _push(text: str, a: int, b: int, out: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a:
        out.append((a, b))


def overlap(claim: str, evidence: str) -> float:
    """Share of the claim's content terms found in the evidence (0..1). A heuristic."""
    c = set(content_terms(claim))
    if not c:
        return 0.0
    return len(c & set(content_terms(evidence))) / len(c)


def line_of(text: str, offset: int) -> int:
    """One-based line number of ``offset`` (``\\r\\n`` and ``\\n`` both end a line)."""
    return text.count("\n", 0, offset) + 1
