"""KnowledgeBase end to end on real files: ingest, search, re-ingest, replace, delete.

The knowledge bases here run hybrid retrieval (BM25 + vectors) as by default, with a fast
deterministic embedder (hashed bag of words) in place of MiniLM: these tests are about the
knowledge base's contract, which must hold whatever the embedder (tests/test_retrieval.py
runs the packaged model).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.errors import ConfigError, IngestError, InvalidInput
from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.index.embedders.base import content_hash
from citewise.knowledge.index.vectors.index import VectorIndex
from citewise.knowledge.ingest.pipeline import document_id_for
from citewise.knowledge.loaders import LoadedDocument, LoaderRegistry, default_registry, discover
from citewise.knowledge.loaders.markdown import MarkdownLoader
from citewise.knowledge.loaders.text import TextLoader
from citewise.knowledge.retrieve.retriever import MODES


class HashEmbedder:
    """Deterministic embedder: a bag of hashed words (crc32, the same in every process)."""

    name = "test-hash-256"
    dim = 256

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.full((len(texts), self.dim), 1e-3, dtype=np.float32)
        for i, text in enumerate(texts):
            for word in set(re.findall(r"\w+", text.lower())):
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
        normed: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed

TOPICS = [
    ("refunds", "Refunds are paid back within fourteen days of the return."),
    ("shipping", "Parcels ship from the Rotterdam warehouse every weekday."),
    ("vacation", "Employees receive twenty-five vacation days per year."),
    ("security", "Passwords must be rotated every ninety days."),
    ("parking", "Visitors may park in the north garage after noon."),
    ("coffee", "The espresso machine is descaled on Fridays."),
    ("onboarding", "New hires meet their mentor during the first morning."),
    ("expenses", "Receipts above fifty euros need a manager signature."),
    ("travel", "Train travel is preferred for trips under six hours."),
    ("laptops", "Laptops are replaced after four years of service."),
    ("holidays", "The office closes between Christmas and New Year."),
    ("emoji", "Status icons 😀 and 👩‍👩‍👧 appear in the team chat."),
    ("cjk", "東京オフィスは九時に開きます。会議室は三階にあります。"),
    ("accents", "The café serves crème brûlée and naïve drinks."),
    ("combining", "Cafe\u0301 names use combining accents like e\u0301."),
    ("printing", "Colour printing requires approval from facilities."),
    ("backup", "Backups are verified by a restore test each quarter."),
    ("meetings", "Meetings longer than one hour need an agenda."),
    ("library", "Books can be borrowed for three weeks at most."),
    ("bicycles", "Bicycle storage is in the basement next to the showers."),
]
FILLER = "This paragraph is general filler about company life and nothing specific. " * 3


def _write_corpus(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for i, (name, fact) in enumerate(TOPICS):
        if i % 2:
            body = f"# {name.title()}\n\n{FILLER}\n\n## Rule\n\n{fact}\n\n## Notes\n\n{FILLER}\n"
            path = folder / ("sub" if i % 4 == 1 else ".") / f"{name}.md"
        else:  # CRLF line ends in the text files
            body = f"{name.title()} policy\r\n\r\n{FILLER}\r\n\r\n{fact}\r\n\r\n{FILLER}\r\n"
            path = folder / f"{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body.encode())
        paths[name] = path.resolve()
    return paths


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, Path]:
    return _write_corpus(tmp_path / "docs")


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(
        tmp_path / "data", chunk_size=300, chunk_overlap=40, embedder=HashEmbedder()
    ) as k:
        yield k


def _assert_exact(kb: KnowledgeBase, hits: list) -> None:  # type: ignore[type-arg]
    for h in hits:
        text = kb.document_text(h.document_id)
        assert text is not None
        assert text[h.start_char : h.end_char] == h.text
        assert h.field_length == len(text)


def test_ingest_folder_and_find_the_right_chunk(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    seen: list[tuple[int, int]] = []
    report = kb.ingest([corpus["refunds"].parent], progress=lambda d, t: seen.append((d, t)))
    assert sorted(report.added) == sorted(str(p) for p in corpus.values())
    assert not report.failed and not report.updated and not report.unchanged
    assert seen[0] == (0, 20) and seen[-1] == (20, 20)
    assert kb.check_consistency().ok

    for name, fact in TOPICS:
        query = {"cjk": "会議室は三階にあります", "emoji": "status icons team chat"}.get(name, fact)
        hits = kb.search(query, k=3)
        assert hits, name
        assert hits[0].source == str(corpus[name]), name
        assert fact.split()[-1].rstrip(".。") in hits[0].text
        _assert_exact(kb, hits)

    hit = kb.search("passwords rotated ninety days", k=1)[0]
    assert hit.section == "Security > Rule"
    assert hit.title == "Security"
    assert hit.metadata["path"] == str(corpus["security"])
    assert hit.metadata["title"] == "Security" and hit.metadata["collection"] == "default"
    crlf = kb.search("paid back within fourteen days", k=1)[0]
    crlf_text = kb.document_text(crlf.document_id)
    assert crlf_text == corpus["refunds"].read_bytes().decode()  # verbatim, CRLF kept
    assert "\r\n" in crlf_text
    assert crlf.line == crlf_text[: crlf.start_char].count("\n") + 1 > 1
    assert crlf.title == "Refunds policy" and crlf.section is None


def test_reingest_unchanged_changes_nothing(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    folder = corpus["refunds"].parent
    kb.ingest([folder])
    ids = kb.store.list_chunk_ids()
    before = {d.id: d.updated_at for d in kb.list_documents()}
    report = kb.ingest([folder])
    assert len(report.unchanged) == 20
    assert not report.added and not report.updated and report.chunks_written == 0
    assert kb.store.list_chunk_ids() == ids
    assert {d.id: d.updated_at for d in kb.list_documents()} == before
    assert kb.store.pending_index_ops() == []
    assert kb.index.all_chunk_ids() == ids


def test_changed_file_replaces_its_chunks(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    kb.ingest([corpus["refunds"].parent])
    path = corpus["parking"]
    doc = kb.find_document(path)
    assert doc is not None
    old_ids = {c.id for c in kb.store.get_document_chunks("default", doc.id)}
    path.write_text("Parking\n\nBicycles only: the garage now hosts a skatepark.\n")
    report = kb.ingest([path])
    assert report.updated == [str(path)]
    new_ids = {c.id for c in kb.store.get_document_chunks("default", doc.id)}
    assert new_ids and not (new_ids & old_ids)
    assert not (old_ids & kb.index.all_chunk_ids())
    assert kb.check_consistency().ok
    assert all(h.document_id != doc.id for h in kb.search("visitors noon"))
    hits = kb.search("skatepark", k=1)
    assert hits[0].document_id == doc.id
    _assert_exact(kb, hits)


def test_delete_leaves_no_trace(
    kb: KnowledgeBase, corpus: dict[str, Path], tmp_path: Path
) -> None:
    kb.ingest([corpus["refunds"].parent])
    doc = kb.find_document(corpus["coffee"])
    assert doc is not None
    ids = {c.id for c in kb.store.get_document_chunks("default", doc.id)}
    assert kb.dense is not None and ids <= kb.dense.ids()
    others = {c.text for c in kb.store.get_chunks(sorted(kb.store.list_chunk_ids() - ids))}
    own_hashes = {
        content_hash(c.text)
        for c in kb.store.get_document_chunks("default", doc.id)
        if c.text not in others  # a text another document shares keeps its cached vector
    }
    assert own_hashes
    assert kb.delete_document(doc.id) is True
    assert kb.get_document(doc.id) is None and kb.document_text(doc.id) is None
    assert kb.store.get_document_chunks("default", doc.id) == []
    assert not (ids & kb.store.list_chunk_ids())
    assert not (ids & kb.index.all_chunk_ids())
    assert kb.store.pending_index_ops() == []
    assert all(h.document_id != doc.id for h in kb.search("espresso machine descaled", k=20))
    assert kb.check_consistency().ok
    # No vector of it either: not in the index searched, not stored, not cached, not in
    # the vector log, not in the saved vector files.
    assert not (ids & kb.dense.ids()) and not (ids & kb.dense.stored_ids())
    db = sqlite3.connect(tmp_path / "data" / DB_NAME)
    try:
        marks = ",".join("?" * len(ids))
        for sql in (
            f"SELECT count(*) FROM vec_chunks WHERE chunk_id IN ({marks})",
            f"SELECT count(*) FROM vec_log WHERE op != 'p' AND chunk_id IN ({marks})",
        ):
            assert db.execute(sql, sorted(ids)).fetchone() == (0,), sql
        cached = {bytes(h) for (h,) in db.execute("SELECT content_hash FROM vec_cache")}
    finally:
        db.close()
    assert cached and not (own_hashes & cached)
    vectors = tmp_path / "data" / "index" / "vectors"
    (pointer,) = vectors.glob("*.json")
    saved = VectorIndex.load(vectors, pointer.stem, model=HashEmbedder.name, dim=HashEmbedder.dim)
    assert saved is not None
    assert set(saved[0].ids()) == kb.store.list_chunk_ids()
    assert all(ids.isdisjoint(np.load(f).tolist()) for f in vectors.glob("*.ids.npy"))
    assert kb.delete_document(doc.id) is False
    assert len(kb.list_documents()) == 19


def test_bad_files_are_reported_and_the_rest_ingests(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("A perfectly good file about lighthouses.")
    (folder / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00")
    (folder / "empty.md").write_bytes(b"")
    (folder / "blank.txt").write_text("  \n\t\n")
    (folder / "image.png").write_bytes(b"\x89PNG")
    (folder / ".hidden.txt").write_text("hidden files are not ingested")
    odd = tmp_path / "notes.xyz"
    odd.write_text("unknown extension")
    report = kb.ingest([folder, tmp_path / "missing.txt", odd])
    codes = {Path(f.path).name: f.code for f in report.failed}
    assert codes == {
        "binary.txt": "binary_file",
        "empty.md": "empty_document",
        "blank.txt": "empty_document",
        "missing.txt": "path_not_found",
        "notes.xyz": "unsupported_format",
    }
    assert all(f.message for f in report.failed)
    assert report.added == [str(folder / "good.txt")]
    assert report.skipped == [str(folder / "image.png")]
    assert kb.search("lighthouses")[0].source == str(folder / "good.txt")
    assert len(kb.list_documents()) == 1


def test_unusable_data_dir_is_a_typed_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError) as err:
        KnowledgeBase.open(tmp_path / "file")
    assert err.value.code == "invalid_data_dir"
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / DB_NAME).write_bytes(b"this is not an SQLite database at all" * 4)
    with pytest.raises(ConfigError) as err:
        KnowledgeBase.open(tmp_path / "d")
    assert err.value.code == "database_error"


def test_loader_errors_are_typed(tmp_path: Path) -> None:
    with pytest.raises(IngestError) as err:
        TextLoader().load(tmp_path / "x.txt", b"abc\x00def")
    assert err.value.code == "binary_file"
    with pytest.raises(IngestError) as err:
        MarkdownLoader().load(tmp_path / "x.md", b"\n \n")
    assert err.value.code == "empty_document"


def test_text_decoding_keeps_the_file_text(tmp_path: Path) -> None:
    latin = TextLoader().load(tmp_path / "l.txt", "Crème brûlée à la café\r\nnaïve".encode("cp1252"))
    assert latin.text == "Crème brûlée à la café\r\nnaïve"
    bom = TextLoader().load(tmp_path / "b.txt", b"\xef\xbb\xbfHello\r\nWorld")
    assert bom.text == "Hello\r\nWorld" and bom.metadata["encoding"] == "utf-8"
    utf16 = TextLoader().load(tmp_path / "u.txt", "Grüße 😀".encode("utf-16"))
    assert utf16.text == "Grüße 😀"
    ws = TextLoader().load(tmp_path / "w.txt", b"  tabs\tand   spaces  \n\n\n")
    assert ws.text == "  tabs\tand   spaces  \n\n\n"


def test_markdown_sections(tmp_path: Path) -> None:
    md = (
        "---\ntitle: The Handbook\ntags: hr\n---\n"
        "Preface text.\n\n# Intro\n\nHello.\n\n## Scope\n\nScope text.\n\n"
        "```\n# not a heading\n```\n\nSetext Title\n------------\n\nUnder setext.\n\n# Next\n\nEnd.\n"
    )
    doc = MarkdownLoader().load(tmp_path / "h.md", md.encode())
    assert doc.text == md and doc.title == "The Handbook"
    assert doc.metadata["front_matter"] == {"title": "The Handbook", "tags": "hr"}
    names = [s[2] for s in doc.sections]
    assert names == ["Intro", "Intro > Scope", "Intro > Setext Title", "Next"]
    scope = doc.sections[1]
    assert md[scope[0] : scope[1]].startswith("## Scope") and "not a heading" in md[scope[0]:scope[1]]
    assert doc.sections[-1][1] == len(md)


def test_reopen_and_rebuild_when_the_index_is_lost(tmp_path: Path, corpus: dict[str, Path]) -> None:
    data = tmp_path / "data"
    embedder = HashEmbedder()
    with KnowledgeBase.open(data, embedder=embedder) as kb:
        kb.ingest([corpus["refunds"].parent])
        ids = kb.store.list_chunk_ids()
    embedded = len(embedder.embedded)
    with KnowledgeBase.open(data, embedder=embedder) as kb:
        assert kb.search("Rotterdam warehouse")[0].source == str(corpus["shipping"])
    shutil.rmtree(data / "index")
    with KnowledgeBase.open(data, embedder=embedder) as kb:
        assert kb.index.all_chunk_ids() == ids
        assert kb.dense is not None and kb.dense.ids() == ids  # rebuilt from stored vectors
        assert kb.check_consistency().ok
        assert kb.search("Rotterdam warehouse")[0].source == str(corpus["shipping"])
    assert len(embedder.embedded) == embedded + 2  # only the two queries: nothing re-embedded
    (data / "index" / "lexical" / "meta.json").write_text("{damaged")
    with KnowledgeBase.open(data, embedder=embedder) as kb:  # moved aside and rebuilt
        assert kb.index.all_chunk_ids() == ids
        assert kb.search("Rotterdam warehouse")[0].source == str(corpus["shipping"])
    assert len(list((data / "index").glob("lexical.broken-*"))) == 1


def test_tenants_collections_and_filters(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    kb.ingest([corpus["refunds"], corpus["shipping"]], collection="handbook")
    kb.ingest([corpus["vacation"]])
    other = kb.for_tenant("acme")
    assert other.search("refunds fourteen days") == []
    other.ingest([corpus["refunds"]])
    mine = kb.search("refunds fourteen days")[0]
    theirs = other.search("refunds fourteen days")[0]
    assert mine.document_id == document_id_for("default", str(corpus["refunds"]))
    assert theirs.document_id != mine.document_id and theirs.source == mine.source
    assert kb.get_document(theirs.document_id) is None
    other.close()  # a view: the shared store stays open
    assert kb.search("refunds")

    assert kb.search("refunds vacation", filters={"collection": "default"})[0].source == str(
        corpus["vacation"]
    )
    handbook = kb.search("refunds vacation days", k=10, filters={"collection": ["handbook"]})
    # Dense retrieval ranks every chunk of the collection (nearest first): only lexical
    # matching leaves shipping out, and no mode leaves the collection.
    assert handbook[0].source == str(corpus["refunds"])
    assert {h.source for h in handbook} <= {str(corpus["refunds"]), str(corpus["shipping"])}
    lexical = kb.search(
        "refunds vacation days", k=10, filters={"collection": ["handbook"]}, mode="lexical"
    )
    assert {h.source for h in lexical} == {str(corpus["refunds"])}
    by_source = kb.search("days", k=10, filters={"source": str(corpus["vacation"])})
    assert {h.source for h in by_source} == {str(corpus["vacation"])}
    assert kb.search("refunds", filters={"collection": []}) == []
    with pytest.raises(InvalidInput) as err:
        kb.search("refunds", filters={"colour": "red"})
    assert err.value.code == "invalid_filter"
    with pytest.raises(InvalidInput):
        kb.search("refunds", filters={"collection": 3})
    with pytest.raises(InvalidInput):
        kb.search("refunds", k=0)
    # Moving a file to another collection updates it.
    assert kb.ingest([corpus["vacation"]], collection="handbook").updated == [
        str(corpus["vacation"])
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_no_query_text_breaks_search(kb: KnowledgeBase, query: str) -> None:
    for hit in kb.search(query, k=3):
        assert hit.score >= 0


def test_query_syntax_is_not_interpreted(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    kb.ingest([corpus["security"]])
    for q in ['title:"x', "AND OR NOT", "(((", "passwords^2 ~ *", "text:[a TO z]", "-", '\\"']:
        kb.search(q)
    assert kb.search("PASSWORDS: rotated?!")[0].source == str(corpus["security"])


def test_loaders_are_registered_as_entry_points(tmp_path: Path) -> None:
    registry = discover()
    assert {"text", "markdown"} <= set(registry.names)
    assert registry.for_path("A.MD") is registry.get("markdown")
    assert registry.for_path("notes.txt") is registry.get("text")
    assert registry.for_path("archive.tar.gz") is None
    assert default_registry() is default_registry()
    # A conventional text file's name is text (NEWS.Debian), unless it is an image's or
    # its first bytes are no text: Docker's "contributors.png" was read as text and failed
    # the whole ingest (review, 2026-12-07).
    text = registry.get("text")
    assert registry.for_path("NEWS.Debian") is text and registry.for_path("CONTRIBUTORS") is text
    assert registry.for_path("contributors.png") is None
    assert registry.for_path("README.jpg") is None
    # An empty or binary one is the text loader's to refuse, saying why (code review).
    assert registry.for_path("AUTHORS", head=b"\0\0") is text
    assert registry.for_path("notes", head=b"\x89PNG\r\n\x1a\n\0\0") is None
    assert registry.for_path("notes", head=b"Ada Lovelace\n") is text


def test_a_plugin_loader_is_used(tmp_path: Path) -> None:
    class CsvLoader:
        name = "csv"
        extensions: tuple[str, ...] = (".csv",)
        content_types: tuple[str, ...] = ("text/csv",)

        def load(self, path: Path, data: bytes) -> LoadedDocument:
            text = data.decode()
            return LoadedDocument(text=text, content_type="text/csv", title=path.stem,
                                  pages=[(0, len(text), 7)],
                                  metadata={"exported": datetime(2024, 1, 2, tzinfo=UTC)})

    registry = LoaderRegistry([TextLoader(), CsvLoader()])
    (tmp_path / "t.csv").write_text("name,role\nAda,engineer of analytical engines\n")
    with KnowledgeBase.open(tmp_path / "data", registry=registry, embedder=HashEmbedder()) as kb:
        assert kb.ingest([tmp_path / "t.csv"]).added
        hit = kb.search("analytical engines")[0]
        assert hit.page == 7 and hit.metadata["content_type"] == "text/csv"
        assert hit.metadata["exported"] == "2024-01-02 00:00:00+00:00"  # JSON-safe


# -- dense retrieval through the knowledge base ------------------------------------------


def test_search_modes_evidence_and_counts(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    kb.ingest([corpus["refunds"].parent])
    query = "passwords rotated ninety days"
    for mode in MODES:
        found = kb.retrieve(query, k=3, mode=mode)
        assert found.mode == mode and not found.ranking_fallback
        assert found.hits[0].source == str(corpus["security"]), mode
        _assert_exact(kb, found.hits)
        assert found.compared >= len(found.hits) and found.retrieved >= len(found.hits)
    hit = kb.search(query, k=1)[0]  # hybrid by default
    assert hit.evidence is not None
    assert hit.text[hit.evidence.start_char :].startswith(hit.evidence.text)
    assert "ninety days" in hit.evidence.text and 0 < hit.evidence.score <= 1
    with pytest.raises(InvalidInput) as err:
        kb.search(query, mode="fuzzy")  # type: ignore[arg-type]
    assert err.value.code == "invalid_mode"
    # Filters beyond collection/source/document_id, and a source as a relative path.
    assert kb.search(query, filters={"content_type": "markdown"})[0].source == str(
        corpus["security"]
    )
    assert kb.search(query, filters={"content_type": "pdf"}) == []
    assert kb.search(query, filters={"tags": ["x"]}) == []
    relative = os.path.relpath(corpus["security"])
    for mode in ("hybrid", "dense"):
        only = kb.search("days", k=10, filters={"source": relative}, mode=mode)
        assert {h.source for h in only} == {str(corpus["security"])}, mode


def test_dense_off_and_switched_on_later(tmp_path: Path, corpus: dict[str, Path]) -> None:
    data = tmp_path / "data"
    with KnowledgeBase.open(data, dense=False) as kb:
        kb.ingest([corpus["refunds"].parent])
        assert kb.dense is None and kb.check_consistency().ok
        found = kb.retrieve("Rotterdam warehouse", mode="dense")
        assert found.mode == "lexical" and found.ranking_fallback  # said, not hidden
        assert found.hits[0].source == str(corpus["shipping"])
        ids = kb.store.list_chunk_ids()
    embedder = HashEmbedder()
    seen: list[tuple[int, int]] = []
    with KnowledgeBase.open(data, embedder=embedder) as kb:
        # The open only queues the embedding (an `ask` must not wait for the model) …
        assert kb.dense is not None and kb.dense.ids() == set() and not embedder.embedded
        assert kb.embedding_status().not_embedded == len(ids)
        kb.embed_pending(progress=lambda d, t: seen.append((d, t)))  # … a worker does it
        assert kb.dense.ids() == ids and kb.embedding_status().not_embedded == 0
        assert seen[0] == (0, len(ids)) and seen[-1] == (len(ids), len(ids))
        assert len(embedder.embedded) == len({c.text for c in kb.store.get_chunks(sorted(ids))})
        assert kb.check_consistency().ok
        assert kb.retrieve("Rotterdam warehouse").mode == "hybrid"
    before = len(embedder.embedded)
    with KnowledgeBase.open(data, embedder=embedder) as kb:  # in step: nothing to embed
        assert kb.dense is not None and kb.dense.ids() == ids
    assert len(embedder.embedded) == before


def test_rebuild_index_queues_missing_vectors_and_embeds_nothing(
    tmp_path: Path, corpus: dict[str, Path]
) -> None:
    embedder = HashEmbedder()
    with KnowledgeBase.open(tmp_path / "data", embedder=embedder) as kb:
        kb.ingest([corpus["refunds"].parent], wait=True)
        assert kb.dense is not None
        ids = sorted(kb.store.list_chunk_ids())
        lost = ids[:3]
        kb.dense.vstore.delete(kb.dense.model, lost)  # e.g. a vector file restored from an old backup
        before = len(embedder.embedded)
        assert kb.rebuild_index() == len(kb.list_documents(limit=100))
        assert len(embedder.embedded) == before  # queued for the workers, not embedded inline
        assert kb.embedding_status().queue.pending_chunks == len(lost)
        assert kb.search("Rotterdam warehouse")[0].source == str(corpus["shipping"])
        named: list[str] = []
        assert kb.embed_pending(on_document=named.append).jobs >= 1
        assert named and set(named) <= {d.id for d in kb.list_documents(limit=100)}
        assert kb.embedding_status().queue.pending_chunks == 0
        assert kb.dense.vstore.chunk_ids(kb.dense.model) == set(ids)
        assert kb.check_consistency().ok


def test_queueing_what_is_missing_leaves_out_what_a_worker_stored_meanwhile(
    tmp_path: Path, corpus: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An open (`citewise status`, `ask`) looks for chunks without a vector, then queues
    # them; a worker that commits in between must not get its finished blocks back.
    with KnowledgeBase.open(tmp_path / "data", embedder=HashEmbedder()) as kb:
        kb.ingest([corpus["refunds"].parent], wait=True)
        assert kb.dense is not None and kb.embedding_status().queue.pending == 0
        stale = sorted(kb.store.list_chunk_ids())  # what it saw before the worker's commit
        monkeypatch.setattr(type(kb.dense), "missing_vectors", lambda self, store: stale)
        assert kb.queue_missing_vectors() == 0
        assert kb.embedding_status().queue.pending == 0


def test_changed_file_embeds_only_new_texts(tmp_path: Path, corpus: dict[str, Path]) -> None:
    embedder = HashEmbedder()
    seen: list[tuple[int, int]] = []
    with KnowledgeBase.open(tmp_path / "data", chunk_size=300, chunk_overlap=40,
                            embedder=embedder) as kb:
        kb.ingest([corpus["refunds"].parent], embed_progress=lambda d, t: seen.append((d, t)))
        total = kb.store.count_chunks()
        assert seen[-1] == (total, total)
        # FILLER chunks are the same text in many files: each distinct text embedded once
        assert len(embedder.embedded) == len(set(embedder.embedded)) < total
        embedder.embedded.clear()
        known = {c.text for c in kb.store.get_chunks(sorted(kb.store.list_chunk_ids()))}
        path = corpus["parking"]
        path.write_bytes(path.read_bytes() + b"\r\n\r\nThe north garage closes at midnight.\r\n")
        assert kb.ingest([path]).updated == [str(path)]
        doc = kb.find_document(path)
        assert doc is not None
        now = {c.text for c in kb.store.get_document_chunks("default", doc.id)}
        # Only texts never embedded before; the unchanged ones come from the cache.
        assert sorted(embedder.embedded) == sorted(now - known)
        assert any("midnight" in t for t in embedder.embedded) and now & known
        assert kb.check_consistency().ok
        assert kb.search("garage closes midnight", mode="dense")[0].source == str(path)


def test_prune_removes_documents_of_deleted_files(
    kb: KnowledgeBase, corpus: dict[str, Path], tmp_path: Path
) -> None:
    folder = corpus["refunds"].parent
    kb.ingest([folder])
    other = tmp_path / "elsewhere.txt"
    other.write_text("A file outside the folder about lighthouses.")
    kb.ingest([other])
    gone = [corpus["coffee"], corpus["travel"]]
    gone_ids = {d.id for d in (kb.find_document(p) for p in gone) if d is not None}
    assert len(gone_ids) == 2
    for path in gone:
        path.unlink()
    broken = corpus["library"]
    broken.write_bytes(b"\x00\x01binary now")  # exists but no longer loads: kept
    other.unlink()  # not under the pruned folder: kept

    plain = kb.ingest([folder])
    assert plain.removed == [] and len(kb.list_documents()) == 21
    report = kb.ingest([folder], prune=True)
    assert sorted(report.removed) == sorted(str(p) for p in gone)
    assert "2 removed" in report.summary() and report.to_dict()["removed"] == report.removed
    assert [f.code for f in report.failed] == ["binary_file"]
    assert all(kb.get_document(i) is None for i in gone_ids)
    assert kb.find_document(broken) is not None and kb.find_document(other) is not None
    assert len(kb.list_documents()) == 19
    assert kb.check_consistency().ok
    assert all(h.source not in report.removed for h in kb.search("espresso descaled", k=20))
    # A folder that is not there prunes nothing (an unmounted drive is not a deletion).
    assert kb.ingest([tmp_path / "no-such-folder"], prune=True).removed == []
    assert len(kb.list_documents()) == 19


def test_cli_ingest_prune(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citewise.cli.main import main

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Alpha notes about kites.")
    (folder / "b.txt").write_text("Beta notes about boats.")
    data = tmp_path / "data"
    assert main(["ingest", str(folder), "--data-dir", str(data)]) == 0
    (folder / "b.txt").unlink()
    assert main(["ingest", str(folder), "--data-dir", str(data)]) == 0
    assert "removed" not in capsys.readouterr().out
    assert main(["ingest", str(folder), "--prune", "--data-dir", str(data)]) == 0
    out, err = capsys.readouterr()
    assert "1 removed" in out and f"removed: {folder / 'b.txt'}\n" in err  # each named
    with KnowledgeBase.open(data, dense=False) as kb:
        assert [Path(d.source).name for d in kb.list_documents()] == ["a.txt"]


def test_a_crashing_loader_is_a_corrupt_file(tmp_path: Path) -> None:
    class Broken:
        name = "broken"
        extensions: tuple[str, ...] = (".brk",)
        content_types: tuple[str, ...] = ("application/x-broken",)

        def load(self, path: Path, data: bytes) -> LoadedDocument:
            raise ValueError("unexpected end of stream")

    (tmp_path / "x.brk").write_bytes(b"whatever")
    (tmp_path / "ok.txt").write_text("This one is fine.")
    registry = LoaderRegistry([TextLoader(), Broken()])
    with KnowledgeBase.open(tmp_path / "data", registry=registry, dense=False) as kb:
        report = kb.ingest([tmp_path / "x.brk", tmp_path / "ok.txt"])
    assert [(Path(f.path).name, f.code) for f in report.failed] == [("x.brk", "corrupt_file")]
    assert report.added == [str(tmp_path / "ok.txt")]


def test_ingest_bytes_stores_under_the_given_source(tmp_path: Path) -> None:
    text = "# Returns\n\nRefunds are issued within 14 days of the return.\n"
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        first = kb.ingest_bytes("returns.md", text.encode(), collection="policies")
        assert first.added == ["returns.md"] and not first.failed
        doc = kb.find_source("returns.md")
        assert doc is not None and doc.collection == "policies"
        assert doc.text[doc.text.index("Refunds"):].startswith("Refunds are issued")
        hits = kb.search("refunds issued", k=3)
        assert hits and hits[0].source == "returns.md"
        assert doc.text[hits[0].start_char:hits[0].end_char] == hits[0].text
        assert kb.ingest_bytes("returns.md", text.encode(), collection="policies").unchanged
        changed = kb.ingest_bytes("returns.md", (text + "Exchanges are free.\n").encode(),
                                  collection="policies")
        assert changed.updated == ["returns.md"]
        assert len(kb.list_documents()) == 1  # the same source replaces its document
        other = kb.ingest_bytes("notes.txt", b"Shipping takes 3 days.", source="https://x/notes")
        assert other.added == ["https://x/notes"]


def test_ingest_bytes_reports_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        bad = kb.ingest_bytes("image.bin", b"\x00\x01\x02")
        assert [f.code for f in bad.failed] == ["unsupported_format"]
        # One line a person reads, not the ~130 known extensions (new-user review).
        assert "does not read .bin files" in bad.failed[0].message
        assert len(bad.failed[0].message) < 200
        empty = kb.ingest_bytes("empty.txt", b"   ")
        assert [f.code for f in empty.failed] == ["empty_document"]
        for kwargs, code in (({"name": "a/b.txt"}, "invalid_name"),
                             ({"name": ""}, "invalid_name"),
                             ({"name": "a.txt", "source": " "}, "invalid_source"),
                             ({"name": "a.txt", "collection": ""}, "invalid_collection")):
            with pytest.raises(InvalidInput) as info:
                kb.ingest_bytes(data=b"text", **kwargs)  # type: ignore[arg-type]
            assert info.value.code == code
        assert kb.list_documents() == []
        assert kb.store.count_chunks() == 0


def test_a_file_read_again_by_a_newer_reader_is_said_so(tmp_path: Path) -> None:
    """After an upgrade whose loader reads a kind of file otherwise, ingest re-reads the
    files nobody touched and reported them "updated" with no reason (GIMP's review,
    2026-12-06): the report says which were the same bytes read again; a changed file
    is updated, not re-read."""
    import sqlite3

    from citewise.knowledge.base import DB_NAME

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nAlpha is first.\n")
    (docs / "b.md").write_text("# B\n\nBeta is second.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert kb.ingest([docs]).ok
    with sqlite3.connect(tmp_path / "kb" / DB_NAME) as conn:  # as an older loader wrote it
        conn.execute("UPDATE documents SET metadata = json_set(metadata, '$.loader_version', '0')")
    (docs / "b.md").write_text("# B\n\nBeta is second, and last.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([docs])
    assert sorted(Path(p).name for p in report.updated) == ["a.md", "b.md"]
    assert [Path(p).name for p in report.reread] == ["a.md"]
    assert "2 updated (1 of them unchanged files re-read by a newer reader or chunk size)" \
        in report.summary()
    assert report.to_dict()["reread"] == report.reread
