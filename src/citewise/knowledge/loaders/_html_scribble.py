"""Scribble's pages (Racket's documentation, and every package's ``raco setup`` builds):
what its stylesheet shows as code, as lines, or not at all.

Why apart from the general rules: Scribble draws code, signatures and grammars as tables
of spacer cells, and these class names mean so only on its pages (one other generator's
table drawn the same way, DocBook XSL's ``funcprototype-table``, is read with them). Found
by a new-user review of Debian's ``racket-doc`` 8.7 (2026-12-06):

- a code block is a ``<table class="RktBlk">`` of one row a line, its indentation
  ``<span class="hspace">&nbsp;&nbsp;</span>``: read as a table, "(define (always-fail n)
  | (with-handlers …" was one line of cells, and "(tcp-listen | | port-no | | | | …" a
  signature; a ``prototype`` (a signature over several lines), a ``specgrammar`` and an
  ``SVerbatim`` block are drawn the same way;
- an argument's contract on a line of its own is a table too (``argcontract``), as is a
  module's ``(require racket/tcp)`` line beside its package (``defmodule``): lines of
  prose-like text, not code and not a table's row;
- a definition's box (``boxed RBoxed``, ``together``) lays out its signature over its
  arguments' lines: each of its cells is a block, and the box opens a section named by
  what it defines (:func:`defined_name`: a Reference page was one section, "15.3.1 TCP",
  and quotes of ``tcp-listen`` and ``tcp-connect`` ran on as one paragraph);
- chrome: the contents sidebar (``tocset``: "► | 15 | Operating System", "On this
  page:"), the bars with the search box (``navsettop``, ``navsetbottom``), the grey
  "procedure" label behind a signature (``RBackgroundLabel``), and the margin notes that
  point into another manual, drawn with a magnifying glass or a finger (``refpara`` with
  ``span.imageleft``: "Symbols in The Racket Reference provides more on symbols.", quoted
  as the answer to whether symbols are case-sensitive). A margin note without the icon
  says something of its own ("Use #lang racket/base instead of #lang racket to produce
  scripts with a faster startup time.") and is read.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.knowledge.loaders._html_generators import class_names

__all__ = ["LAYOUT_TABLES", "LINE_TABLES", "cell_text", "defined_name", "is_code_table",
           "is_scribble_chrome", "table_lines"]

#: Tables read as lines of code, a row a line (and the code role); and DocBook XSL's
#: function synopsis, its prototype laid out in a borderless table, a parameter a row
#: ("int pam_start( | service_name, |" was a table's rows: Linux-PAM's guides, new-user
#: review 2026-12-07).
_CODE_TABLES = frozenset(("rktblk", "prototype", "specgrammar", "sverbatim",
                          "funcprototype-table"))
#: … as lines too, but of text: an argument's contract, a module's require line.
LINE_TABLES = frozenset(("argcontract", "defmodule"))
#: A definition's box: its cells are blocks.
LAYOUT_TABLES = frozenset(("rboxed", "together"))
_CHROME = frozenset(("tocset", "navsettop", "navsetbottom", "rbackgroundlabel"))


def is_code_table(node: Any) -> bool:
    """A Scribble table whose rows are lines (of code, or of :data:`LINE_TABLES`' text), or
    DocBook's function prototype."""
    return node.tag == "table" and not class_names(node).isdisjoint(_CODE_TABLES | LINE_TABLES)


def is_scribble_chrome(node: Any) -> bool:
    """Scribble's sidebar, search bars, background labels and margin notes that point."""
    if node.tag not in ("div", "blockquote"):
        return False
    classes = class_names(node)
    return not classes.isdisjoint(_CHROME) or (
        "refpara" in classes and node.css_first("span.imageleft") is not None)


def table_lines(node: Any, text: str) -> str:
    """A code table's text (``text``, its rows a line each) with its spacers' no-break
    spaces as spaces, as a ``<pre>``'s code and the page's prose are stored, and none at
    each line's end — nor, for lines of text, at its start: "(tcp-listen port-no", not
    "(tcp-listen\xa0port-no\xa0\xa0\xa0\xa0"; anything else's ``text`` as it is."""
    if not is_code_table(node):
        return text
    text = "\n".join(line.rstrip() for line in text.replace("\xa0", " ").split("\n"))
    if class_names(node).isdisjoint(LINE_TABLES):
        return text
    return "\n".join(line.lstrip() for line in text.split("\n"))


def cell_text(parent: Any, text: str) -> str:
    """A text node of a code table (under ``parent``) as a browser lays it out: white space
    between its rows and cells is none, and inside a cell a run of it is one space (its
    indentation is the no-break spaces, which stay)."""
    if parent.tag in _STRUCTURE and not text.strip(" \t\r\n"):
        return ""
    return _SPACES.sub(" ", text)


_STRUCTURE = frozenset(("table", "tbody", "thead", "tfoot", "tr"))
_SPACES = re.compile(r"[ \t\r\n]+")


def defined_name(node: Any) -> str:
    """What a definition's box defines (``tcp-listen``): the first name it links as a
    definition; "" for any other table."""
    if node.tag != "table" or class_names(node).isdisjoint(LAYOUT_TABLES):
        return ""
    link = node.css_first("a.RktValDef, a.RktStxDef, a.RktSymDef")
    name = " ".join((link.text(deep=True) or "").split()) if link is not None else ""
    return name if len(name) <= _NAME_CHARS else ""


_NAME_CHARS = 80
