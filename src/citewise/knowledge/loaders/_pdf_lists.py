"""Bulleted lists in a PDF's text: each item a ``list_item``, the list apart from what follows.

A PDF's text layer has no list, only lines that begin with a bullet glyph — and in TeX's
fonts the glyph often has no Unicode name: pypdf gives U+0088 for LaTeX's itemize bullet
(gnuplot's and GNU Prolog's manuals), a control character that was dropped, so the items
read as one line of prose each. Without the items marked, a list of shorthands with no
full stop ("full: equivalent to [call, exit, …]" / "half: equivalent to [call, redo]" / …)
and the paragraph after it were one sentence to every splitter, and quoted whole (GNU
Prolog's review, 2026-12-07). Here the bullet is "•", each item is a ``list_item`` (its
line, and the lines that go on with it), and a paragraph that begins right under the last
item starts after a blank line, as under a heading.
"""

from __future__ import annotations

import re
from collections.abc import Collection

__all__ = ["bullets", "list_items", "moved"]

# A bullet glyph that pypdf reads as a control character, at a line's start: LaTeX's
# itemize bullet (U+0088), and ReportLab's "•" in its standard fonts (U+007F).
_TEX_BULLET = re.compile(r"(?m)^([ \t]*)[\x88\x7f](?=[ \t])")
# A bullet and the space after it; an en dash is LaTeX's second-level mark, an item only
# beside another (a dash at a line's start is also a sentence going on: "1990\n– 2000").
_ITEM = re.compile(r"[ \t]*([•◦▪‣∙–])[ \t]+\S")
_DASH = "–"


def bullets(text: str) -> str:
    """``text`` with a bullet glyph read as a control character (U+0088 or U+007F at a
    line's start) as "•"."""
    return _TEX_BULLET.sub(r"\1•", text)


def list_items(text: str, titles: Collection[int] = ()
               ) -> tuple[str, list[tuple[int, int]], list[int]]:
    """``text`` (one page's) and the spans of its list items in it: a line that starts with
    a bullet, with the lines under it that go on with it (:func:`_goes_on`), up to a title
    (``titles``: where the outline's titles start on the page). A line under the last item
    that starts a sentence of its own is set apart by a blank line; the offsets of ``text``
    where one was put (before them) come third, for :func:`moved`."""
    lines = text.split("\n")
    marks = [_mark(line) for line in lines]
    full = _filled_length(lines)
    follows = _items_below(lines, marks)
    items: list[tuple[int, int]] = []
    out: list[str] = []
    inserted: list[int] = []
    pos = 0  # in the text returned
    old = 0  # in ``text``
    current: list[int] | None = None  # [start, end] of the item being read
    for i, line in enumerate(lines):
        mark = marks[i]
        if old in titles:
            current = None  # a title ends the list; it is set apart already
        elif mark and (mark != _DASH or _DASH in (marks[i - 1] if i else "",
                                                  marks[i + 1] if i + 1 < len(lines) else "")):
            current = [pos + len(line) - len(line.lstrip()), pos + len(line.rstrip())]
            items.append((current[0], current[1]))
        elif current is not None and line.strip() and (
                _goes_on(lines[i - 1], line, full) or follows[i]):
            current[1] = pos + len(line.rstrip())
            items[-1] = (current[0], current[1])
        elif current is not None:
            if line.strip():  # a paragraph right under the list: a sentence of its own
                out.append("")
                inserted.append(old)
                pos += 1
            current = None
        out.append(line)
        pos += len(line) + 1
        old += len(line) + 1
    return "\n".join(out), items, inserted


def moved(offset: int, inserted: list[int]) -> int:
    """``offset`` of a page's text as it is after :func:`list_items` put a line break at
    each of ``inserted`` (offsets before, ascending)."""
    return offset + sum(1 for at in inserted if at <= offset)


def _goes_on(before: str, line: str, full: int) -> bool:
    """Whether ``line`` goes on with the item whose last line is ``before``: it does not
    start a sentence ("0..vector max. By default …", "the variable (i.e. …"), or ``before``
    stops in the middle of one — a filled line ("… supported by" / "GNU Prolog"), not a
    short item with no stop of its own ("• half: some ports" / "When a port …")."""
    first, last = line.lstrip()[:1], before.rstrip()[-1:]
    filled = len(before.rstrip()) >= _FILLED * full
    return not first.isupper() or last in ",-" or (last.isalnum() and filled)


# A line this share of the page's longest is filled: its sentence may go on below it.
_FILLED = 0.8


def _filled_length(lines: list[str]) -> int:
    """How long a filled line of the page is: the length three lines in four stay under
    (its longest line may be a program's, or a table's)."""
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    return lengths[(3 * len(lengths)) // 4] if lengths else 0


def _items_below(lines: list[str], marks: list[str]) -> list[bool]:
    """For each line, whether another item of the list starts below it before a blank line
    or a new list's lead-in (a line ending in ":"): such a line is its item's next sentence
    ("• full: every port is traced." / "It is the default." / "• half: …"), not a paragraph
    under the list (code review, 2026-12-07). One pass, from the page's end."""
    out = [False] * len(lines)
    below = False  # an item starts below the line being looked at, in its run
    for j in range(len(lines) - 1, -1, -1):
        ends_run = not lines[j].strip() or lines[j].rstrip().endswith(":")
        out[j] = below and not ends_run
        if marks[j]:
            below = True
        elif ends_run:
            below = False
    return out


def _mark(line: str) -> str:
    m = _ITEM.match(line)
    return m.group(1) if m else ""
