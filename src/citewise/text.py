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
    "CJK_CHARS", "POINTING_WORDS", "STOPWORDS", "cjk_bigrams", "content_terms", "has_nul",
    "is_compounded", "is_content_word", "join_abbreviations", "line_of", "name_terms",
    "overlap", "plain_terms", "search_text", "sentence_spans", "spaced_cjk", "symbol_names",
    "terms", "word_term",
]

#: The words a sentence opens with when it points back at the one before ("This is the
#: default.", "It is off unless …"), as a regex alternation. Three places ask whether a
#: sentence leans on its neighbour, each adding its own openers to these: a short one is
#: quoted with the sentence before (models.sentence_candidates), one is ranked by its
#: context (models.sentence_rank), one is embedded with its neighbour
#: (grounding.relevance).
POINTING_WORDS = "this|that|these|those|it|such"

# A sentence ends at . ! ? … followed by closing quotes/brackets and space, after CJK 。！？,
# or at a blank line. The match starts AT the punctuation (not with a look-behind after
# it): the regex engine can then skip ahead to candidate characters instead of trying
# the look-behind at every position (~2x faster); the cut is placed after the
# punctuation, which gives exactly the spans of the look-behind form (tests/test_text.py
# proves it against that implementation, the closing guillemet added to both).
# French closes a quotation with "»" after a space: "« Redémarrez le service. » Ensuite…";
# German opens one with it ("Gut. »Neustart« …"): a closing one has a space after it.
_GUILLEMET = r"(?:[ \u00a0\u202f]?[»›](?=\s))?"
_SENT_END = re.compile(rf"[.!?…]{_GUILLEMET}[\"'”’)\]]*\s+|[。！？]|\n\s*\n")
# The gap after punctuation that sits just before ``start`` (outside the searched range).
_GAP = re.compile(rf"{_GUILLEMET}[\"'”’)\]]*\s+")
_CLOSING_GUILLEMET = re.compile(_GUILLEMET)
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


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    # Deliberately tiny: "refunds"/"refunded"/"refund", "preserve"/"preserved" and
    # "process"/"processes" meet; a stem is a prefix of its word (evidence.py needs it).
    for suffix in ("ing", "edly", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    word = word[:-1] if len(word) > 4 and word[-1] == "s" and word[-2] != "s" else word
    keep = len(word) < 5 or word[-1] != "e" or word[-2] in "ey" or word in _KEEP_E
    return word if keep else word[:-1]


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
# "e.g.", "i.e.", "vs.", German "bzw." and "vgl.", and a single capital
# initial ("J. Smith") never end a sentence in
# practice; the others often do ("…made by Acme Inc. The firm…"), so they only hold the
# sentence together when the next word is lower case or a number ("Acme Inc. is", "No. 5").
# ("I." is a pronoun ending a sentence far more often than an initial.)
_TITLES = frozenset(
    """
    dr mr mrs ms mx prof st mt rev hon gen col capt lt sgt gov sen rep vs cf e.g i.e
    bzw vgl
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


def join_abbreviations(text: str, spans: list[tuple[int, int]], *,
                       ellipses: bool = False) -> list[tuple[int, int]]:
    """``spans`` (from :func:`sentence_spans`) with the cuts made after an abbreviation
    ("Dr.", "U.S.", "e.g.", "J.") or after a number followed by a lower-case word undone,
    and those after a "!" or "?" that a lower-case word follows on the same line (code's:
    "`panic!` when", "the `?` operator") — and with ``ellipses``, after an ellipsis that
    one follows ("the numbers 0, 1, ... up to <stop>": a list left open, CMake review
    2026-12-04). Chunking leaves ellipses out, so that its boundaries stay as they were.

    A separate pass, not part of ``sentence_spans``: chunk boundaries and the evidence
    fast path depend on that function's exact spans, while claims and quotes need whole
    sentences. Spans separated by a blank line are never joined.
    """
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and (_continues(text, out[-1], a) or (ellipses and _open_list(text, out[-1], a))):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return [(a, _closed(text, b)) for a, b in out]


def _open_list(text: str, prev: tuple[int, int], start: int) -> bool:
    """``prev`` ends in an ellipsis that a lower-case word or a number follows (one line)."""
    gap = text[prev[1]:start]
    return text.endswith(("...", "…"), 0, prev[1]) and gap.isspace() and "\n" not in gap \
        and (text[start].islower() or text[start].isdigit())


def _closed(text: str, b: int) -> int:
    """The end of a whole sentence ending at ``b``: with the closing quotes and brackets
    right after its final punctuation, so that '(This is rare.)' and 'He said "Go."' are
    quoted whole, not '(This is rare.' with its ')' lost in the gap after it."""
    if b and text[b - 1] in ".!?…":
        m = _CLOSING_GUILLEMET.match(text, b)
        b = m.end() if m is not None else b
        while b < len(text) and text[b] in _CLOSERS:
            b += 1
    return b


def _continues(text: str, prev: tuple[int, int], start: int) -> bool:
    """Whether the sentence ``prev`` was cut short by punctuation that ends no sentence: a
    full stop after an abbreviation, or any inside a quotation."""
    a, b = prev
    gap = text[b:start]
    if gap.count("\n") > 1:
        return False
    if start < len(text) and text[start] in ")]}" and gap.isspace() and "\n" not in gap:
        return True  # no sentence starts by closing a bracket: "(…, ports, etc... ) to"
    if b - a >= 2 and text[b - 1] in ".!?" and text[b - 2] in "'\"‘“`" \
            and gap[:1] in "'\"’”`" and not text[start:start + 1].isupper():
        return True  # a mark named in quotes: "'_' (underscore), '.' (dot) and ':'"
    if text[b - 1] in ".!?…" and (
            (not gap.strip() and _quote_open(text, a, b))  # "Abandon ship. Now!"
            or (gap.strip() and not gap.strip().strip(_CLOSERS) and text[start].islower())):
        return True  # inside a quotation, or a quoted exclamation the sentence goes on from
    if text[b - 1] in "!?" and gap.isspace() and gap.count("\n") == 0 and text[start].islower():
        # A mark inside code, not a sentence's end: Rust's macros and operator ("`panic!`
        # when", "the `?` operator can"); prose puts a capital after "!" and "?".
        return True
    if gap and not gap.isspace():
        return False
    kind = _stop_kind(text, a, b)
    nxt = text[start]
    if kind == "number":  # "3. the next" — a number mid-sentence (list numbers aside)
        return nxt.islower()
    if kind == "title":
        return True
    if kind == "initial":
        # An initial ("J. Smith", "John F. Kennedy") — unless a word that starts sentences
        # follows: "Take vitamin C. Then rest.", "Plan B. It worked."
        return _next_word(text, start) not in STOPWORDS
    if kind == "abbreviation":
        return nxt.islower() or nxt.isdigit()
    return False


def _stop_kind(text: str, a: int, b: int) -> str:
    """What the full stop at ``text[b - 1]`` (of a span from ``a``) ends: a ``number``, a
    ``title`` ("Dr.", "e.g.", "z. B.": never a sentence's end), an ``initial`` ("J."), an
    ``abbreviation`` ("etc.", "U.S.": often a sentence's end too), the ``pronoun`` "I."
    (a sentence's end far more often than an initial), or "" (a word)."""
    if not b or text[b - 1] != ".":
        return ""
    m = _LAST_WORD.search(text[max(a, b - 40) : b])
    if m is None:
        return ""
    word = m.group(1)
    stem = word[:-1].lower()
    if word[0].isdigit():
        return "number"
    if stem in _TITLES or _SPLIT_ABBREVIATION.search(text, max(a, b - 8), b + 3):
        return "title"
    if len(word) == 2 and word[0].isupper():
        return "pronoun" if word == "I." else "initial"
    if stem in _ABBREVIATIONS or word.count(".") > 1:
        return "abbreviation"
    return ""


def ends_abbreviation(text: str, b: int) -> bool:
    """Whether the full stop at ``text[b - 1]`` ends an abbreviation or an initial ("e.g.",
    "et al.", "Dr.", "J.", "z. B."), not a word or a number."""
    return _stop_kind(text, 0, b) in ("title", "initial", "abbreviation", "pronoun")


# Abbreviations of two parts whose first stop ends no sentence, nor their second: French
# "p. ex.", German "z. B.", "d. h.", "u. a." (an English "ex." alone ends one: "my ex.").
_SPLIT_ABBREVIATION = re.compile(r"(?<![^\W\d_])(?:p\.\s?ex|z\.\s?B|d\.\s?h|u\.\s?a)\.(?!\w)"
                                 r"|(?<![^\W\d_])[pzdu]\.(?=\s?(?:ex|B|h|a)\.)")
_CLOSERS = "\"'”’)]»›"  # French guillemets close « … » and ‹ … ›


def _quote_open(text: str, a: int, b: int) -> bool:
    """Whether a double quotation opened in ``text[a:b]`` is not closed there."""
    straight = text.count('"', a, b)
    return (straight % 2 == 1 or text.count("“", a, b) > text.count("”", a, b)
            or text.count("«", a, b) > text.count("»", a, b))


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
