"""Query words are the words the question meant: a contraction leaves no stray "s"/"t"
term, a stopword joined into a hyphenated compound ("read-only") is kept, and an
identifier ("pg_dump") stays one keyword — in the query analysis, in the shared term
functions, in the extractive model's own keyword query and in evidence windows alike."""

from __future__ import annotations

import itertools

import pytest

from citewise.knowledge.retrieve.evidence import (
    _sentence_terms,
    _stem_occurrences,
    best_window,
    prepare,
)
from citewise.knowledge.retrieve.query import analyze, keywords
from citewise.models.extractive import _keywords_query
from citewise.sentences import sentence_spans
from citewise.text import content_terms, plain_terms, terms

_CONTRACTED = [
    "what's the difference between pg_dump and pg_basebackup",
    "why don't my changes show up",
    "it's slow, isn't it",
    "what’s a tablespace",  # a typographic apostrophe
    "they're sure we've seen you'll say I'd know I'm here, didn't we",
]


@pytest.mark.parametrize("question", _CONTRACTED)
def test_contractions_leave_no_clitic_terms(question: str) -> None:
    stray = {"s", "t", "re", "ve", "ll", "d", "m", "don", "isn", "didn"}
    assert not stray & set(analyze(question).keywords)
    assert not stray & set(terms(question))
    assert not stray & set(content_terms(question))
    assert not stray & set(_keywords_query(question, []).split())


def test_a_comparison_keeps_both_identifiers_whole() -> None:
    question = "what's the difference between pg_dump and pg_basebackup"
    assert analyze(question).keywords == ["difference", "pg_dump", "pg_basebackup"]
    assert _keywords_query(question, []) == "difference pg_dump pg_basebackup"
    assert content_terms(question) == ["differenc", "pg_dump", "pg_basebackup"]


def test_a_negated_verb_that_is_no_stopword_is_kept() -> None:
    assert keywords("you needn't restart the server") == ["need", "restart", "server"]
    assert plain_terms("you needn't restart the server") == ["need", "restart", "server"]


def test_stopwords_inside_hyphenated_compounds_are_kept() -> None:
    question = "grant read-only access to all tables"
    assert "read-only" in analyze(question).keywords
    assert content_terms(question) == ["grant", "read", "only", "access", "tabl"]
    assert _keywords_query(question, []) == "grant read only access tables"
    # Short parts of a compound are still stopwords; a free-standing "only" is one.
    assert content_terms("an up-to-date copy") == ["date", "copy"]
    assert content_terms("only the owner") == ["owner"]


def test_evidence_prefers_the_sentence_with_the_compound() -> None:
    snippet = (
        "Access privileges are granted with GRANT. "
        "A read-only role can select from the tables but cannot change them. "
        "The only superuser is postgres."
    )
    ev = best_window("read-only role", snippet, max_sentences=1)
    assert ev is not None and ev.text.startswith("A read-only role")


_PIECES = ["what's", "it's", "isn't", "needn't", "won't", "read-only", "only", "read", "built-in",
           "in", "up-to-date", "date", "s", "t", "need", "pg_dump", "dump", "O'Brien", ".", "\n\n"]


def test_ascii_fast_path_agrees_on_contractions_and_compounds() -> None:
    # The ASCII path of evidence windows checks only the word at each occurrence of a
    # query term; it must see contractions and compounds as content_terms does.
    for words in itertools.combinations(["only", "read", "need", "s", "t", "date", "dump",
                                         "o", "brien", "pg_dump", "in"], 2):
        q = prepare(" ".join(words))
        for n in range(0, len(_PIECES), 3):
            snippet = " ".join(_PIECES[n:] + _PIECES[:n])
            spans = sentence_spans(snippet)
            low = snippet.lower()
            fast = _sentence_terms(q, snippet, spans, low, _stem_occurrences(q, low))
            slow = _sentence_terms(q, snippet, spans, None, [])
            assert fast == slow, (words, snippet)
