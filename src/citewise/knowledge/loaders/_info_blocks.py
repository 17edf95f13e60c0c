"""The blocks of an Info node, as ``info`` lays them out: headings over their underline,
a table's items (a term at the margin, its description five columns in), ``@deffn``'s
definition lines, list items, examples (indented past the text they belong to) and prose.

Apart from the file's reading (:mod:`.info`: nodes, menus, the tag table, a split manual's
parts) because this is about one node's layout, column by column: which block is which,
what an item's text is, and where a definition's wrapped lines go on.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from citewise.knowledge.loaders._blocks import Blocks

__all__ = ["Node", "indent"]

_UNDERLINE = {"*": 1, "=": 2, "-": 3, ".": 4}
_BULLET = re.compile(r"(?:[•*-]|\d+[.)]|[a-z][.)])\s")
_NOTE = re.compile(r"(\(?)\*([Nn])ote\s+([^:*]+?)(?:::|:\s*[^.,:*]*?(?:\.(?=\s+[a-z])|(?=[.,])))")
_EXAMPLE = 5  # columns an example (or an item's description) is indented past its text
_INDENT = 3  # columns a paragraph's first line is indented past its text
_TERM_CHARS = 64  # a term line is short: prose fills its lines to about 70 columns
_TERMS = 4  # term lines over one description at most
# A line ending so leads into what follows it: no term ("… the output is like").
_LEADS = frozenset(("is", "are", "be", "the", "a", "an", "of", "to", "that", "which", "like",
                    "by", "with", "for", "or", "and", "as"))
# @deffn's line, " -- Function: len (s)": a category (Octave's may be blank), a colon, a name.
_DEFINITION = re.compile(r" *-- [^:\n]{0,60}:\s+\S")  # "Method on Array<T>:", "2to3fixer:"
_WRAPPED = 9  # columns a definition's line that wraps goes on past its " -- "
_MARK = re.compile(r"^-- (?::\s+)?")
_QUOTED = re.compile(r"[‘'`\"*-]")  # a term as @table writes it: ‘-u’, 'kB', -f
_COLUMNS = re.compile(r"\S {3,}\S")  # two cells of a row (a sentence's gap is two spaces)
_ADMONITION = re.compile(r"(?:Note|Warning|Caution|Important|Tip)\b")  # a quotation's


def _see(m: re.Match[str]) -> str:
    """A reference as makeinfo's HTML writes it: @xref "See X", @pxref "(see X", @ref "X"
    ("described in *note Reporting Bugs::" is "described in Reporting Bugs")."""
    name = " ".join(m.group(3).split())
    if m.group(2) == "N":
        return f"{m.group(1)}See {name}"
    return f"(see {name}" if m.group(1) else name


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _heading(block: list[str]) -> tuple[int, str] | None:
    """``(level, title)`` when ``block`` is a title over its underline."""
    if len(block) != 2:
        return None
    title, rule = block[0].strip(), block[1].strip()
    mark = rule[:1]
    if mark not in _UNDERLINE or rule != mark * len(rule) or len(rule) < 2 or not title:
        return None
    return (_UNDERLINE[mark], title) if abs(len(rule) - len(title)) <= 3 else None


class _Open(NamedTuple):
    """An open item: the column its text is at, its term's, and its sub-section (level,
    title; none when its term wrote nothing: a list's item)."""

    text_at: int
    term_at: int
    section: tuple[int, str] | None


