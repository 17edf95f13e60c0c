"""Evidence windows: the best sentence-level span for a query inside a snippet.

A window is one sentence, or up to ``max_sentences`` consecutive ones when the next adds
query terms the first lacks. Lexical scoring is the weighted share of the query's content
terms the window contains, a term weighing more when fewer sentences of the snippet have
it (the one that tells sentences apart matters most), plus a small bonus when query terms
appear next to each other in query order (a phrase). Scores are scaled to 0..1.
An optional ``scorer`` (e.g. cosine similarity of sentence embeddings, or a
cross-encoder) is blended in, so windows that paraphrase the question without sharing
its words still win.

The window text is verbatim: ``snippet[start_char:start_char + len(text)] == text``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from citewise.answer import Snippet, SnippetEvidence
from citewise.sentences import _push, ellipsis_dots, join_abbreviations, sentence_spans
from citewise.text import (
    _WORD,
    STOPWORDS,
    _stem,
    content_terms,
    is_compounded,
    is_content_word,
    word_term,
)
from citewise.text_forms import CJK_RUN, symbol_names

__all__ = ["QueryTerms", "SentenceScorer", "best_window", "prepare", "with_evidence"]

#: Scores each candidate sentence against the query, higher is better, roughly 0..1.
SentenceScorer = Callable[[str, Sequence[str]], Sequence[float]]

_EXTRA_SENTENCE_COST = 0.08  # a second sentence must add at least this much coverage
_PHRASE_BONUS = 0.1


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """A query analysed once for every snippet it is matched against (a search computes
    the windows of all its hits with one of these, see :func:`prepare`)."""

    text: str
    seq: tuple[str, ...]  # content terms in query order (for phrases)
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]  # adjacent pairs of different terms
    # Whether it names a language by symbols ("C++"): its term ("cplusplu") is then found
    # only by tokenising a sentence, never as a substring of it (the ASCII fast path).
    symbols: bool = False


def prepare(query: str) -> QueryTerms:
    """Tokenise ``query`` for :func:`best_window`."""
    seq = tuple(content_terms(query))
    return QueryTerms(
        text=query,
        seq=seq,
        terms=frozenset(seq),
        pairs=frozenset((a, b) for a, b in pairwise(seq) if a != b),
        symbols=symbol_names(query) != query,
    )


def _phrase_bonus(q: QueryTerms, sentence_terms: Sequence[str]) -> float:
    """Share of the query's adjacent term pairs that occur adjacently in the sentence."""
    if not q.pairs:
        return 0.0
    seen = set(pairwise(sentence_terms))
    return _PHRASE_BONUS * len(q.pairs & seen) / len(q.pairs)


def _ascii_terms(low: str, a: int, b: int) -> list[str]:
    """``content_terms(snippet[a:b])`` for an ASCII snippet, given ``low = snippet.lower()``
    (ASCII lower-casing is per character, so tokenising the lowered text is the same)."""
    if low.find("'", a, b) < 0 and low.find("-", a, b) < 0:
        return [_stem(t) for t in _WORD.findall(low, a, b) if t not in STOPWORDS]
    return content_terms(low[a:b])  # contractions and compounds: the general rule


