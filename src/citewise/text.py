"""Text primitives shared by chunking, retrieval and grounding.

All offsets are Python ``str`` indices, i.e. Unicode code points — the unit every
``start_char``/``end_char`` in citewise counts in.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "CJK_CHARS",
    "STOPWORDS",
    "cjk_bigrams",
    "content_terms",
    "has_nul",
    "join_abbreviations",
    "line_of",
    "overlap",
    "sentence_spans",
    "spaced_cjk",
    "terms",
]

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


# Scripts written without spaces between words: Han, Hiragana, Katakana (and Hangul,
# whose spaced words are long). A run of them is one \w+ "word" to the regex, so a whole
# Japanese clause would be a single term; such runs are cut into overlapping character
# bigrams instead — the usual indexing unit for CJK (as Lucene's CJKBigramFilter). Kana
# punctuation (・ ゛ ゜ ゠) is not part of a run. Non-ASCII text is NFKC-normalised first,
# so half-width katakana and full-width letters and digits meet their usual forms.
#: The CJK character ranges, as a regex class body (also used by the PostgreSQL index).
CJK_CHARS = (
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
)
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
# One pass over non-ASCII text: a CJK run, or a word without CJK characters.
_TOKEN = re.compile(f"[{CJK_CHARS}]+|[^\\W{CJK_CHARS}]+")


def cjk_bigrams(run: str) -> list[str]:
    """A run of CJK characters as its overlapping bigrams (a lone character as itself)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def terms(text: str) -> list[str]:
    """Lower-cased word tokens; runs of CJK characters as character bigrams."""
    if text.isascii():
        return [w.lower() for w in _WORD.findall(text)]
    out: list[str] = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text)):
        if _CJK_RUN.match(token):
            out.extend(cjk_bigrams(token))
        else:
            out.append(token.lower())
    return out


def spaced_cjk(text: str, *, unigrams: bool = False) -> str:
    """``text`` with every CJK run replaced by its bigrams between spaces (``unigrams``:
    and its characters too, so that a one-character query finds it): what a word
    tokenizer (tantivy's) then indexes as :func:`terms` would. For search indexes only:
    offsets into it mean nothing."""
    if text.isascii():
        return text

    def cut(m: re.Match[str]) -> str:
        run = m.group()
        grams = cjk_bigrams(run)
        if unigrams and len(run) > 1:
            grams += list(run)
        return " " + " ".join(grams) + " "

    return _CJK_RUN.sub(cut, unicodedata.normalize("NFKC", text))


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


# Abbreviations after which ``sentence_spans`` cuts although the sentence goes on. Titles,
# "e.g.", "i.e.", "vs." and a single capital initial ("J. Smith") never end a sentence in
# practice; the others often do ("…made by Acme Inc. The firm…"), so they only hold the
# sentence together when the next word is lower case or a number ("Acme Inc. is", "No. 5").
# ("I." is a pronoun ending a sentence far more often than an initial.)
_TITLES = frozenset(
    """
    dr mr mrs ms mx prof st mt rev hon gen col capt lt sgt gov sen rep vs cf e.g i.e
    """.split()  # noqa: SIM905
)
_ABBREVIATIONS = frozenset(
    """
    etc inc ltd co corp llc plc jr sr no nos fig figs vol vols ch sec art p pp ed eds approx
    est dept univ ave rd blvd jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues
    wed thu thur thurs fri sat sun min max ca al ref refs viz
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
# The word (or dotted acronym, "U.S.", "a.m.", "e.g.") that a span's final full stop ends.
_LAST_WORD = re.compile(r"(?:^|(?<=[^\w.]))((?:[^\W\d_]\.){2,}|[^\W\d_]+\.|\d+\.)\Z")


def join_abbreviations(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (from :func:`sentence_spans`) with the cuts made after an abbreviation
    ("Dr.", "U.S.", "e.g.", "J.") or after a number followed by a lower-case word undone.

    A separate pass, not part of ``sentence_spans``: chunk boundaries and the evidence
    fast path depend on that function's exact spans, while claims and quotes need whole
    sentences. Spans separated by a blank line are never joined.
    """
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and _continues(text, out[-1], a):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _continues(text: str, prev: tuple[int, int], start: int) -> bool:
    """Whether the sentence ``prev`` was cut short by punctuation that ends no sentence: a
    full stop after an abbreviation, or any inside a quotation."""
    a, b = prev
    gap = text[b:start]
    if gap.count("\n") > 1:
        return False
    if text[b - 1] in ".!?…" and (
            (not gap.strip() and _quote_open(text, a, b))  # "Abandon ship. Now!"
            or (gap.strip() and not gap.strip().strip(_CLOSERS) and text[start].islower())):
        return True  # inside a quotation, or a quoted exclamation the sentence goes on from
    if text[b - 1] != "." or (gap and not gap.isspace()):
        return False
    m = _LAST_WORD.search(text[max(a, b - 40) : b])
    if m is None:
        return False
    word = m.group(1)
    stem = word[:-1].lower()
    nxt = text[start]
    if word[0].isdigit():  # "3. the next" — a number mid-sentence (list numbers aside)
        return nxt.islower()
    if stem in _TITLES:
        return True
    if len(word) == 2 and word[0].isupper() and word != "I.":
        # An initial ("J. Smith", "John F. Kennedy") — unless a word that starts sentences
        # follows: "Take vitamin C. Then rest.", "Plan B. It worked."
        return _next_word(text, start) not in STOPWORDS
    if stem in _ABBREVIATIONS or word.count(".") > 1:
        return nxt.islower() or nxt.isdigit()
    return False


_CLOSERS = "\"'”’)]"


def _quote_open(text: str, a: int, b: int) -> bool:
    """Whether a double quotation opened in ``text[a:b]`` is not closed there."""
    straight = text.count('"', a, b)
    return straight % 2 == 1 or text.count("“", a, b) > text.count("”", a, b)


def _next_word(text: str, start: int) -> str:
    m = _WORD.match(text, start)
    return m.group().lower() if m else ""


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


def has_nul(value: object) -> bool:
    """Whether ``value`` (a string, or JSON-like lists and dicts of them, keys included)
    holds U+0000, which PostgreSQL cannot store in text or JSON."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(has_nul(v) for v in value)
    return False


def line_of(text: str, offset: int) -> int:
    """One-based line number of ``offset`` (``\\r\\n`` and ``\\n`` both end a line)."""
    return text.count("\n", 0, offset) + 1
