"""A language named by a letter and symbols ("C++", "C#") is one word to every index and
word list. A word tokenizer kept the letter and dropped the symbols, and the keyword
extraction dropped a one-letter word altogether, so a question about C++ was a question
about nothing in particular: over CMake's manual it quoted the C pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise import Agent
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.retrieve.query import keywords
from citewise.text import content_terms, search_text, symbol_names, terms

# Two look-alike pages, as CMake's C_STANDARD and CXX_STANDARD are.
C_PAGE = """# C_STANDARD

The C standard whose features are requested to build this target.

This property specifies the C standard whose features are requested to build this
target. For some compilers, this results in adding a flag such as -std=gnu11 to the
compile line. Supported values are 90, 99, 11, 17 and 23.

If the value requested does not result in a compile flag being added for the compiler
in use, the build fails with an error naming the target.
"""

CXX_PAGE = """# CXX_STANDARD

The C++ standard whose features are requested to build this target.

This property specifies the C++ standard whose features are requested to build this
target. For some compilers, this results in adding a flag such as -std=gnu++11 to the
compile line. Supported values are 98, 11, 14, 17, 20, 23 and 26.

If the value requested does not result in a compile flag being added for the compiler
in use, a previous standard flag will be added instead.
"""

CSHARP_PAGE = """# Managed targets

A C# project is built by the Visual Studio generators only.
"""


def test_a_letter_named_by_its_symbols_is_one_word() -> None:
    assert terms("C++ and C# and F#") == ["cplusplus", "and", "csharp", "and", "fsharp"]
    assert terms("C++17, g++ -O2") == ["cplusplus", "17", "gplusplus", "o2"]
    assert terms("C++'s rules") == ["cplusplus", "rules"]
    assert content_terms("the C++ standard") == content_terms("the cplusplus standard")
    assert keywords("Does CMake support the C++ standard?") == [
        "cmake", "support", "c++", "standard"]
    assert keywords("C# or C++17?") == ["c#", "c++", "17"]
    # The letter and the symbols must stand alone.
    for text in ("dc++", "issue#3", "#define", "C+++", "a+b", "x += 1", "C++x"):
        assert symbol_names(text) == text, text
    assert search_text("C++ 标准", unigrams=True) == "Cplusplus  标准 标 准 "
    # Written without spaces beside CJK text, and only ASCII counts as a letter or digit
    # around it, as in the SQL twin (whose classes follow the database's locale).
    assert "cplusplus" in terms("我用C++编程") and "csharp" in terms("日本語のC#入門")
    assert symbol_names("C++²") == "Cplusplus²" and symbol_names("éC++") == "éCplusplus"


def test_a_cplusplus_sentence_is_no_c_sentence_in_the_evidence_window() -> None:
    # The ASCII fast path read a snippet's "C++" as "c": which sentence answered "C
    # standard" depended on whether the snippet had a non-ASCII character somewhere.
    from citewise.knowledge.retrieve.evidence import best_window

    snippet = "The C++ standard is set by this flag, always. The C standard is set by that flag, always."
    for text in (snippet, snippet + " é"):
        window = best_window("which flag sets the C standard", text)
        assert window is not None and window.text.startswith("The C standard"), text


def test_the_evidence_window_is_the_sentence_about_cplusplus() -> None:
    from citewise.knowledge.retrieve.evidence import best_window

    snippet = "The C standard adds the flag -std=gnu11. The C++ standard adds the flag -std=gnu++11."
    window = best_window("which flag does the C++ standard add", snippet)
    assert window is not None and window.text == "The C++ standard adds the flag -std=gnu++11."


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "C_STANDARD.md").write_text(C_PAGE, encoding="utf-8")
    (folder / "CXX_STANDARD.md").write_text(CXX_PAGE, encoding="utf-8")
    (folder / "managed.md").write_text(CSHARP_PAGE, encoding="utf-8")
    return folder


def _first_sources(kb: KnowledgeBase, question: str) -> list[str]:
    return [Path(h.source).name for h in kb.search(question, k=3, mode="lexical")]


def test_a_cplusplus_question_finds_the_cplusplus_page(docs: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        assert _first_sources(kb, "which C++ standard values are supported")[0] == (
            "CXX_STANDARD.md")
        assert _first_sources(kb, "C#") == ["managed.md"]
        assert kb.index.query_terms("C++ or C#?") == ["cplusplus", "or", "csharp"]  # type: ignore[attr-defined]


def test_the_answer_quotes_the_cplusplus_page(docs: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask("What if the C++ standard I request gives my compiler no flag?")
    assert answer.citations
    first = answer.citations[0]
    doc = answer.search_documents[first.document_index - 1]
    assert doc.source.endswith("CXX_STANDARD.md")
    assert "a previous standard flag will be added instead" in first.excerpt


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_reads_symbol_names_the_same_way(pg_url: str, docs: Path) -> None:
    import sqlalchemy as sa

    from citewise.knowledge.index.lexical_postgres_schema import SYMBOL_NAMES

    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        kb.ingest([docs])
        with kb.store.engine.connect() as conn:  # type: ignore[attr-defined]
            for text in ("C++ and C# and F#", "C++17, g++ -O2", "dc++ issue#3 #define C+++ C++x",
                         "plain text", "我用C++编程", "C++² éC++ _C# 9C#"):
                spelled = conn.execute(sa.text(f"SELECT {SYMBOL_NAMES}(:t)"), {"t": text}).scalar()
                assert spelled == symbol_names(text), text
        assert _first_sources(kb, "which C++ standard values are supported")[0] == (
            "CXX_STANDARD.md")
        assert _first_sources(kb, "C#") == ["managed.md"]
