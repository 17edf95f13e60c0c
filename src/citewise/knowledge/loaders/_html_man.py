"""A manual page as man(1) formats it, kept in an HTML ``<pre>``: read as text, not code.

Postfix's HTML manual pages (``access.5.html``, ``master.5.html``: 54 of them in Debian's
``postfix-doc``) and every page made by piping man(1) into man2html are one ``<pre>``:
the title line ("ACCESS(5)   …   ACCESS(5)"), headings at the margin, paragraphs justified
with runs of spaces and words hyphenated at a line's end, items with their tag at one
indent and their text at the next. Kept as it was, a whole page was one code block — its
sentences ranked as code, quoted as "The  name  is  folded to lowercase, in order to make
database        lookups case insensitive.", with "config- uration" in them, and the
parameter ``parent_domain_matches_subdomains`` nowhere in the text, always broken after
"par-" (Postfix's review, 2026-12-05). Here the headings are sections, the items' tags
sub-sections (as :mod:`.man` makes them from roff), a paragraph's lines one line of text
— its spaces single, its hyphenated words whole where the page spells them whole — and a
block indented unevenly (a configuration example) stays as it is, as code.
"""

from __future__ import annotations

import re
from collections import Counter

from citewise.knowledge.loaders._html_out import Out

__all__ = ["is_man_page", "write_man_page"]

# "ACCESS(5)": a page's name and section, at both ends of its title line. (Words, not one
# pattern over the line: "A(1)", 4,000 spaces and "x" took a minute to refuse.)
_NAME_SECTION = re.compile(r"[A-Za-z][\w.+:-]*\(\w{1,8}\)")
_MARGIN_HEADING = re.compile(r"[A-Z][A-Z0-9 &/()_-]*")  # "NAME", "SEE ALSO", "AUTHOR(S)"
_WORD = re.compile(r"[^\W\d_][\w.-]*\w|\w")
_HYPHENS = ("-", "\u2010")  # groff in a UTF-8 locale breaks words with U+2010
_BROKEN = re.compile(r"([^\W\d_]\w*)[-\u2010]\Z")
_SPACE = re.compile(r"\s+")
_TAG_CHARS = 100  # a longer line over an indented block is prose, not an item's tag
_LABEL_WORDS = 3  # "/etc/postfix/main.cf:", "Example:" over an example's lines
_TAG_LINES = 2  # a tag may wrap once ("transport_destination_concurrency_limit ($default_…")
_BROKEN_TAIL = 80  # characters of a line's end searched for a hyphenated word
_FULL = 12  # a line that ends this close to the page's right margin was filled, not broken
_SUBHEADING = 4  # an indent below this is a sub-heading's (man's .SS)
_STEP = 7  # man(1)'s indent of a paragraph, and of an item's text past its tag
_BULLETS = frozenset(("o", "*", "-", "•", "+", "·"))


def is_man_page(text: str) -> bool:
    """Whether a ``<pre>``'s text is a formatted manual page: its first line is the title
    line, the page's name and section at both ends across the page ("ACCESS(5)   …
    ACCESS(5)", not "f(x) = f(x)"), and a heading at the margin follows ("NAME")."""
    # Only the lines looked at are split off: this runs on every <pre> of every page.
    lines = iter(text.lstrip().split("\n", _HEADING_WITHIN + 1)[:_HEADING_WITHIN + 1])
    first = next(lines, "")
    words = first.split()
    if len(words) < 2 or words[0] != words[-1] or len(first.strip()) < _TITLE_CHARS \
            or _NAME_SECTION.fullmatch(words[0]) is None:
        return False
    return any(line[:1].isalpha() and _MARGIN_HEADING.fullmatch(line.rstrip()) is not None
               for line in lines)


_TITLE_CHARS = 30  # a title line spans the page; a shorter one is no title
_LONG_LINE = 30  # a line longer than this may be a justified one
_HEADING_WITHIN = 20  # lines after the title


def write_man_page(text: str, out: Out, level: int) -> None:
    """Write the page in ``text`` to ``out``: headings at ``level`` (sub-headings one below,
    items' tags one more an indent), paragraphs, items and examples."""
    lines = text.expandtabs().splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    name = lines[0].split()[0] if lines else ""
    lines = lines[1:]  # the title line
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[-1].split()[-1] == name:
        lines.pop()  # the footer: "      ACCESS(5)", "GNU coreutils 9.1   2022   LS(1)"
    seen = Counter(w.lower() for w in _WORD.findall(text))
    page = _Page(out, level, _margin(lines), seen)
    for group in _groups(lines):
        page.group(group)


def _margin(lines: list[str]) -> int:
    """The column justified lines end at: the commonest length of the long lines (the
    longest alone would be a URL's or an example's, and no line would read as filled)."""
    long = Counter(len(line) for line in lines if len(line) > _LONG_LINE)
    return long.most_common(1)[0][0] if long else 0


def _groups(lines: list[str]) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            groups[-1].append(line.rstrip())
        elif groups[-1]:
            groups.append([])
    return [g for g in groups if g]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


