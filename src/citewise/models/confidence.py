"""How likely the extractive model's first quote states the answer: its ``confidence``.

Why apart from :mod:`.answerability`: answerability asks whether the passages answer at
all (and the model declines below ``extractive.ANSWERABLE``); once it answers, a reader
wants to know how far to trust the quote. On the answers bench that number alone told
little — answers below 0.60 were wrong 71 % of the time against 53 % above — while two
facts of the ranking told more: how far the first sentence scored ahead of the next one
(a near tie between two sentences of one entry is where the wrong one comes first), and
how far down the search its passage was.

So the estimate is a logistic model of three numbers, fitted on the ``tune`` split of
``bench/data/answers`` (816 answers given, 2026-12-06, ``bench/README.md``): the
answerability, the score margin of the first sentence over the next other one, and its
passage's rank in its search. Its output reads as a probability: on the 1,080 held-out
answers, those given 0.2–0.3 quoted the right sentence first 23 % of the time, 0.4–0.5
52 %, 0.7 and up 73 % (ranking the answers, it separates right from wrong with an AUC of
0.73 where answerability alone had 0.61). It is a heuristic fitted to those manuals and this
ranking: a change of the ranking's weights changes what the margin means, and it is to be
fitted again (``bench/weak_threshold.py --fit``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["COEFFICIENTS", "RANK_CAP", "confidence", "margin"]

#: (intercept, answerability, margin, rank) of the log-odds that the first quote is right.
COEFFICIENTS = (-2.5133, 2.5655, 5.2319, -0.2553)
#: Passages further down than this count as this far (the fit saw ranks up to 10).
RANK_CAP = 10


def confidence(answerability: float, margin: float, rank: int) -> float:
    """The estimated probability (0..1) that the first quote answers the question, from
    the answerability of the ranking, the first sentence's :func:`margin` over the next
    and its passage's rank in its search (0 = first)."""
    b, a, m, r = COEFFICIENTS
    z = b + a * answerability + m * max(0.0, margin) + r * min(max(rank, 0), RANK_CAP)
    return 1.0 / (1.0 + math.exp(-z))


def margin(ranked: Iterable[tuple[str, float]]) -> float:
    """How far the first of ``ranked`` (text, score), best first, scored ahead of the next
    *other* sentence: the same sentence again, with or without the sentence that completes
    it ("X." and "X. This is the default."), scores nearly alike and is no rival (a right
    answer read as a near tie: code review, 2026-12-06). Its whole score when none other
    is ranked."""
    it = iter(ranked)
    first = next(it, None)
    if first is None:
        return 0.0
    words = " ".join(first[0].split())
    for text, score in it:
        other = " ".join(text.split())
        if other not in words and words not in other:
            return first[1] - score
    return first[1]
