"""An answer says how far to trust it: ``Answer.answerability``, ``Answer.confidence`` and,
for an answer given on weak evidence, the ``weak_evidence`` issue.

Why: between "the documents do not answer" and a sound answer lies a band where the model
still answers but is mostly wrong. On the answers bench's held-out questions
(``bench/README.md``), the extractive answers whose confidence fell below
:data:`citewise.models.extractive.WEAK` quoted the wrong sentence first, or answered a
question the documents do not answer, four times in five, against about half of the rest.
A verbatim quote looks just as sure either way, so the numbers go into the Answer and the
band gets an issue that a reader sees.

The model reports its estimates with the thresholds that give them meaning on its own
scale (:class:`~citewise.models.base.EvidencePart`); a model that reports none (a
language model) leaves both null and is judged by verification alone.
"""

from __future__ import annotations

from citewise.answer import Answer, Issue
from citewise.grounding.declines import declined
from citewise.models.base import EvidencePart

__all__ = ["WEAK_EVIDENCE", "rate_evidence"]

WEAK_EVIDENCE = "weak_evidence"


def rate_evidence(answer: Answer, estimate: EvidencePart | None) -> list[Issue]:
    """Put the model's estimates in ``answer`` and return the ``weak_evidence`` issue when
    the answer cites passages although its confidence is below the model's weak threshold.
    A decline (of the model, or of verification: ``no_answer_in_sources``) is not flagged
    again, and its confidence is not reported: it quotes nothing as the answer."""
    if estimate is None:
        return []
    answer.answerability = round(estimate.answerability, 4)
    if estimate.confidence is None or declined(answer):
        return []
    sure = answer.confidence = round(estimate.confidence, 4)
    if sure >= estimate.weak_below:  # as reported: 0.29996 is 0.3, not below 0.3
        return []
    return [Issue(
        code=WEAK_EVIDENCE,
        message=(f"the evidence is weak (confidence {sure:.2f}, below "
                 f"{estimate.weak_below:.2f}): the first quote may not answer the question; "
                 "check it against the question"),
        details={"confidence": sure, "weak_below": estimate.weak_below,
                 "answerability": answer.answerability})]