_WORD_CHAR = re.compile(r"\w").match  # as _WORD sees a character (ASCII text here)
_CLOSERS = frozenset("\"')]")
_ASCII_SPACE = frozenset(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")  # str.isspace() in ASCII


def _ascii_sentence_spans(text: str) -> list[tuple[int, int]]:
    """``sentence_spans(text)`` for an ASCII ``text``, about 3x faster: the regex engine
    tries its pattern at every character, while here ``str.find`` jumps between the only
    characters a sentence end can start with (``. ! ?`` and a newline) and the rule is
    checked there. ``tests/test_evidence.py`` holds it equal to ``sentence_spans``."""
    n = len(text)
    ends: list[int] = []
    for ch in ".!?\n":
        at = text.find(ch)
        while at >= 0:
            ends.append(at)
            at = text.find(ch, at + 1)
    ends.sort()
    inner = ellipsis_dots(text, 0, n)
    spans: list[tuple[int, int]] = []
    pos = 0
    for c in ends:
        if c < pos:  # inside the previous sentence end
            continue
        if text[c] == "\n":  # a blank line: newline, any space, the last newline of it
            j, last = c + 1, -1
            while j < n and text[j] in _ASCII_SPACE:
                if text[j] == "\n":
                    last = j
                j += 1
            if last < 0:
                continue
            _push(text, pos, c, spans)
            pos = last + 1
        elif text[c] == "." and c in inner:
            continue  # a dot of ". . ." but its last (as sentence_spans)
        else:  # punctuation, closing quotes/brackets, then at least one space
            j = c + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            k = j
            while k < n and text[k] in _ASCII_SPACE:
                k += 1
            if k == j:
                continue
            _push(text, pos, c + 1, spans)
            pos = k
    _push(text, pos, n, spans)
    return spans


def _stem_occurrences(q: QueryTerms, low: str) -> list[tuple[int, int]]:
    """Where a query term occurs in ``low`` as a substring. A sentence can have a term
    only where it does (a term is the stem of a lowered word, and a stem is a prefix of
    its word): every other sentence is known to have none without being tokenised."""
    found: list[tuple[int, int]] = []
    for t in q.terms:
        at = low.find(t)
        while at >= 0:
            found.append((at, at + len(t)))
            at = low.find(t, at + 1)
    return found


def _sentence_terms(
    q: QueryTerms,
    snippet: str,
    spans: Sequence[tuple[int, int]],
    low: str | None,
    occurrences: Sequence[tuple[int, int]],
) -> tuple[list[frozenset[str]], list[float]]:
    """Per sentence: the query terms it has, and its phrase bonus. ``low`` is the
    lower-cased snippet when it is ASCII (``occurrences`` then says which sentences can
    have a term), else None (every sentence is tokenised)."""
    n = len(spans)
    hit_terms: list[frozenset[str]] = [frozenset()] * n
    phrase: list[float] = [0.0] * n
    if low is not None:
        # A sentence has term t exactly when one of its (non-stopword) words stems to t,
        # and such a word starts where t occurs: each occurrence at a word start is
        # checked by stemming that one word, not by tokenising the whole sentence. Only a
        # sentence with two or more terms is tokenised (for its phrase bonus).
        starts = [a for a, _ in spans]
        found: dict[int, set[str]] = {}
        for at, end in occurrences:
            k = bisect_right(starts, at) - 1
            if k < 0:
                continue
            a, b = spans[k]
            if end > b or (at > a and _WORD_CHAR(low, at - 1)):
                continue  # past the sentence, or inside a word
            word = _WORD.match(low, at, b)
            if word is None:
                continue
            # Contractions and compounds as content_terms sees them in the sentence alone:
            # the same in ``low``, where whitespace (or the snippet's edge) surrounds it.
            w: str | None = word.group()
            stop = word.end()
            if (at and low[at - 1] in "'-") or (stop < b and low[stop] in "'-"):
                w = word_term(low, at, stop)  # rare: part of a contraction or a compound
                keep = w is not None and is_content_word(w, is_compounded(low, at, stop))
            else:
                keep = w not in STOPWORDS
            t = low[at:end]
            if keep and w is not None and _stem(w) == t:
                found.setdefault(k, set()).add(t)
        for k, have in found.items():
            hit_terms[k] = frozenset(have)
            if len(have) > 1:
                phrase[k] = _phrase_bonus(q, _ascii_terms(low, *spans[k]))
        return hit_terms, phrase
    # A one-character CJK query term is never one of a sentence's terms (a run of two or
    # more characters is cut into bigrams), so a sentence has it where the character is.
    lone = [t for t in q.terms if len(t) == 1 and CJK_RUN.match(t)]
    for k, (a, b) in enumerate(spans):
        seq = content_terms(snippet[a:b])
        hit_terms[k] = q.terms.intersection(seq)
        if lone:
            text = unicodedata.normalize("NFKC", snippet[a:b])
            hit_terms[k] = hit_terms[k].union(t for t in lone if t in text)
        if len(hit_terms[k]) > 1:
            phrase[k] = _phrase_bonus(q, seq)
    return hit_terms, phrase


def best_window(
    query: str | QueryTerms,
    snippet: str,
    *,
    max_sentences: int = 2,
    max_chars: int = 500,
    scorer: SentenceScorer | None = None,
    scorer_weight: float = 0.5,
) -> SnippetEvidence | None:
    """The best window of ``snippet`` for ``query``, or None when nothing in it matches.

    ``query`` may be :func:`prepare`-d once and reused for many snippets."""
    q = query if isinstance(query, QueryTerms) else prepare(query)
    if scorer is None and not q.terms:
        return None  # no content terms and no semantic scorer: every window scores <= 0
    # A name of symbols ("C++", in the query or the snippet) is a term only tokenising finds.
    low = (snippet.lower() if snippet.isascii() and not q.symbols
           and symbol_names(snippet) == snippet else None)
    occurrences = _stem_occurrences(q, low) if low is not None else []
    if scorer is None and low is not None and not occurrences:
        return None  # no lexical overlap possible: nothing to split or tokenise
    spans = sentence_spans(snippet) if low is None else _ascii_sentence_spans(snippet)
    # Whole sentences, as a quote has them: cut after "e.g.", a decline's closest passage
    # read "ens786f0) on which the Mode XDP is enabled." (Knot DNS's review, 2026-12-07).
    spans = join_abbreviations(snippet, spans, ellipses=True)
    if not spans:
        return None
    sent_terms, phrase_of = _sentence_terms(q, snippet, spans, low, occurrences)
    if scorer is None and not any(sent_terms):
        return None
    n = len(spans)
    having = [k for k in range(n) if sent_terms[k]]  # sentences with a query term
    weight = {
        t: math.log(1.0 + n / max(1, sum(t in sent_terms[k] for k in having))) for t in q.terms
    }
    total = sum(weight.values())
    semantic: Sequence[float] = [0.0] * n
    if scorer is not None:
        semantic = scorer(q.text, [snippet[a:b] for a, b in spans])
    # Without a scorer a window that starts or ends with a sentence lacking query terms
    # scores exactly ``_EXTRA_SENTENCE_COST`` below the same window without that sentence
    # (which is scored too): it can never be the best, so only windows from and to a
    # sentence in ``having`` are scored. With one, every window is.
    starts = having if scorer is None else range(n)
    width = max(1, max_sentences)

    best: tuple[float, int, int] | None = None  # (score, first, last sentence)
    for i in starts:
        covered: set[str] = set()
        phrase = sem = -math.inf
        for j in range(i, min(n, i + width)):
            if j > i and spans[j][1] - spans[i][0] > max_chars:
                break
            if scorer is None and j > i and not sent_terms[j]:
                continue
            covered |= sent_terms[j]
            lexical = sum(weight[t] for t in covered) / total if total else 0.0
            phrase = max(phrase, phrase_of[j])
            sem = max(sem, semantic[j])
            score = lexical + phrase + scorer_weight * sem - _EXTRA_SENTENCE_COST * (j - i)
            # strictly better only: ties go to the earlier, shorter window
            if best is None or score > best[0] + 1e-12:
                best = (score, i, j)
    if best is None or best[0] <= 0.0:
        return None
    score, i, j = best
    top = 1.0 + _PHRASE_BONUS + (scorer_weight if scorer is not None else 0.0)
    start, end = spans[i][0], spans[j][1]
    return SnippetEvidence(
        text=snippet[start:end], start_char=start, score=round(min(1.0, score / top), 6)
    )


def with_evidence(
    snippet: Snippet, query: str, *, scorer: SentenceScorer | None = None
) -> Snippet:
    """A copy of ``snippet`` with its ``evidence`` window for ``query`` filled in."""
    return snippet.model_copy(
        update={"evidence": best_window(query, snippet.text, scorer=scorer)}
    )
