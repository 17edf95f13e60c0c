"""Perl's POD (``.pod`` files: perlfaq, perlfunc, a module's manual): rendered to the text
``perldoc`` shows.

Why a loader of its own: POD is the documentation format of Perl and of every CPAN module,
and read as plain text its commands (``=head2``, ``=item``, ``=over``) and formatting codes
(``C<$x>``, ``L<perlop/"Quote-Like Operators">``, ``E<gt>``) end up inside the quotes a
citation shows — and a FAQ's questions (its ``=head2`` lines) would not be sections. Here
``=headN`` are the sections (nested by level), ``=item`` tags are definition terms and
sub-sections (a bullet or a number is a list item), indented (verbatim) paragraphs are code,
``=begin``/``=end`` and ``=for`` blocks for other formatters are skipped, and formatting
codes become the text they print (``L<text|target>`` its text, ``E<lt>`` "<", ``X<>`` and
``Z<>`` nothing).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from citewise.knowledge.loaders._blocks import Blocks, section_spans
from citewise.knowledge.loaders._decode import decode_text, rendered
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["PodLoader", "read_pod"]

_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}
_CODE = re.compile(r"([A-Z])(<+)")
_COMMAND = re.compile(r"=([a-zA-Z]\w*)\s*(.*)", re.DOTALL)


def inline(text: str) -> str:
    """``text`` with its formatting codes replaced by what they print."""
    out: list[str] = []
    i = 0
    while True:
        m = _CODE.search(text, i)
        if m is None:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        letter, n = m.group(1), len(m.group(2))
        start = m.end()
        if n > 1:  # C<< $a <=> $b >>: ends at whitespace then as many ">"
            close = re.compile(r"\s+" + ">" * n).search(text, start)
            end, resume = (close.start(), close.end()) if close else (len(text), len(text))
            inner = text[start:end].strip()
        else:  # C<$a>: nested codes count their brackets
            depth, end = 1, start
            while end < len(text) and depth:
                if _CODE.match(text, end) and text[end + 1] == "<":
                    depth += 1
                    end += 2
                    continue
                depth -= text[end] == ">"
                end += 1
            inner, resume = text[start:end - 1 if depth == 0 else end], end
        out.append(_code(letter, inline(inner) if letter != "L" else inner))
        i = resume
    return "".join(out)


def _code(letter: str, inner: str) -> str:
    if letter in "XZ":
        return ""
    if letter == "E":
        if inner.isdigit() or re.fullmatch(r"0x[0-9a-fA-F]+|0[0-7]*", inner):
            return chr(int(inner, 0) if not inner.isdigit() else int(inner))
        return _ESCAPES.get(inner) or html.unescape(f"&{inner};")
    if letter == "L":
        label, bar, _ = inner.partition("|")
        if bar:
            return inline(label)
        if "://" in inner:
            return inner
        name, _, section = inner.partition("/")
        if name.startswith('"'):  # L<"Section">: a section of this document
            name, section = "", name
        section = section.strip('"')
        if section:
            return f'"{inline(section)}" in {inline(name)}' if name else f'"{inline(section)}"'
        return inline(name.strip('"'))
    return inner


_PARAGRAPHS = re.compile(r"\n(?:[ \t]*\n)+")  # any number of blank lines between paragraphs
_NUMBERED = re.compile(r"(\d+\.?)(?:\s+(.*))?\Z", re.DOTALL)
_ITEM_LEVEL = 10  # an item's section: below every =headN, one more per nested =over
TERM_TITLE = 60  # characters; a longer tag is prose set as a tag, no section of its own


@dataclass
class _Items:
    """``=item`` tags as sub-sections (like a man page's ``.TP`` tags): a citation of a
    switch's or a variable's text names it ("Command Switches > -l[octnum]"), and when its
    list ends (``=back``) what follows is the enclosing section's again."""

    page: Blocks
    terms: list[tuple[int, int, str]] = field(default_factory=list)  # (start, level, title)
    lists: list[tuple[int, str] | None] = field(default_factory=list)  # open =over: its item
    reopen: tuple[int, str] | None = None
    stacked: bool = False  # the last block written is an item's tag: one more is an alias

    def write(self, text: str, sep: str = "\n\n") -> int | None:
        start = self.page.write(text, sep)
        if start is not None:
            if self.reopen is not None:
                self.terms.append((start, *self.reopen))
            self.reopen, self.stacked = None, False
        return start

    def heading(self, level: int, title: str) -> None:
        self.reopen, self.stacked = None, False
        start = self.page.write(title)
        if start is not None:
            self.page.headings.append((start, level, title))

    def over(self) -> None:
        self.lists.append(None)

    def back(self) -> None:
        if self.lists and self.lists.pop() is not None:
            enclosing = self.lists[-1] if self.lists else None
            if enclosing is None and self.page.headings:
                enclosing = self.page.headings[-1][1:]
            self.reopen = enclosing

    def item(self, tag: str) -> None:
        numbered = _NUMBERED.match(tag)
        if tag in ("*", "") or tag.startswith("* ") or numbered:
            # A bullet or a number names nothing: a list item, its number kept ("5."), its
            # text on the same line whether the tag's paragraph holds it or the next one.
            marker, body = (numbered.group(1), numbered.group(2) or "") if numbered \
                else ("•", tag[1:].strip())
            at = self.page.length
            self.write(f"{marker} {body}" if body else marker, "\n" if body else " ")
            self.page.mark(at, "list_item")
            return
        was_stacked = self.stacked
        self.reopen = None  # the item's own section starts here
        at = self.page.length
        start = self.page.write(tag, "\n")
        self.page.mark(at, "term")
        if start is None:
            return
        self.stacked = True
        level = _ITEM_LEVEL + len(self.lists)
        if was_stacked and self.terms and self.terms[-1][1] == level:
            # perlvar's "=item $LIST_SEPARATOR" "=item $\"": one variable, two names.
            first, _, title = self.terms[-1]
            self.terms[-1] = (first, level, f"{title}, {tag}"[:TERM_TITLE * 2])
        elif len(tag) <= TERM_TITLE:
            self.terms.append((start, level, tag))
        else:
            return
        if self.lists:
            self.lists[-1] = self.terms[-1][1:]


def read_pod(source: str) -> tuple[str, str | None, list[SectionSpan], list[RoleSpan]]:
    """``(text, title, sections, roles)`` of a POD document."""
    page = Blocks()
    items = _Items(page)
    title: str | None = None
    in_pod = True  # a .pod file is POD from its start; after a =cut, up to the next command
    skipping: str | None = None  # the format of an open =begin block
    name_next = False
    # Two blank lines before a command are still one paragraph break (perlretut has 15).
    for para in _PARAGRAPHS.split(source.replace("\r\n", "\n")):
        para = para.lstrip("\n")
        if not para.strip():
            continue
        command_line = _COMMAND.match(para)
        if command_line is not None:
            command, rest = command_line.group(1), " ".join(command_line.group(2).split())
            in_pod = command != "cut"
            if skipping is not None:
                if command == "end":
                    skipping = None
                continue
            # An X<index entry> prints nothing, and the spaces around it go with it
            # ("=head1 NAME X<operator>" is "NAME", not "NAME ", and so a title is found).
            if command == "begin" and rest.split()[:1] not in (["text"], ["plain"]):
                skipping = rest
            elif command.startswith("head") and command[4:].isdigit():
                heading = " ".join(inline(rest).split())
                items.heading(int(command[4:]), heading)
                name_next = heading.upper() == "NAME"
            elif command == "over":
                items.over()
            elif command == "back":
                items.back()
            elif command == "item":
                items.item(" ".join(inline(rest).split()))
            continue
        if not in_pod or skipping is not None:
            continue
        if para[0] in " \t":  # verbatim: code, line for line
            lines = para.rstrip().split("\n")
            margin = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
            at = page.length
            items.write("\n".join(ln[margin:] for ln in lines))
            page.mark(at, "code")
            continue
        text = " ".join(inline(para).split())
        items.write(text)
        if name_next and title is None:
            title, name_next = text, False
    text = "".join(page.parts)
    if title is None and page.headings:
        title = page.headings[0][2]
    sections = section_spans(sorted([*page.headings, *items.terms]), len(text))
    return text, title, sections, page.role_spans()


class PodLoader:
    """``.pod`` files (POD inside ``.pm``/``.pl`` stays with the source-code loader)."""

    name = "pod"
    # 2: commands after two blank lines, index entries' spaces, items as sub-sections,
    # numbered items' numbers
    version = "2"
    extensions: tuple[str, ...] = (".pod",)
    content_types: tuple[str, ...] = ("text/x-pod",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        source, encoding = decode_text(path, data)
        return rendered(path, data, source, encoding, read_pod, content_type="text/x-pod",
                        title=path.stem)
