"""Words of a question that no document contains ("Missing: bcrypt", issue #27).

The lexical index reports them (tantivy here, PostgreSQL in test_knowledge_postgres), the
search tool says them before its passages, and the extractive model declines a question
whose point is such a word — naming it — while a question that only words itself
colloquially ("Is it okay to …") is still answered. A knowledge base of a few pages
reports nothing: most words are absent from it, and that says nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _ferry import BCRYPT, HASH, SAFE, pages
from citewise.agent.runner import Agent
from citewise.agent.search_tool import NO_DOCUMENT_CONTAINS
from citewise.agent.state import RunSettings
from citewise.events import Observation
from citewise.grounding.declines import DECLINES, NOT_IN_SOURCES, is_decline, not_in_sources
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.index.contract import MENTIONS_FROM
from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.models.absent_words import absent_words
from citewise.models.sentence_similarity import minilm_scorer
from citewise.store.base import IndexRow


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    docs = tmp_path_factory.mktemp("ferry")
    for name, text in pages().items():
        (docs / name).write_text(text)
    with KnowledgeBase.open(tmp_path_factory.mktemp("kb") / "kb.db") as kb:
        kb.ingest([docs])
        assert kb.store.count_chunks() >= MENTIONS_FROM
        yield kb


def _rows(tenant: str, n: int, text: str, start: int = 0) -> list[IndexRow]:
    return [IndexRow(start + i, f"{tenant}{i}", tenant, "default", text,
                     title="Backups" if i == 0 else None) for i in range(n)]


def test_the_index_reports_the_words_no_chunk_of_the_tenant_contains(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path / "ix")
    with index.writer() as batch:
        batch.add(_rows("acme", MENTIONS_FROM, "Archives are compressed before the upload."))
        # Another tenant's chunks mention nothing for acme, in a few chunks or in many.
        batch.add(_rows("beta", 3, "Passwords are hashed with bcrypt.", start=10_000))
        batch.add(_rows("beta", MENTIONS_FROM, "Archives are compressed with zstd.",
                        start=20_000))
    words = ["bcrypt", "zstd", "compression", "archive", "backups", "multithreaded", "e-mail",
             "the"]
    # Stems meet ("compression", "compressed"; "archive", "Archives"), a document's title
    # counts ("Backups"), a word of several terms is absent only when all are.
    assert index.unmentioned(words, tenant="acme") == [
        "bcrypt", "zstd", "multithreaded", "e-mail"]
    assert index.unmentioned(["bcrypt", "zstd", "upload"], tenant="beta") == ["upload"]


def test_a_knowledge_base_of_a_few_pages_reports_no_word(tmp_path: Path) -> None:
    index = LexicalIndex(tmp_path / "ix")
    with index.writer() as batch:
        batch.add(_rows("acme", MENTIONS_FROM - 1, "Archives are compressed before the upload."))
    assert index.unmentioned(["bcrypt"], tenant="acme") == []
    # Deleted chunks are no pages: a small knowledge base re-ingested stays small.
    with index.writer() as batch:
        batch.add(_rows("acme", 60, "Archives are compressed.", start=5_000))
    assert index.unmentioned(["bcrypt"], tenant="acme") == ["bcrypt"]
    with index.writer() as batch:
        for i in range(60):
            batch.delete_document(f"acme{i}")
    index.reload()
    assert index.unmentioned(["bcrypt"], tenant="acme") == []


def test_the_search_says_which_words_no_document_contains(kb: KnowledgeBase) -> None:
    assert kb.unmentioned("Which ferry setting encrypts the archives with bcrypt?") == [
        "encrypts", "bcrypt"]

    async def observations() -> list[Observation]:
        return [e async for e in Agent(kb).stream("Which ferry setting encrypts archives?")
                if isinstance(e, Observation)]

    first = asyncio.run(observations())[0]
    assert first.text.startswith(f"{NO_DOCUMENT_CONTAINS}encrypts\n\n"), first.text


def test_a_question_about_what_no_document_mentions_is_declined_naming_it(
        kb: KnowledgeBase) -> None:
    """The hashing sentence is close in meaning (it was quoted with answerability 0.54,
    above the 0.45 threshold), but what is asked about, bcrypt, is in no document."""
    answer = Agent(kb).ask(BCRYPT)
    assert answer.text == f"{NOT_IN_SOURCES} None of them contains “bcrypt”."
    # Every word in no document is reported; only the one that carries the question counts.
    assert answer.query_details is not None
    assert answer.query_details.unmentioned == ["switch", "bcrypt"]
    assert answer.citations == []
    # The decline, the words it names included, asserts nothing that needs a source.
    assert {i.code for i in answer.issues} == {"no_answer_in_sources"}
    assert any(HASH in s.text for d in answer.search_documents for s in d.snippets)
    strict = Agent(kb, settings=RunSettings(strict=True)).ask(BCRYPT)
    assert strict.text == answer.text  # nothing in it is an unsupported claim to remove
    assert {i.code for i in strict.issues} == {"no_answer_in_sources"}
    # "encrypts" is in no document either, but the question without it means nearly the
    # same: only the word that carries it is named.
    answer = Agent(kb).ask("Which ferry setting encrypts the archives with bcrypt?")
    assert answer.text == f"{NOT_IN_SOURCES} None of them contains “bcrypt”."


def test_a_colloquial_word_no_document_contains_does_not_decline(kb: KnowledgeBase) -> None:
    assert "okay" in kb.unmentioned("Is it okay to run ferry prune while a backup is running?")
    answer = Agent(kb).ask("Is it okay to run ferry prune while a backup is running?")
    assert answer.citations and answer.citations[0].excerpt == SAFE, answer.text


def test_only_words_that_carry_the_question_count() -> None:
    scorer = minilm_scorer()
    assert scorer is not None
    reported = [{"unmentioned": ["bcrypt", "okay", "o'brien", "flathub", "flatpak"]}]

    def absent(question: str, observations: list[dict[str, Any]] = reported,
               judge: Any = scorer) -> tuple[list[str], list[str]]:
        got = absent_words(question, observations, judge)
        return got.counted, got.named

    assert absent("How do I compute a bcrypt password hash with hashlib?") == (
        ["bcrypt"], ["bcrypt"])
    assert absent("Is it okay to run fsck on a filesystem while it is mounted?") == ([], [])
    # A possessive is the word, named as the question wrote it.
    assert absent("Is Bcrypt's cost factor configurable in hashlib?") == (
        ["bcrypt"], ["Bcrypt"])
    # The asker's own data is no word the documents must contain.
    assert absent("How do I put an apostrophe in a string, e.g. O'Brien?") == ([], [])
    # A word a follow-up's search carried from the thread is not this question's.
    assert absent("And with hashlib?") == ([], [])
    assert absent("How do I compute a bcrypt password hash with hashlib?", judge=None) == (
        [], [])
    # Two words that each say what the other says: neither counts alone (the question
    # without one still names the other), together they are what is asked — named.
    assert absent("How do I install desktop applications from Flathub with flatpak?") == (
        [], ["Flathub", "flatpak"])
    # Half the question's words in no document: every one of them counts.
    opus = [{"unmentioned": ["read", "artist", "title", "tags", "file"]}]
    assert absent("How do I read artist and title tags from an Opus file?", opus, None) == (
        ["read", "artist", "title", "tags", "file"], ["read", "artist", "title", "tags", "file"])


def test_a_word_inside_an_identifier_of_the_passages_is_no_absent_word() -> None:
    # Qt's review (2026-12-05): "How early can a coarse timer fire?" was declined with
    # "None of them contains 'coarse'", over a page that says Qt::CoarseTimer.
    passage = {"text": "Qt::CoarseTimer: coarse timers try to keep accuracy within 5 % "
                       "of the desired interval, via hash_table lookups."}
    seen = [{"unmentioned": ["coarse", "bcrypt"], "results": [passage]}]
    # Half the question's words are reported: without the identifier, both would count.
    assert absent_words("Coarse bcrypt?", seen, None).counted == ["bcrypt"]
    plain = [{"unmentioned": ["coarse", "bcrypt"], "results": [{"text": "Timers fire."}]}]
    assert absent_words("Coarse bcrypt?", plain, None).counted == ["coarse", "bcrypt"]


def test_a_punctuation_mark_s_name_a_passage_writes_is_no_absent_word() -> None:
    # The Haskell Report's review (2026-12-07): "Can matching a lazy pattern written with a
    # tilde ever fail?" was declined with "None of them contains 'tilde'" over "Matching the
    # pattern ~apat against a value v always succeeds."
    passage = {"text": "Matching the pattern ~apat against a value v always succeeds."}
    seen = [{"unmentioned": ["tilde", "tildes", "carets"], "results": [passage]}]
    # Half the question's words are reported: without the passage's "~", both would count.
    assert absent_words("Tilde carets?", seen, None).counted == ["carets"]
    assert absent_words("Tildes carets?", seen, None).counted == ["carets"]
    plain = [{"unmentioned": ["tilde"], "results": [{"text": "Lazy patterns match."}]}]
    assert absent_words("Tilde pattern?", plain, None).counted == ["tilde"]
    # Not an ordinary word whose mark is everywhere, nor a mark set between words as
    # punctuation (the code review: "the big bang search algorithm" was answered).
    loose = [{"unmentioned": ["bang", "tilde"],
              "results": [{"text": "Match it! A value ~ or not."}]}]
    assert absent_words("Bang tilde?", loose, None).counted == ["bang", "tilde"]


def test_the_decline_names_the_words_in_the_questions_language() -> None:
    text = not_in_sources("Comment chiffrer les sauvegardes avec bcrypt ?", ["bcrypt"])
    assert text == f"{DECLINES['fr']} Aucun ne contient « bcrypt »."
    assert is_decline(text) and is_decline(NOT_IN_SOURCES)
    # An answer's claims are its sentences: the one naming the words is no claim either.
    assert is_decline("None of them contains “graphical”, “desktop”.")
    assert is_decline("Aucun ne contient « bcrypt ».")
    assert is_decline(f"{NOT_IN_SOURCES}\n\nNone of them contains “bcrypt”.")
    assert not is_decline(f"{NOT_IN_SOURCES[:-1]}, but see below.")
    assert not is_decline("None of them contains “bcrypt”, but the guide does.")


def test_a_long_query_looks_up_as_many_words_as_a_search_has_terms(kb: KnowledgeBase) -> None:
    words = [f"zq{i}x" for i in range(300)]
    assert kb.unmentioned("What is said of " + " ".join(words)) == words[:64]
    # A word no index keeps (over 40 characters) is never reported.
    assert kb.unmentioned(f"What does ferry say of {'z' * 41}?") == []


def test_a_question_in_another_language_reports_no_word(kb: KnowledgeBase) -> None:
    """The indexes stem English: "Sicherungen" is missing wherever a page says "Sicherung"."""
    assert kb.unmentioned("Wie verschlüsselt ferry die Sicherungen mit bcrypt?") == []
    # Nor a language the query analysis does not tell, nor keywords alone.
    assert kb.unmentioned("Jak skonfigurować kopie zapasowe bazy danych?") == []
    assert kb.unmentioned("bcrypt hashing ferry") == []


def test_citewise_search_says_which_words_no_document_contains(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README says the search reports such words; a new user looked for them in
    ``citewise search`` and found none there (BIRD's review, 2026-12-06)."""
    from citewise.cli.main import main

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in pages().items():
        (docs / name).write_text(text)
    data = tmp_path / "data"
    assert main(["ingest", str(docs), "--no-wait", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    assert main(["search", "Which ferry setting encrypts archives?", "--mode", "lexical",
                 "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{NO_DOCUMENT_CONTAINS}encrypts\n\n[1] "), out[:200]
    # The JSON is the HTTP API's shape, hits only.
    assert main(["search", "Which ferry setting encrypts archives?", "--json",
                 "--data-dir", str(data)]) == 0
    assert NO_DOCUMENT_CONTAINS not in capsys.readouterr().out


def test_a_superlative_asking_for_a_limit_is_no_absent_word() -> None:
    """Docutils' review (2026-12-07, du08): "What is the longest input line Docutils accepts
    by default?" was declined with "None of them contains 'longest'", over a page that
    states the limit as a value ("line_length_limit … Default: 10 000"). The superlative
    says what kind of answer is asked, as "how long" does; the word after it is the topic."""
    scorer = minilm_scorer()
    assert scorer is not None
    question = "What is the longest input line Docutils accepts by default?"
    assert absent_words(question, [{"unmentioned": ["longest"]}], scorer) == ([], [])
    # Half the question's words in no document, but for the superlatives: none counts.
    assert absent_words("Biggest maximum?", [{"unmentioned": ["biggest", "maximum"]}],
                        None) == ([], [])
    assert absent_words("Max or min?", [{"unmentioned": ["max", "min"]}], None) == ([], [])
    # A word that only ends like one is still a word no document has.
    assert absent_words("Is there a forest mode?", [{"unmentioned": ["forest"]}],
                        None).counted == ["forest"]
