"""The knowledge base held by PostgreSQL (``KnowledgeBase.open_postgres``): BM25 in SQL,
pgvector, hybrid search, filters and tenants, what a second process sees at once, a
writer killed mid-ingest, and one embedder per database. Real PostgreSQL 16 + pgvector
(pgserver) and the packaged MiniLM embedder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _stores import PG
from citewise.errors import ConfigError
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.index import lexical_postgres
from citewise.knowledge.index import vectors_postgres_sql as vsql
from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder
from citewise.knowledge.index.lexical_postgres import PostgresLexical
from citewise.knowledge.index.vectors_postgres import PostgresVectors
from citewise.knowledge.ingest.outbox import FAULT_ENV
from citewise.store.postgres import PostgresStore

pytestmark = PG

DOCS = {
    "returns.md": "# Returns\n\nRefunds are issued within 14 days of receiving the item. "
    "Store credit is offered when the receipt is missing.\n",
    "shipping.txt": "Shipping\n\nStandard shipping costs 4.95 EUR. Orders above 75 EUR ship "
    "free of charge. Parcels leave the warehouse the same day.\n",
    "warranty.md": "# Warranty\n\nEvery appliance has a two year warranty. The warranty "
    "covers defects, not damage from drops or water.\n",
}


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, text in DOCS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.fixture
def kb(pg_url: str, folder: Path, embedder: MiniLMEmbedder) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open_postgres(pg_url, embedder=embedder) as kb:
        report = kb.ingest([folder])
        assert len(report.added) == 3 and not report.failed
        yield kb


def test_the_indexes_are_the_databases(kb: KnowledgeBase) -> None:
    assert isinstance(kb.index, PostgresLexical)
    assert isinstance(kb.dense, PostgresVectors)
    state = kb.check_consistency()
    assert state.ok and kb.store.pending_index_ops() == []
    assert kb.dense.count("default") == kb.store.count_chunks() > 0


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_every_mode_finds_the_passage(kb: KnowledgeBase, mode: Any) -> None:
    hits = kb.search("how long until refunds are issued", k=2, mode=mode)
    assert hits and hits[0].source.endswith("returns.md")
    doc = kb.get_document(hits[0].document_id)
    assert doc is not None and doc.text[hits[0].start_char : hits[0].end_char] == hits[0].text
    assert hits[0].evidence is not None and "Refunds" in hits[0].evidence.text


def test_bm25_weighs_rare_terms_and_stems(kb: KnowledgeBase, folder: Path) -> None:
    (folder / "common.txt").write_text("The warranty warranty warranty page. " * 3)
    kb.ingest([folder / "common.txt"])
    # "drops" is in one chunk only, "warranty" in two: the rare term decides the order,
    # though the other chunk repeats the common one nine times; "drop" stems to "drop".
    hits = kb.search("warranty drop", k=3, mode="lexical")
    assert [h.source.rsplit("/", 1)[-1] for h in hits[:2]] == ["warranty.md", "common.txt"]
    assert hits[0].score > hits[1].score > 0


@pytest.mark.parametrize(
    "query",
    ["", "   ", "the of and", "'); DELETE FROM chunks; --", "a | b & !c <-> d", "x\\y 'q'",
     "nul\x00byte", "日本語", "w" * 5000, " ".join(f"t{i}" for i in range(500))],
)
def test_no_query_text_makes_lexical_search_fail(kb: KnowledgeBase, query: str) -> None:
    assert kb.search(query, k=3, mode="lexical") == []
    assert kb.store.count_chunks() > 0  # and nothing was harmed


def test_the_words_no_chunk_of_the_tenant_contains(kb: KnowledgeBase, tmp_path: Path) -> None:
    from citewise.knowledge.index.lexical_postgres_words import unmentioned

    (tmp_path / "t2").mkdir()
    (tmp_path / "t2" / "hashing.txt").write_text("Passwords are hashed with bcrypt.\n")
    kb.for_tenant("t2").ingest([tmp_path / "t2" / "hashing.txt"])
    words = ["refund", "warranties", "returns", "bcrypt", "e-mail", "'); --", "of"]
    with kb.store.reading() as c:
        # Stems meet ("refund", "Refunds"), a title counts ("Returns"), another tenant's
        # chunk is no mention ("bcrypt" is t2's), a stop word has no lexeme to miss.
        assert unmentioned(c, "default", words) == ["bcrypt", "e-mail"]
        assert unmentioned(c, "t2", ["bcrypt", "refund"]) == ["refund"]
    # A knowledge base of a few pages reports no word: their absence says nothing.
    assert kb.unmentioned("Can I pay with bcrypt?") == []


def test_filters_and_tenants(kb: KnowledgeBase, folder: Path) -> None:
    assert [h.source for h in kb.search("shipping", k=5, filters={"source": "*.md"})] == [
        h.source for h in kb.search("shipping", k=5) if h.source.endswith(".md")
    ]
    assert kb.search("shipping", k=5, filters={"collection": "nope"}) == []
    other = kb.for_tenant("t2")
    assert other.search("shipping costs", k=5) == []
    other.ingest([folder / "shipping.txt"], collection="mine")
    mine = other.search("shipping costs", k=5, mode="lexical")
    assert mine and {h.document_id for h in mine} == {
        d.id for d in other.list_documents()
    }
    assert not {h.document_id for h in mine} & {d.id for d in kb.list_documents()}
    assert other.search("shipping", k=5, filters={"collection": "mine"})
    assert other.search("shipping", k=5, filters={"collection": "default"}) == []


def test_a_second_process_sees_writes_at_once_and_deletes_leave_nothing(
    kb: KnowledgeBase, pg_url: str, folder: Path, embedder: MiniLMEmbedder
) -> None:
    with KnowledgeBase.open_postgres(pg_url, embedder=embedder) as replica:
        (folder / "new.md").write_text("The loyalty programme awards 3 points per euro spent.\n")
        kb.ingest([folder / "new.md"])
        for mode in ("lexical", "dense"):
            hits = replica.search("loyalty points per euro", k=1, mode=mode)  # type: ignore[arg-type]
            assert hits and hits[0].source.endswith("new.md"), mode
        doc = replica.find_document(folder / "new.md")
        assert doc is not None and replica.delete_document(doc.id)
        assert not [h for h in kb.search("loyalty points", k=5) if h.document_id == doc.id]
        assert kb.check_consistency().ok and replica.check_consistency().ok


def test_a_changed_file_replaces_its_chunks_and_vectors(kb: KnowledgeBase, folder: Path) -> None:
    before = kb.store.list_chunk_ids()
    (folder / "shipping.txt").write_text("Shipping\n\nCourier delivery costs 9.50 EUR.\n")
    report = kb.ingest([folder])
    assert [Path(s).name for s in report.updated] == ["shipping.txt"]
    assert kb.check_consistency().ok
    assert kb.store.list_chunk_ids() != before
    hit = kb.search("courier delivery price", k=1, mode="dense")[0]
    assert "9.50" in hit.text
    assert kb.search("parcels warehouse", k=3, mode="lexical") == []


CHILD = """
import sys
from citewise.knowledge.base import KnowledgeBase
kb = KnowledgeBase.open_postgres(sys.argv[1])
kb.ingest(sys.argv[2:])
print("done")
"""


def test_a_writer_killed_before_embedding_is_completed_by_the_next_open(
    pg_url: str, folder: Path, embedder: MiniLMEmbedder
) -> None:
    env = {**os.environ, FAULT_ENV: "ingest:after_batch"}  # chunks committed, no vectors
    child = subprocess.run(
        [sys.executable, "-c", CHILD, pg_url, str(folder)], env=env, capture_output=True,
        text=True, timeout=300, check=False,
    )
    assert child.returncode == 86, child.stderr  # it really died there
    assert "done" not in child.stdout
    with PostgresStore(pg_url) as store, store.reading() as c:
        assert store.pending_index_ops()
        assert vsql.count_missing(c, vsql.table(embedder.dim)) == store.count_chunks() > 0
    with KnowledgeBase.open_postgres(pg_url, dense=False) as bare:
        # Lexical search needs no sync: the database indexed the chunks as it wrote them.
        assert bare.search("warranty defects", k=1)[0].source.endswith("warranty.md")
    with KnowledgeBase.open_postgres(pg_url, embedder=embedder) as kb:
        assert kb.store.pending_index_ops() == []
        assert kb.store.pending_embed_jobs()[0] > 0  # the open queued, never embeds
        kb.embed_pending()
        assert kb.check_consistency().ok
        assert kb.search("appliance guarantee", k=1, mode="dense")[0].source.endswith(
            "warranty.md"
        )


class _Renamed:
    """MiniLM's vectors under another name: a different embedder to the database."""

    name = "someone-elses-model"
    dim = 384

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner

    def embed(self, texts: list[str]) -> Any:
        return self.inner.embed(texts)


