"""Vim's help format (``doc/*.txt`` of Vim, Neovim and every plugin): read with its sections
and without its markup.

Why a reader of its own: read as plain text, a help file had its version line for a title,
no sections, and quotes full of markup — ``*'smartcase'* *'scs'*`` anchors, ``|:split|``
links, the ``>`` and ``<`` that open and close an example, the ``~`` of a column heading;
and ten of Vim's 151 files were taken for reStructuredText (a ``char  action  ~`` line over
a dashed rule reads as an underlined title) and reflowed (new-user review over Vim 9.0's
help, 2026-12-04). What the format marks, and what this makes of it:

- the first line, ``*options.txt*  For Vim version 9.0.  Last change: …``, and the
  modeline (``vim:tw=78:ts=8:ft=help``, on a line of its own or after the last words) are
  left out; the book's name and author ("VIM REFERENCE MANUAL  by Bram Moolenaar") is a
  ``notice``; the title is a short line standing alone before the first section, or none
  (then the file's name is);
- a rule of ``=`` opens a section, named by the line after it ("1. Setting options");
- an item — an option (``'tabstop' 'ts'  number  (default 8)``), a command or key at the
  line's start with its description after a tab (``:q[uit]!<Tab>Quit without writing``),
  or an entry named on lines of its own over its indented text (``:on[ly][!]`` /
  ``CTRL-W o``) — starts a section of its own under the numbered one, its name a ``term``:
  the description is quoted with it. The line of anchors above it (``*'tabstop'* *'ts'*``)
  opens that section, a ``heading`` written without its stars, so "E518" finds the entry
  it names;
- an example (a line ending in `` >``, then indented lines up to a ``<`` or the next line
  at the margin) is ``code``, without the markers; indented lines in columns are a
  ``table``; a column heading (``char  action ~``) is a ``heading`` without its ``~``; a
  link is its name, an anchor inside a line is dropped.

Untrusted text: every pattern here is linear in its line (no two quantifiers that can
take the same characters), and lines longer than :data:`_LONG` are prose whatever they
hold. Offsets index the rendered text, which is what is stored and quoted.
"""

from __future__ import annotations

import re

from citewise.knowledge.loaders._blocks import section_spans, tidy_roles

__all__ = ["looks_like_vim_help", "read_vim_help"]

_HEADER = re.compile(r"\*[\w.+-]+\.txt\*[ \t]")
_MODELINE = re.compile(r"(?:^|\s)vim?:[^\n]*\bft=help\b[^\n]*$")
_RULE = re.compile(r"={20,}\s*")
_TAG = re.compile(r"(?<![^\s(])\*[^*\s|]+\*(?=[\s)]|$)")
_TAGS_ONLY = re.compile(r"\s*(?:\*[^*\s|]+\*\s*)+")
_LINK = re.compile(r"(?<![^\s(\"'])\|([^|\s]+)\|(?=[\s).,;:'\"]|$)")
# Before the title: the book's name and its author ("VIM REFERENCE MANUAL  by Bram …").
_BOOK = re.compile(r"\s*(?:[A-Z][A-Z0-9.-]*(?: +[A-Z0-9.-]+)*\s+MANUAL\b|\S+(?:\s+\S+)*?\s+by\s+[A-Z])")
# "'tabstop' 'ts'  number  (default 8)": an option's entry.
_OPTION = re.compile(r"('[a-z]\w*'(?:\s+'[a-z]\w*')*)\s+(?:boolean|number|string)\b")
# "1. Setting options<Tab>|set-option|", "|05.1|<Tab>The vimrc file": a line of contents
# (or of quickref's index), no item.
_CONTENTS = re.compile(r"[^\t]+\t+\|[^|\s]+\|$|\|[^|\s]+\|\t")
# An indented line in columns ("<Tab>:set hidden<Tab><Tab>Keep invisible buffers loaded"):
# two of them in a row are a table, not a sentence of 13 rows.
_ROW = re.compile(r"[ \t]+\S[^\t]*\t+\S")
_TERM_CHARS = 48  # a longer first column is a sentence with a tab in it, not a term
_TITLE_CHARS = 60
_LONG = 400  # no item, title or book line is longer


