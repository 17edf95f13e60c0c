"""A cross-reference that ends a sentence ("… see Chapter 2.", "Section 3.1.") ends it:
the capitalised word after it starts the next sentence, for sentence spans, claims and
the extractive model's candidates alike; a lower-case word after a number still goes on."""

from __future__ import annotations

import pytest

from citewise.grounding.claims import split_claims
from citewise.sentences import join_abbreviations, sentence_spans


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


def test_a_number_before_a_marker_ends_the_claim_whatever_follows() -> None:
    """"… if set to 1. [1] follow: If set to 1, …" was one claim (the number's full stop
    before a lower-case word ends no sentence), and both its markers were given the second
    quote's passage (FFmpeg's review, 2026-12-05). A marker after a full stop ends it."""
    text = ("truncate: Truncate existing files on write, if set to 1. [1] follow: If set "
            "to 1, the protocol will retry reading at the end of the file. [2]")
    claims = split_claims(text)
    assert [c.text for c in claims] == [
        "truncate: Truncate existing files on write, if set to 1.",
        "follow: If set to 1, the protocol will retry reading at the end of the file."]
    assert [[g.numbers for g in c.markers] for c in claims] == [[(1,)], [(2,)]]
    # Without the markers nothing changes: the text alone is still one sentence.
    assert _sentences("Set it to 1. follow the next steps.") == [
        "Set it to 1. follow the next steps."]


def test_a_quoted_mark_and_a_closing_bracket_end_no_sentence() -> None:
    """HAProxy's manual: "… '_' (underscore) , '.' (dot) and ':' (colon)." was quoted up to
    "'.'", and "(…, ports, etc... ) to the server." up to "etc..." (review, 2026-12-05)."""
    names = ("ACL names must be formed from letters, digits, '-' (dash), '_' (underscore) , "
             "'.' (dot) and ':' (colon).")
    assert _sentences(f"{names} ACL names are case-sensitive.") == [
        names, "ACL names are case-sensitive."]
    header = "It sends the PROXY header (source, destination, ports, etc... ) to the server."
    assert _sentences(f"{header} Next one.") == [header, "Next one."]
    assert _sentences('He said "Stop." Then he left.') == ['He said "Stop."', "Then he left."]


def test_a_marker_after_an_abbreviation_or_an_items_number_ends_nothing() -> None:
    """The rule above holds for a sentence's full stop, not an abbreviation's ("et al.",
    "e.g.") nor a list item's number: the marker stays inside its claim there."""
    assert [c.text for c in split_claims(
        "Smith et al. [3] showed that the cache halves latency.")] == [
        "Smith et al. showed that the cache halves latency."]
    assert [c.text for c in split_claims("1. [1] Use fast mode.\n2. [2] Use slow mode.")] == [
        "Use fast mode.", "Use slow mode."]


def test_a_quoted_mark_before_a_capital_or_a_bracket_on_the_next_line_ends_it() -> None:
    assert _sentences("You may press '.' Then type the name.") == [
        "You may press '.'", "Then type the name."]
    assert _sentences("It ends here.\n) stray") == ["It ends here.", ") stray"]


def test_a_marker_after_an_abbreviation_before_a_capital_ends_the_claim() -> None:
    """Flask's manual ends a sentence "… without the prefix i.e." before a code block; the
    extractive model quoted it with the next sentence, and the two quotes were one claim,
    both markers given the first quote's passage (new-user review, 2026-12-05). A marker
    after an abbreviation that a capital follows ends its claim."""
    first = ("The variables can then be loaded and accessed via the config with a key equal "
             "to the environment variable name without the prefix i.e.")
    second = ("Flask can be instructed to load all environment variables starting with a "
              "specific prefix into the config using from_prefixed_env().")
    claims = split_claims(f"{first} [1] {second} [2]")
    assert [c.text for c in claims] == [first, second]
    assert [[g.numbers for g in c.markers] for c in claims] == [[(1,)], [(2,)]]
    assert [c.text for c in split_claims(f"{first} [1]\n“{second}” [2]")] == [
        first, f"“{second}”"]
    # A name's abbreviation or initial goes on into the name, marker or not.
    assert [c.text for c in split_claims("Ask Dr. [1] Smith or J. [2] Doe about it.")] == [
        "Ask Dr. Smith or J. Doe about it."]
