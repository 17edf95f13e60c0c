"""What a table's rows say beyond their cells: the entry a header row names, and whether a
row's empty first cell holds a column's place.

Apart from :mod:`._html_blocks` (facts about one element) because these look across a
table's rows: Exim's one-row header table over each option ("max_rcpt | Use: smtp | Type:
integer | Default: 100") and nginx's "Syntax: / Default: / Context:" table name the entry
that follows; a zone file's records keep their columns when a row's first cell is blank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from citewise.knowledge.loaders._html_blocks import element_sibling
from citewise.knowledge.loaders._html_generators import class_names
from citewise.knowledge.loaders._html_scribble import defined_name
from citewise.knowledge.loaders._html_tables import table_of

__all__ = ["RowSpans", "column_used", "entry_name", "field_names", "first_cell", "header_row",
           "mark_text"]


def entry_name(node: Any) -> str:
    """The name an entry's header row gives ("" for any other table): a table of one row,
    a name and fields ("max_rcpt | Use: smtp | Type: integer | Default: 100", over each
    option of Exim's specification). 437 options' descriptions sat in four sections, a
    chunk ran over three of them, and a quote never said which one it was about (review,
    2026-12-05): each is a section named by its option, its header row still text. A
    Scribble definition's box is one too, named by what it defines."""
    if node.tag != "table":
        return ""
    if defined := defined_name(node):  # Scribble's definition box
        return defined
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


def header_row(row: Any) -> bool:
    """Whether a table row names its table's columns ("Setting | Default | Meaning"): two
    cells or more, in a ``<thead>`` or every one a ``<th>``, over rows of ``<td>`` cells.
    It says what the rows below it are, as a heading does, and answers nothing: asked
    "what is the default timeout?", the header row was quoted for its word "Default",
    not the row of ``timeout`` under it."""
    cells = [c for c in row.iter() if c.tag in ("td", "th")]
    head = row.parent is not None and row.parent.tag == "thead"
    if len(cells) < 2 or not (head or all(c.tag == "th" for c in cells)):
        return False
    table = table_of(row)
    return table is not None and any(
        r is not row and r.css_first("td") is not None for r in table.css("tr"))


def field_names(table: Any) -> tuple[list[int], dict[int, str]] | None:
    """A table of one header row over one row of values, short ones, read as the values'
    fields: what is not written (the ``mem_id`` of its header row and of its empty value
    cells) and each other value cell's column name (written before it: "type: integer |
    default: 10 | mandatory: no"). Sphinx writes each of rsyslog's 708 parameters a table
    "type | default | mandatory | obsolete legacy directive" over "integer | 10 | no |
    none"; the row of values said no "default" and was never quoted, and a default of
    another parameter was (review, 2026-12-07). Only such a table right under its entry's
    heading, of three columns at least: "Setting | Meaning" over one row, or a firewall's
    "Service | Port | Enabled | External" after a paragraph, is a list that has one row.
    None for any other table."""
    rows = table.css("tr")
    if len(rows) != 2 or len(table.css("table")) > 1 or not _under_heading(table):
        return None
    heads, values = ([c for c in row.iter() if c.tag in ("td", "th")] for row in rows)
    if len(heads) < _FIELDS or len(heads) != len(values) or any(c.tag != "th" for c in heads) \
            or any(c.tag != "td" for c in values) \
            or any(_count(c, "colspan") > 1 or _count(c, "rowspan") > 1 for c in heads + values):
        return None
    if any(c.css_first(_BLOCKS) is not None for c in values):
        return None  # a value in blocks (code, a list) is read as blocks: no name before it
    if any(c.css_first("img") is not None and not (c.text(deep=True) or "").strip()
           for c in values):
        return None  # a tick drawn as an image ("(./)"): the table's mark, as before
    names = [" ".join((c.text(deep=True) or "").split()).rstrip(":") for c in heads]
    shown = [" ".join((c.text(deep=True) or "").split()) for c in values]
    if not all(0 < len(n) <= _FIELD_NAME for n in names) or any(
            len(v) > _FIELD_VALUE for v in shown):
        return None
    empty = [c.mem_id for c, v in zip(values, shown, strict=True) if not v]
    return [rows[0].mem_id, *empty], {c.mem_id: n for c, n, v in zip(
        values, names, shown, strict=True) if v}


def _under_heading(node: Any) -> bool:
    """Whether the element before ``node`` is a heading (``<h1>``…``<h6>``)."""
    before = element_sibling(node, "prev")
    return before is not None and before.tag in ("h1", "h2", "h3", "h4", "h5", "h6")


_BLOCKS = "pre, ul, ol, dl, table, blockquote"
_FIELDS = 3  # columns at least: a row of two ("Setting | Meaning" over one) is a list's
_FIELD_NAME = 40  # characters of a column's name, at most, for the row to read as fields
_FIELD_VALUE = 100  # and of a value: "Plain text | Typical result" over examples is a table


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
    if _corner(cell, table):
        return True
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


def _corner(cell: Any, table: Any) -> bool:
    """The blank header cell over a table's row labels, left of its column labels (GnuCash's
    ``<th>&nbsp;</th><th>XML</th><th>SQLite</th>…`` over "Availability", "File
    extension"…): left out, "XML" stood over the row labels and every backend one column
    left of its values (review, 2026-12-06). A row of header cells only, two or more of
    them labelled, and a row below it that has a label."""
    row = cell.parent
    if cell.tag != "th" or row is None:
        return False
    heads = row.css("td, th")
    rows = table.css("tr")
    below = [r.mem_id for r in rows].index(row.mem_id) + 1
    return all(c.tag == "th" for c in heads) and \
        sum(bool((c.text(deep=True) or "").strip()) for c in heads) >= 2 and any(
            (first := r.css_first("td, th")) is not None and (first.text(deep=True) or "").strip()
            for r in rows[below:])


@dataclass
class RowSpans:
    """Cells that span rows (``rowspan``), carried into each row they cover, as a reader
    sees them: Ant's attribute tables set one "See Command-line Arguments. | No" beside
    two attributes, and "suffix | No" read as if "No" were its description (review,
    2026-12-05). A carried cell reads as the walk wrote it in its own row; a long one (or
    one past a row's share) is not repeated: an empty cell keeps its place, so the row's
    later columns stay in theirs. ``row`` is told of each row as it starts, ``record`` of
    what a spanning cell read as, ``before`` and ``end_row`` say what to write."""

    # row → (texts before each of its cells, by the cell, and after its last one)
    rows: dict[int, tuple[dict[int, list[int]], list[int]]] = field(default_factory=dict)
    # row group (<tbody>, <thead>, <tfoot>) → first column → [rows still to cover, cell, width]
    open: dict[int, dict[int, list[int]]] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)  # spanning cell → what it read as

    def row(self, tr: Any) -> None:
        """Place ``tr``'s cells among the columns the rows above still cover."""
        if tr.mem_id in self.rows:
            return
        cells = [c for c in tr.iter() if c.tag in ("td", "th")]
        group = tr.parent.mem_id if tr.parent is not None else 0
        # A span ends with its row group, however many rows it names: cppreference's "(1)"
        # spans 142 rows of a <tbody> of three (browsers clip it so).
        spans = self.open.setdefault(group, {})
        covered = {col: entry for col, entry in spans.items()}
        before: dict[int, list[int]] = {}
        col = 0
        for cell in cells:
            carried = []
            while col in covered:
                entry = covered.pop(col)
                carried.append(entry[1])
                col += entry[2]
            before[cell.mem_id] = carried
            width = _count(cell, "colspan")
            if _count(cell, "rowspan") > 1:
                spans[col] = [_count(cell, "rowspan"), cell.mem_id, width]
                self.texts.setdefault(cell.mem_id, "")
            col += width
        after = [covered[c][1] for c in sorted(covered)]
        for key in list(spans):
            spans[key][0] -= 1
            if spans[key][0] <= 0:
                del spans[key]
        self.rows[tr.mem_id] = (before, after)

    def record(self, cell: Any, written: list[str]) -> None:
        """What ``cell``, if it spans rows, read as in its own row (the walk's parts)."""
        if cell.mem_id in self.texts:
            text = " ".join("".join(written).split())
            self.texts[cell.mem_id] = text if len(text) <= _CARRIED_CHARS else ""

    def before(self, cell: Any) -> list[str]:
        """The carried cells that go before ``cell`` in its row."""
        plan = self.rows.get(cell.parent.mem_id) if cell.parent is not None else None
        return self._read(plan[0].get(cell.mem_id, [])) if plan is not None else []

    def end_row(self, tr: Any) -> list[str]:
        """The carried cells that go after ``tr``'s last cell."""
        plan = self.rows.get(tr.mem_id)
        return self._read(plan[1]) if plan is not None else []

    def _read(self, cells: list[int]) -> list[str]:
        out, left = [], _ROW_CHARS
        for cell in cells:
            text = self.texts.get(cell, "")
            out.append(text if len(text) <= left else "")
            left -= len(out[-1])
        return out