class _Page:
    """The page being written: where, at which levels, and what it spells whole."""

    def __init__(self, out: Out, level: int, margin: int, seen: Counter[str]) -> None:
        self.out, self.level, self.margin, self.seen = out, level, margin, seen

    def group(self, group: list[str]) -> None:
        """A block of lines between blank ones: headings at its top, then an item, an
        example or a paragraph."""
        while group and _indent(group[0]) < _SUBHEADING:
            # A heading ("DESCRIPTION") or sub-heading, and what its lines go on with.
            self.heading(group[0].strip(), self.level + (_indent(group[0]) > 0), "heading")
            group = group[1:]
        if not group:
            return
        first = _indent(group[0])
        lead = next((i for i, line in enumerate(group) if _indent(line) != first), len(group))
        rest = group[lead:]
        if lead == len(group):
            self.paragraph(group)
        elif (lead == 1 and group[0].endswith(":") and len(group[0].split()) <= _LABEL_WORDS
              ) or any(_indent(line) <= first for line in rest):
            self.code(group)  # "/etc/postfix/main.cf:" over what it holds, or uneven lines
        elif lead == 1 and (split := self.inline_tag(group[0], _indent(rest[0]))) is not None:
            tag, text = split  # "net    Matches a remote …", "-q key Search the …"
            self.item(tag, [" " * _indent(rest[0]) + text, *rest])
        elif lead <= _TAG_LINES:
            self.item(self.joined(group[:lead]), rest)
        else:
            self.code(group)

    def inline_tag(self, line: str, body: int) -> tuple[str, str] | None:
        """A tag and its text's first line on one line: the text starts at the indent of
        the item's next lines, after a gap of spaces ("net    Matches …"), or of one when
        the line is filled ("-q key Search the specified maps …"; "Chroot (default: y)"
        over its text is a tag alone that ends short)."""
        start = _indent(line)
        for gap in _SPACE.finditer(line, start):
            if gap.end() == body and (gap.end() - gap.start() > 1 or len(line) >= self.margin
                                      - _FULL):
                return line[start:gap.start()], line[gap.end():]
            if gap.end() >= body:
                break
        return None

    def item(self, tag: str, body: list[str]) -> None:
        if tag in _BULLETS:
            self.body(body, marker=f"{tag} ")
        elif len(tag) <= _TAG_CHARS:
            # An item's tag, below the items it is indented under ("inet" under "Service
            # type" in master(5)).
            self.heading(tag, self.level + 1 + _indent(body[0]) // _STEP - 1, "term")
            self.body(body)
        else:
            self.paragraph([tag, *body])

    def body(self, lines: list[str], marker: str = "") -> None:
        """An item's text: its paragraph, and what is indented further (an "Example:"'s
        lines) as code."""
        base = _indent(lines[0])
        runs: list[list[str]] = []
        for line in lines:
            if runs and (_indent(line) > base) == (_indent(runs[-1][0]) > base):
                runs[-1].append(line)
            else:
                runs.append([line])
        for run in runs:
            if _indent(run[0]) > base:
                self.code(run)
            else:
                self.paragraph(run, marker)
                marker = ""

    def heading(self, title: str, level: int, role: str) -> None:
        """A heading, or an item's tag: on the line above its text, as a definition list's
        term is, so that "Chroot (default: y)" is quoted with the sentence under it."""
        out = self.out
        out.flush()
        out.text(title)
        written = out.flush("\n" if role == "term" else "\n\n")
        if written is not None:
            out.headings.append((written[0], level, written[1]))
            out.roles.append((written[0], written[0] + len(written[1]), role))

    def code(self, lines: list[str]) -> None:
        indent = min(_indent(line) for line in lines)
        written = self.out.raw("\n".join(line[indent:] for line in lines))
        if written is not None:
            self.out.roles.append((written[0], written[0] + len(written[1]), "code"))

    def joined(self, lines: list[str]) -> str:
        """Lines as one, a word hyphenated across them whole where the page spells it so."""
        parts: list[str] = []
        for i, line in enumerate(lines):
            text = line.strip()
            if i + 1 < len(lines) and (kept := self.hyphen(text, lines[i + 1])) is not None:
                parts.append(text if kept else text[:-1])
            else:
                parts.append(text + " ")
        return "".join(parts).strip()

    def hyphen(self, text: str, following: str) -> bool | None:
        """For a line ending in a hyphenated word: whether its hyphen stays ("built-in")
        or goes ("informa-tion"); None for any other line."""
        if not text.endswith(_HYPHENS):
            return None
        broken = _BROKEN.search(text[-_BROKEN_TAIL:])
        rest = _WORD.match(following.strip())
        if broken is None or rest is None:
            return None
        first = broken.group(1)
        whole, hyphened = (first + rest.group()).lower(), f"{first}-{rest.group()}".lower()
        # The page spells it whole at least as often as with the hyphen ("ser-vice"), or
        # never either way ("par-ent_domain_matches_subdomains" is broken every time).
        return self.seen[whole] < self.seen[hyphened]

    def paragraph(self, lines: list[str], marker: str = "") -> None:
        """One paragraph of ``lines``: a filled line runs on into the next (a word
        hyphenated across them joined), a short one ends its line ("SEE ALSO" lists)."""
        out = self.out
        out.flush("\n")  # (after a tag, on the next line; after a paragraph, a blank one)
        out.text(marker)
        for i, line in enumerate(lines):
            text = line.strip()
            if i + 1 == len(lines):
                out.text(text)
            elif (kept := self.hyphen(text, lines[i + 1])) is not None:
                out.text(text if kept else text[:-1])
            else:
                out.text(text + " ")
                if len(line) < self.margin - _FULL:
                    out.flush("\n")
        out.flush()
