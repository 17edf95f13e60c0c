"""reStructuredText's field lists and option lists as a reader of the rendered page reads
them (the rST review's "Author" / "Andrew Dalke" on two lines, 2026-12-04). A field is one
line, "Author: Andrew Dalke"; Sphinx's info fields in an API description read as its HTML
labels them ("Parameter timeout: …", "Returns: …"); an option list's options are one term
line over their description, as a man page prints them, not a paragraph per option and
another per argument."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

PAGE = """
Sorting HOW TO
==============

:Author: Andrew Dalke and Raymond Hettinger
:Release: 0.1

Options
-------

-v, --verbose   Print every file as it is sorted.
-o FILE, --output=FILE
                Write the sorted lines to FILE
                instead of standard output.
-k KEY          Sort on KEY, one of:

                -n   numbers
                -t   text

API
---

.. function:: wait(timeout=None)

   Block until the sort is done.

   :param timeout: seconds to wait, or None to wait forever
   :type timeout: float
   :returns: whether the sort finished
   :rtype: bool
   :raises ValueError: if timeout is negative
   :meta private:

:Authors:
   - Ann
   - Bob
:Meta data: kept as text
"""


def _load(tmp_path: Path) -> tuple[str, list[tuple[int, int, str]]]:
    path = tmp_path / "sorting.rst"
    path.write_text(PAGE, encoding="utf-8")
    doc = load(path)
    return doc.text, doc.roles


def test_a_field_is_one_line_with_its_name(tmp_path: Path) -> None:
    text, _ = _load(tmp_path)
    assert "Author: Andrew Dalke and Raymond Hettinger\n\nRelease: 0.1" in text
    # A field whose body is a list: its name leads the list.
    assert "Authors:\n- Ann\n- Bob" in text
    assert "Meta data: kept as text" in text  # only autodoc's ":meta x:" is a setting


def test_sphinx_info_fields_read_as_its_html_labels_them(tmp_path: Path) -> None:
    text, _ = _load(tmp_path)
    for line in ("Parameter timeout: seconds to wait, or None to wait forever",
                 "Type of timeout: float", "Returns: whether the sort finished",
                 "Return type: bool", "Raises ValueError: if timeout is negative"):
        assert line in text, line
    assert "param" not in text and "private" not in text


def test_an_option_lists_options_are_one_term_over_their_description(
        tmp_path: Path) -> None:
    text, roles = _load(tmp_path)
    assert "-v, --verbose\nPrint every file as it is sorted." in text
    entry = "-o FILE, --output=FILE\nWrite the sorted lines to FILE instead of standard output."
    assert entry in text
    at = text.index(entry)
    assert (at, at + len("-o FILE, --output=FILE"), "term") in roles
    # An option list inside a description is its own: once, and not on the outer term.
    assert "-k KEY\nSort on KEY, one of:\n\n-n\nnumbers\n\n-t\ntext" in text
    assert text.count("numbers") == 1