def test_one_embedder_per_database(kb: KnowledgeBase, pg_url: str, embedder: MiniLMEmbedder) -> None:
    with pytest.raises(ConfigError) as err:
        KnowledgeBase.open_postgres(pg_url, embedder=_Renamed(embedder))  # type: ignore[arg-type]
    assert err.value.code == "embedder_mismatch"
    assert err.value.details == {"stored": embedder.name, "requested": _Renamed.name}
    assert kb.search("refunds", k=1)  # the database is untouched


def _reference_bm25(store: PostgresStore, query: str, boost: float) -> dict[int, float]:
    """BM25 of every chunk of the default tenant, from term frequencies PostgreSQL lists
    (``unnest(search_tsv)``, and ``unnest(heading_tsv)`` times ``boost``, its length in
    lexemes) — the definition the SQL ranking must match."""
    import math

    import sqlalchemy as sa

    with store.reading() as c:
        n, mean, mean_heading = lexical_postgres.tenant_stats(c, "default")
    scores: dict[int, float] = {}
    with store.engine.connect() as c:
        lexemes = [r[0] for r in c.execute(sa.text(
            "SELECT lexeme FROM unnest(to_tsvector('english', :q))"), {"q": query})]
        for column, length, weight, avg in (
                ("search_tsv", "length(c.text)", 1.0, mean),
                ("heading_tsv", "length(c.heading_tsv)", boost, mean_heading)):
            rows = c.execute(sa.text(
                f"SELECT c.id, {length} AS len, u.lexeme, cardinality(u.positions) AS tf"
                f" FROM chunks c, unnest(c.{column}) u WHERE c.tenant = 'default'"
                " AND u.lexeme = ANY(:l)"), {"l": lexemes}).all()
            df: dict[str, int] = {}
            for r in rows:
                df[r.lexeme] = df.get(r.lexeme, 0) + 1
            for r in rows:
                idf = math.log(1 + (n - df[r.lexeme] + 0.5) / (df[r.lexeme] + 0.5))
                norm = 1.2 * (0.25 + 0.75 * r.len / max(avg, 1.0))
                scores[r.id] = scores.get(r.id, 0.0) + weight * idf * r.tf * 2.2 / (r.tf + norm)
    return {cid: s for cid, s in scores.items() if s > 0}


