"""What a table's rows say beyond their cells: the entry a header row names, and whether a
row's empty first cell holds a column's place.

Apart from :mod:`._html_blocks` (facts about one element) because these look across a
table's rows: Exim's one-row header table over each option ("max_rcpt | Use: smtp | Type:
integer | Default: 100") and nginx's "Syntax: / Default: / Context:" table name the entry
that follows; a zone file's records keep their columns when a row's first cell is blank.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.knowledge.loaders._html_blocks import class_names, table_of

__all__ = ["column_used", "entry_name", "first_cell"]


def entry_name(node: Any) -> str:
    """The name an entry's header row gives ("" for any other table): a table of one row,
    a name and fields ("max_rcpt | Use: smtp | Type: integer | Default: 100", over each
    option of Exim's specification). 437 options' descriptions sat in four sections, a
    chunk ran over three of them, and a quote never said which one it was about (review,
    2026-12-05): each is a section named by its option, its header row still text."""
    if node.tag != "table":
        return ""
    rows = node.css("tr")
    syntax = _directive_name(rows)
    if syntax:
        return syntax
    if len(rows) != 1:
        return ""
    cells = [" ".join((c.text(deep=True) or "").split()) for c in rows[0].css("td, th")]
    if len(cells) < 3 or not cells[0] or len(cells[0]) > _NAME_CHARS or " " in cells[0]:
        return ""
    fields = [_FIELD.match(c) for c in cells[1:]]
    if not all(fields) or not any(f and f.group(1).lower() in _OPTION_FIELDS for f in fields):
        return ""  # "Author | Version: 1.2 | Date: 2020" heads no entry
    return cells[0]


def _directive_name(rows: list[Any]) -> str:
    """The directive a "Syntax: … / Default: … / Context: …" table describes, named by its
    syntax's first word: nginx's reference sets each directive so, with no heading (all of
    the core module's ~90 directives were one section, "Directives": review, 2026-12-05).
    Apache's tables open with "Description:" under a heading of their own: none."""
    heads = [" ".join((r.css_first("th").text(deep=True) or "").split()) if r.css_first("th")
             is not None else "" for r in rows]
    if len(rows) < 2 or heads[0] != "Syntax:" or "Default:" not in heads:
        return ""
    cell = rows[0].css_first("td")
    words = (cell.text(deep=True) or "").split() if cell is not None else []
    name = words[0].rstrip(";") if words else ""
    return name if 0 < len(name) <= _NAME_CHARS else ""


_NAME_CHARS = 80
_FIELD = re.compile(r"([A-Z][\w ]{0,20}): \S")  # "Use: smtp", "Default: unset"
_OPTION_FIELDS = frozenset(("type", "default", "use"))


def first_cell(cell: Any) -> bool:
    """Whether ``cell`` opens a row that has text."""
    node = cell.prev
    while node is not None and node.tag not in ("td", "th"):
        node = node.prev
    return node is None and cell.parent is not None and bool(
        (cell.parent.text(deep=True) or "").strip())


def column_used(cell: Any, known: dict[int, bool]) -> bool:
    """Whether ``cell``'s table is a grid whose first column has text in a third of its rows
    or more (a zone's name over three blank ones): every row the same three or more cells,
    none spanning rows or columns (a zone file's records, a puzzle, a feature matrix). A
    layout table's indenting cell (argparse's option tables, DocBook's note icon, the
    hanging indent of Doxygen's signatures) is no column. ``known``: the answer for each table
    already asked about, so a long table is read once."""
    table = table_of(cell)
    if table is None:
        return False
    if table.mem_id not in known:
        rows = [row.css("td, th") for row in table.css("tr")]
        known[table.mem_id] = (
            len({len(r) for r in rows}) == 1 and len(rows[0]) >= _GRID
            and not any("rowspan" in c.attributes or "colspan" in c.attributes
                        for r in rows for c in r)
            and "memname" not in class_names(table)  # Doxygen's signature: an indent
            and 3 * sum(bool((r[0].text(deep=True) or "").strip()) for r in rows) >= len(rows))
    return known[table.mem_id]


_GRID = 3  # columns: fewer is a term and its description, or a layout
