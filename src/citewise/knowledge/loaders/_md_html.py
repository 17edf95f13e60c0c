"""The HTML blocks of a Markdown file: which of their lines are markup alone.

Markdown passes HTML through, and READMEs and Docker's reference lay their tables out in
it, one tag to a line ("<tr>", "<td>", the cell's text, "</td>"). Stored verbatim, those
lines ran into the cell's sentence: asked which restart policy is the default, citewise
quoted "<table> <thead> <tr> <th>Policy</th> … Do not automatically restart the container
when it exits." (Docker's review, 2026-12-07). A block is CommonMark's kind 6: it opens on
a line that starts with a block element's tag and runs to the next blank line; its lines
of tags alone are not on the page, and a line of header cells (``<th>``) names the
columns, as a table's header row does elsewhere. A table is a ``table`` span: the
heading before it heads the text after it again (the header row had headed every
paragraph after the table: code review, 2026-12-07), and a short cell that asserts nothing
("<td><strong>no</strong></td>") is, as a short row elsewhere, neither answer nor heading.
"""

from __future__ import annotations

import re

from citewise.knowledge.loaders.base import RoleSpan

__all__ = ["HEADER_CELLS", "TAGS_ONLY", "html_block_lines", "table_roles"]

# CommonMark's block elements whose tag opens an HTML block (kind 6).
_OPENS = re.compile(
    r"^ {0,3}</?(?:address|article|aside|blockquote|body|caption|center|col|colgroup|dd"
    r"|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header"
    r"|hr|html|li|main|menu|nav|ol|p|section|summary|table|tbody|td|tfoot|th|thead|tr|ul)"
    r"(?:[ \t]|/?>|$)", re.I)
#: A line of tags and nothing else (no text between them).
TAGS_ONLY = re.compile(r"^[ \t]*(?:</?[A-Za-z][\w-]*(?:[ \t][^<>]*)?/?>[ \t]*)+$")
#: A line of header cells: "<th>Policy</th>", "<th class="no-wrap">Network</th>".
HEADER_CELLS = re.compile(r"^[ \t]*(?:<tr\b[^<>]*>[ \t]*)?<th\b[^<>]*>.*\S", re.I)


def html_block_lines(lines: list[tuple[int, str]], first: int,
                     skip: dict[int, tuple[int, bool]]) -> set[int]:
    """The indices of the lines inside HTML blocks, from line ``first`` on, past the code
    blocks ``skip`` (first line → last line) holds."""
    out: set[int] = set()
    i = first
    while i < len(lines):
        if i in skip:
            i = skip[i][0] + 1
            continue
        if _OPENS.match(lines[i][1]):
            while i < len(lines) and lines[i][1].strip():
                out.add(i)
                i += 1
        i += 1
    return out


def table_roles(lines: list[tuple[int, str]], block: set[int]) -> list[RoleSpan]:
    """The ``table`` span of each ``<table>`` … ``</table>`` in the HTML blocks (``block``:
    their lines' indices)."""
    out: list[RoleSpan] = []
    start: int | None = None
    last = 0
    for i in sorted(block):
        at, line = lines[i]
        low = line.lower()
        if start is None and _TABLE_OPEN.search(low) is None:
            continue
        start = at if start is None else start
        last = at + len(line)
        if "</table" in low:
            out.append((start, last, "table"))
            start = None
    if start is not None:  # a table never closed: to the last line of the blocks after it
        out.append((start, last, "table"))
    return out


_TABLE_OPEN = re.compile(r"<table\b")