@pytest.mark.parametrize("boost", [0.0, 2.0])
@pytest.mark.parametrize("common", [1000, 2])  # 2: every lexeme of the corpus is common
def test_sql_ranking_is_bm25(kb: KnowledgeBase, folder: Path, common: int, boost: float,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / "extra.md").write_text(
        "Refunds, refunds and refunds: the refund desk refunds returned items. " * 3
        + "\n\nA warranty claim is not a refund.\n")
    kb.ingest([folder])
    monkeypatch.setattr(lexical_postgres, "COMMON", common)
    store = kb.store
    assert isinstance(store, PostgresStore)
    for query in ("refunds warranty", "shipping charge", "the item receipt refund"):
        want = sorted(_reference_bm25(store, query, boost).items(), key=lambda h: (-h[1], h[0]))
        got = PostgresLexical(store, stats_ttl_s=0, heading_boost=boost).search(
            query, 3, tenant="default")
        assert len(got) == min(3, len(want))
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        if common == 1000:
            # Exact: every candidate was scored (or the pruning proved it could be skipped).
            assert [cid for cid, _ in got] == [cid for cid, _ in want[:3]], query
        # With every lexeme common, rows were sampled (the rows with all of them first):
        # the ranking may differ, the scores may not.
        reference = dict(want)
        for cid, score in got:
            assert score == pytest.approx(reference[cid], rel=1e-6), (query, cid)


def test_bad_options_are_refused_before_connecting(pg_url: str) -> None:
    import psycopg

    def connections() -> int:
        with psycopg.connect(pg_url) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = 'citewise'").fetchone()
        return int(row[0]) if row else 0

    before = connections()
    with pytest.raises(ConfigError) as err:
        KnowledgeBase.open_postgres(pg_url, dense=False, chunk_size=100, chunk_overlap=90)
    assert err.value.code == "invalid_chunking"
    assert connections() == before  # no store left open behind the error