def looks_like_vim_help(text: str) -> bool:
    """Whether ``text`` is a Vim help file: its first line is the file's own anchor
    (``*name.txt*``), or its modeline sets ``ft=help``."""
    return _HEADER.match(text) is not None or any(
        _MODELINE.search(line) for line in text[-400:].splitlines()[-3:])


def read_vim_help(text: str) -> tuple[str, str | None, list[tuple[int, int, str]],
                                       list[tuple[int, int, str]]]:
    """The rendered text, its title, its sections and its role spans."""
    lines = text.splitlines()
    if lines and _HEADER.match(lines[0]):
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and len(lines[-1]) <= _LONG:  # "Copyright: see |manual-copyright|  vim:tw=78:…"
        lines[-1] = _MODELINE.sub("", lines[-1])
    page = _Page()
    heads = _entry_heads(lines)
    example = after_rule = False
    prelude = 0  # lines read before the first section: the title is one of the first two
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        if example:
            if line.startswith("<"):
                example, line = False, line[1:]
                if not line.strip():
                    continue
            elif not line or line[0] in " \t":
                page.emit(line, "code")
                continue
            else:
                example = False
        if _RULE.fullmatch(line):
            after_rule = True
            page.emit("")
            continue
        if not line.strip():
            page.emit("")
            continue
        if _TAGS_ONLY.fullmatch(line):
            page.anchors(" ".join(t.strip("*") for t in line.split()))
            continue
        if line == ">" or line.endswith(" >"):  # not "<Tab>>": a "greater than" in a table
            line, example = line[:-1].rstrip(), True
        line, names = _anchored(line)
        line = _LINK.sub(r"\1", _TAG.sub("", line)).rstrip()
        if not line.strip():
            continue
        if raw[:1] == "*":  # "*01.1*<Tab>Two manuals": the anchor's place is no indent
            line = line.lstrip()
        opening = page.title is None and not page.headings and len(line) <= _LONG
        if opening and _BOOK.match(line):
            page.emit(line, "notice")
            continue
        if opening and not after_rule and (prelude := prelude + 1) <= 2:
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if len(line.strip()) <= _TITLE_CHARS and not following.strip():
                page.title = " ".join(line.split())
                page.emit(line, "heading")
                continue
        if i in heads:  # an entry's lines: their anchors, together, go above the first
            names = heads[i] or ""
        if names and not after_rule:  # "CTRL-W o<Tabs>*CTRL-W_o* *E445*": they label it
            page.anchors(names)
        column = line.endswith("~")
        if column:
            line = line[:-1].rstrip()
        if after_rule:
            page.section(line, 1)
            after_rule = False
        elif column:
            page.emit(line, "heading")
        elif i in heads:  # ":on[ly][!]", "CTRL-W o": an entry's names, its text indented below
            page.term(line, len(line), opens=heads[i] is not None)
        elif (item := _item(line, raw, lines[i - 1] if i else "")) is not None:
            page.term(line, item, opens=True)
        else:
            page.emit(line, table_row=_ROW.match(line) is not None)
    return page.done()


class _Page:
    """The rendered text as it is written, with its headings and role spans."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.pos = 0
        self.roles: list[tuple[int, int, str]] = []
        self.headings: list[tuple[int, int, str]] = []  # (start, level, title)
        self.title: str | None = None
        self.rows: list[tuple[int, int, int]] = []  # table rows: (line, start, end)
        self.anchored: int | None = None  # where the anchor lines over the next item start

    def emit(self, line: str, role: str | None = None, *, table_row: bool = False) -> int:
        """Write ``line``; a label (heading, notice) gets a blank line after it, so that
        the splitter does not make one sentence of it and the text it labels."""
        start = self.pos
        self.out.append(line)
        self.pos += len(line) + 1
        if line.strip():
            self.anchored = None
        if role and line.strip():
            self.roles.append((start, start + len(line), role))
            if role in ("heading", "notice"):
                self.out.append("")
                self.pos += 1
        if table_row:
            self.rows.append((len(self.out) - 1, start, start + len(line)))
        return start

    def anchors(self, names: str) -> None:
        """A line of anchors: a label of the item below it, which opens its section here."""
        if self.out and self.out[-1].strip():
            self.emit("")
        keep = self.anchored  # a second line of anchors: the section opens at the first
        start = self.emit(names, "heading")
        self.anchored = start if keep is None else keep

    def section(self, line: str, level: int) -> None:
        self.headings.append((self.emit(line, "heading"), level, " ".join(line.split())))

    def term(self, line: str, end: int, *, opens: bool) -> None:
        """An item's name (``line[:end]``) and what follows it on its line."""
        if opens and self.anchored is None and self.out and self.out[-1].strip():
            self.emit("")  # a row of a table of items is a paragraph, not part of the one above
        at = self.anchored if self.anchored is not None else self.pos
        if opens:
            self.headings.append((at, 2, " ".join(line[:end].split())))
        start = self.emit(line)
        self.roles.append((start, start + end, "term"))

    def done(self) -> tuple[str, str | None, list[tuple[int, int, str]],
                            list[tuple[int, int, str]]]:
        rendered = "\n".join(self.out)
        return (rendered, self.title, section_spans(self.headings, len(rendered)),
                tidy_roles([*self.roles, *_tables(self.rows)], rendered))


