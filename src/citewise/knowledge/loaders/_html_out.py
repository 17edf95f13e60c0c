"""The text of an HTML page being assembled: finished blocks, the open block's inline text,
and what points into it (headings, element ids, roles).

Apart from the walk over the page (``html.py``) because offsets are decided here, once:
whitespace inside a block collapses and a separator goes between blocks only when the
next block has visible text, so an id's offset or a heading's start is only known when
its text is written.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field
from typing import Any

from citewise.knowledge.loaders._html_blocks import another_form, element_id
from citewise.knowledge.loaders._html_chrome import is_tab_panel
from citewise.knowledge.loaders._html_rows import RowSpans
from citewise.knowledge.loaders.base import RoleSpan

__all__ = ["BLOCK_HEADING", "Out", "run_on"]

_SPACE = re.compile(r"\s+")
BLOCK_HEADING = 7  # the level of a heading that is a bold block, not an <h1>…<h6>
_STACKED = 6  # keywords named by one section at most


@dataclass
class Out:
    """Text being assembled: finished blocks plus the inline text of the open block."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    line: list[str] = field(default_factory=list)
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (start, level, title)
    ends: list[int] = field(default_factory=list)  # where a bold heading's section ends
    heading_end: int = -3  # where the last bold heading's text ends
    titled_end: int = -3  # where the last <hN>'s text ends
    bold_open: bool = False  # the last heading is a bold one whose section has not ended
    stacked: int = 0  # how many keywords the last bold heading names (0: it is no keyword's)
    anchors: dict[str, int] = field(default_factory=dict)
    roles: list[RoleSpan] = field(default_factory=list)  # may start on a separator's blank
    cells: int = 0  # inside this many table cells: blocks there flow into the row
    row_begun: bool = False  # the row's first cell was empty and its column holds text
    first_columns: dict[int, bool] = field(default_factory=dict)  # table → column has text
    spans: RowSpans = field(default_factory=RowSpans)  # cells carried into rows below
    # A table of one row of values under its header (``_html_rows.field_names``): each value
    # cell's column name, written before it; its header row and empty cells, not written.
    fields: dict[int, str] = field(default_factory=dict)
    field_skip: set[int] = field(default_factory=set)
    contents: bool = False  # keep tables of contents (a page that is nothing else)
    numbers: list[list[Any]] = field(default_factory=list)  # open <ol>s: [next, type]
    # Ids whose offset is that of the next visible character: only then is it known where
    # whitespace collapsing and the separator before the block put it.
    waiting: list[str] = field(default_factory=list)
    pending_sep: str = ""
    marker: str = ""  # an ordered list item's number, written before its first text
    javadoc: bool = False  # a Javadoc page (``_javadoc``): members' and comments' headings
    shift: int = 0  # added to a heading's level (a Javadoc comment's own headings)
    heading: bool = False  # inside an <hN>: its line breaks are spaces
    # Inside an <article>, the level of its first heading (-1 before it is written): a
    # heading after it of a higher rank is below it (Erlang's "<h3>Types</h3>" under a
    # function's <h4> took the function off the section path of its text); one of the
    # same rank is its sibling (a blog post's "Install", "Usage", "FAQ").
    floor: int = 0
    # Where a block opens with a name set in inline markup ("<em>autodoc</em> needs to
    # import …"): a sentence of its own though in lower case (``run_on``). ``naming``:
    # inside such an element at a block's start, its first visible character not yet seen.
    names: set[int] = field(default_factory=set)
    naming: bool = False
    # Footnotes written inside their sentence (SWI-Prolog's ``<sup class="fn">142<span
    # class="fn-text">…</span></sup>``, shown on hover): "[142] …" each with the ids inside
    # it, written after the paragraph that cites them (``_html_notes.inline_note``).
    notes: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    marked: str = ""  # the item number written at the open block's start, if any
    numbered: tuple[int, int] = (-1, 0)  # where the last block so begun starts, its number's length

    def level(self, tag_level: int) -> int:
        """A heading's level: its tag's, shifted, and below its article's first heading."""
        level = tag_level + self.shift
        if self.floor < 0:
            self.floor = level
        elif self.floor and level < self.floor:
            level = self.floor + 1
        return level

    def cell(self) -> None:
        """Open a table cell on the row's line: " | " after the cells before it."""
        if (self.line and "".join(self.line).strip()) or self.row_begun:
            self.line.append(" | ")
        self.row_begun = False

    def carry(self, cells: list[str]) -> None:
        """Write the cells a row above spans into this one (:class:`RowSpans`); an empty
        one keeps its column."""
        for text in cells:
            self.cell()
            if text:
                self.text(text)
            elif not "".join(self.line).strip():
                self.row_begun = True  # the row's first column: "| x", as a blank cell

    def text(self, text: str) -> None:
        """Add inline text to the open block, placing any waiting anchors at its first
        visible character. A pending item number goes first, on the same line: in
        ``<li><p>Title</p>…`` the number belongs to the title, not a line of its own."""
        if text.strip():
            self.write_marker()
        self._inline(text)

    def anchor(self, node: Any) -> None:
        """Map the element's id to the offset of its first visible character (or, for an
        element without text, of the next one: ``<a id=x></a><h2>…`` points at the
        heading). An ``<a name=x>`` is an anchor too: Texinfo (makeinfo 6–7) marks every
        section so, and its only ids are the table of contents' (FFmpeg's manual, new-user
        review 2026-12-05: 46 of 52 citations linked to ``#toc-Authors`` and the like). A
        tab panel's generated id ("panel-1-QmFzaA==") is a widget's, no place to link to:
        the sentences after it linked there instead of to their section."""
        ident = element_id(node)
        if ident and not is_tab_panel(node) and ident not in self.anchors \
                and ident not in self.waiting:
            self.waiting.append(ident)

    def write_notes(self) -> None:
        """The footnotes the paragraph just closed cited inside its sentences, each a
        paragraph of its own, the ids inside each pointing at it."""
        if not self.notes:
            return
        notes, self.notes = self.notes, []
        # What waits for the next block (its ids, its item number) waits on.
        waiting, marker, self.waiting, self.marker = self.waiting, self.marker, [], ""
        self.flush("\n\n")
        for note, ids in notes:
            self.waiting = [i for i in ids if i not in self.anchors and i not in waiting]
            self.text(note)
            self.flush("\n\n")
        self.waiting, self.marker = waiting + self.waiting, marker

    def mark_term(self, lead: tuple[int, str] | None) -> None:
        """A line just written (``lead``, as :meth:`flush` returns it) is a term: a list
        item's name over its text. Its item number, if written on it, is not."""
        if lead is not None:
            at, length = self.numbered
            skip = length if at == lead[0] else 0
            if skip < len(lead[1]):
                self.roles.append((lead[0] + skip, lead[0] + len(lead[1]), "term"))

    def write_marker(self) -> None:
        """Write the pending item number, if any, where the text is now."""
        if self.marker:
            marker, self.marker = self.marker, ""
            if not "".join(self.line).strip():
                self.marked = marker.strip()
            self._inline(marker)

    def open_inline(self, tag: str) -> bool:
        """An inline element starts: a name's (:data:`NAME_TAGS`) at the block's start is
        looked for (``names``), inside any element of its (Sphinx's ``<code><span
        class="pre">autodoc</span></code>``). Returns whether one was looked for already."""
        was = self.naming
        self.naming = was or (tag in NAME_TAGS and not "".join(self.line).strip())
        return was

    def _inline(self, text: str) -> None:
        if self.waiting or self.naming:
            visible = len(text) - len(text.lstrip())
            if visible < len(text):
                before = _SPACE.sub(" ", "".join(self.line) + text[:visible]).lstrip()
                sep = len(self.pending_sep or "\n\n") if self.length else 0
                self._place(self.length + sep + len(before))
                if self.naming:
                    self.names.add(self.length + sep + len(before))
                    self.naming = False
        self.line.append(text)

    def _place(self, at: int) -> None:
        for ident in self.waiting:
            self.anchors.setdefault(ident, at)
        self.waiting.clear()

    def ids_at(self, at: int) -> list[str]:
        """The element ids placed at offset ``at``, the latest ones written (ids are placed
        in the order of the text, so only the last few need looking at)."""
        found = []
        for ident, offset in reversed(self.anchors.items()):
            if offset < at:
                break
            if offset == at:
                found.append(ident)
        return found

    def flush(self, sep: str = "\n\n") -> tuple[int, str] | None:
        """Close the open block; returns ``(start, text)`` of what was written, if any."""
        text = _SPACE.sub(" ", "".join(self.line)).strip()
        self.line.clear()
        self.row_begun = False  # a blank first cell's place is kept on its own line only
        marked, self.marked = self.marked, ""
        if not text:
            self.pending_sep = _stronger(self.pending_sep, sep)
            return None
        if self.length:
            self.parts.append(self.pending_sep or sep)
            self.length += len(self.pending_sep or sep)
        start = self.length
        if marked and text.startswith(marked):
            self.numbered = (start, len(marked) + 1)  # "3. " of "3. force-hshift"
        self.parts.append(text)
        self.length += len(text)
        self.pending_sep = sep
        return start, text

    def raw(self, text: str) -> tuple[int, str] | None:
        """Append a preformatted block verbatim (only trailing blank lines trimmed);
        returns ``(start, text)`` of what was written, if any. A pending item number is
        written first, on a line of its own (``<li><pre>make</pre>``: step 3 stays 3)."""
        self.write_marker()
        self.flush()
        text = text.strip("\n").rstrip()
        if not text.strip():
            return None
        if self.length:
            self.parts.append("\n\n")
            self.length += 2
        self._place(self.length + len(text) - len(text.lstrip()))
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        self.pending_sep = "\n\n"
        return start, text

    def end_section(self, headed: int) -> None:
        """A section's element closed (``headings[headed:]`` were written inside it): the
        text after it is its parent's — unless the element held nothing after its heading
        (a wrapper of the heading alone, its text following it)."""
        level, start, title = min((h[1], h[0], h[2]) for h in self.headings[headed:] if h[2])
        if self.length > start + len(title) + 2:
            self.headings.append((self.length, level, ""))
            self.bold_open = False

    def add_heading(self, start: int, level: int, title: str, length: int, node: Any) -> None:
        """An ``<hN>``'s section and role (its text ``length`` long) — or, right after one
        of its own tag (``another_form``) with no text between them, the same section
        named by both: ImageMagick heads an option's two forms with two ``<h3>``s ("-set
        key value", "+set key"), and the first was a section of its heading alone, the
        option's text filed under "+set key" (review, 2026-12-06). A heading over a list
        of links left out (Apache's "Directives") is not beside the next."""
        if another_form(node) and self.headings and self.headings[-1][1] == level \
                and self.headings[-1][2] and 0 <= start - self.titled_end <= 2:
            first, _, named = self.headings[-1]
            self.headings[-1] = (first, level, f"{named}, {title}")
        else:
            self.headings.append((start, level, title))
        self.titled_end, self.bold_open = start + length, False
        self.roles.append((start, start + length, "heading"))

    def entry_heading(self, name: str) -> None:
        """A heading that is no text (``_html_generators.search_heading``): the entry's
        section, below the page's own headings, starts on what follows."""
        self.flush()
        self.headings.append((self.length, self.level(6), name))
        self.bold_open = False

    def bold_heading(self, written: tuple[int, str], keyword: bool) -> None:
        """A bold line's section — or, a keyword's right under another keyword's with
        nothing between, the same one named by both (a few at most): HAProxy's "inter
        <delay>", "fastinter <delay>" and "downinter <delay>" head one description, which
        was filed under "downinter <delay>" alone (review, 2026-12-05)."""
        start, title = written
        if self.headings and 0 <= start - self.headings[-1][0] <= 2 \
                and self.headings[-1][2].casefold() == title.casefold():
            return  # its entry's name again, right under the heading that names it
        if keyword and self.bold_open and 0 < self.stacked < _STACKED \
                and 0 <= start - self.heading_end <= 2:
            first, level, named = self.headings[-1]
            self.headings[-1] = (first, level, f"{named}, {title}")
            self.stacked += 1
        else:
            self.headings.append((start, BLOCK_HEADING, title))
            self.stacked = 1 if keyword else 0
        self.heading_end, self.bold_open = start + len(title), True


