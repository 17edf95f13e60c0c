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
from collections.abc import Callable, Sequence
from itertools import pairwise

from citewise.answer import Snippet, SnippetEvidence
from citewise.text import content_terms, sentence_spans

__all__ = ["SentenceScorer", "best_window", "with_evidence"]

#: Scores each candidate sentence against the query, higher is better, roughly 0..1.
SentenceScorer = Callable[[str, Sequence[str]], Sequence[float]]

_EXTRA_SENTENCE_COST = 0.08  # a second sentence must add at least this much coverage
_PHRASE_BONUS = 0.1


def _phrase_bonus(query_terms: list[str], sentence_terms: list[str]) -> float:
    """Share of the query's adjacent term pairs that occur adjacently in the sentence."""
    pairs = {(a, b) for a, b in pairwise(query_terms) if a != b}
    if not pairs:
        return 0.0
    seen = set(pairwise(sentence_terms))
    return _PHRASE_BONUS * len(pairs & seen) / len(pairs)


def best_window(
    query: str,
    snippet: str,
    *,
    max_sentences: int = 2,
    max_chars: int = 500,
    scorer: SentenceScorer | None = None,
    scorer_weight: float = 0.5,
) -> SnippetEvidence | None:
    """The best window of ``snippet`` for ``query``, or None when nothing in it matches."""
    spans = sentence_spans(snippet)
    if not spans:
        return None
    q_seq = content_terms(query)
    q_terms = set(q_seq)
    sent_seq = [content_terms(snippet[a:b]) for a, b in spans]
    sent_terms = [set(s) for s in sent_seq]
    if scorer is None and not any(st & q_terms for st in sent_terms):
        return None  # no lexical overlap and no semantic scorer: every window scores <= 0
    n = len(spans)
    weight = {
        t: math.log(1.0 + n / max(1, sum(t in s for s in sent_terms))) for t in q_terms
    }
    total = sum(weight.values())
    semantic: Sequence[float] = [0.0] * n
    if scorer is not None:
        semantic = scorer(query, [snippet[a:b] for a, b in spans])
    # Per sentence once (a window takes the max over its sentences): a phrase needs two
    # different query terms in the sentence.
    phrase_of = [
        _phrase_bonus(q_seq, sent_seq[k]) if len(sent_terms[k] & q_terms) > 1 else 0.0
        for k in range(n)
    ]

    best: tuple[float, int, int] | None = None  # (score, first, last sentence)
    for i in range(n):
        covered: set[str] = set()
        phrase = sem = -math.inf
        for j in range(i, min(n, i + max(1, max_sentences))):
            if j > i and spans[j][1] - spans[i][0] > max_chars:
                break
            covered |= sent_terms[j] & q_terms
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
