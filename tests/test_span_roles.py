"""Span roles (issue #27, build item 2): loaders say what each span of their text is — a
heading, a definition term, code, a doctest, a table, a list item, a notice, a version
note — the chunker keeps them per chunk, the store keeps them, a search hit carries them,
and the extractive model's evidence choice reads them instead of guessing from words."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from _stores import pg_server, pg_url, store  # noqa: F401
from citewise import KnowledgeBase
from citewise.knowledge.ingest.chunking import chunk_text
from citewise.knowledge.loaders.html import HtmlLoader
from citewise.knowledge.loaders.markdown import MarkdownLoader
from citewise.knowledge.loaders.rst import RstLoader
from citewise.models.sentence_rank import candidates, rank
from citewise.models.sentence_structure import structure_penalty

SPHINX = """\
<!DOCTYPE html><html><head><title>tidy — tidy up folders — Docs</title></head><body>
<main>
<h1>tidy — tidy up folders<a class="headerlink" href="#tidy">¶</a></h1>
<p>The tidy module moves old files out of the way.</p>
<dl class="py function">
<dt class="sig sig-object py" id="tidy.sweep">tidy.sweep(<em>folder</em>, <em>age=30</em>,
<em>dry_run=False</em>, <em>keep_hidden=True</em>, <em>into=None</em>)<a class="headerlink"
href="#tidy.sweep">¶</a></dt>
<dd><p>Move every file of <em>folder</em> older than <em>age</em> days into the archive.</p>
<div class="highlight"><pre>&gt;&gt;&gt; tidy.sweep("downloads", dry_run=True)

