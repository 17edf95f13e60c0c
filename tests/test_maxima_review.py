"""What a new user met on Maxima's manual (Debian's ``maxima-doc`` 5.46, Texinfo HTML,
review of 2026-12-06) and Racket's (Scribble HTML, the same day): a question naming a thing
as the user types it — "L'Hospital" with the typewriter apostrophe, "Ctrl-Z" — was declined
at answerability 0.00 over a page that writes it "L’Hospital", "control-Z" or "Ctl-C",
though the first passage found answered it; and the decline did not say why."""

from __future__ import annotations

from pathlib import Path

from tests._answers import ask_over

from citewise.grounding.declines import NOT_IN_SOURCES, is_decline
from citewise.models.answerability import named, unnamed

LIMITS = ("# Limits\n\nDefault value: 4\n\nlhospitallim is the maximum number of times "
          "L’Hospital’s rule is used in limit.\n")
INTERRUPTS = ("# Interrupts\n\nOn Unix systems, the character ^Z (control-Z) causes Maxima "
              "to stop altogether, and control is returned to the shell prompt.\n\nA long "
              "computation can be interrupted with Ctl-C, which returns to the prompt.\n")


def _seen(*texts: str) -> list[dict[str, object]]:
    return [{"results": [{"title": "", "section": "", "text": t} for t in texts]}]


def test_a_name_is_mentioned_however_its_apostrophe_or_key_chord_is_written() -> None:
    seen = _seen(LIMITS, INTERRUPTS)
    for question in ("At most how many times does limit apply L'Hospital's rule?",
                     "At most how many times does limit apply L’Hospital’s rule?",
                     "What happens if I press Ctrl-Z in Maxima?",
                     "What does Control+Z do in Maxima?",
                     "How do I stop a long computation with Ctrl-C?",
                     "How do I stop a long computation with Ctrl+C?"):
        assert named(question), question  # a name the passages must mention …
        assert unnamed(question, seen) == [], question  # … and they do
    # Not any key: Ctrl-X is in no passage, nor is a name the passages never write.
    assert unnamed("What does Ctrl-X do in Maxima?", seen) == ["Ctrl-X"]
    assert unnamed("Does Mathematica's Limit apply L'Hospital's rule?", seen) == [
        "Mathematica"]


def test_such_a_question_is_answered_and_a_decline_names_what_no_passage_mentions(
        tmp_path: Path) -> None:
    files = {"limits.md": LIMITS, "interrupts.md": INTERRUPTS}
    for run in "abc":
        (tmp_path / run).mkdir()
    answer = ask_over(tmp_path / "a", files,
                      "At most how many times does limit apply L'Hospital's rule?")
    assert answer.citations and "L’Hospital’s rule is used in limit" in answer.citations[0].excerpt
    answer = ask_over(tmp_path / "b", files, "What happens if I press Ctrl-Z in Maxima?")
    assert answer.citations and "control-Z" in answer.citations[0].excerpt
    # The reader learns why the documents do not answer, and what to ask instead.
    answer = ask_over(tmp_path / "c", files, "How do I stop a computation in Mathematica?")
    assert not answer.citations
    assert answer.text == f"{NOT_IN_SOURCES} No passage found mentions “Mathematica”."
    assert is_decline(answer.text)
