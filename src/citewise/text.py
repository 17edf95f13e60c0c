"""Text primitives shared by chunking, retrieval and grounding.

All offsets are Python ``str`` indices, i.e. Unicode code points — the unit every
``start_char``/``end_char`` in citewise counts in.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["STOPWORDS", "content_terms", "line_of", "overlap", "sentence_spans", "terms"]

# A sentence ends at . ! ? … (and CJK 。！？) followed by space/quote/end, or at a blank line.
_SENT_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])|\n\s*\n")
_WORD = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "tell", "explain", "describe", "please", "does", "do", "give", "list", "say", "says", "said", "much", "many"]
)


def terms(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return [m.group(0).lower() for m in _WORD.finditer(text)]


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
    for m in _SENT_END.finditer(text, start, end):
        _push(text, pos, m.start(), spans)
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