def test_a_filter_naming_more_documents_than_a_statement_has_parameters(
        kb: KnowledgeBase) -> None:
    real = [d.id for d in kb.list_documents()]
    many = real + [f"{i:032x}" for i in range(70_000)]  # psycopg: at most 65,535 parameters
    hits = kb.search("refunds issued", k=3, filters={"document_id": many}, mode="lexical")
    assert hits and hits[0].source.endswith("returns.md")
    assert kb.search("refunds issued", k=3, filters={"collection": ["x"] * 70_000}) == []


class _Counting:
    """MiniLM, remembering what it was asked to embed."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> Any:
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_an_open_while_a_replica_writes_leaves_its_work_alone(
        kb: KnowledgeBase, pg_url: str, folder: Path, embedder: MiniLMEmbedder) -> None:
    from citewise.knowledge.ingest.chunking import Chunker
    from citewise.knowledge.ingest.pipeline import ingest_paths
    from citewise.knowledge.ingest.writer_lock_postgres import DatabaseWriterLock
    from citewise.knowledge.loaders import default_registry

    (folder / "new.md").write_text("Visitors park in the north garage after noon.\n")
    writer = DatabaseWriterLock(kb.store)  # type: ignore[arg-type]
    with writer.held():  # a replica mid-ingest: chunks committed, vectors still to come
        ingest_paths([folder / "new.md"], store=kb.store, tenant="default",
                     collection="default", registry=default_registry(), chunker=Chunker())
        reader = _Counting(embedder)
        with KnowledgeBase.open_postgres(pg_url, embedder=reader) as other:  # type: ignore[arg-type]
            assert reader.texts == []  # the writer's chunks are the writer's to embed
            assert other.store.pending_index_ops()
            assert other.search("north garage", k=1, mode="lexical")[0].source.endswith(
                "new.md")  # searchable at once all the same: the database indexed it
            # An upload on this replica syncs its own document only (it embedded the
            # other replica's whole ingest in progress before answering).
            other.ingest_bytes("pets.md", b"Cats sleep on the sofa all afternoon.\n")
            assert reader.texts and all("garage" not in t for t in reader.texts)
            assert {op.document_id for op in other.store.pending_index_ops()} == {
                other.find_document(folder / "new.md").id}  # type: ignore[union-attr]
    # The writer went away without finishing: the next open repairs.
    repairer = _Counting(embedder)
    with KnowledgeBase.open_postgres(pg_url, embedder=repairer) as other:  # type: ignore[arg-type]
        assert repairer.texts == []  # the open queued the embedding: a worker does it
        other.embed_pending()
        assert any("north garage" in t for t in repairer.texts)
        assert other.store.pending_index_ops() == [] and other.check_consistency().ok


def test_many_concurrent_uploads_share_one_writer_hold(
        kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each write held a pooled connection for the whole ingest (two, nested): twelve at
    # once took the whole pool (5 + 10) and the store's own work timed out.
    import threading

    from citewise.knowledge import base

    together = threading.Barrier(12, timeout=60)
    real = base.ingest_data

    def slow_parse(*args: Any, **kwargs: Any) -> Any:
        together.wait()  # every upload is inside its writer hold at once
        return real(*args, **kwargs)

    monkeypatch.setattr(base, "ingest_data", slow_parse)
    results: list[object] = []

    def upload(i: int) -> None:
        try:
            report = kb.ingest_bytes(f"u{i}.md", f"Upload {i} says hello {i}.\n".encode())
            results.append(bool(report.added))
        except Exception as exc:  # recorded, asserted below
            results.append(exc)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == [True] * 12
    assert kb.check_consistency().ok


def test_queueing_what_is_missing_leaves_out_what_a_worker_stored_meanwhile(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert kb.dense is not None
    kb.embed_pending()
    assert kb.embedding_status().queue.pending == 0
    stale = sorted(kb.store.list_chunk_ids())  # seen before a worker committed them all
    monkeypatch.setattr(type(kb.dense), "missing_vectors", lambda self, store: stale)
    assert kb.queue_missing_vectors() == 0
    assert kb.embedding_status().queue.pending == 0


def test_a_file_missing_here_is_never_taken_for_moved_on_a_shared_database(
        kb: KnowledgeBase, folder: Path, tmp_path: Path) -> None:
    """Another machine's files are missing on this one: on a shared database its
    documents with the bytes of a file ingested here are no moved files (code review,
    2026-12-08: each machine's ingest deleted the other's)."""
    moved = tmp_path.parent / f"{tmp_path.name}-moved"
    folder.rename(moved)
    report = kb.ingest([moved])
    assert len(report.added) == 3 and report.moved == []
    assert len(kb.list_documents()) == 6