def _stronger(a: str, b: str) -> str:
    return a if len(a) >= len(b) else b


def run_on(text: str, roles: list[RoleSpan], names: set[int] | frozenset[int] = frozenset()
           ) -> str:
    """``text`` where a sentence runs on through a short display block — a paragraph that
    stops mid-sentence, a few lines of code (three at most), and a paragraph that goes on
    in lower case ("Instead, the alias item" / ":blackhole:" / "can be used." — DocBook
    closes the paragraph at the block, Exim's specification so; review, 2026-12-05) — or
    from a parameter's dash into its description. The blank lines become a line break and
    a space: one sentence to the splitter, the block still its own line and role, every
    offset where it was. A paragraph that opens with a name set in inline markup (at an
    offset in ``names``: "<em>autodoc</em> needs to import …" after Sphinx's example of
    ``automodule``; review, 2026-12-06) starts a sentence of its own. When a new sentence
    follows, the one stopped mid-way ends with the block ("However, the display filter" /
    "tcp.port in {443, 4430..4434}" / "is not equivalent to" / "tcp.port == 443 || …",
    quoted without its last block; Wireshark's guide, review 2026-12-06); not when more
    code follows, or a paragraph in lower case that is no going on."""
    # The block before must be a paragraph (text in no role: not a heading, a list item,
    # a table or another code block).
    closed = {b for _, b, _ in roles}
    # What opens a block of its own: the next term of a list ("vi-set-mark (unbound)"
    # under zsh's "zle vi-set-buffer A"), an item, a heading, a table, more code.
    opened = {a for a, _, role in roles if role in _OWN_BLOCKS}
    chars: list[str] | None = None
    code_starts = {a for a, _, role in roles if role in ("code", "doctest")}
    for a, b, role in roles:
        if (role != "code" or a < 3 or text[a - 2:a] != "\n\n"
                or text[a - 3] in _STOPS or text[a - 3].isspace() or a - 2 in closed
                or text.count("\n", a, b) > _DISPLAY_BREAKS or b - a > _DISPLAY_CHARS):
            continue
        after = b + 2
        goes_on = (text[b:after] == "\n\n" and after < len(text) and text[after].islower()
                   and after not in opened and after not in names
                   and not _SUBJECT_VERB.match(text, after))
        if not goes_on and (after in code_starts or (text[b:after] == "\n\n" and after < len(text)
                                                     and text[after].islower())):
            continue  # more code, or a sentence of its own in lower case: apart
        chars = chars if chars is not None else list(text)
        chars[a - 1] = " "
        if goes_on:
            chars[b + 1] = " "
    # A parameter's name and type over its description, the dash between them ending a
    # paragraph of its own ("pre_ping –" / "if True, the pool will emit a “ping” …"): the
    # dash says the description follows (SQLAlchemy's parameters, where sphinx-paramlinks
    # nests a <p> in a <p>, and MkDocs' "config (MkDocsConfig) –"; review, 2026-12-05).
    # The name was a sentence of its own, and its description quoted without it.
    # Only inside one block (a list item, or none): not from a table's last cell "–", a
    # heading or a list's last item into the paragraph after it; never in code.
    leads = [(m.start(), m.end() - 2) for m in _DASH_LEAD.finditer(text)]
    inside = _enclosing(roles, sorted({p for a, end in leads for p in (a, end + 2)}))
    for a, end in leads:
        if end + 2 in opened or inside[a] != inside[end + 2] or any(
                roles[i][2] in ("code", "doctest") for i in inside[a]):
            continue
        chars = chars if chars is not None else list(text)
        chars[end] = " "
    return "".join(chars) if chars is not None else text


