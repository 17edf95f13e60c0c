"""Evidence windows: verbatim, relative offsets, the right sentence, sane scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.answer import Snippet, SnippetEvidence, SnippetSource
from citewise.knowledge.retrieve.evidence import _ascii_sentence_spans, best_window, prepare, with_evidence
from citewise.sentences import join_abbreviations, sentence_spans
from citewise.text import content_terms

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


# -- the fast path gives exactly the windows of the straightforward algorithm ------------------


def _reference(query: str, snippet: str, max_sentences: int = 2) -> SnippetEvidence | None:
    """The plain algorithm (every sentence tokenised), as it was before the fast path —
    on whole sentences, as quotes have them (since 2026-12-07)."""
    spans = join_abbreviations(snippet, sentence_spans(snippet), ellipses=True)
    if not spans:
        return None
    q_seq = content_terms(query)
    q_terms = set(q_seq)
    sent_seq = [content_terms(snippet[a:b]) for a, b in spans]
    sent_terms = [set(s) for s in sent_seq]
    if not any(st & q_terms for st in sent_terms):
        return None
    n = len(spans)
    weight = {t: math.log(1.0 + n / max(1, sum(t in s for s in sent_terms))) for t in q_terms}
    total = sum(weight.values())
    pairs = {(a, b) for a, b in pairwise(q_seq) if a != b}

    def bonus(seq: list[str]) -> float:
        return 0.1 * len(pairs & set(pairwise(seq))) / len(pairs) if pairs else 0.0

    phrase_of = [bonus(sent_seq[k]) if len(sent_terms[k] & q_terms) > 1 else 0.0 for k in range(n)]
    best: tuple[float, int, int] | None = None
    for i in range(n):
        covered: set[str] = set()
        phrase = -math.inf
        for j in range(i, min(n, i + max_sentences)):
            if j > i and spans[j][1] - spans[i][0] > 500:
                break
            covered |= sent_terms[j] & q_terms
            lexical = sum(weight[t] for t in covered) / total if total else 0.0
            phrase = max(phrase, phrase_of[j])
            score = lexical + phrase - 0.08 * (j - i)
            if best is None or score > best[0] + 1e-12:
                best = (score, i, j)
    if best is None or best[0] <= 0.0:
        return None
    score, i, j = best
    start, end = spans[i][0], spans[j][1]
    return SnippetEvidence(
        text=snippet[start:end], start_char=start, score=round(min(1.0, score / 1.1), 6)
    )


_WORDS = ["refund", "refunds", "refunded", "card", "cards", "the", "a", "store", "storing",
          "days", "day", "Paid", "PAYING", "ship", "shipping", "Straße", "über", "ΟΔΟΣ"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(_WORDS), st.sampled_from([". ", "! ", "\n\n", ", ", " "])),
        max_size=60,
    ),
    st.lists(st.sampled_from(_WORDS), max_size=5),
    st.integers(min_value=1, max_value=3),
)
def test_fast_path_matches_the_reference(parts: list[str], words: list[str], max_s: int) -> None:
    snippet = " ".join(parts)
    query = " ".join(words)
    want = _reference(query, snippet, max_sentences=max_s)
    assert best_window(query, snippet, max_sentences=max_s) == want
    # a query prepared once gives the same window as the string
    assert best_window(prepare(query), snippet, max_sentences=max_s) == want


def test_prepared_query_is_reused_for_many_snippets() -> None:
    q = prepare("refunds paid within weeks")
    assert q.terms == frozenset({"refund", "paid", "within", "week"})
    ev = best_window(q, SNIPPET)
    assert ev is not None and ev.text.startswith("Refunds are paid")
    assert best_window(q, "Nothing about money here.") is None
    assert best_window(prepare("the of and"), SNIPPET) is None  # stopwords only


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(".!?\n \t\r\"')]ab\x1c\x0b")), max_size=60))
def test_ascii_sentence_split_equals_sentence_spans(text: str) -> None:
    assert _ascii_sentence_spans(text) == sentence_spans(text)


def test_ascii_sentence_split_on_prose() -> None:
    text = (
        'He said "stop." Then left!  Did he?\n\nYes (really.) No\nbreak here. '
        "End.\n \n\t\nLast one... and more?! Done"
    )
    got = [text[a:b] for a, b in _ascii_sentence_spans(text)]
    assert got == [text[a:b] for a, b in sentence_spans(text)]
    assert got == ['He said "stop.', "Then left!", "Did he?", "Yes (really.", "No\nbreak here.",
                   "End.", "Last one...", "and more?!", "Done"]


_PIECES = [
    "refund", "Refunds", "refunded", "prefund", "refundable", "REFUNDING", "paid", "pays",
    "the", "of", "and", "is", "its", "it", "week", "weeks", "weekly", "tweak", "re_fund",
    "card", "cards2", "2cards", "x", "_paid", "café", ". ", "! ", "? ", "\n\n", ", ", " ",
    "  ", "-", "'", '"', "(", ")", "dings", "ding", "ourselves", "ourselv",
]
_QUERY_WORDS = [
    "refund", "refunds", "paid", "weeks", "the", "card", "ding", "tweak", "fund", "x", "ourselv",
]  # "ourselv": the stem of the stopword "ourselves", which never counts


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=40),
    st.lists(st.sampled_from(_QUERY_WORDS), min_size=1, max_size=4),
)
def test_ascii_term_detection_equals_tokenising_every_sentence(
    pieces: list[str], words: list[str]
) -> None:
    """The ASCII fast path finds a sentence's query terms from the terms' occurrences
    (stemming only the word at each one); it must agree exactly with tokenising every
    sentence, the path non-ASCII text takes — terms and phrase bonuses alike."""
    from citewise.knowledge.retrieve.evidence import _sentence_terms, _stem_occurrences

    snippet = " ".join(pieces)
    if not snippet.isascii():
        snippet = snippet.encode("ascii", "ignore").decode()
    q = prepare(" ".join(words))
    spans = sentence_spans(snippet)
    low = snippet.lower()
    fast = _sentence_terms(q, snippet, spans, low, _stem_occurrences(q, low))
    slow = _sentence_terms(q, snippet, spans, None, [])
    assert fast == slow


def test_the_window_is_a_whole_sentence_past_an_abbreviation() -> None:
    """A decline's closest passage quoted "ens786f0) on which the Mode XDP is enabled.":
    its window began after "e.g." (Knot DNS's review, 2026-12-07)."""
    snippet = ("XDP needs a recent kernel. One or more network device names (e.g. ens786f0) on "
               "which the Mode XDP is enabled. Other devices work as before.")
    ev = best_window("which network devices have XDP mode enabled", snippet, max_sentences=1)
    assert ev is not None
    assert ev.text == ("One or more network device names (e.g. ens786f0) on which the Mode XDP "
                       "is enabled.")
    assert snippet[ev.start_char:ev.start_char + len(ev.text)] == ev.text
