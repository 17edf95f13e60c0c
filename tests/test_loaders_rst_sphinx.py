"""Sphinx's reStructuredText as Python's own documentation writes it (the ``_sources`` of
``python3.11-doc``, a new user's review, 2026-12-04): backslash escapes, version notes, the
doctest extension's blocks, "See also", a page's settings for Sphinx. docutils knows none of
Sphinx's directives; each was read as prose, or its label was lost."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

PAGE = r"""
:tocdepth: 2

Sorting Techniques
==================

Sorts are guaranteed to be `stable
<https://en.wikipedia.org/wiki/Sorting_algorithm#Stability>`_\. The :term:`iterator`\s of
a list are cheap, and ``__slots__`` is spelled \_\_slots\_\_ too.

.. versionchanged:: 3.9
   The *encoding* argument was added.

.. versionadded:: 3.11

.. versionadded:: 3.6 ``_missing_``, ``_order_``

.. seealso::

   :ref:`urllib-howto` for extensive examples.

.. testsetup::

   A = [[None] * 2] * 3

.. testcode::

   class A:
       x = 5                       # Regular class attribute
       y = Ten()                   # Descriptor instance

.. testcode::
   :hide:

   assert A.x == 5

Done.
"""


def _load(tmp_path: Path, name: str = "sorting.rst") -> tuple[str, list[tuple[int, int, str]]]:
    path = tmp_path / name
    path.write_text(PAGE, encoding="utf-8")
    doc = load(path)
    return doc.text, doc.roles


def test_backslash_escapes_leave_no_nul_in_the_text(tmp_path: Path) -> None:
    text, _ = _load(tmp_path)
    assert "\x00" not in text
    assert "Sorts are guaranteed to be stable. The iterators of a list are cheap" in text
    assert "spelled __slots__ too." in text


def test_version_notes_read_as_sphinx_writes_them(tmp_path: Path) -> None:
    text, roles = _load(tmp_path)
    for note in ("Changed in version 3.9: The encoding argument was added.",
                 "New in version 3.11.", "New in version 3.6: _missing_, _order_"):
        assert note in text, note
        at = text.index(note)
        assert any(a <= at < b and role == "version_note" for a, b, role in roles), note


def test_see_also_test_code_and_page_settings(tmp_path: Path) -> None:
    text, roles = _load(tmp_path)
    assert "See also: urllib-howto for extensive examples." in text
    # Test code shown is code, its lines and comments as written; hidden and set-up code
    # is not on the page a reader sees.
    code = "class A:\n    x = 5                       # Regular class attribute\n"
    assert code in text
    assert any(a == text.index(code) and role == "code" for a, b, role in roles)
    assert "assert A.x" not in text and "[[None] * 2] * 3" not in text
    assert "tocdepth" not in text and text.startswith("Sorting Techniques")


def test_an_rst_txt_page_reads_the_same(tmp_path: Path) -> None:
    # Python's sources are shipped as "sorting.rst.txt": the text loader reads them as rST.
    assert _load(tmp_path, "sorting.rst.txt") == _load(tmp_path)


DOMAINS = """Builders
========

.. module:: sphinx.builders.dummy
.. class:: DummyBuilder

   This builder produces no output.

.. class:: special

A paragraph docutils gives the class "special".

.. rst:directive:: .. default-domain:: name

   Select a new default domain.

.. confval:: napoleon_numpy_docstring

   True to parse `NumPy style`_ docstrings, all levels included. [#]_

.. todo:: Move this whole section into a guide.

.. _NumPy style: https://numpydoc.org
"""


def test_sphinx_s_class_and_rst_directive_entries_keep_their_names(tmp_path: Path) -> None:
    """Sphinx's review (2026-12-07): ".. class:: DummyBuilder" is the Python domain's (every
    builder of its sources was lost as docutils' class attribute), and ".. rst:directive::
    .. default-domain:: name" shows the directive as written (parsed, only "name" was
    left). docutils' own class directive ("special") still shows nothing."""
    path = tmp_path / "builders.rst"
    path.write_text(DOMAINS, encoding="utf-8")
    doc = load(path)
    assert "DummyBuilder\n\nThis builder produces no output." in doc.text, doc.text
    assert "special" not in doc.text.replace('class "special"', "")
    term = ".. default-domain:: name"
    assert f"{term}\n\nSelect a new default domain." in doc.text, doc.text
    start = doc.text.index(term)
    assert (start, start + len(term), "term") in doc.roles
    # A reference whose target is outside the directive's body, and a todo's label.
    assert "True to parse NumPy style docstrings, all levels included. [#]" in doc.text
    assert "Todo: Move this whole section into a guide." in doc.text, doc.text


def test_a_role_s_name_keeps_its_underscores_and_examples_stay_as_written(tmp_path: Path) -> None:
    """The code review (2026-12-07): the reference rule took the trailing underscore off
    every role's name (":meth:`__init__`" read "__init_", SQLAlchemy's "and_" "and"); the
    ".. class::" rewrite reached into a literal block's example; a lower-case class of a
    Sphinx source was still lost; an rST directive's name read "toctree", not as Sphinx
    shows it."""
    path = tmp_path / "api.rst"
    path.write_text("API\n===\n\nCall :meth:`__init__` and :func:`sqlalchemy.and_`.\n\n"
                    "It produces source like this::\n\n   .. class:: Noodle\n\n"
                    "      A noodle.\n\n.. class:: object\n\n   Return a new featureless "
                    "object.\n\n.. rst:directive:: toctree\n\n   A tree of documents.\n",
                    encoding="utf-8")
    doc = load(path)
    assert "Call __init__ and sqlalchemy.and_." in doc.text, doc.text
    assert ".. class:: Noodle" in doc.text, doc.text
    assert "object\n\nReturn a new featureless object." in doc.text, doc.text
    assert ".. toctree::\n\nA tree of documents." in doc.text, doc.text
