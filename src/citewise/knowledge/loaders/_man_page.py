"""The text of a man page being rendered, block by block (:mod:`.man` drives it).

Apart from the request handling because it is the one piece of state every request reads
and writes: the open paragraph or no-fill block, the ``.RS`` indentation, whether a
``.TP`` tag is awaited, and the strings ``.ds`` defined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citewise.knowledge.loaders._blocks import Blocks

__all__ = ["INDENT", "SUBSECTION", "TERM_TITLE", "Page"]

INDENT = "    "
SUBSECTION = 3  # an item's level: below .SH (1) and .SS (2); one more per .RS
TERM_TITLE = 60  # characters; a longer tag is prose set as a tag, no title
# A paragraph of words ending so leads into what follows, and one of these words alone
# joins two displays: no term ("from", "to", "CLUSTER ON", "… l3_stats on" are terms).
_LEAD_ENDS = frozenset(("is", "are", "be", "the", "a", "an", "of", "that", "which", "whose",
                        "like", "by", "with", "for", "or", "and", "then"))
_JOINS = frozenset(("or", "and", "then"))


@dataclass
class Page(Blocks):
    """The rendered text being assembled, block by block."""

    strings: dict[str, str] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)  # the open fill-mode paragraph
    lines: list[str] = field(default_factory=list)  # the open no-fill block
    nofill: bool = False
    indent: int = 0  # .RS depth
    saved: list[tuple[int, bool]] = field(default_factory=list)  # at each open .RS
    ref: list[tuple[str, str]] | None = None  # the open .Rs reference's parts
    body: bool = False  # inside a .TP/.IP body: indented once more
    await_tag: bool = False
    await_heading: int = 0
    mdoc_list: list[str] = field(default_factory=list)
    # Item tags as sub-sections, (start, level, title): a citation of an option's text says
    # which option ("OPTIONS > --partial"), and the title field can route a question to it.
    terms: list[tuple[int, int, str]] = field(default_factory=list)
    reopen: bool = False  # a .PP ended an item's body: what follows is its section's again
    margin_open: bool = False  # the open paragraph began at a .PP: it may be a DocBook term

    @property
    def prefix(self) -> str:
        return INDENT * (self.indent + self.body)

    def _open_text(self) -> str:
        """The open paragraph's words as one line."""
        text = " ".join(" ".join(self.words).split(" ")).strip()
        return re.sub(r"[ \t]+", " ", text).replace("\x01", "")

    def _joined(self) -> str:
        """The open paragraph's text, closing it."""
        text = self._open_text()
        self.words.clear()
        self.margin_open = False
        return text

    def flush(self, sep: str = "\n\n") -> None:
        if self.words:
            text = self._joined()
            if self.await_tag:
                self.await_tag = False
                self.term(text)  # a .TP tag: the option its body describes
                return
            self.write(self.prefix + text, sep)
        if self.lines:
            block = "\n".join(self.prefix + ln if ln.strip() else "" for ln in self.lines)
            self.lines.clear()
            at = self.length
            self.write(block.rstrip(), sep)
            self.mark(at, "code")  # a no-fill block: an example, a synopsis

    def term_pending(self) -> bool:
        """Whether the open paragraph is a DocBook list term: pages made from DocBook
        (systemd's, journald.conf(5)) write an option as ".PP", its name on a line, then
        ".RS 4" and its description — no ``.TP``. A sentence or a lead-in ("…:") is none;
        a command's arguments' ellipsis ("mask UNIT...": systemctl's commands, filed under
        their section with their neighbours') is no full stop."""
        if not (self.margin_open and self.words and not self.nofill):
            return False
        text = self._open_text().removesuffix("...").removesuffix("…")
        # Not a lead-in to a display (Tcl's ".CS" opens with ".RS": "If you create a Tcl
        # script in a file whose first line is", wish(1)), nor "or" between two of them.
        words = text.split()
        lead = words[-1] in (_LEAD_ENDS if len(words) > 1 else _JOINS) if words else False
        return len(text) <= 2 * TERM_TITLE and not text.endswith((".", ":")) and not lead

    def indented_term(self) -> None:
        """The open paragraph as a term, its ``.RS`` body below it; after the ``.RE`` the
        body is over, so a ``.PP`` there is the section's again (as after a ``.TP`` body)."""
        self.term(self._joined())
        self.saved.append((self.indent, True))
        self.indent += 1
        self.body = False

    def term(self, text: str) -> None:
        """An item's tag on its line, its body indented below it."""
        self.reopen = False  # the item's own sub-section starts here, not its section again
        at = self.length
        start = self.write(self.prefix + text, "\n")
        self.mark(at, "term")
        # A bullet or a number ("•", "o", "2.") names nothing: no title.
        if (start is not None and 1 < len(text) <= TERM_TITLE
                and any(c.isalpha() for c in text)):
            self.terms.append((start + len(self.prefix), SUBSECTION + self.indent, text))
        self.body = True

    def text(self, text: str) -> None:
        if self.await_heading:
            level, self.await_heading = self.await_heading, 0
            self.heading(level, text)
        elif self.nofill and not self.await_tag:  # a .TP's tag is a line of its own
            self.lines.append(text.rstrip())
        else:
            self.words.append(text)
            if self.await_tag:
                self.flush()

    def heading(self, level: int, title: str) -> None:
        self.flush()
        self.reopen = False
        self.body = False
        self.indent = 0
        self.saved.clear()
        # A heading fills again and ends a tag still awaited, as groff's does: Tcl's
        # SYNOPSIS leaves ".nf" on, and its ARGUMENTS were read as code, their .TP tags
        # never taken, and DESCRIPTION's first line became one (review, 2026-12-05).
        self.nofill = False
        self.await_tag = False
        title = " ".join(title.split())
        if not title:
            self.await_heading = level
            return
        start = self.write(title)
        if start is not None:
            self.headings.append((start, level, title))

    def subheading(self, title: str) -> None:
        """pod2man's "=head3": a paragraph of the title alone, in italics, then ``.IX
        Subsection "title"`` — a section under the ``.SS`` (OpenSSL's migration guide had
        nine sections for its 78,000 characters, "Legacy Algorithms" a line of text: review,
        2026-12-07). After a ``.SS`` the index entry repeats its title: nothing to do."""
        if self.margin_open and self.words and self._open_text() == " ".join(title.split()):
            self.words.clear()
            self.margin_open = False
            self.heading(3, title)

    def write(self, text: str, sep: str = "\n\n") -> int | None:
        start = super().write(text, sep)
        if self.reopen and start is not None:
            self.reopen = False
            _, level, title = self.headings[-1]
            self.terms.append((start, level, title))  # the section again, not the last item
        return start

    def paragraph(self, *, margin: bool = False) -> None:
        """A new paragraph; ``margin``: at the left margin (man's ``.PP``, not ``.sp`` nor
        mdoc's ``.Pp`` inside a list item)."""
        self.flush()
        # df(1): ".TP --version … .PP Display values are in units of …" — the paragraph is
        # back at the left margin, no longer the last option's text.
        self.reopen = bool(margin and self.body and not self.indent and not self.mdoc_list
                           and self.terms and self.headings
                           and self.terms[-1][0] > self.headings[-1][0])
        self.body = False
        self.margin_open = margin
        self.pending_sep = "\n\n" if self.length else ""
