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

# "ACCESS(5)      …      ACCESS(5)": the name and section at both ends of the first line.
_TITLE = re.compile(r"\s*([A-Za-z][\w.+:-]*)\((\w{1,8})\)(?:\s{2,}.*?)?\s{2,}\1\(\2\)\s*")
_FOOTER = re.compile(r"\s*(?:\S.*\s{2,})?[A-Za-z][\w.+:-]*\(\w{1,8}\)\s*")
_WORD = re.compile(r"[^\W\d_][\w.-]*\w|\w")
_BROKEN = re.compile(r"([^\W\d_][\w]*)-\Z")
_TAG_GAP = re.compile(r"\s{2,}")
_TERM_CHARS = 60  # a longer first line is prose, not an item's tag (as :mod:`.man`'s)
_FULL = 12  # a line that ends this close to the page's widest line was filled, not broken
_SUBHEADING = 4  # an indent below this is a sub-heading's (man's .SS)
_STEP = 7  # man(1)'s indent of a paragraph, and of an item's text past its tag
_BULLETS = frozenset(("o", "*", "-", "•", "+"))


def is_man_page(text: str) -> bool:
    """Whether a ``<pre>``'s text is a formatted manual page: its first line is the title
    line, the page's name and section at both ends."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return _TITLE.fullmatch(first) is not None


def write_man_page(text: str, out: Out, level: int) -> None:
    """Write the page in ``text`` to ``out``: headings at ``level`` (sub-headings one below,
    items' tags one more an indent), paragraphs, items and examples."""
    lines = text.expandtabs().splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    lines = lines[1:]  # the title line
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and _FOOTER.fullmatch(lines[-1]) and lines[-1].startswith(" "):
        lines.pop()  # "                          ACCESS(5)"
    width = max((len(line.rstrip()) for line in lines), default=0)
    seen = Counter(w.lower() for w in _WORD.findall(text))
    for group in _groups(lines):
        _write_group(group, out, level, width, seen)


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


def _write_group(group: list[str], out: Out, level: int, width: int,
                 seen: Counter[str]) -> None:
    first = _indent(group[0])
    if first < _SUBHEADING:
        # A heading ("DESCRIPTION") or sub-heading, and what its lines go on with.
        _heading(group[0].strip(), out, level + (first > 0), "heading")
        if len(group) > 1:
            _write_group(group[1:], out, level, width, seen)
        return
    body = group[1:]
    indents = {_indent(line) for line in group}
    if len(indents) > 2 or (body and group[0].endswith(":") and len(indents) > 1 and all(
            len(line) < width - _FULL for line in body)):
        _code(group, out)  # "/etc/postfix/main.cf:" over its settings, indented as typed
        return
    if body and _indent(body[0]) > first:
        tag = group[0].strip()
        split = _TAG_GAP.search(tag)
        if split is not None and first + split.end() == _indent(body[0]) \
                and split.start() <= _TERM_CHARS // 3:
            # The tag and its text's first line share a line: "net    Matches a remote …"
            tag, lead = tag[:split.start()], " " * _indent(body[0]) + tag[split.end():]
            body = [lead, *body]
        if tag in _BULLETS:
            _paragraph(body, out, width, seen, marker=f"{tag} ")
            return
        if len(tag) <= _TERM_CHARS:
            # An item's tag, below the items it is indented under ("inet" under "Service
            # type" in master(5)).
            _heading(tag, out, level + 1 + first // _STEP, "term")
            if body:
                _write_group(body, out, level, width, seen)
            return
    if len(indents) > 1:
        _code(group, out)  # lines indented unevenly: an example, as the page sets it
        return
    _paragraph(group, out, width, seen)


def _code(group: list[str], out: Out) -> None:
    indent = min(_indent(line) for line in group)
    written = out.raw("\n".join(line[indent:] for line in group))
    if written is not None:
        out.roles.append((written[0], written[0] + len(written[1]), "code"))


def _heading(title: str, out: Out, level: int, role: str) -> None:
    """A heading, or an item's tag: on the line above its text, as a definition list's
    term is, so that "Chroot (default: y)" is quoted with the sentence under it."""
    out.flush()
    out.text(title)
    written = out.flush("\n" if role == "term" else "\n\n")
    if written is not None:
        out.headings.append((written[0], level, written[1]))
        out.roles.append((written[0], written[0] + len(written[1]), role))


def _paragraph(lines: list[str], out: Out, width: int, seen: Counter[str],
               marker: str = "") -> None:
    """One paragraph of ``lines``: a filled line runs on into the next (a word hyphenated
    across them joined where the page spells it whole), a short one ends its line."""
    out.flush("\n")  # (after a tag, on the next line; after a paragraph, a blank one)
    out.text(marker)
    for i, line in enumerate(lines):
        text = line.strip()
        last = i + 1 == len(lines)
        broken = _BROKEN.search(text)
        if not last and broken is not None:
            rest = _WORD.match(lines[i + 1].strip())
            # "informa-" + "tion": one word; "built-" + "in": one word with its hyphen
            out.text(text[:-1] if rest is not None and _joins(broken.group(1), rest.group(),
                                                               seen) else text)
            continue
        out.text(text + ("" if last else " "))
        if not last and len(line) < width - _FULL:
            out.flush("\n")  # a line that ends short ends there ("SEE ALSO" lists)
    out.flush()


def _joins(first: str, rest: str, seen: Counter[str]) -> bool:
    """Whether "first-" at a line's end and "rest" after it are one word: the page spells
    it whole at least as often as with the hyphen ("ser-vice"), or never either way
    ("par-ent_domain_matches_subdomains" is broken every time it is written)."""
    whole, hyphened = (first + rest).lower(), f"{first}-{rest}".lower()
    return seen[whole] >= seen[hyphened]
