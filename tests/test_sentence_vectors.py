"""Sentence vectors stored with their chunk (issue #27, p50 ≤ 150 ms): the embedding job
stores each chunk's sentences as the extractive model cuts them, embedded by the scorer's
own MiniLM; an answer loads those of its passages and embeds only the question; a deleted
document leaves none behind; a knowledge base made before them gets them queued when it
opens; and a failing encoder never holds back the chunks' own vectors. Real SQLite file,
real MiniLM, real PostgreSQL (marked) for the store's SQL."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from _stores import pg_server, pg_url  # noqa: F401
from citewise import KnowledgeBase
from citewise.agent.runner import Agent
from citewise.knowledge.index import sentences as stored_sentences
from citewise.knowledge.index.sentences import encode, load, sentence_encoder
from citewise.models import sentence_similarity as ss
from citewise.models.sentence_candidates import candidates
from citewise.models.sentence_rank import compared_texts
from citewise.models.sentence_vectors import MiniLMSentences
from citewise.store.schema import utcnow
from citewise.store.sentence_vectors import ChunkSource, SentenceRow

DOCS = {
    "returns.md": "# Returns\n\nRefunds are issued within 14 days of receiving the item. "
    "Store credit is offered when the receipt is missing. This is because a refund needs "
    "proof of the price paid.\n",
    "shipping.txt": "Shipping\n\nStandard shipping costs 4.95 EUR. Orders above 75 EUR ship "
    "free of charge. Parcels leave the warehouse the same day.\n",
    "warranty.md": "# Warranty\n\nEvery appliance has a two year warranty. The warranty "
    "covers defects, not damage from drops or water.\n",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text)
    return docs


@pytest.fixture
def kb(tmp_path: Path, folder: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        report = kb.ingest([folder])
        assert len(report.added) == 3 and not report.failed
        yield kb


def _rows(kb: KnowledgeBase) -> list[tuple[int, str, str, bytes]]:
    assert kb.data_dir is not None
    con = sqlite3.connect(kb.data_dir / "citewise.db")
    try:
        return con.execute("SELECT chunk_id, model, texts, vectors FROM sentence_vectors"
                           ).fetchall()
    finally:
        con.close()


def _encoder() -> MiniLMSentences:
    encoder = sentence_encoder()
    assert isinstance(encoder, MiniLMSentences)  # the built-in, through its entry point
    return encoder


def test_an_ingest_stores_every_chunks_sentences_with_the_scorers_vectors(
    kb: KnowledgeBase
) -> None:
    encoder = _encoder()
    chunks = {c.id: c for d in kb.list_documents() for c in kb.store.get_document_chunks(
        kb.tenant, d.id)}
    rows = _rows(kb)
    assert {r[0] for r in rows} == set(chunks) and {r[1] for r in rows} == {encoder.model}
    scorer = ss.scorer_embedder()
    assert scorer.max_tokens == 128  # the scorer's own MiniLM, not the chunks' (256)
    stored: set[str] = set()
    for row in kb.store.get_sentence_vectors(encoder.model, list(chunks)):
        vectors = np.frombuffer(row.vectors, dtype="<f4").reshape(len(row.texts), -1)
        assert np.allclose(vectors, scorer.embed(list(row.texts)), atol=1e-5)
        stored.update(row.texts)
    # What the ranking compares for a search that returned every chunk (several results
    # at once, with their sources and titles) is all stored.
    results = [{"text": c.text, "roles": [list(r) for r in c.roles], "section": c.section,
                "source": f"s{i}", "title": "t", "document_index": i}
               for i, c in enumerate(chunks.values(), 1)]
    asked = {t for s in candidates([{"results": results}]) for t in compared_texts(s)}
    assert asked and asked <= stored
    # The pointing sentence is stored alone and with the sentence before it.
    assert "This is because a refund needs proof of the price paid." in stored
    assert ("This is because a refund needs proof of the price paid. Store credit is "
            "offered when the receipt is missing.") in stored


def test_overlapping_chunks_ask_for_texts_stored_with_them() -> None:
    """A sentence two results share is ranked once; the one after it still follows it (it
    lost the duplicate as its previous sentence, and was compared with the wrong one)."""
    said = ["Backups run every night at two in the morning.",
            "They are kept for thirty days on the server.",
            "Older backups are moved to tape storage.",
            "Tape storage is kept in a locked room.",
            "The room is checked every week by the staff.",
            "These checks are written down in a log book."]
    first, second = " ".join(said[0:5]), " ".join(said[1:6])
    results = [{"text": t, "roles": [], "section": "", "source": "backups.md",
                "title": "Backups", "document_index": 1} for t in (first, second)]
    found = candidates([{"results": results}])
    (checks,) = [s for s in found if s.text == said[5]]
    assert checks.previous == said[4]  # compared with the sentence it points back to
    encoder = _encoder()
    stored = {t for i, text in enumerate((first, second))
              for t in encoder.texts(ChunkSource(i, text, (), None))}
    assert {t for s in found for t in compared_texts(s)} <= stored


def test_an_answer_embeds_only_the_question(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    scorer = ss.scorer_embedder()
    embedded: list[str] = []
    real = scorer.embed
    monkeypatch.setattr(scorer, "embed", lambda texts: (embedded.extend(texts), real(texts))[1])
    agent = Agent(kb, model="extractive")
    question = "How many days until I get my refund?"
    ss.forget()
    answer = agent.ask(question)
    assert "14 days" in answer.text and answer.citations
    stored = {t for r in _rows(kb) for t in json.loads(r[2])}
    assert embedded and not stored & set(embedded), embedded
    assert all(len(t.split()) <= len(question.split()) for t in embedded)  # the question
    # The same answer, word for word, when every sentence is embedded at answer time.
    monkeypatch.setenv("CITEWISE_SENTENCE_VECTORS", "off")
    ss.forget()
    embedded.clear()
    again = Agent(kb, model="extractive").ask(question)
    assert again.text == answer.text
    assert [t for t in embedded if "Refunds are issued" in t]


def test_a_deleted_document_leaves_no_sentence_vector(kb: KnowledgeBase) -> None:
    doc = next(d for d in kb.list_documents() if d.source.endswith("returns.md"))
    ids = {c.id for c in kb.store.get_document_chunks(kb.tenant, doc.id)}
    assert ids <= {r[0] for r in _rows(kb)}
    assert kb.delete_document(doc.id)
    assert not ids & {r[0] for r in _rows(kb)} and _rows(kb)


def test_a_knowledge_base_made_before_gets_them_when_it_opens(
    tmp_path: Path, folder: Path
) -> None:
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([folder])
        chunks = len(_rows(kb))
    con = sqlite3.connect(tmp_path / "kb" / "citewise.db")
    con.execute("DROP TABLE sentence_vectors")  # as a base made by the version before
    con.execute("DELETE FROM _migrations WHERE name = 'm008_sentence_vectors'")
    con.commit()
    con.close()
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert kb.store.pending_embed_jobs()[0] == 3  # one block per document
        stats = kb.embed_pending()
        # Only the sentences: every chunk's own vector was there already.
        assert (stats.embedded, stats.skipped, stats.sentences) == (0, chunks, chunks)
        assert len(_rows(kb)) == chunks and kb.check_consistency().ok
    with KnowledgeBase.open(tmp_path / "kb") as kb:  # nothing left to queue
        assert kb.store.pending_embed_jobs() == (0, 0)


def test_turned_off_nothing_is_stored_queued_nor_read(
    kb: KnowledgeBase, tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [c.id for d in kb.list_documents()
           for c in kb.store.get_document_chunks(kb.tenant, d.id)]
    assert kb.load_sentence_vectors(ids) > 0 and kb.status()[0]["sentences"] == len(ids)
    monkeypatch.setenv("CITEWISE_SENTENCE_VECTORS", "off")
    assert kb.load_sentence_vectors(ids) == 0 and kb.status()[0]["sentences"] is None
    with KnowledgeBase.open(tmp_path / "other") as other:
        other.ingest([folder])
        assert not _rows(other) and other.embedding_status().not_embedded == 0
    with KnowledgeBase.open(tmp_path / "other") as other:
        assert other.store.pending_embed_jobs() == (0, 0)


def test_switched_on_later_a_rebuild_queues_them_as_an_open_does(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_SENTENCE_VECTORS", "off")
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([folder])
        assert not _rows(kb) and kb.embedding_status().not_embedded == 0
        monkeypatch.delenv("CITEWISE_SENTENCE_VECTORS")
        # One shared step queues what is missing, whoever asks: an open or a rebuild.
        assert kb.queue_missing_vectors() == 3  # one block per document
        stats = kb.embed_pending()
        assert stats.embedded == 0 and stats.sentences == len(_rows(kb)) > 0
        assert kb.rebuild_index() == 3 and kb.store.pending_embed_jobs() == (0, 0)


class _Broken:
    model = "broken/sentences-1"
    dim = 384

    def texts(self, source: ChunkSource) -> list[str]:
        return [source.text]

    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("the encoder fell over")

    def remember(self, vectors: Mapping[str, Any]) -> None:
        raise AssertionError("nothing to remember")


def test_a_failing_encoder_holds_back_no_chunk_vector(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setitem(stored_sentences._CHOSEN, "broken", _Broken())
    monkeypatch.setenv("CITEWISE_SENTENCE_VECTORS", "broken")
    with caplog.at_level(logging.WARNING), KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([folder])
        status = kb.embedding_status()
        assert status.chunks and status.embedded == status.chunks
        assert kb.store.pending_embed_jobs() == (0, 0) and not _rows(kb)
        assert kb.search("refund days", k=1, mode="dense")
    assert "the encoder fell over" in caplog.text


def test_a_row_that_does_not_read_as_its_vectors_is_left_out(kb: KnowledgeBase) -> None:
    encoder = _encoder()
    ids = [c.id for d in kb.list_documents()
           for c in kb.store.get_document_chunks(kb.tenant, d.id)]
    good = load(kb.store, encoder, ids)
    assert good >= len(ids)
    assert kb.data_dir is not None
    con = sqlite3.connect(kb.data_dir / "citewise.db")
    con.execute("UPDATE sentence_vectors SET vectors = x'00' WHERE chunk_id = ?", (ids[0],))
    con.commit()
    con.close()
    (row,) = kb.store.get_sentence_vectors(encoder.model, [ids[0]])
    assert load(kb.store, encoder, ids) == good - len(row.texts)


def test_encode_keeps_each_chunks_rows_and_an_empty_chunk_is_done() -> None:
    encoder = _encoder()
    sources = [ChunkSource(1, "Refunds take 14 days. They are paid by bank transfer.", (), None),
               ChunkSource(2, "", (), None),
               ChunkSource(3, "Refunds take 14 days.", (), None)]
    rows = encode(encoder, sources)
    assert [r.chunk_id for r in rows] == [1, 2, 3]
    assert rows[1] == SentenceRow(2, (), b"")
    first = np.frombuffer(rows[0].vectors, dtype="<f4").reshape(len(rows[0].texts), -1)
    last = np.frombuffer(rows[2].vectors, dtype="<f4").reshape(len(rows[2].texts), -1)
    assert rows[2].texts == ("Refunds take 14 days.",) and rows[0].texts[0] == rows[2].texts[0]
    assert np.array_equal(first[0], last[0])  # a text shared by two chunks, embedded once


def test_a_full_cache_keeps_the_vectors_it_was_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache emptied itself when full and then read the texts it had just dropped: the
    question's meaning was lost (a KeyError, caught as "no semantic score")."""
    scorer = ss.minilm_scorer()
    assert scorer is not None
    monkeypatch.setattr(ss, "_CACHE_MAX", 4)
    ss.forget()
    first = scorer("refund days", ["Refunds take 14 days.", "Parcels ship the same day."])
    second = scorer("refund days", ["Refunds take 14 days.", "A new sentence.", "Another one."])
    assert second[0] == pytest.approx(first[0]) and len(ss._CACHE) <= 4


