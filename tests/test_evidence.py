"""Evidence windows: verbatim, relative offsets, the right sentence, sane scores."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.answer import Snippet, SnippetSource
from citewise.knowledge.evidence import best_window, with_evidence

SNIPPET = (
    "Our store opened in 1998 in Lyon. "
    "Refunds are paid to the original card within 14 days of the return. "
    "Items must be unused and in their original packaging. "
    "Shipping is free for orders above 50 euros."
)


def test_picks_the_answering_sentence_with_relative_offset() -> None:
    ev = best_window("How many days until refunds are paid?", SNIPPET)
    assert ev is not None
    assert ev.text == "Refunds are paid to the original card within 14 days of the return."
    assert SNIPPET[ev.start_char : ev.start_char + len(ev.text)] == ev.text
    assert 0.0 < ev.score <= 1.0


def test_spans_two_sentences_only_when_the_second_adds_query_terms() -> None:
    ev = best_window("refund rules for unused items in original packaging", SNIPPET)
    assert ev is not None
    assert ev.text.startswith("Refunds are paid") and ev.text.endswith("original packaging.")
    one = best_window("shipping orders", SNIPPET)
    assert one is not None and one.text == "Shipping is free for orders above 50 euros."
    capped = best_window("refund unused packaging", SNIPPET, max_sentences=1)
    assert capped is not None and capped.text.count(".") == 1


def test_rarer_terms_decide_and_phrases_help() -> None:
    text = "The store sells bikes. The store repairs bikes on Mondays. The store is in Lyon."
    ev = best_window("which day does the store repair bikes", text)
    assert ev is not None and ev.text == "The store repairs bikes on Mondays."
    phrased = "Credit card payments are accepted. Card credit is not offered."
    ev2 = best_window("credit card", phrased, max_sentences=1)
    assert ev2 is not None and ev2.text == "Credit card payments are accepted."


def test_no_match_gives_none_and_empty_input_is_safe() -> None:
    assert best_window("volcanic eruptions", SNIPPET) is None
    assert best_window("refund", "") is None
    assert best_window("", SNIPPET) is None
    assert best_window("refund", "   \n  ") is None


def test_semantic_scorer_finds_paraphrases_without_shared_words() -> None:
    calls: list[Sequence[str]] = []

    def scorer(query: str, sentences: Sequence[str]) -> list[float]:
        calls.append(sentences)
        return [0.9 if "Refunds" in s else 0.1 for s in sentences]

    ev = best_window("When do I get my money back?", SNIPPET, scorer=scorer)
    assert ev is not None and ev.text.startswith("Refunds are paid")
    assert len(calls) == 1 and len(calls[0]) == 4  # scored once, per sentence


def test_with_evidence_fills_the_snippet_copy() -> None:
    snip = Snippet(text=SNIPPET, score=1.5, chunk_id=7, source=SnippetSource(
        start_char=100, end_char=100 + len(SNIPPET), field_length=1000
    ))
    out = with_evidence(snip, "free shipping threshold")
    assert snip.evidence is None  # the original is untouched
    assert out.evidence is not None and out.evidence.text.startswith("Shipping is free")
    assert out.chunk_id == 7 and out.source == snip.source


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab cd.!?\n éß"), max_size=200),
    st.text(alphabet=st.sampled_from("ab cd éß"), max_size=30),
)
def test_window_is_always_verbatim(snippet: str, query: str) -> None:
    ev = best_window(query, snippet)
    if ev is not None:
        assert snippet[ev.start_char : ev.start_char + len(ev.text)] == ev.text
        assert ev.text == ev.text.strip() and ev.text
        assert 0.0 < ev.score <= 1.0
