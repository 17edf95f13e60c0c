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