@pytest.mark.slow
@pytest.mark.postgres
def test_postgres_stores_queues_and_cascades(pg_url: str, folder: Path) -> None:  # noqa: F811
    from citewise.store.postgres import PostgresStore

    encoder = _encoder()
    with KnowledgeBase.open_postgres(pg_url) as kb:
        kb.ingest([folder])
        store = kb.store
        assert isinstance(store, PostgresStore)
        doc = next(d for d in kb.list_documents() if d.source.endswith("warranty.md"))
        ids = [c.id for c in store.get_document_chunks(kb.tenant, doc.id)]
        rows = store.get_sentence_vectors(encoder.model, ids)
        assert {r.chunk_id for r in rows} == set(ids)
        assert kb.load_sentence_vectors(ids) > 0
        assert store.put_sentence_vectors(encoder.model, rows) == 0  # a row is kept
        with store._write() as c:  # as a base made before
            c.exec_driver_sql("DELETE FROM sentence_vectors WHERE chunk_id = %s", (ids[0],))
        assert store.queue_sentence_vectors(encoder.model, now=utcnow()) == 1
        assert kb.embed_pending().sentences == 1
        assert kb.delete_document(doc.id)
        assert not store.get_sentence_vectors(encoder.model, ids)
        # A row of a chunk deleted while its job ran is skipped, not refused with the batch.
        assert store.put_sentence_vectors(encoder.model, rows) == 0


