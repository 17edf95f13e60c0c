"""Document routing (issue #27): a question naming a document's title ranks that document
first, in both lexical backends — the title and section path are a boosted field of their
own (``knowledge/index/headings.py``), not just words of the body.

Each ranking test has a look-alike whose body repeats the question's words more often
than the named document's body does; with the boost off (0) the look-alike wins, so the
tests show the field doing the routing. The shipped boost is small (measured: larger ones
cost relevance on ``bench/relevance.py``), so the look-alike here is a near-tie that the
heading decides, not a body that repeats the words ten times. Old indexes are upgraded:
a tantivy folder of the previous analysis is rebuilt on open, a PostgreSQL database made
before the heading column gets it (computed for its existing chunks) when a knowledge
base opens it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import tantivy

from citewise import KnowledgeBase
from citewise.knowledge.index import headings
from citewise.knowledge.index.headings import heading_text
from citewise.knowledge.index.lexical_tantivy import ANALYSIS

# The named document: its title says what it is; its body barely repeats it.
NAMED = "# Replication slots ¶\n\nA slot keeps WAL segments until the standby has consumed them.\n"
DOCS = {
    "slots.md": NAMED,
    # The look-alike: its body repeats the question's words more often, under another title.
    "monitoring.md": "# Monitoring\n\nThe replication view lists replication slots, "
    "replication lag and the replication state of each standby.\n",
    "backups.md": "# Backups\n\nA base backup copies the data directory while the server runs.\n",
    "vacuum.md": "# Vacuum\n\nVacuum reclaims storage occupied by dead tuples.\n",
    "locks.md": "# Locks\n\nRow locks are held until the transaction ends.\n",
}
QUESTION = "How do replication slots work?"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def _first(kb: KnowledgeBase) -> str:
    hits = kb.search(QUESTION, k=3, mode="lexical")
    assert hits
    return Path(hits[0].source).name


def test_heading_text_drops_marks_and_the_repeated_title() -> None:
    assert heading_text("Replication slots ¶", "Replication slots ¶ > Options §") == (
        "Replication slots Options")
    assert heading_text(None, "A > B ¶ > C") == "A B C"
    assert heading_text("Guide", None) == "Guide"
    assert heading_text(None, None) == heading_text("¶", " ¶ ") == ""
    assert "¶" not in heading_text("¶Intro¶", "¶ > Setup¶ > ¶")


def test_a_title_ranks_its_document_first(folder: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert headings.HEADING_BOOST > 0
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([folder])
        assert _first(kb) == "slots.md"
        monkeypatch.setattr(headings, "HEADING_BOOST", 0.0)
        assert _first(kb) == "monitoring.md"  # without the field, the body's repetition wins


def test_permalink_marks_never_reach_the_heading_field(folder: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([folder])
    ix = tantivy.Index.open(str(tmp_path / "kb" / "index" / "lexical"))
    searcher = ix.searcher()
    assert searcher.doc_freq("heading", "replic") > 0  # the field is there, stemmed
    assert searcher.doc_freq("heading", "¶") == 0
    assert searcher.doc_freq("heading", "replication slots ¶") == 0


def test_an_index_of_the_previous_analysis_is_rebuilt_and_routes(
        folder: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([folder])
        rows = kb.store.index_rows([d.id for d in kb.list_documents()])
    # Replace the index by one the previous release built: no heading field, its marker.
    lexical = tmp_path / "kb" / "index" / "lexical"
    for child in lexical.iterdir():
        child.unlink()
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("chunk_id", stored=True, indexed=True, fast=True)
    for raw in ("document_id", "tenant", "collection"):
        sb.add_text_field(raw, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("text", tokenizer_name="en_stem", index_option="position")
    old = tantivy.Index(sb.build(), path=str(lexical))
    writer = old.writer(heap_size=50_000_000, num_threads=1)
    for r in rows:
        writer.add_document(tantivy.Document(chunk_id=r.chunk_id, document_id=r.document_id,
                                             tenant=r.tenant, collection=r.collection,
                                             text=r.text))
    writer.commit()
    writer.wait_merging_threads()
    (lexical / "ANALYSIS").write_text("en_stem+cjk-bigrams-3\n")
    del old, writer
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert (lexical / "ANALYSIS").read_text().strip() == ANALYSIS
        assert _first(kb) == "slots.md"
        assert len(kb.search("vacuum", k=5, mode="lexical")) == 1  # every chunk is back, once


# -- PostgreSQL ---------------------------------------------------------------------------


@pytest.fixture
def pg_kb(pg_url: str, folder: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        kb.ingest([folder])
        yield kb


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_a_title_ranks_its_document_first(
        pg_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _first(pg_kb) == "slots.md"
    monkeypatch.setattr(headings, "HEADING_BOOST", 0.0)
    assert _first(pg_kb) == "monitoring.md"


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_heading_text_is_the_same_and_has_no_marks(
        pg_kb: KnowledgeBase) -> None:
    import sqlalchemy as sa

    from citewise.knowledge.index.lexical_postgres_schema import HEADING_TEXT
    from citewise.store.postgres import PostgresStore

    store = pg_kb.store
    assert isinstance(store, PostgresStore)
    cases = [("Replication slots ¶", "Replication slots ¶ > Options §"), (None, "A > B ¶ > C"),
             ("Guide", None), (None, None), ("¶", " ¶ "), ("  Two   words ", "Two words > x"),
             ("O'Brien > notes", "O'Brien > notes > 🔗 Link ⚓")]
    with store.engine.connect() as c:
        for title, section in cases:
            got = c.execute(sa.text(f"SELECT {HEADING_TEXT}(:t, :s)"),
                            {"t": title, "s": section}).scalar_one()
            assert got == heading_text(title, section), (title, section)
        lexemes = {r[0] for r in c.execute(sa.text(
            "SELECT DISTINCT u.lexeme FROM chunks c, unnest(c.heading_tsv) u"))}
    assert "replic" in lexemes and not any("¶" in x or "§" in x for x in lexemes)


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_a_database_from_before_the_heading_column_is_upgraded(
        pg_url: str, folder: Path) -> None:
    import sqlalchemy as sa

    from citewise.store.postgres import PostgresStore

    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        kb.ingest([folder])
        store = kb.store
        assert isinstance(store, PostgresStore)
        # Back to the schema the previous release made: no heading column, no triggers.
        with store.engine.begin() as c:
            c.execute(sa.text("DROP TRIGGER citewise_chunk_heading ON chunks"))
            c.execute(sa.text("DROP TRIGGER citewise_document_heading ON documents"))
            c.execute(sa.text("DROP FUNCTION citewise_chunk_heading_v1()"))
            c.execute(sa.text("DROP FUNCTION citewise_document_heading_v1()"))
            c.execute(sa.text("DROP FUNCTION citewise_heading_text_v1(text, text)"))
            c.execute(sa.text("ALTER TABLE chunks DROP COLUMN heading_tsv"))
    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        assert _first(kb) == "slots.md"  # the existing chunks got their headings
        (folder / "wal.md").write_text("# Write-ahead log\n\nSegments are recycled.\n")
        kb.ingest([folder])  # and new ones get theirs as they are written
        hits = kb.search("write-ahead log", k=1, mode="lexical")
        assert hits and hits[0].source.endswith("wal.md")