def _anchored(line: str) -> tuple[str, str]:
    """``line`` without the anchors at its end, and their names ("" when none; a line
    longer than :data:`_LONG` is prose, and keeps them)."""
    rest = line.rstrip()
    names: list[str] = []
    end = len(rest) if len(rest) <= _LONG else 0
    while end:
        cut = max(rest.rfind(" ", 0, end), rest.rfind("\t", 0, end))
        tail = rest[cut + 1:end]
        if cut < 0 or not _TAG.fullmatch(tail):
            break
        names.append(tail[1:-1])
        end = len(rest[:cut].rstrip())
    if not names or not end:
        return line, ""
    return rest[:end], " ".join(reversed(names))


def _item(line: str, raw: str, before: str) -> int | None:
    """Where the name of the item ``line`` starts ends: an option's names, or a first
    column at the margin before a tab — not a line of contents, nor a line that goes on
    with the prose above it."""
    if line[0] in " \t" or len(line) > _LONG or _CONTENTS.match(_TAG.sub("", raw).rstrip()):
        return None
    option = _OPTION.match(line)
    if option is not None:
        return option.end(1)
    name, tab, rest = line.partition("\t")
    name = name.rstrip()
    if not tab or not rest.strip() or not name or len(name) > _TERM_CHARS:
        return None
    prose_above = before[:1] not in ("", " ", "\t") and "\t" not in before.strip() and \
        not _TAGS_ONLY.fullmatch(before) and before.rstrip()[-1:] not in ".:!?"
    return None if prose_above else len(name)


def _entry_heads(lines: list[str]) -> dict[int, str | None]:
    """The lines that name a reference entry: a run of lines at the margin, none longer
    than a term, with the entry's text indented right below it and an anchor or an Ex
    command among them. The first maps to the names of all the run's anchors, the others
    to None::

        :on[ly][!]
        CTRL-W o                                *CTRL-W_o* *E445*
                Make the current window the only one on the screen.
    """
    heads: dict[int, str | None] = {}
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j][:1] not in ("", " ", "\t") and not \
                _RULE.fullmatch(lines[j].rstrip()):
            j += 1
        run = [_TAG.sub("", r).rstrip() for r in lines[i:j]]
        below = lines[j] if j < len(lines) else ""
        if run and below[:1] in (" ", "\t") and below.strip() and all(
                r[:1] not in ("", " ", "\t") and len(r) <= _TERM_CHARS and "\t" not in r
                for r in run) and any(
                r.startswith(":") or _TAG.search(lines[k]) for k, r in enumerate(run, i)):
            heads.update((k, None) for k in range(i + 1, j))
            heads[i] = " ".join(_anchored(r)[1] for r in lines[i:j]).strip()
        i = j + 1
    return heads


def _tables(rows: list[tuple[int, int, int]]) -> list[tuple[int, int, str]]:
    """``table`` spans over runs of two or more rows on consecutive lines (``rows``: the
    line's index, start and end)."""
    spans: list[tuple[int, int, str]] = []
    run: list[tuple[int, int, int]] = []
    for row in [*rows, (-2, 0, 0)]:
        if run and row[0] != run[-1][0] + 1:
            if len(run) > 1:
                spans.append((run[0][1], run[-1][2], "table"))
            run = []
        run.append(row)
    return spans