class Node:
    """One node's blocks written to the page: where an item's (or a list item's) text
    stands, and the section to go back to when it is over."""

    def __init__(self, page: Blocks, terms: list[tuple[int, int, str]], level: int, title: str,
                 notice: bool = False) -> None:
        self.page, self.terms = page, terms  # an item's term: a sub-section, no heading
        self.level, self.title = level, title  # the last heading: an item is one below it
        # The open items, innermost last. An item whose term stands in another's text is
        # nested in it (grep's ‘sl=’ in ‘GREP_COLORS’); one whose term is at another's
        # term's column or left of it is that one's sibling, and closes it.
        self.items: list[_Open] = []
        self.notice = notice  # the manual's licence: a notice, whatever its layout

    @property
    def described(self) -> int | None:
        """The column the innermost open item's text is at (none: no item is open)."""
        return self.items[-1].text_at if self.items else None

    def block(self, block: list[str], following: int | None = None) -> None:
        """One block of lines; ``following``: the first indent of the block after it."""
        while block:
            block = self._part(block, following)

    def _part(self, block: list[str], following: int | None) -> list[str]:
        """Write the block's first part; what is left of it (a lead-in's example)."""
        heading = _heading(block)
        column = indent(block[0])
        if heading is not None and column and self.items and self.items[-1].section and (
                column == self.items[-1].text_at):
            self._rubric(heading[1], self.items[-1].section[0] + 1)  # Python's "See also"
            return []
        if heading is not None and column >= (self.described or 0) + _EXAMPLE:
            heading = None  # an example's own title over its rule: code
        if heading is not None:
            self.level, self.title = heading
            start = self.page.write(self.title)
            if start is not None:
                self.page.headings.append((start, self.level, self.title))
            self.items = []
            return []
        first = indent(block[0])
        # A paragraph's first line is indented three more than its text (makeinfo's
        # paragraphindent): "   Exit status:" is at the margin, not in the item above it.
        margin = min(indent(ln) for ln in block[1:]) if len(block) > 1 else (
            first - _INDENT if first % _EXAMPLE == _INDENT else first)
        self.end_item(margin)  # back at a text's margin: the items deeper are over
        base = self.described if self.described is not None else 0
        if _DEFINITION.match(block[0]) and first - 1 in {0, *(o.text_at for o in self.items)}:
            # " -- Function: len (s)" over its description: at the margin, or one column
            # into an item's text (Guile's "-- Variable: regexp/icase" under make-regexp).
            terms, n = _definitions(block, first)
            # The next definition, no blank line between (Guile's "-- Exception Type:
            # &error" over its text, then "-- Scheme Procedure: make-error"), is its own.
            k = next((k for k in range(n, len(block)) if indent(block[k]) == first
                      and _DEFINITION.match(block[k])), len(block))
            # Without Info's "-- " (and a blank category's ": "), as Texinfo's HTML and PDF
            # show it: "Scheme Procedure: pointer->procedure …" (Guile's answers and section
            # paths began "-- ", review 2026-12-07).
            self._item([_MARK.sub("", t) for t in terms], block[n:k], first,
                       first + _EXAMPLE - 1)
            return block[k:]
        if min(first, margin) < base + _EXAMPLE and (
                2 * sum(bool(_COLUMNS.search(ln)) for ln in block) >= len(block) > 1
                or len(_COLUMNS.findall(block[0])) >= 2):  # a header row alone
            # A @multitable's rows: columns set apart by runs of spaces, a cell wrapped over
            # lines. Kept as laid out, a table (sed's BRE / ERE table ran into one line).
            cut = min(indent(ln) for ln in block)
            at = self.page.length
            self._write("\n".join(ln[cut:].rstrip() for ln in block))
            self.page.mark(at, "notice" if self.notice else "table")
            return []
        # Deeper than the text: an example. A paragraph's first line is three columns in,
        # a list item's text is past its bullet ("   • Matching lines …" over "     fields
        # and …": code review, 2026-12-07).
        bullet = _BULLET.match(block[0].lstrip())
        after = next((k for k in range(1, len(block)) if indent(block[k]) == first
                      and _BULLET.match(block[k].lstrip())), None) if bullet else None
        if after is not None:
            # The next item of a list set without blank lines ("   • Matching lines …" over
            # "   • Context lines …", grep's manual): an item of its own.
            self.block(block[:after])
            return block[after:]
        lead = (first + bullet.end() if bullet else
                first - _INDENT if first % _EXAMPLE == _INDENT else first)
        deeper = next((i for i, ln in enumerate(block) if indent(ln) >= lead + _EXAMPLE), None)
        if deeper is not None and _terms(block[:deeper]) and not bullet:
            self._items(block, first)
        elif deeper is not None and min(first, margin) < base + _EXAMPLE:
            # A lead-in over its example, no blank line between ("… will be empty:" over
            # "sed -ni 's/foo/bar/' FILE"): the prose, then the example as code — and the
            # prose after it, none between either (Guile's "(newline))" over "   The
            # intended meaning is clear: …" ran into one paragraph). A table's first term
            # under the lead-in ("   They operate as follows:" over "‘D’" over its text,
            # sed's manual) starts the table.
            term = block[deeper - 1]
            if deeper > 1 and indent(term) <= lead and _terms([term]) \
                    and _QUOTED.match(term.lstrip()):
                self._prose(block[:deeper - 1])
                return block[deeper - 1:]
            self._prose(block[:deeper])
            rest = block[deeper:]
            back = next((j for j, ln in enumerate(rest) if indent(ln) < indent(rest[0])), None)
            self._code(rest if back is None else rest[:back])
            return [] if back is None else rest[back:]
        elif (following is not None and following >= first + _EXAMPLE and _terms(block)
              and _QUOTED.match(block[0].lstrip())):
            self._item([ln.strip() for ln in block], [], first, following)  # a blank line below
        elif min(first, margin) >= base + _EXAMPLE and not _ADMONITION.match(block[0].lstrip()) \
                and not (bullet and all(indent(ln) == lead for ln in block[1:])):
            # … but a list set in (a quotation's, Debian Policy's "- ‘no’: Declares that …"
            # at column 8, its lines at 10) is a list: its lines at its text's column.
            self._code(block)
        else:
            self._prose(block)
        return []

    def _code(self, block: list[str]) -> None:
        """An example, line for line, less the indent its lines share."""
        cut = min(indent(ln) for ln in block)
        at = self.page.length
        self._write("\n".join(ln[cut:].rstrip() for ln in block))
        self.page.mark(at, "notice" if self.notice else "code")

    def _rubric(self, title: str, level: int) -> None:
        """An underlined title in an item's text: a sub-section of the item."""
        at = self.page.length
        start = self._write(title)
        self.page.mark(at, "heading")
        if start is not None:
            self.terms.append((start, level, title))

    def end_item(self, column: int = 0, sibling: bool = False) -> None:
        """Close the open items whose text is right of ``column`` (all of them: a footnote)
        — and, for a new item (``sibling``) whose term is at ``column``, those whose term is
        there or right of it: the text after a table is not its last item's, but a nested
        table's end is back in the item it is in."""
        closed = False
        while self.items and (column < self.items[-1].text_at
                              or (sibling and column <= self.items[-1].term_at)):
            closed = self.items.pop().section is not None or closed
        if not closed:
            return
        # Back in the section around: the enclosing item's, or the heading's (placed by
        # _write at the next text).
        outer = self._outer()
        if outer is not None:
            self.terms.append((-1, *outer))
        else:
            self.page.headings.append((-1, self.level, self.title))

    def _outer(self) -> tuple[int, str] | None:
        """The innermost open item's sub-section (level, title), if any has one."""
        return next((o.section for o in reversed(self.items) if o.section), None)

    def _write(self, text: str) -> int | None:
        start = self.page.write(text)
        if start is not None:
            for placed in (self.page.headings, self.terms):
                if placed and placed[-1][0] == -1:
                    placed[-1] = (start, *placed[-1][1:])
        return start

    def _prose(self, lines: list[str]) -> None:
        bullet = _BULLET.match(lines[0].lstrip())
        if bullet is not None and not self.notice:
            self.end_item(indent(lines[0]), sibling=True)  # the list item before it is over
        at = self.page.length
        self._write(_NOTE.sub(_see, " ".join(" ".join(lines).split())))
        if self.notice:
            self.page.mark(at, "notice")
        elif bullet is not None:
            self.page.mark(at, "list_item")
            # Its later paragraphs are indented to its text ("  2. How do I …" over
            # paragraphs at column 5; " 15. …" too): prose of the item, not examples.
            text_at = indent(lines[0]) + bullet.end()  # makeinfo's margins are fives
            self.items.append(_Open(min(max(_EXAMPLE, text_at // _EXAMPLE * _EXAMPLE),
                                        indent(lines[1]) if len(lines) > 1 else text_at),
                                    indent(lines[0]), None))

    def _items(self, block: list[str], margin: int) -> None:
        """A table's items, one after another with no blank line between them, each its
        term(s) at ``margin`` over its description indented deeper."""
        i = 0
        while i < len(block):
            terms: list[str] = []
            while i < len(block) and indent(block[i]) < margin + _EXAMPLE:
                terms.append(block[i].strip())
                i += 1
            described: list[str] = []
            while i < len(block) and indent(block[i]) >= margin + _EXAMPLE:
                described.append(block[i])
                i += 1
            if not described:  # terms with nothing under them: their text is below
                self._prose(terms)
                continue
            self._item(terms, described, margin)

    def _item(self, terms: list[str], description: list[str], term_column: int,
              column: int = 0) -> None:
        """A table's item: its term(s) on their lines (at ``term_column``), a sub-section,
        the description below (at ``column`` when it is in the blocks that follow)."""
        # A sibling's text is right of this term: that item is over; one that is still
        # open holds this one.
        self.end_item(term_column, sibling=True)
        outer = self._outer()
        level = (outer[0] if outer else self.level) + 1
        at = self.page.length
        start = self._write("\n".join(terms))
        self.page.mark(at, "notice" if self.notice else "term")
        section = None
        if start is not None:
            section = (level, ", ".join(terms))
            self.terms.append((start, *section))
        self.items.append(_Open(indent(description[0]) if description else column,
                                term_column, section))
        if description:
            self.page.pending_sep = "\n"  # the description on the line under its term
            self._prose(description)


def _definitions(block: list[str], column: int) -> tuple[list[str], int]:
    """The definition lines that open ``block`` at ``column``, each with the lines it
    wraps over (indented nine more: " -- Scheme Procedure: pointer->procedure return_type
    func_ptr arg_types" over "          [#:return-errno?=#f]"), and how many lines they
    take; what follows is the description."""
    terms: list[str] = []
    n = 0
    while n < len(block):
        line = block[n]
        if indent(line) == column and _DEFINITION.match(line):
            terms.append(line.strip())
        elif terms and indent(line) >= column + _WRAPPED:
            terms[-1] = f"{terms[-1]} {line.strip()}"
        else:
            break
        n += 1
    return terms, n


def _terms(lines: list[str]) -> bool:
    """Whether ``lines`` are a table item's term(s): a few short lines, none a sentence's
    end or a lead-in (a paragraph wrapped at the fill column over an example is none)."""
    last = lines[-1].split()[-1].lower() if lines and lines[-1].split() else ""
    return 0 < len(lines) <= _TERMS and last not in _LEADS and all(
        len(ln.strip()) <= _TERM_CHARS and not ln.rstrip().endswith((":", ".")) for ln in lines)
