"""Text a markdown page holds but does not show is in no index (issue #27).

Node.js's API pages (Debian's ``nodejs-doc``) are 13 % ``<!-- YAML … -->`` history and end
with hundreds of link reference definitions. The loader marks them ``hidden`` and the
extractive model never quotes them, but they were still chunked and indexed: 79 of the
2,629 chunks of the bench's Node.js pages were nothing but hidden lines, and their words
("version", "pr-url", "description") made them passages for questions they cannot answer.
Now a chunk begins and ends with visible text, a run of hidden lines makes no chunk, and
what the lexical index and the embedder read has the hidden spans blanked. The stored text
is unchanged, so quotes and offsets are exactly as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise import KnowledgeBase
from citewise.knowledge.ingest.chunking import chunk_text
from citewise.knowledge.loaders.markdown import MarkdownLoader
from citewise.store.base import indexed_text

PAGE = """# Timers

## `setTimeout(callback[, delay])`

<!-- YAML
added: v0.0.1
changes:
  - version: v18.0.0
    pr-url: https://github.com/nodejs/node/pull/41678
    description: Passing an invalid callback now throws zyzzyva errors.
-->

When `delay` is larger than 2147483647 or less than 1, the `delay` will be set to 1.
Non-integer delays are truncated to an integer.

## `clearTimeout(timeout)`

Cancels a `Timeout` object created by `setTimeout()`.

[`setTimeout()`]: #settimeoutcallback-delay-args
[`Timeout`]: #class-timeout
[quuxwidget]: https://example.org/quuxwidget
"""


def _chunks(size: int = 800) -> list[tuple[str, tuple[tuple[int, int, str], ...]]]:
    doc = MarkdownLoader().load(Path("timers.md"), PAGE.encode())
    chunks = chunk_text("d", doc.text, size=size, overlap=40, sections=doc.sections,
                        pages=doc.pages, roles=doc.roles)
    for c in chunks:
        assert c.text == doc.text[c.start_char:c.end_char]  # offsets stay exact
    return [(c.text, c.roles) for c in chunks]


@pytest.mark.parametrize("size", [800, 120])
def test_a_chunk_begins_and_ends_with_visible_text(size: int) -> None:
    chunks = _chunks(size)
    assert chunks
    for text, _ in chunks:
        assert not text.startswith(("<!--", "[")), text
        assert not text.rstrip().endswith(("-->", "quuxwidget")), text
    # The link definitions at the page's end make no chunk of their own.
    assert not any("example.org" in text for text, _ in chunks)
    # The prose under each heading is still chunked.
    joined = " ".join(text for text, _ in chunks)
    assert "will be set to 1" in joined and "Cancels a `Timeout` object" in joined


def test_the_indexes_read_hidden_spans_blanked() -> None:
    chunks = _chunks()
    text, roles = next((t, r) for t, r in chunks if "zyzzyva" in t)  # between two visible lines
    read = indexed_text(text, roles)
    assert "zyzzyva" not in read and "pr-url" not in read
    assert len(read) == len(text) and "will be set to 1" in read
    assert indexed_text("no roles here", ()) == "no roles here"


def test_a_hidden_word_matches_nothing_and_the_stored_text_keeps_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "timers.md").write_text(PAGE, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        assert kb.search("zyzzyva", k=3, mode="lexical") == []
        assert kb.search("quuxwidget", k=3, mode="lexical") == []
        hits = kb.search("delay truncated integer", k=3, mode="lexical")
        assert hits and "truncated to an integer" in hits[0].text
        # What the embedding workers are handed is blanked as well …
        doc_id = hits[0].document_id
        block = kb.store.block_chunks(doc_id, 0)
        assert block and not any("zyzzyva" in t for _, t in block)
        # … while the stored text, which citations quote, is the file's own.
        stored = kb.store.get_document(kb.tenant, doc_id)
        assert stored is not None and "zyzzyva" in stored.text


@pytest.mark.postgres
def test_postgresql_search_reads_hidden_spans_blanked(pg_url: str, tmp_path: Path) -> None:
    """PostgreSQL's lexical column is generated in the database, not built from Python's
    rows: its SQL twin of ``indexed_text`` blanks the same spans. (PostgreSQL's own parser
    already skips an HTML comment as a tag; a link definition between two paragraphs was
    indexed.) A database whose column was generated from the whole text (before this) is
    rebuilt when a knowledge base opens it, and a chunk whose roles are not JSON is indexed
    whole, as Python reads it."""
    import sqlalchemy as sa

    from citewise.knowledge.index import lexical_postgres_schema as schema
    from citewise.store.postgres import PostgresStore

    KnowledgeBase.open_postgres(pg_url, dense=False).close()
    with PostgresStore(pg_url) as store, store.engine.begin() as conn:
        conn.exec_driver_sql(f"ALTER TABLE chunks DROP COLUMN {schema.COLUMN}")
        conn.exec_driver_sql(
            f"ALTER TABLE chunks ADD COLUMN {schema.COLUMN} tsvector GENERATED ALWAYS AS"
            f" (to_tsvector('english', {schema.ANALYSE}(text))) STORED")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "timers.md").write_text(PAGE, encoding="utf-8")
    (docs / "intervals.md").write_text(
        "# Intervals\n\nAn interval repeats its callback every `delay` milliseconds.\n\n"
        "[wibblefrotz]: https://example.org/wibblefrotz\n\n"
        "Calling `clearInterval()` stops the repetition.\n", encoding="utf-8")
    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        kb.ingest([docs])
        assert kb.search("zyzzyva", k=3, mode="lexical") == []
        assert kb.search("wibblefrotz", k=3, mode="lexical") == []
        hits = kb.search("interval repeats stops repetition", k=3, mode="lexical")
        assert hits and "wibblefrotz" in hits[0].text  # one chunk, the definition inside
        hits = kb.search("delay truncated integer", k=3, mode="lexical")
        assert hits and "truncated to an integer" in hits[0].text
        stored = kb.store.get_document(kb.tenant, hits[0].document_id)
        assert stored is not None and "zyzzyva" in stored.text
        with kb.store.engine.begin() as conn:  # type: ignore[attr-defined]
            indexed = conn.execute(sa.text(
                f"SELECT {schema.INDEXED_TEXT}(:t, :r)"), {"t": "ab zyzzyva cd", "r": '[[3,10,"hidden"]]'}
            ).scalar_one()
            assert indexed == "ab " + " " * 7 + " cd"
            for roles in ('[[3,10,"hidden"', '[[3,99,"hidden"]]', '[["x",10,"hidden"]]', None):
                assert conn.execute(sa.text(f"SELECT {schema.INDEXED_TEXT}(:t, :r)"),
                                    {"t": "ab zyzzyva cd", "r": roles}).scalar_one() == "ab zyzzyva cd"
            # Non-ASCII text: offsets count characters, as Python's do.
            assert conn.execute(sa.text(f"SELECT {schema.INDEXED_TEXT}(:t, :r)"),
                                {"t": "é€ zyzzyva x", "r": '[[3,10,"hidden"]]'}).scalar_one() \
                == indexed_text("é€ zyzzyva x", ((3, 10, "hidden"),))