Nothing is moved when dry_run is set, only listed.
</pre></div>
<p>With <em>dry_run</em> set, the files are listed and left where they are.</p>
<div class="versionchanged"><p><span class="versionmodified changed">Changed in version
2.0: </span>Hidden files are kept. Before that, hidden files were always moved as well.</p>
</div>
</dd></dl>
<ul><li>Runs on any folder you can write to</li></ul>
<table><tr><th>age</th><th>what moves</th></tr><tr><td>30</td><td>last month's files</td></tr>
</table>
<p class="copyright">Copyright 2024, the tidy authors.</p>
</main></body></html>
"""


def _spans(text: str, roles: list[tuple[int, int, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for a, b, role in roles:
        out.setdefault(role, []).append(text[a:b])
    return out


def test_the_html_loader_says_what_each_span_is(tmp_path: Path) -> None:
    doc = HtmlLoader().load(tmp_path / "tidy.html", SPHINX.encode())
    spans = _spans(doc.text, doc.roles)
    # A table's row of <th> cells names its columns: a heading, inside the table.
    assert spans["heading"] == ["tidy — tidy up folders", "age | what moves"]
    assert spans["term"] == ["tidy.sweep(folder, age=30, dry_run=False, keep_hidden=True, "
                             "into=None)"]
    assert spans["doctest"] == ['>>> tidy.sweep("downloads", dry_run=True)\n\n'
                                "Nothing is moved when dry_run is set, only listed."]
    assert spans["version_note"] == ["Changed in version 2.0: Hidden files are kept. Before "
                                     "that, hidden files were always moved as well."]
    assert spans["list_item"] == ["Runs on any folder you can write to"]
    assert spans["table"] == ["age | what moves\n30 | last month's files"]
    assert spans["notice"] == ["Copyright 2024, the tidy authors."]
    assert "¶" not in doc.text
    # Sorted, inside the text, and no span starts or ends on a blank.
    assert doc.roles == sorted(doc.roles, key=lambda r: (r[0], -r[1]))
    for a, b, _ in doc.roles:
        assert 0 <= a < b <= len(doc.text)
        assert not doc.text[a].isspace() and not doc.text[b - 1].isspace()


def test_the_markdown_loader_marks_headings_code_tables_and_items(tmp_path: Path) -> None:
    text = ("# Setup\n\nInstall it first.\n\n- works offline\n  and on any disk\n- free\n\n"
            "| flag | meaning |\n|---|---|\n| -n | dry run |\n\n```\n>>> run()\n'ok'\n```\n\n"
            "```sh\nmake install\n```\n\nSetext title\n------------\n\nDone.\n")
    doc = MarkdownLoader().load(tmp_path / "setup.md", text.encode())
    spans = _spans(doc.text, doc.roles)
    # A table's header line is a heading, its rule line is not on the page.
    assert spans["heading"] == ["# Setup", "| flag | meaning |", "Setext title"]
    assert spans["hidden"] == ["|---|---|"]
    assert spans["list_item"] == ["- works offline\n  and on any disk", "- free"]
    assert spans["table"] == ["| flag | meaning |\n|---|---|\n| -n | dry run |"]
    assert spans["doctest"] == ["```\n>>> run()\n'ok'\n```"]
    assert spans["code"] == ["```sh\nmake install\n```"]
    assert doc.text == text  # markdown is stored verbatim: roles never change the text


def test_the_rst_loader_marks_sections_literals_terms_and_version_notes(
        tmp_path: Path) -> None:
    source = ("Sweeping\n========\n\nIt moves files.\n\n::\n\n    tidy --all\n\n"
              ">>> sweep()\n0\n\n"
              "age\n    How old a file must be.\n\n"
              "- one item\n\n"
              ".. versionchanged:: 2.0\n   Hidden files are kept.\n")
    doc = RstLoader().load(tmp_path / "sweep.rst", source.encode())
    spans = _spans(doc.text, doc.roles)
    assert spans["heading"] == ["Sweeping"]
    assert spans["code"] == ["tidy --all"]
    assert spans["doctest"] == [">>> sweep()\n0"]
    assert spans["term"] == ["age"]
    assert spans["list_item"] == ["- one item"]
    assert spans["version_note"] == ["Changed in version 2.0: Hidden files are kept."]


def test_the_asciidoc_loader_marks_titles_listings_and_tables(tmp_path: Path) -> None:
    from citewise.knowledge.loaders.asciidoc import AsciiDocLoader

    source = ("= Guide\n\n== Install\n\nRun the installer.\n\n----\nmake install\n----\n\n"
              "|===\n|flag |meaning\n|-n |dry run\n|===\n")
    doc = AsciiDocLoader().load(tmp_path / "guide.adoc", source.encode())
    spans = _spans(doc.text, doc.roles)
    assert spans["heading"] == ["Guide", "Install"]
    assert spans["code"] == ["make install"]
    assert spans["table"] and spans["table"][0].startswith("flag")


def test_chunks_carry_their_roles_clipped_and_relative() -> None:
    text = "".join(f"Sentence number {i} is here. " for i in range(60))
    # One span across the first chunk boundary, one nested in it, one bad one, one unknown.
    roles = [(10, 900, "list_item"), (20, 40, "code"), (50, 10_000, "table"),
             (5, 6, "no-such-role")]
    chunks = chunk_text("d1", text, size=400, overlap=60, roles=roles)
    assert len(chunks) >= 3
    first, second = chunks[0], chunks[1]
    assert first.roles == ((10, 20 + (first.end_char - first.start_char) - 20, "list_item"),
                           (20, 40, "code"))
    assert second.roles == ((0, min(900, second.end_char) - second.start_char, "list_item"),)
    for ch in chunks:
        for a, b, _ in ch.roles:
            assert 0 <= a < b <= len(ch.text)
    assert all(ch.roles == () for ch in chunks if ch.start_char >= 900)


def _hit_roles(kb: KnowledgeBase, query: str) -> list[tuple[str, str]]:
    hits = kb.search(query, k=1)
    assert hits
    return [(role, hits[0].text[a:b]) for a, b, role in hits[0].roles]


def _ingested(tmp_path: Path) -> Path:
    """A knowledge base holding the Sphinx page; its folder of documents."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tidy.html").write_text(SPHINX, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
    return docs


def test_a_search_hit_carries_its_chunks_roles(tmp_path: Path) -> None:
    _ingested(tmp_path)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        roles = _hit_roles(kb, "hidden files moved")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:  # as stored, reopened
        assert _hit_roles(kb, "hidden files moved") == roles
    assert ("version_note", "Changed in version 2.0: Hidden files are kept. Before that, "
            "hidden files were always moved as well.") in roles
    assert ("heading", "tidy — tidy up folders") in roles


def test_every_store_keeps_chunk_roles(store: Any) -> None:  # noqa: F811
    from citewise.store.base import ChunkRecord, DocumentRecord

    text = "Options\n\n-n: dry run."
    doc = DocumentRecord("d1", "t1", "c1", "/o.md", "O", "text/markdown", "h1", text)
    chunks = [ChunkRecord(21, "d1", 0, 0, len(text), text,
                          roles=((0, 7, "heading"), (9, 20, "list_item"), (9, 11, "term"))),
              ChunkRecord(22, "d1", 1, 9, len(text), text[9:])]
    store.replace_documents([(doc, chunks)])
    assert store.get_document_chunks("t1", "d1") == chunks
    assert [c.chunk.roles for c in store.get_chunk_contexts("t1", [21, 22])] == [
        chunks[0].roles, ()]
    # The library listing's read: ids only, in list_documents order, per tenant.
    other = DocumentRecord("d0", "t1", "c1", "/a.md", "A", "text/markdown", "h0", "A.")
    store.replace_documents([(other, [ChunkRecord(20, "d0", 0, 0, 2, "A.")])])
    assert store.list_document_chunk_ids("t1") == [("d0", [20]), ("d1", [21, 22])]
    assert store.list_document_chunk_ids("t1", limit=1) == [("d0", [20])]
    assert store.list_document_chunk_ids("t2") == []


def test_an_old_database_gets_the_roles_column_and_rereads_its_pages(tmp_path: Path) -> None:
    docs = _ingested(tmp_path)
    db = next((tmp_path / "kb").glob("*.db"))
    with sqlite3.connect(db) as conn:  # as a database before m007 was, by an older html loader
        conn.execute("ALTER TABLE chunks DROP COLUMN roles")
        conn.execute("DELETE FROM _migrations WHERE name = 'm007_chunk_roles'")
        conn.execute("UPDATE documents SET metadata = json_set(metadata, '$.loader_version', "
                     "'2')")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert kb.search("hidden files moved", k=1)[0].roles == ()  # nothing to read yet
        report = kb.ingest([docs])  # the loader's version went up: the page is read again
        assert [Path(s).name for s in report.added + report.updated] == ["tidy.html"]
        assert _hit_roles(kb, "hidden files moved")


# -- evidence choice reads the roles --------------------------------------------------------

def _observation(text: str, roles: list[list[Any]] | None) -> list[dict[str, Any]]:
    result: dict[str, Any] = {"document_index": 1, "text": text, "source": "/docs/tidy.html",
                              "title": "tidy — tidy up folders"}
    if roles is not None:
        result["roles"] = roles
    return [{"results": [result]}]


def _loaded(tmp_path: Path) -> tuple[str, list[list[Any]]]:
    doc = HtmlLoader().load(tmp_path / "tidy.html", SPHINX.encode())
    return doc.text, [list(r) for r in doc.roles]


def test_a_term_is_context_for_its_definition_not_a_candidate(tmp_path: Path) -> None:
    text, roles = _loaded(tmp_path)
    signature = "tidy.sweep(folder, age=30, dry_run=False, keep_hidden=True, into=None)"
    guessed = [s.text for s in candidates(_observation(text, None))]
    # From the words alone the signature and the page's heading read as prose.
    assert signature in guessed and "tidy — tidy up folders" in guessed
    told = candidates(_observation(text, roles))
    assert signature not in [s.text for s in told]
    assert "tidy — tidy up folders" not in [s.text for s in told]
    moved = next(s for s in told if s.text.startswith("Move every file"))
    assert "tidy.sweep(" in moved.before  # the signature says what the sentence is about


def test_a_version_note_and_a_doctest_rank_below_the_current_behaviour(
        tmp_path: Path) -> None:
    text, roles = _loaded(tmp_path)
    told = {s.text: s for s in candidates(_observation(text, roles))}
    guessed = {s.text: s for s in candidates(_observation(text, None))}
    before = "Before that, hidden files were always moved as well."
    output = "Nothing is moved when dry_run is set, only listed."
    current = "With dry_run set, the files are listed and left where they are."
    for sentence in (before, output):
        assert structure_penalty(guessed[sentence], False) == 0.0  # no cue in its words
        assert structure_penalty(told[sentence], False) > 0.0
    assert structure_penalty(told[current], False) == 0.0
    question = "Is anything moved when I set dry_run?"
    assert rank(question, list(guessed.values()))[0].sentence.text == output
    assert rank(question, list(told.values()))[0].sentence.text == current


def test_a_malformed_roles_field_reads_as_none(tmp_path: Path) -> None:
    text, _ = _loaded(tmp_path)
    bad = [["a", 2, "code"], [0, 5], "heading", [0, 10, 3]]
    assert ([s.text for s in candidates(_observation(text, bad))]
            == [s.text for s in candidates(_observation(text, None))])


def test_a_table_whose_cells_hold_paragraphs_keeps_a_row_a_line(tmp_path: Path) -> None:
    # Sphinx writes every cell as <td><p>…</p></td>: a row must stay one "a | b" line.
    page = ("<html><body><main><table><thead><tr><th><p>Iterator</p></th><th><p>Results</p>"
            "</th></tr></thead><tbody><tr><td><p><code>count()</code></p></td><td><p>start, "
            "start+step</p><p>forever</p></td></tr><tr><td><p>cycle()</p></td><td>p0, p1<br/>"
            "again</td></tr></tbody></table></main></body></html>")
    doc = HtmlLoader().load(tmp_path / "it.html", page.encode())
    assert doc.text == ("Iterator | Results\n\ncount() | start, start+step forever\n"
                        "cycle() | p0, p1 again")
    assert _spans(doc.text, doc.roles)["table"] == [doc.text]


def test_an_answer_links_to_its_page_element_and_leaves_the_id_map_home(
        tmp_path: Path) -> None:
    # Every search document carried the page's whole id map (hundreds of ids on a Python
    # docs page): ~48 KB an answer. A snippet now says the one id to link to.
    from citewise import Agent

    docs = tmp_path / "docs"
    docs.mkdir()
    ids = "".join(f'<span id="x{i}"></span>' for i in range(300))
    (docs / "care.html").write_text(
        f'<html><body><main><section id="watering"><h1>Watering</h1>{ids}<p>Water the fern '
        "twice a week in summer.</p></section></main></body></html>", encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        assert "anchors" in kb.list_documents()[0].metadata  # still stored with the page
        answer = Agent(kb).ask("How often should the fern be watered in summer?")
    doc = answer.search_documents[0]
    assert "anchors" not in doc.document
    assert doc.snippets[0].anchor == "watering"
    assert len(answer.model_dump_json()) < 8_000


def test_a_plugins_malformed_role_span_is_dropped_not_a_failure() -> None:
    text = "One sentence here. Another one there."
    bad: list[Any] = [(0, 3), ("a", 5, "code"), (0, 5, "code", "x"), None, (0, 18, "heading")]
    (chunk,) = chunk_text("d1", text, size=400, overlap=60, roles=bad)
    assert chunk.roles == ((0, 18, "heading"),)


def test_markdown_markup_is_no_code() -> None:
    # Node.js's API docs state every default as "**Default:** `16384` (16 KiB), …": the
    # emphasis and backticks made it symbol-dense enough to rank as code, below another
    # option's description (new-user review, 2026-12-04).
    from citewise.models.sentence_candidates import Sentence

    def sentence(text: str) -> Sentence:
        return Sentence(1, 0, text, "", "stream.md", "Stream", True)

    default = "**Default:** `16384` (16 KiB), or `16` for `objectMode` streams."
    assert structure_penalty(sentence(default), False) == 0.0
    assert structure_penalty(sentence(default), True) == 0.0
    code = "const w = new Writable({ highWaterMark: 1024 * 16 });"
    assert structure_penalty(sentence(code), False) > 0.0  # code stays code
    assert structure_penalty(sentence("`a[i] = b[j] + c[k]`;"), False) > 0.0


def test_a_citation_links_to_the_element_it_quotes(tmp_path: Path) -> None:
    # A snippet's anchor is the id before the chunk; on a reference page one chunk holds
    # several entries, and a deep link to the snippet landed on the entry before the one
    # quoted (CMake review, 2026-12-04). A citation links to the element its excerpt is in.
    from tests._answers import ask_over

    page = ('<html><body><main><h1>Options</h1><dl><dt id="opt-verbose">--verbose</dt>'
            "<dd><p>Print every file name as it is copied.</p></dd>"
            '<dt id="opt-fresh">--fresh</dt><dd><p>Remove the build cache before configuring, '
            "so that every setting is computed again from scratch.</p></dd>"
            '<dt id="opt-quiet">--quiet</dt><dd><p>Print nothing but errors.</p></dd>'
            "</dl></main></body></html>")
    answer = ask_over(tmp_path, {"options.html": page},
                      "How do I throw away the build cache before configuring?")
    docs = tmp_path / "docs"
    first = answer.citations[0]
    snippet = answer.search_documents[first.document_index - 1].snippets[first.snippet_index]
    assert "build cache" in first.excerpt
    assert snippet.anchor is None and set(snippet.anchors) == {"opt-verbose", "opt-fresh",
                                                               "opt-quiet"}
    assert first.anchor == "opt-fresh"
    assert snippet.anchor_at(first.start_char) == "opt-fresh"
    assert snippet.anchor_at(0) is None
    # The plain answer's source line is the link.
    import io

    from citewise.cli.common import print_answer

    plain = io.StringIO()
    print_answer(answer, None, plain)
    assert f"[1] {docs / 'options.html'}#opt-fresh — Options\n" in plain.getvalue()


def test_a_citations_link_is_a_url_fragment(tmp_path: Path) -> None:
    # AsciiDoc names a listing's anchor "Listing 3": printed raw, the link broke at the
    # space (crmsh's review, 2026-12-05). The answer keeps the id; the plain link encodes it.
    import io

    from tests._answers import ask_over

    from citewise.cli.common import print_answer

    page = ('<html><body><main><h1>History</h1><div class="title">Listing 3: transitions'
            '<a id="Listing 3"></a></div><p>The status diff command compares the two last '
            "transitions of the cluster.</p></main></body></html>")
    answer = ask_over(tmp_path, {"history.html": page},
                      "Which command compares the two last transitions of the cluster?")
    assert answer.citations[0].anchor == "Listing 3"
    plain = io.StringIO()
    print_answer(answer, None, plain)
    assert f"{tmp_path / 'docs' / 'history.html'}#Listing%203 — History" in plain.getvalue()
