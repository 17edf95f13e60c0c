"""``tbl`` tables in roff sources (``.TS`` … ``.TE``): rows of cells, one line each.

Why: without it a man page's table came out as its format specification and its rows run
together — "l l l . Feature Added in Also occurs in -files0-from 4.9.0 -newerXY 4.3.3 BSD"
(find(1)). A row is written ``cell | cell | cell``, the way the HTML loader writes table
rows. Understood: the options line (``tab(x)``), format lines (up to the one ending in
``.``), data rows split at the tab character, ``T{`` … ``T}`` text blocks, horizontal
rules (``_``, ``=``) and requests inside the table (dropped). Formats changed by ``.T&``
are skipped like the first ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citewise.knowledge.loaders._blocks import Blocks
from citewise.knowledge.loaders._roff import unescape

__all__ = ["Table"]

_TAB = re.compile(r"\btab\s*\(\s*(.)\s*\)", re.I)
_RULE = frozenset(("_", "=", "\\_"))


@dataclass
class Table:
    """One table being read, line by line (``feed``), until its ``.TE``."""

    strings: dict[str, str]
    tab: str = "\t"
    in_format: bool = True
    first: bool = True
    rows: list[list[str]] = field(default_factory=list)
    block: list[str] | None = None  # the open T{ … T} cell's lines

    def feed(self, line: str) -> None:
        if self.in_format:
            stripped = line.strip()
            if self.first and stripped.endswith(";"):  # the options line
                m = _TAB.search(stripped)
                if m:
                    self.tab = m.group(1)
                self.first = False
                return
            self.first = False
            if stripped.endswith("."):
                self.in_format = False
            return
        if self.block is not None:
            if line.startswith("T}"):
                self.rows[-1].append(" ".join(self.block))
                self.block = None
                rest = line[2:].lstrip(self.tab)
                if rest:  # more cells, maybe the next text block ("T}:T{", DocBook's)
                    self._add(self.rows[-1], rest.split(self.tab))
            elif not line.startswith((".", "'")):
                self.block.append(unescape(line, self.strings).strip())
            return
        if line.startswith(".T&"):
            self.in_format = True
            return
        if line.startswith((".", "'")) or line.strip() in _RULE:
            return
        row: list[str] = []
        self.rows.append(row)
        self._add(row, line.split(self.tab))

    def _add(self, row: list[str], cells: list[str]) -> None:
        """``cells`` onto ``row``; a last cell ``T{`` opens a text block instead."""
        for i, cell in enumerate(cells):
            if cell.strip() == "T{" and i == len(cells) - 1:
                self.block = []
                return
            row.append(unescape(cell, self.strings).strip())

    def lines(self) -> list[str]:
        """The rows as text, ``a | b | c``; rows with no text left out."""
        out = []
        for row in self.rows:
            cells = [c for c in row if c not in _RULE]
            if any(cells):
                out.append(" | ".join(c for c in cells))
        return out

    def write(self, page: Blocks, prefix: str = "") -> None:
        """Write the rows to ``page`` as one block, its span marked ``table``."""
        at = page.length
        page.write("\n".join(prefix + row for row in self.lines()))
        page.mark(at, "table")