def test_a_failing_store_skips_one_batch_not_the_rest(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A write that fails (the database busy or away) costs its batch, not the worker's
    sentence vectors for every later job."""
    from citewise.store.sqlite import SQLiteStore

    real = SQLiteStore.put_sentence_vectors
    calls: list[int] = []

    def once_busy(self: SQLiteStore, model: str, rows: Sequence[SentenceRow]) -> int:
        calls.append(len(rows))
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        return real(self, model, rows)

    monkeypatch.setattr(SQLiteStore, "put_sentence_vectors", once_busy)
    with caplog.at_level(logging.WARNING), KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([folder])
        status = kb.embedding_status()
        assert status.embedded == status.chunks == len(calls) == 3  # one chunk a document
        assert len(_rows(kb)) == 2
    assert "database is locked" in caplog.text
    with KnowledgeBase.open(tmp_path / "kb") as kb:  # the one left is queued again
        assert kb.embed_pending().sentences == 1 and len(_rows(kb)) == 3


def test_citewise_ingest_says_it_computes_the_sentences_of_a_base_made_before(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from citewise.cli.main import main

    data = tmp_path / "kb"
    assert main(["ingest", str(folder), "--data-dir", str(data)]) == 0
    con = sqlite3.connect(data / "citewise.db")
    con.execute("DELETE FROM sentence_vectors")
    con.commit()
    con.close()
    capsys.readouterr()
    assert main(["ingest", str(folder), "--data-dir", str(data)]) == 0
    err = capsys.readouterr().err
    assert "computing the sentence vectors of 3 chunks" in err
    # A clause of its own: "…; sentence vectors of 3 chunks" read as cut off (the Perl and
    # Guile reviews, 2026-12-07).
    assert "embedded 0 chunks" in err and "; stored the sentence vectors of 3 chunks" in err
    assert main(["status", "--data-dir", str(data), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["tenants"]
    assert row["sentences"] == row["chunks"] == 3 and row["pending_jobs"] == 0


def test_the_encoders_recent_vectors_survive_another_threads_eviction(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers share the encoder: one took a text as recent, embedded the others, and
    found it evicted meanwhile by the other's batch (a KeyError cost the batch)."""
    from citewise.models import sentence_vectors

    encoder = MiniLMSentences()
    real = ss.scorer_embedder()

    class Meanwhile:
        def embed(self, texts: list[str]) -> Any:
            if "new" in texts:  # the other worker's batch, while this one embeds
                encoder.embed(["x1", "x2", "x3"])
            return real.embed(texts)

    monkeypatch.setattr(sentence_vectors, "RECENT", 2)
    monkeypatch.setattr(ss, "scorer_embedder", lambda: Meanwhile())
    encoder.embed(["old"])
    both = encoder.embed(["old", "new", "old"])
    assert both.shape == (3, 384) and np.array_equal(both[0], both[2])
    assert np.allclose(both[1], real.embed(["new"])[0], atol=1e-5)
    assert len(encoder._recent) <= 2


def test_a_chunk_that_cannot_be_cut_is_done_and_the_others_stored(
    caplog: pytest.LogCaptureFixture
) -> None:
    class OneBad(MiniLMSentences):
        def texts(self, source: ChunkSource) -> list[str]:
            if source.id == 2:
                raise ValueError("a pathological chunk")
            return super().texts(source)

    sources = [ChunkSource(i, f"Refunds take {i} days to arrive.", (), None) for i in (1, 2, 3)]
    with caplog.at_level(logging.WARNING):
        rows = encode(OneBad(), sources)
    assert [len(r.texts) for r in rows] == [1, 0, 1] and rows[1].vectors == b""
    assert "a pathological chunk" in caplog.text


def test_postgres_locks_the_chunks_it_writes_for_key_share_only() -> None:
    """A delete must wait for the write (the foreign key), a heading rewritten must not (it
    was FOR NO KEY UPDATE: exclusive, against the title trigger's UPDATE of the chunks)."""
    from sqlalchemy.dialects import postgresql, sqlite

    from citewise.store._sql_sentences import alive_query

    assert str(alive_query([1]).compile(dialect=postgresql.dialect())).endswith("FOR KEY SHARE")
    assert "FOR" not in str(alive_query([1]).compile(dialect=sqlite.dialect()))


def _guide(last: str) -> str:
    parts = [f"## Part {i}\n\n" + " ".join(
        f"Sentence {j} of part {i} says what step {j} of part {i} does." for j in range(5))
        for i in range(4)]
    return "# Guide\n\n" + "\n\n".join([*parts[:3], f"## Part 3\n\n{last}"]) + "\n"


def _reread(kb: KnowledgeBase, page: Path, monkeypatch: pytest.MonkeyPatch,
            rows: Callable[[Sequence[int]], Mapping[int, object]]) -> None:
    """Ingest a guide, edit its last part, ingest it again: only the changed chunk's
    sentences are cut and embedded, and the unchanged chunks keep their rows. (A chunk's
    id is its text's: the rows are deleted with the old chunks and must come back under
    the same ids.)"""
    from citewise.knowledge.ingest import embed_worker

    page.write_text(_guide("The last part says nothing yet."))
    kb.ingest([page])
    kb.embed_pending()
    doc = kb.list_documents()[0]
    before = {c.text: c.id for c in kb.store.get_document_chunks(kb.tenant, doc.id)}
    old = rows(list(before.values()))
    assert len(before) >= 4 and set(old) == set(before.values())
    cut: list[str] = []
    real = encode

    def counted(encoder: Any, sources: Sequence[ChunkSource]) -> list[SentenceRow]:
        cut.extend(s.text for s in sources)
        return real(encoder, sources)

    monkeypatch.setattr(embed_worker, "encode", counted)
    page.write_text(_guide("The last part now says how to finish. It has two sentences."))
    kb.ingest([page])
    kb.embed_pending()
    after = {c.text: c.id for c in kb.store.get_document_chunks(kb.tenant, doc.id)}
    kept = set(before) & set(after)
    assert len(kept) >= 3 and set(after) - kept
    assert sorted(cut) == sorted(set(after) - kept)  # only the changed one was cut
    now = rows(list(after.values()))
    assert set(now) == set(after.values())
    assert all(now[after[text]] == old[before[text]] for text in kept)


def test_a_reread_document_keeps_the_sentence_vectors_of_its_unchanged_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document read again (a newer loader, an edit) keeps most chunks as they were, and
    their sentences were cut and embedded again: 30 s of a 33 s re-read of LilyPond's
    pages, every chunk "found embedded already" (review, 2026-12-06). A chunk of the same
    text, roles and section carries its row over; only what changed is embedded."""
    with KnowledgeBase.open(tmp_path / "kb", chunk_size=300, chunk_overlap=0) as kb:
        def stored(ids: Sequence[int]) -> dict[int, object]:
            every = {r[0]: (r[2], r[3]) for r in _rows(kb)}
            assert set(every) <= set(ids)  # the old rows went with their chunks
            return dict(every)

        _reread(kb, tmp_path / "guide.md", monkeypatch, stored)


@pytest.mark.postgres
def test_postgres_keeps_the_sentence_vectors_of_a_reread_documents_unchanged_chunks(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    model = _encoder().model
    with KnowledgeBase.open_postgres(pg_url, tenant="reread", chunk_size=300,
                                     chunk_overlap=0) as kb:
        _reread(kb, tmp_path / "guide.md", monkeypatch, lambda ids: {
            r.chunk_id: r for r in kb.store.get_sentence_vectors(model, ids)})


def test_a_reread_page_that_says_the_same_thing_twice_keeps_both_chunks_vectors(
    tmp_path: Path,
) -> None:
    """Two chunks of one document with the same text, roles and section (Vim's help files
    repeat whole blocks): re-read, both old chunks' rows were carried to one new chunk,
    and the write failed with UNIQUE(chunk_id, model) (the latency bench's re-read under
    HTML loader 60, 2026-12-07). Each new chunk takes one old chunk's rows."""
    page = tmp_path / "guide.md"
    same = "## Tips\n\n" + " ".join(f"Tip {j} says what to do at step {j}." for j in range(8))
    with KnowledgeBase.open(tmp_path / "kb", chunk_size=300, chunk_overlap=0) as kb:
        page.write_text(f"# Guide\n\n{same}\n\n## Other\n\nSomething else.\n\n{same}\n")
        kb.ingest([page])
        kb.embed_pending()
        doc = kb.list_documents()[0]
        texts = [c.text for c in kb.store.get_document_chunks(kb.tenant, doc.id)]
        assert len(texts) > len(set(texts))  # the same chunk text twice
        page.write_text(f"# Guide\n\n{same}\n\n## Other\n\nSomething new.\n\n{same}\n")
        report = kb.ingest([page])
        assert not report.failed and len(report.updated) == 1
        kb.embed_pending()
        chunks = kb.store.get_document_chunks(kb.tenant, doc.id)
        rows = {r[0] for r in _rows(kb)}
        assert {c.id for c in chunks} == rows  # every chunk has its rows, once
