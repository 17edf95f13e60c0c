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
