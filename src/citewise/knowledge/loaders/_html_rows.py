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

from citewise.knowledge.loaders._html_blocks import class_names, table_of

__all__ = ["RowSpans", "column_used", "entry_name", "first_cell", "mark_text"]


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


@dataclass
class RowSpans:
    """Cells that span rows (``rowspan``), carried into each row they cover, as a reader
    sees them: Ant's attribute tables set one "See Command-line Arguments. | No" beside
    two attributes, and "suffix | No" read as if "No" were its description (review,
    2026-12-05). A long cell is not repeated: its place is kept with an empty cell, so
    the row's later columns stay in theirs."""

    # row → (each cell's place in it, texts before each cell, texts after its last cell)
    rows: dict[int, tuple[dict[int, int], list[list[str]], list[str]]] = field(
        default_factory=dict)
    # row group (<tbody>, <thead>, <tfoot>) → column → [rows still to cover, text]
    open: dict[int, dict[int, list[Any]]] = field(default_factory=dict)

    def before(self, cell: Any) -> list[str]:
        """The carried cells that go before ``cell`` in its row."""
        plan = self._plan(cell)
        return plan[1][plan[0][cell.mem_id]] if plan is not None else []

    def after(self, cell: Any) -> list[str]:
        """The carried cells that go after ``cell``, if it is its row's last."""
        plan = self._plan(cell)
        return plan[2] if plan is not None and plan[0][cell.mem_id] == len(plan[1]) - 1 \
            else []

    def _plan(self, cell: Any) -> tuple[dict[int, int], list[list[str]], list[str]] | None:
        row = cell.parent
        if row is None or row.tag != "tr":
            return None
        if row.mem_id not in self.rows:  # once a row: its cells are read in one pass
            cells = [c for c in _children(row) if c.tag in ("td", "th")]
            # A span ends with its row group, however many rows it names: cppreference's
            # "(1)" spans 142 rows of a <tbody> of three (browsers clip it so).
            group = row.parent.mem_id if row.parent is not None else 0
            before, after = _lay_out(cells, self.open.setdefault(group, {}))
            self.rows[row.mem_id] = ({c.mem_id: i for i, c in enumerate(cells)}, before, after)
        plan = self.rows[row.mem_id]
        return plan if cell.mem_id in plan[0] else None


def _lay_out(cells: list[Any], spans: dict[int, list[Any]]) -> tuple[list[list[str]],
                                                                      list[str]]:
    """Place a row's ``cells`` among the columns ``spans`` (from the rows above) covers;
    what each cell has before it, what comes after the last; ``spans`` moves on a row."""
    covered = {col: text for col, (left, text) in spans.items() if left > 0}
    before: list[list[str]] = []
    col = 0
    for cell in cells:
        carried = []
        while col in covered:
            carried.append(covered.pop(col))
            col += 1
        before.append(carried)
        width = _count(cell, "colspan", 1)
        down = _count(cell, "rowspan", 1)
        if down > 1:
            text = " ".join((cell.text(deep=True) or "").split())
            spans[col] = [down, text if len(text) <= _CARRIED_CHARS else ""]
        col += width
    after = [covered[c] for c in sorted(covered) if c >= col]
    for key in list(spans):
        spans[key][0] -= 1
        if spans[key][0] <= 0:
            del spans[key]
    return before, after


_CARRIED_CHARS = 160
_MAX_SPAN = 1000  # a browser's limit is 65,534; a table here has fewer rows


def _count(cell: Any, name: str, default: int) -> int:
    value = (cell.attributes.get(name) or "").strip()
    return min(int(value), _MAX_SPAN) if value.isdigit() and int(value) > 0 else default


def _children(node: Any) -> list[Any]:
    out = []
    child = node.child
    while child is not None:
        out.append(child)
        child = child.next
    return out


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
