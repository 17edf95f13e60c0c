"""KnowledgeBase end to end on real files: ingest, search, re-ingest, replace, delete."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.errors import ConfigError, IngestError, InvalidInput
from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.ingest import document_id_for
from citewise.knowledge.loaders import LoadedDocument, LoaderRegistry, default_registry, discover
from citewise.knowledge.loaders.markdown import MarkdownLoader
from citewise.knowledge.loaders.text import TextLoader

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
    with KnowledgeBase.open(tmp_path / "data", chunk_size=300, chunk_overlap=40) as k:
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


def test_delete_leaves_no_trace(kb: KnowledgeBase, corpus: dict[str, Path]) -> None:
    kb.ingest([corpus["refunds"].parent])
    doc = kb.find_document(corpus["coffee"])
    assert doc is not None
    ids = {c.id for c in kb.store.get_document_chunks("default", doc.id)}
    assert kb.delete_document(doc.id) is True
    assert kb.get_document(doc.id) is None and kb.document_text(doc.id) is None
    assert kb.store.get_document_chunks("default", doc.id) == []
    assert not (ids & kb.store.list_chunk_ids())
    assert not (ids & kb.index.all_chunk_ids())
    assert kb.store.pending_index_ops() == []
    assert all(h.document_id != doc.id for h in kb.search("espresso machine descaled", k=20))
    assert kb.check_consistency().ok
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
    with KnowledgeBase.open(data) as kb:
        kb.ingest([corpus["refunds"].parent])
        ids = kb.store.list_chunk_ids()
    with KnowledgeBase.open(data) as kb:
        assert kb.search("Rotterdam warehouse")[0].source == str(corpus["shipping"])
    shutil.rmtree(data / "index")
    with KnowledgeBase.open(data) as kb:
        assert kb.index.all_chunk_ids() == ids
        assert kb.search("Rotterdam warehouse")[0].source == str(corpus["shipping"])
    (data / "index" / "lexical" / "meta.json").write_text("{damaged")
    with KnowledgeBase.open(data) as kb:  # moved aside and rebuilt, not an error
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
    assert {h.source for h in handbook} == {str(corpus["refunds"])}
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
    with KnowledgeBase.open(tmp_path / "data", registry=registry) as kb:
        assert kb.ingest([tmp_path / "t.csv"]).added
        hit = kb.search("analytical engines")[0]
        assert hit.page == 7 and hit.metadata["content_type"] == "text/csv"
        assert hit.metadata["exported"] == "2024-01-02 00:00:00+00:00"  # JSON-safe