_CARRIED_CHARS = 160  # a longer cell is not repeated in the rows it spans
_ROW_CHARS = 4 * _CARRIED_CHARS  # nor more than this in one row: the text stays linear
_MAX_SPAN = 1000  # a browser's limit is 65,534; a table here has fewer rows


def _count(cell: Any, name: str) -> int:
    """A cell's ``rowspan`` or ``colspan``: 1 unless a plain number from 1 up."""
    value = (cell.attributes.get(name) or "").strip()
    return min(int(value), _MAX_SPAN) if value.isascii() and value.isdigit() \
        and 0 < len(value) <= 5 and int(value) > 0 else 1


def mark_text(cell: Any) -> str:
    """What an empty cell that is only an image of a mark reads as: HAProxy's keyword
    matrix ticks each section a keyword is allowed in with <img alt="X">, and its 166 rows
    read "backlog | | | |" (review, 2026-12-05); FreedomBox's wiki pages tick theirs with
    "(./)" beside "{X}", and every yes was blank beside the noes (review, 2026-12-05).
    Not a picture's name: DocBook's "[Tip]" icon beside its "Tip", a logo."""
    return " ".join(alt for img in cell.css("img")
                    if _is_mark(alt := (img.attributes.get("alt") or "").strip()))


def _is_mark(alt: str) -> bool:
    """An image's alt text this short is a mark ("X", "✓", "no", "1"), or a few signs
    ("(./)", "{*}"); "Opus" is a logo's name."""
    return not alt.startswith("[") and (len(alt) <= 3 or (
        len(alt) <= 6 and _WORD.search(alt) is None))


_WORD = re.compile(r"[^\W\d_]{2}")