_DASH_LEAD = re.compile(r"(?m)^[^\n]{1,100} [–—]\n\n(?=\S)")


def _enclosing(roles: list[RoleSpan], points: list[int]) -> dict[int, frozenset[int]]:
    """For each of the sorted ``points``, the indices of the role spans around it: one
    sweep over the spans by start, the open ones kept by end."""
    order = sorted(range(len(roles)), key=lambda i: roles[i][0])
    open_: list[tuple[int, int]] = []  # (end, index)
    out: dict[int, frozenset[int]] = {}
    k = 0
    for point in points:
        while k < len(order) and roles[order[k]][0] <= point:
            heapq.heappush(open_, (roles[order[k]][1], order[k]))
            k += 1
        while open_ and open_[0][0] <= point:
            heapq.heappop(open_)
        out[point] = frozenset(i for _, i in open_)
    return out


#: Inline elements that set a name apart: emphasis, code, a variable, a citation.
NAME_TAGS = frozenset(("em", "i", "code", "tt", "var", "cite", "samp", "kbd", "strong", "b"))
_OWN_BLOCKS = frozenset(("term", "heading", "list_item", "table", "code", "doctest"))
_STOPS = frozenset(".!?:;")  # a paragraph that ends so ends its sentence
_DISPLAY_BREAKS = 2  # three lines at most
_DISPLAY_CHARS = 240
# A paragraph that opens with a name and its verb is a sentence of its own, though in lower
# case: "unshift will add a new item …" after Ruby's example of push (RDoc's Array page,
# review 2026-12-05), not "can be used." nor "directs both …" going on from the lead-in.
_SUBJECT_VERB = re.compile(r"(?!(?:and|or|but|nor|then|so|which|that|who|it|this|these|they"
                           r"|there|if|when|where|as|to|the|a|an|you|we|i|one)\b)[\w.#:!?]+ (?:will|can|could"
                           r"|may|might|must|shall|should|would|is|are|was|were|does|do|has"
                           r"|have|returns?)\b")
