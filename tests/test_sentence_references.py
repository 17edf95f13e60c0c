"""A cross-reference that ends a sentence ("… see Chapter 2.", "Section 3.1.") ends it:
the capitalised word after it starts the next sentence, for sentence spans, claims and
the extractive model's candidates alike; a lower-case word after a number still goes on."""

from __future__ import annotations

import pytest

from citewise.grounding.claims import split_claims
from citewise.text import join_abbreviations, sentence_spans


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]


@pytest.mark.parametrize("reference", [
    "Chapter 2.", "Section 3.1.", "Table 21.1.", "Figure 4.", "Appendix A.", "Chapter II.",
    "Sec. 2.", "p. 12.",
])
def test_a_reference_ending_a_sentence_ends_it(reference: str) -> None:
    text = f"For the details, see {reference} The float gauge measures the level."
    want = [f"For the details, see {reference}", "The float gauge measures the level."]
    assert _sentences(text) == want
    assert [c.text for c in split_claims(text)] == want


def test_a_number_before_a_lower_case_word_does_not_end_the_sentence() -> None:
    assert _sentences("Use version 2. the older one is gone.") == [
        "Use version 2. the older one is gone."]
