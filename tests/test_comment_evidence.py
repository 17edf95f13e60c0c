"""A source or configuration file's comments are evidence (Debian's example nginx.conf,
new-user review 2026-12-06: every question about it was declined at answerability 0.00).
The loader marks runs of whole-line comments, and the candidates read their sentences: cut
where a comment starts and ends, without a line's marker, and on over a line break — in
"#" languages, "//" ones, "--" ones and with Windows line ends alike; a block comment or a
docstring that starts a line too, without its closing marker."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.knowledge.loaders import default_registry
from citewise.models.sentence_candidates import candidates


def _sentences(tmp_path: Path, name: str, text: str) -> list[tuple[str, str | None]]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    doc = default_registry().for_file(path)
    assert doc is not None
    loaded = doc.load(path, path.read_bytes())
    assert loaded.text == text.replace("\r\n", "\n") or loaded.text == text
    results = [{"text": loaded.text, "source": str(path), "title": loaded.title, "section": "",
                "roles": [list(r) for r in loaded.roles], "document_index": 1}]
    return [(s.text, s.role) for s in candidates([{"results": results}])
            if s.asserts and s.role == "comment"]


@pytest.mark.parametrize(("name", "text"), [
    ("nginx.conf", "# Sets the user. If group is not specified, group is assumed\n"
                   "# to be the same as user.\nuser www-data;\n"),
    ("server.go", "package main\n\nx := 1\n// Sets the user. If group is not specified, group"
                  " is assumed\n// to be the same as user.\nfunc main() {}\n"),
    ("schema.sql", "CREATE TABLE t (id int);\n-- Sets the user. If group is not specified, "
                   "group is assumed\n-- to be the same as user.\nSELECT 1;\n"),
    ("crlf.conf", "# Sets the user. If group is not specified, group is assumed\r\n"
                  "# to be the same as user.\r\nuser www-data;\r\n"),
    # a block comment and a docstring (nginx's review, 2026-12-06: not told from code)
    ("user.c", "int x = 1;\n/**\n * Sets the user. If group is not specified, group is "
               "assumed\n * to be the same as user.\n */\nint main(void) { return x; }\n"),
    ("style.css", "a { color: red; }\n  /* Sets the user. If group is not specified, group "
                  "is assumed\n     to be the same as user. */\nb { color: blue; }\n"),
    ("user.py", 'x = 1\ndef user():\n    """Sets the user. If group is not specified, group '
                'is assumed\n    to be the same as user.\n    """\n    return x\n'),
])
def test_a_comments_sentences_are_candidates_whatever_its_marker(
        tmp_path: Path, name: str, text: str) -> None:
    got = [s for s, _ in _sentences(tmp_path, name, text)]
    assert got[0] == "Sets the user.", got
    assert got[1].startswith("If group is not specified") and len(got) == 2
    assert got[1].endswith("to be the same as user.") and got[1].count("\n") == 1
    # No line of code ran into a comment's sentences.
    assert not any(code in s for s in got for code in ("x := 1", "user www-data", "SELECT"))


def test_a_marker_inside_a_sentence_and_a_title_line_stay_as_written(tmp_path: Path) -> None:
    """A review of the change: "%d" at a sentence's start inside a comment lost its "%"
    (every language's marker was stripped from every sentence), and a title line ran into
    the comment under it ("Logging" / "Sets the log level for the workers.")."""
    got = [s for s, _ in _sentences(tmp_path, "fmt.c", (
        "// Format strings. %d prints an integer in decimal form.\n"
        "int x;\n"
        "// Logging\n// Sets the log level for the workers.\n"
        "int y;\n"))]
    assert "%d prints an integer in decimal form." in got
    assert "Sets the log level for the workers." in got
    assert not any(s.startswith("Logging") and "Sets" in s for s in got), got


def test_a_string_or_a_comment_after_code_is_no_comment_of_its_own(tmp_path: Path) -> None:
    """Only a block that starts a line is prose of its own: a string assigned, a comment
    after code on its line and one inside a line comment are not."""
    from citewise.knowledge.loaders.source import comments

    py = 'x = """Not a docstring, an assigned value."""\ny = 2  # A trailing note here.\n'
    assert comments(py, "python") == []
    c = "int x; /* After code on the line. */\n// A line comment /* with a block in it */\n"
    assert [c[a:b] for a, b, _ in comments(c, "c")] == [
        "// A line comment /* with a block in it */"]
    for text, language in (("/* ---- */\n", "c"), ('""" """\n', "python")):
        assert comments(text, language) == []  # no letter: no prose


