"""A sentence that names its subject only by pointing back ("If neither of these is given,
the default by=1 is assumed.") is quoted with the sentence it points at, when that one is
chosen (new-user review of R's PDF manuals, 2026-12-05): quoted alone, "The next two
arguments to seq() may be named by=value and length=value …" left out the answer, and
the answer alone says nothing a reader can follow."""

from __future__ import annotations

from pathlib import Path

from _answers import ask_over
from citewise.models.sentence_candidates import candidates

SEQ = ("The next two arguments to seq() may be named by=value and length=value, which "
       "specify a step size and a length for the sequence respectively. If neither of these "
       "is given, the default by=1 is assumed.")


def _found(text: str) -> dict[str, str]:
    return {s.text: s.quote for s in candidates([{"results": [{
        "document_index": 1, "text": text, "source": "R-intro.pdf", "title": ""}]}])}


def test_the_sentence_pointed_at_is_quoted_with_the_one_that_points() -> None:
    found = _found(SEQ)
    first, second = SEQ.split(" If neither")
    assert found[first] == SEQ  # chosen, it is quoted with the sentence that completes it
    assert found["If neither" + second] == ""  # ranked and quoted as itself
    # "To read such files" points back; "It is …" and a new subject do not.
    spread = ("It is quite common for a file exported from a spreadsheet to omit trailing "
              "empty fields. To read such files set fill = TRUE.")
    assert _found(spread)[spread.split(" To read")[0]] == spread
    plain = "The file is read line by line. Blank lines are skipped."
    assert _found(plain)["The file is read line by line."] == ""
    # "Each"/"both" point back only as "each of these" (bench/citations.py's lighthouse).
    each = "A Fresnel lens weighs less. Each lighthouse was given its own pattern."
    assert _found(each)["A Fresnel lens weighs less."] == ""
    assert _found(each.replace("Each lighthouse", "Each of these"))[
        "A Fresnel lens weighs less."] != ""
    # Not over a paragraph's end, nor past the length of one quote.
    apart = "The next two arguments may be named.\n\nIf neither of these is given, by=1."
    assert _found(apart)["The next two arguments may be named."] == ""
    long = "The next two arguments may be named " + "and so on " * 40 + ". Such is life."
    assert next(q for t, q in _found(long).items() if t.startswith("The next")) == ""


def test_an_answer_quotes_the_pair(tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"seq.md": f"# Sequences\n\n{SEQ}\n\nOther text here.\n"},
                      "Which two named arguments does seq() take?")
    assert "If neither of these is given, the default by=1 is assumed." in answer.text
    assert answer.citations and "by=value and length=value" in answer.citations[0].excerpt
