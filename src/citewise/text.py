"""Text primitives shared by chunking, retrieval and grounding.

All offsets are Python ``str`` indices, i.e. Unicode code points — the unit every
``start_char``/``end_char`` in citewise counts in.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from citewise.text_forms import (
    CJK_CHARS,
    CJK_OR_WORD,
    CJK_RUN,
    cjk_bigrams,
    search_text,
    spaced_cjk,
    symbol_names,
)

__all__ = [
    "APOSTROPHES", "CJK_CHARS", "POINTING_WORDS", "STOPWORDS", "cjk_bigrams", "content_terms", "has_nul",
    "is_compounded", "is_content_word", "line_of", "name_terms", "overlap", "plain_terms",
    "search_text", "spaced_cjk", "symbol_names",
    "terms", "word_term",
]

#: Typographic apostrophes (and the prime that stands in for one) as the typed one: a
#: quote's "don’t" is the question's "don't", a page's "L’Hospital" the question's.
APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "′": "'"})

#: The words a sentence opens with when it points back at the one before ("This is the
#: default.", "It is off unless …"), as a regex alternation. Three places ask whether a
#: sentence leans on its neighbour, each adding its own openers to these: a short one is
#: quoted with the sentence before (models.sentence_candidates), one is ranked by its
#: context (models.sentence_rank), one is embedded with its neighbour
#: (grounding.relevance).
POINTING_WORDS = "this|that|these|those|it|such"

_WORD = re.compile(r"\w+", re.UNICODE)
_JOINED = re.compile(r"\w+(?:['-]\w+)*")

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
    """Lower-cased word tokens; runs of CJK characters as character bigrams. A
    contraction's tail is no term ("what's" is ``what``, "don't" is ``do``)."""
    text = symbol_names(text)
    if text.isascii() and "'" not in text:
        return [w.lower() for w in _WORD.findall(text)]
    return [t for t, _ in _tokens(text)]


def _tokens(text: str) -> list[tuple[str, bool]]:
    """:func:`terms` with, for each, whether it is part of a hyphenated compound."""
    out: list[tuple[str, bool]] = []
    text = symbol_names(text)
    if text.isascii():
        # Words joined by apostrophes and hyphens come as one match (a maximal one: what
        # lies around it joins nothing), so only those are looked at word by word.
        for joined in _JOINED.findall(text):
            if "'" not in joined and "-" not in joined:
                out.append((joined.lower(), False))
            else:
                out.extend(_joined_tokens(joined))
        return out
    text = unicodedata.normalize("NFKC", text)
    for m in CJK_OR_WORD.finditer(text):
        token = m.group()
        if CJK_RUN.match(token):
            out.extend((g, False) for g in cjk_bigrams(token))
            continue
        term = word_term(text, m.start(), m.end())
        if term is not None:
            out.append((term.lower(), is_compounded(text, m.start(), m.end())))
    return out


@lru_cache(maxsize=65536)
def _joined_tokens(joined: str) -> tuple[tuple[str, bool], ...]:
    """:func:`_tokens` of one ASCII match of words joined by apostrophes or hyphens."""
    out: list[tuple[str, bool]] = []
    for m in _WORD.finditer(joined):
        term = word_term(joined, m.start(), m.end())
        if term is not None:
            out.append((term.lower(), is_compounded(joined, m.start(), m.end())))
    return tuple(out)


# English contractions: the clitic after an apostrophe is no word of its own ("what's",
# "it's", "we're", "they've", "you'll", "I'd", "I'm"), and a negation ("isn't", "don't")
# leaves its verb, which is a stopword (the "not" it stands for is one too). "won't",
# "can't", "shan't" and "ain't" leave nothing: their stems are no prefix of the word.
_CLITIC_TAILS = frozenset(("s", "re", "ve", "ll", "d", "m"))
_APOSTROPHES = "'\u2019"
_NEGATION_STUBS = frozenset(("ca", "wo", "sha", "ai"))


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def word_term(text: str, start: int, end: int) -> str | None:
    """The term the word ``text[start:end]`` stands for (not lower-cased): the word
    itself, or for part of a contraction its meaningful part, or None (a clitic's tail)."""
    if start > 1 and text[start - 1] in _APOSTROPHES and _word_char(text[start - 2]):
        tail = text[start:end].lower()
        if tail in _CLITIC_TAILS or tail == "t":
            return None
    if (
        end + 2 <= len(text)
        and text[end] in _APOSTROPHES
        and text[end + 1] in "tT"
        and (end + 2 == len(text) or not _word_char(text[end + 2]))
        and text[end - 1] in "nN"
        and end - start > 1
    ):
        stub = text[start : end - 1]
        return None if stub.lower() in _NEGATION_STUBS else stub
    return text[start:end]


def is_compounded(text: str, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` is joined to another by a hyphen ("read-only",
    "built-in"): there a stopword is part of a term's meaning."""
    return (start > 1 and text[start - 1] == "-" and _word_char(text[start - 2])) or (
        end + 1 < len(text) and text[end] == "-" and _word_char(text[end + 1])
    )


def is_content_word(term: str, compounded: bool) -> bool:
    """Whether a lower-cased term counts for :func:`content_terms`: not a stopword, unless
    a hyphen joins it into a compound and it is longer than two letters ("read-only"
    keeps ``only``, "up-to-date" loses ``up`` and ``to``)."""
    return term not in STOPWORDS or (compounded and len(term) > 2)


def content_terms(text: str) -> list[str]:
    """Word tokens without stopwords (see :func:`is_content_word`), stemmed lightly
    (plural/verb endings)."""
    text = symbol_names(text)
    if text.isascii() and "'" not in text and "-" not in text:
        return [_stem(t) for t in (w.lower() for w in _WORD.findall(text)) if t not in STOPWORDS]
    return [_stem(t) for t, joined in _tokens(text) if is_content_word(t, joined)]


def name_terms(text: str) -> frozenset[str]:
    """The content terms of a name with an identifier's parts too: "KillUserProcesses=" is
    about killing a user's processes, "max_connections" about connections (the ranking's
    section feature; a follow-up's subject)."""
    return frozenset(content_terms(text)) | frozenset(content_terms(_NAME_PARTS.sub(" ", text)))


_NAME_PARTS = re.compile(r"(?<=[a-z])(?=[A-Z])|_")


def plain_terms(text: str) -> list[str]:
    """:func:`content_terms` unstemmed: the words a keyword query is made of."""
    return [t for t, joined in _tokens(text) if is_content_word(t, joined)]


_KEEP_E = frozenset(("state", "locale", "guide", "globe", "plane", "spine", "stare", "paste",
                     "quite", "suite", "rationale", "execve", "grade"))  # "stat", "local", …
# Singulars in "-us", whose "s" is no plural's: "status" meets "statuses" ("menus" is one).
_KEEP_S = frozenset(("status", "bonus", "virus", "focus", "campus", "census", "corpus",
                     "radius", "consensus", "nexus", "syllabus", "surplus", "prospectus"))


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    # Deliberately tiny: "refunds"/"refunded"/"refund", "preserve"/"preserved" and
    # "process"/"processes" meet; a stem is a prefix of its word (evidence.py needs it).
    for suffix in ("ing", "edly", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    if len(word) > 4 and word[-1] == "s" and word[-2] != "s" and word not in _KEEP_S:
        word = word[:-1]
    keep = len(word) < 5 or word[-1] != "e" or word[-2] in "ey" or word in _KEEP_E
    return word if keep else word[:-1]


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
