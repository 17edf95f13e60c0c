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
    # Nor is a chord "mentioned" by words that only look like one (code review).
    for question, passage in (("What does Ctrl-D do in the shell?", "Use cd to change it."),
                              ("How do I cancel with Ctrl-C?", "Compile it with cc -o x."),
                              ("What does Ctrl-A do in screen?", "You can control a process."),
                              ("What does Ctrl+Q do in the editor?", "Access control lists."),
                              ("What does Ctrl-I insert?", "The CI pipeline runs tests.")):
        assert unnamed(question, _seen(passage)), (question, passage)
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


OPTIONS = """<html><body><h3>Limits</h3><dl class="first-defvr">
<dt><a id="index-lhospitallim"></a>Option variable: <strong class="def-name">lhospitallim</strong>
</dt><dd><p>Default value: <code>4</code></p><p><code>lhospitallim</code> is the maximum number
of times L’Hospital’s rule is used in <code>limit</code>. This prevents infinite looping in
cases like <code>limit (cot(x)/csc(x), x, 0)</code>.</p></dd>
<dt>Option variable: <strong>tlimswitch</strong></dt><dd><p>Default value: <code>true</code></p>
<p>When <code>tlimswitch</code> is true, the <code>limit</code> command will use a Taylor
series expansion if the limit of the input expression cannot be computed directly. This
allows evaluation of limits such as <code>limit(x/(x-1)-1/log(x),x,1,plus)</code>.</p></dd>
</dl></body></html>"""


def test_a_default_on_its_line_above_a_description_is_quoted_when_the_default_is_asked(
        tmp_path: Path) -> None:
    """Texinfo writes an option variable's default on a line of its own between its term
    and its description ("Default value: 4" over "lhospitallim is the maximum number of
    times …"), as Celery's settings do ("Default: 100."): asked the default, the answer
    quoted the description without the value (Maxima's review, 2026-12-06)."""
    for run in "abc":
        (tmp_path / run).mkdir()
    files = {"limits.html": OPTIONS}
    answer = ask_over(tmp_path / "a", files,
                      "At most how many times does limit apply L'Hospital's rule by default?")
    assert answer.citations[0].excerpt == (
        "Default value: 4\n\nlhospitallim is the maximum number of times L’Hospital’s rule "
        "is used in limit.")
    answer = ask_over(tmp_path / "b", files, "What is the default of tlimswitch?")
    assert answer.citations[0].excerpt.startswith("Default value: true\n\nWhen tlimswitch")
    # The description once: not again beside it, with the sentence that points back to it
    # (code review, 2026-12-06).
    assert answer.text.count("When tlimswitch is true") == 1, answer.text
    # Not asked the default, the description is quoted alone.
    answer = ask_over(tmp_path / "c", files, "What does lhospitallim control?")
    assert answer.citations[0].excerpt.startswith("lhospitallim is the maximum number")


def test_a_default_that_ends_an_entry_is_not_quoted_with_the_paragraph_after_it() -> None:
    """FFmpeg's options end with their default ("Default value is ‘once’."), and the
    paragraph after it is about something else: only a default right under its term, with
    nothing said between them, is its description's (code review, 2026-12-06)."""
    from citewise.models.sentence_candidates import candidates

    text = ("eval\n\nSet when the volume expression is evaluated.\n\nDefault value is "
            "‘once’.\n\nThe volume expression can contain the following parameters.")
    roles = [[0, 4, "term"]]
    found = candidates([{"results": [{"text": text, "source": "ffplay.html",
                                      "document_index": 1, "roles": roles}]}])
    assert [c.with_default for c in found] == ["", "", ""]
