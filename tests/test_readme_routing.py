"""Twenty npm libraries' READMEs, each README.md.gz in its package's folder (a new user's
review, 2026-12-07): the file names told no library from another, and a question naming
one ("Does node-fetch reject …?") was answered from another's README. A file named as every
project names one is named by its folder."""

from __future__ import annotations

from pathlib import Path

from citewise import Agent, KnowledgeBase
from citewise.models.sentence_routing import document_terms

FETCH = """# Motivation

Instead of implementing XMLHttpRequest in Node.js, we use the native http module.

## Handling client and server errors

NOTE: 3xx-5xx responses are NOT exceptions and should be handled in then().

A rejected promise means a network error, such as a refused connection.
"""

CACHE = """# lru-cache

A cache object that deletes the least-recently-used items.

## Options

If a fetchMethod throws an error or returns a rejected promise, the stale value is removed.

Errors in fetchMethod reject the promise returned by fetch().
"""


def test_a_readme_is_named_by_its_folder() -> None:
    assert {"fetch"} <= document_terms("Motivation", "/docs/node-fetch/README.md.gz")
    assert "library" not in document_terms("Lists", "/docs/library/os.html")
    assert "library" in document_terms("Library", "/docs/library/index.html")
    # A folder named for what it holds, or by a program, names no document.
    assert document_terms("Welcome", "/x/sphinx-doc/html/index.html") == {"welcom", "index"}
    assert document_terms("M", "/tmp/tmpab12cd/index.html") == {"m", "index"}
    assert "upload" not in document_terms("R", "/srv/kb/upload-3f9a2c/README.md")


def test_a_question_naming_a_library_is_answered_from_its_readme(tmp_path: Path) -> None:
    for folder, text in (("node-fetch", FETCH), ("lru-cache", CACHE)):
        (tmp_path / "docs" / folder).mkdir(parents=True)
        (tmp_path / "docs" / folder / "README.md").write_text(text, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "docs"])
        answer = Agent(kb).ask(
            "Does node-fetch reject the promise when the server answers with a 404 status?")
    assert answer.citations, answer.text
    first = answer.search_documents[answer.citations[0].document_index - 1]
    assert "node-fetch" in first.source, (first.source, answer.text)