def test_code_between_comments_is_kept_apart_from_both(tmp_path: Path) -> None:
    """A span of code before, between and after comments stays code: the comments'
    sentences are read alone, whichever run is first."""
    text = ("int a = 1;\n/* The first block says this. Files open read-only. */\nint b = 2;\n"
            "// The second comment says that. Files close on exit.\nint c = 3;\n")
    got = [s for s, _ in _sentences(tmp_path, "two.c", text)]
    assert got == ["The first block says this.", "Files open read-only.",
                   "The second comment says that.", "Files close on exit."], got


def test_a_closing_quote_on_its_own_line_opens_no_docstring() -> None:
    """A review of the change: the closing triple quote of an assigned string starts a line,
    and the code after it up to the next docstring's quotes was read as prose."""
    from citewise.knowledge.loaders.source import comments

    q = '"' * 3
    py = (f"def run():\n    query = {q}\n    SELECT 1\n    {q}\n    return run(query)\n\n\n"
          f"def other():\n    {q}Other does things.{q}\n")
    assert [py[a:b] for a, b, _ in comments(py, "python")] == [f"{q}Other does things."]
    broken = f"def f():\n    {q}Half a docstring.\n"  # unterminated: nothing, no error
    assert comments(broken, "python") == []


def test_comments_of_a_large_file_of_both_styles_and_of_unclosed_blocks() -> None:
    """Both comment styles over and over, and lines that open a block never closed (a
    review of the change: each block was checked against every line comment, and an
    unclosed opener searched to the end of the file from every line, 51 s for 540 KB; the
    time is ``bench/ingest.py``'s to measure, the result is this test's)."""
    from citewise.knowledge.loaders.source import comments

    mixed = "// a\nint x;\n/* b */\nint y;\n" * 20_000
    got = comments(mixed, "c")
    assert len(got) == 40_000 and {mixed[a:b] for a, b, _ in got} == {"// a", "/* b"}
    assert comments("/* x\n" * 20_000, "c") == []
    assert comments("int x;\n/* a */\n/* never closed\n/* b */\n", "c") == [
        (7, 11, "comment"), (15, 35, "comment")]  # the second opener runs to the first close


def test_a_docstrings_text_keeps_what_looks_like_a_marker(tmp_path: Path) -> None:
    """Inside a docstring nothing is a comment marker (a review of the change: "%s is
    replaced" lost its "%", "**Note**" its asterisks, "-- options" its dashes); a line
    comment inside a docstring or a block is part of it, not a comment of its own."""
    from citewise.knowledge.loaders.source import comments

    q = '"' * 3
    text = (f"def f():\n    {q}Format the value.\n\n    %s is replaced by the value's name.\n"
            f"    **Note** that the width is fixed.\n    -- options are passed on unchanged.\n"
            f"\n    # Arguments\n    x: the value.\n    {q}\n")
    got = [s for s, _ in _sentences(tmp_path, "fmt.py", text)]
    assert "%s is replaced by the value's name." in got, got
    assert any(s.startswith("**Note** that the width is fixed.") for s in got), got
    assert any(s.startswith("-- options are passed on unchanged.") for s in got), got
    assert len(comments(text, "python")) == 1
    c = "/* Opens it.\n// not a comment of its own\n */\nint x;\n"
    assert [c[a:b] for a, b, _ in comments(c, "c")] == ["/* Opens it.\n// not a comment of its own"]


def test_a_docstrings_sentence_is_cited_without_its_quotes(tmp_path: Path) -> None:
    """The verifier cut a docstring's lines as markdown: the excerpt of its first sentence
    kept the opening quotes and that of its last the closing ones, though the answer quoted
    each sentence without them (a review of comment evidence, 2026-12-06)."""
    from citewise import Agent
    from citewise.knowledge.base import KnowledgeBase

    q = '"' * 3
    (tmp_path / "fares.py").write_text(
        f"def fare(distance, klass):\n    {q}Train fares depend on the distance travelled "
        f"and the class.\n    A first-class ticket costs twice the second-class fare.{q}\n"
        "    return distance * (2 if klass == 1 else 1)\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert not kb.ingest([tmp_path / "fares.py"]).failed
        for question, said in [("What do train fares depend on?", "Train fares depend on the "
                                "distance travelled and the class."),
                               ("How much does a first class ticket cost?", "A first-class "
                                "ticket costs twice the second-class fare.")]:
            answer = Agent(kb).ask(question)
            text = (tmp_path / "fares.py").read_text()
            got = [(c.excerpt, text[c.start_char:c.end_char]) for c in answer.citations
                   if c.start_char is not None]
            assert got and got[0] == (said, said), (question, got)
