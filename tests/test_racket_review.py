"""What a new user met on Racket's reference (Debian's ``racket-doc`` 8.7, review of
2026-12-06) that is not how a page is read (``test_loaders_html_scribble``): an argument's
line, "max-allow-wait : exact-nonnegative-integer? = 4", was cut into two sentences at its
predicate's "?" — "= 4" alone — and, short and without a full stop, taken for a title, so
the default it states was never quoted, even asked by the argument's name."""

from __future__ import annotations

from pathlib import Path

from tests._answers import ask_over
from tests.test_loaders_html_scribble import PAGE

from citewise.grounding.claims import segments


def test_a_predicates_question_mark_ends_no_sentence_before_its_contract_or_default() -> None:
    for line in ("max-allow-wait : exact-nonnegative-integer? = 4", "reuse? : any/c = #f",
                 "(tcp-accept-ready? listener) → boolean?",
                 "A program that ends with exit(-1) leaves $? = 255 in the shell."):
        assert [line[a:b] for a, b in segments(line)] == [line], line
    # A question, an exclamation: still ends, before a capital, a smiley or French's
    # spaced colon (code review).
    text = "Is it safe? Yes it is. Stop! Then go. Does it work? :) Yes. Pourquoi ? : parce que."
    assert [text[a:b] for a, b in segments(text)] == [
        "Is it safe?", "Yes it is.", "Stop!", "Then go.", "Does it work?", ":) Yes.",
        "Pourquoi ?", ": parce que."]


def test_an_arguments_default_on_its_line_is_quoted_for_a_default_question(
        tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"tcp.html": PAGE},
                      "What is the default max-allow-wait of tcp-listen?")
    assert answer.citations
    assert answer.citations[0].excerpt == "max-allow-wait : exact-nonnegative-integer? = 4"
