"""Markdown: the file's text verbatim plus heading-derived section spans.

A section runs from its heading line to the next heading of any level, and is named by
its heading path (``"Intro > Scope"``). ATX (``## Scope``) and setext (``Scope`` over
``---``) headings count; lines inside fenced code blocks and a leading YAML front-matter
block do not (front-matter ``key: value`` pairs go to metadata, ``title`` to the title).
Role spans (:data:`citewise.knowledge.loaders.base.ROLES`) mark the headings, fenced code
(a ``>>>`` session as a doctest; a Hugo ``{{< example >}}``), pipe tables (their header
line a heading), an HTML table's header cells (:mod:`._md_html`) and list items —
and what the rendered page does not show: the front matter, HTML comments, link reference
definitions (``[fs.stat()]: #fsstat…``), lines of empty anchors (``<a id="x"></a>``), of
bare block tags (``<div …>``, ``</div>``) or of Hugo shortcodes are ``hidden``, never
evidence; so are an HTML block's lines of tags alone ("<tr>", "</td>"). Node.js's API
docs keep each function's history in a ``<!-- YAML … -->`` comment; its ``- version: …``
lines were read as list items and quoted as answers, and 654 link definitions filled
passages of their own (new-user review, 2026-12-04). A heading's inline-code backticks
are not part of its section's name ("File system > fs.readFile(path[, options], callback)").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders._md_html import (
    HEADER_CELLS,
    TAGS_ONLY,
    html_block_lines,
    table_roles,
)
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["MarkdownLoader", "heading_title", "markdown_roles", "parse_headings"]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# A fence may be indented past three spaces inside a list item (npm's docs indent theirs
# four under "* `npm install <tarball url>`:"; read as text, a closer at three spaces
# opened a fence, and every section after it was lost: review, 2026-12-07).
_FENCE = re.compile(r"^[ \t]{0,12}(`{3,}|~{3,})")
_MARKER = r"(?:[-*+]|\d{1,9}[.)])[ \t]+\S"  # a list item's bullet or number, then its text
_ITEM = re.compile(rf"^ {{0,3}}{_MARKER}")
_TABLE_RULE = re.compile(r"^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
_FRONT_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_COMMENT = re.compile(r"^ {0,3}<!--")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\S")
_EMPTY_ANCHORS = re.compile(r"^[ \t]*(?:<(a|i|span)\b[^>]*>[ \t]*</\1>[ \t]*)+$", re.I)
# A line of a block element's bare tags, with no text: "<div id="input-formats">",
# "</div>", "<p align="center">" — a README's layout, not its text (pandoc's review,
# 2026-12-05: they were search's "evidence" sentence).
_BARE_TAGS = re.compile(r"^[ \t]*(?:</?(?:div|p|section|center|br|hr|details|picture)\b"
                        r"[^<>]*>[ \t]*)+$", re.I)
# A line of Hugo shortcodes alone ("{{< callout info >}}", "{{< partial "x.md" >}}",
# "{{< /callout >}}"): the site generator's markup, not text (Bootstrap's docs, review
# 2026-12-07). An example's ("{{< example >}}" … "{{< /example >}}") is the HTML it shows:
# code.
_SHORTCODES = re.compile(r"^[ \t]*(?:\{\{[<%][^{}\n]*?[>%]\}\}[ \t]*)+$")
_EXAMPLE_OPEN = re.compile(r"^[ \t]*\{\{[<%][ \t]*(example|highlight)\b[^{}\n]*?[>%]\}\}[ \t]*$")


def _lines(text: str) -> list[tuple[int, str]]:
    """``(start offset, line without its ending)`` for every line."""
    out: list[tuple[int, str]] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        out.append((pos, raw.rstrip("\r\n")))
        pos += len(raw)
    return out


def _front_matter(lines: list[tuple[int, str]]) -> tuple[int, dict[str, str]]:
    """Index of the first line after a leading ``---`` … ``---`` block, and its pairs."""
    if not lines or lines[0][1].strip() != "---":
        return 0, {}
    pairs: dict[str, str] = {}
    for i in range(1, len(lines)):
        line = lines[i][1]
        if line.strip() in ("---", "..."):
            return (i + 1, pairs) if pairs else (0, {})
        m = _FRONT_KEY.match(line)
        if m:
            pairs[m.group(1)] = m.group(2).strip("'\"")
        elif line.strip() and not line[:1].isspace() and not line.startswith(("- ", "#")):
            return 0, {}  # a line of prose under a rule: no YAML (code review, 2026-12-07)
    return 0, {}  # never closed: not front matter


class _Layout(NamedTuple):
    """What both passes over a file read alike, read once: its lines, where its text starts
    (past the front matter), the front matter's pairs and its code blocks (:func:`_blocks`)."""

    lines: list[tuple[int, str]]
    first: int
    front: dict[str, str]
    blocks: dict[int, tuple[int, bool]]


def _layout(text: str) -> _Layout:
    lines = _lines(text)
    first, front = _front_matter(lines)
    return _Layout(lines, first, front, _blocks(lines, first))


# A heading written as HTML: "<h1 align="center">Picomatch</h1>" (a README's centred title).
_HTML_HEADING = re.compile(r"^ {0,3}<h([1-6])\b[^<>]*>(.*?)</h\1>[ \t]*$", re.I)
# What a heading shows (a README's: GitHub's rendering): no badge ("[![npm](…)](…)",
# "[![Cult][cult-img]][cult]"), an inline link's text, no HTML tag ("<a name="create"></a>"),
# no code span's backticks — and a code span as written ("`fs.watch(filename[,
# options][, listener])`" is no link). Raw, the badges of a title were in every section
# path and citation (20 npm READMEs, review 2026-12-07: braces' title was 557 characters).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_IMAGE = re.compile(r"!\[([^\[\]\n]*)\](?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\[\]\n]*\])")
_LINK = re.compile(r"\[([^\[\]\n]*)\](?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\[\]\n]*\])")
_TAG = re.compile(r"</?(?:a|img|span|sup|sub|br|code|em|strong|b|i|kbd|small|big|p|div"
                  r"|h[1-6]|picture|source)\b[^<>]*>", re.I)
_PERMALINK = re.compile(r"(?:^|\s)[#¶](?=\s|$)")
_LONGEST = 1000  # characters of a heading read as markup (a run of backticks is quadratic)


def heading_title(raw: str) -> str:
    """A heading's line as a section's name, as the page shows it (:data:`_IMAGE`): an
    image alone is its alt text, a permalink's "#" or "¶" nothing."""
    raw = raw[:_LONGEST]
    spans: list[str] = []

    def mask(m: re.Match[str]) -> str:  # a code span's text is no markup, a link's may be one
        spans.append(m.group(2))
        return f"\ue000{len(spans) - 1}\ue001"

    masked = _CODE_SPAN.sub(mask, raw)
    plain = _TAG.sub("", masked)
    shown = _LINK.sub(lambda m: m.group(1), _IMAGE.sub("", plain))
    if not shown.strip():  # "# ![logo](logo.png)": the image's name
        shown = " ".join(m.group(1) for m in _IMAGE.finditer(plain))
    shown = _PERMALINK.sub(" ", shown)
    return " ".join(_MASKED.sub(lambda m: spans[int(m.group(1))], shown).split())


_MASKED = re.compile("\ue000(\\d+)\ue001")


def parse_headings(text: str, layout: _Layout | None = None
                   ) -> tuple[list[tuple[int, int, str]], dict[str, str]]:
    """Headings as ``(start_char, level, title)`` in order, and the front-matter pairs."""
    lines, first, front, blocks = layout or _layout(text)
    headings: list[tuple[int, int, str]] = []
    prev_paragraph: tuple[int, str] | None = None  # a line that a setext underline can lift
    i = first
    while i < len(lines):
        start, line = lines[i]
        if i in blocks:  # fenced code or a shortcode's example: no heading inside
            i, prev_paragraph = blocks[i][0] + 1, None
            continue
        if _COMMENT.match(line) and (after := _hidden_end(text, lines, i)) > i:
            i, prev_paragraph = after, None  # no heading inside a comment
            continue
        i += 1
        atx = _ATX.match(line) or _HTML_HEADING.match(line)
        if atx:
            title = heading_title(atx.group(2) or "")
            if title:
                level = len(atx.group(1)) if atx.group(1).startswith("#") else int(atx.group(1))
                headings.append((start, level, title))
            prev_paragraph = None
            continue
        setext = _SETEXT.match(line)
        if setext and prev_paragraph is not None:
            level = 1 if setext.group(1)[0] == "=" else 2
            title = heading_title(prev_paragraph[1])
            if title:
                headings.append((prev_paragraph[0], level, title))
            prev_paragraph = None
            continue
        prev_paragraph = (start, line) if line.strip() else None
    return headings, front


def markdown_roles(text: str, headings: list[tuple[int, int, str]],
                   layout: _Layout | None = None) -> list[RoleSpan]:
    """The role spans of a markdown text whose headings :func:`parse_headings` found."""
    lines, first, _, blocks = layout or _layout(text)
    roles: list[RoleSpan] = []
    ends = {start: start + len(line) for start, line in lines}
    roles.extend((start, ends[start], "heading") for start, _, _ in headings if start in ends)
    if first:
        # The front matter is the page's metadata, not its text: no renderer shows it
        # (npm's and Bootstrap's pages were quoted "--- title: npm-pack section: 1 …").
        roles.append((0, lines[first - 1][0] + len(lines[first - 1][1]), "hidden"))
    item: list[int] | None = None  # [start, end] of the open list item
    html = html_block_lines(lines, first, blocks)
    roles.extend(table_roles(lines, html))
    i = first
    while i < len(lines):
        start, line = lines[i]
        if i in blocks:
            close, fenced = blocks[i]
            if close < len(lines):  # a fence never closed is no code span (as before)
                body = lines[i + 1][1].lstrip() if fenced and i + 1 < close else ""
                end = lines[close]
                roles.append((start, end[0] + len(end[1]),
                              "doctest" if body.startswith(">>>") else "code"))
            i, item = close + 1, None
            continue
        if i in html and TAGS_ONLY.match(line):  # "<tr>", "</td>": not on the page
            j = i + 1
            while j in html and TAGS_ONLY.match(lines[j][1]):
                j += 1
            roles.append((start, lines[j - 1][0] + len(lines[j - 1][1]), "hidden"))
            i, item = j, None
            continue
        if i in html and HEADER_CELLS.match(line):  # "<th>Policy</th>": a column's name
            roles.append((start + len(line) - len(line.lstrip()), start + len(line.rstrip()),
                          "heading"))
            i, item = i + 1, None
            continue
        if _SHORTCODES.match(line):
            roles.append((start, start + len(line), "hidden"))
            i, item = i + 1, None
            continue
        hidden = _hidden_end(text, lines, i)
        if hidden > i:
            last = lines[hidden - 1]
            roles.append((start, last[0] + len(last[1]), "hidden"))
            i, item = hidden, None
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1][1]) \
                and _cells(line) == _cells(lines[i + 1][1]):
            j = i + 2
            while j < len(lines) and "|" in lines[j][1] and lines[j][1].strip():
                j += 1
            roles.append((start, lines[j - 1][0] + len(lines[j - 1][1]), "table"))
            # Its header names the columns, as a heading (never the answer); its rule
            # line ("|---|---|") is not on the page.
            roles.append((start, start + len(line.rstrip()), "heading"))
            rule = lines[i + 1]
            roles.append((rule[0], rule[0] + len(rule[1].rstrip()), "hidden"))
            i, item = j, None
            continue
        if _ITEM.match(line):
            item = [start, start + len(line)]
            roles.append((item[0], item[1], "list_item"))
        elif item is not None and line.strip() and line[:1] in " \t":
            roles[-1] = (item[0], start + len(line), "list_item")  # its continuation
            item[1] = start + len(line)
        else:
            item = None
        i += 1
    roles.sort(key=lambda r: (r[0], -r[1]))
    return roles


def _cells(line: str) -> int:
    """How many cells a table's line has: a header and its rule line have as many, or they
    are no table ("api.help([option | boolean])" over "---" is a setext heading)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return len(re.split(r"(?<!\\)\|", inner))


def _blocks(lines: list[tuple[int, str]], first: int) -> dict[int, tuple[int, bool]]:
    """Each code block's first line → (its last line, whether it is fenced): a fence, up to
    the closing fence of its marker (at most three columns deeper than it, with nothing
    after it) or the text's end, and a Hugo example's shortcodes with what they hold. A
    fence indented four columns or more is one only in a list item; elsewhere it is a line
    of an indented code block (code review, 2026-12-07)."""
    out: dict[int, tuple[int, bool]] = {}
    i = first
    while i < len(lines):
        line = lines[i][1]
        fm = _FENCE.match(line)
        column = len(line) - len(line.lstrip(" \t"))
        example = _EXAMPLE_OPEN.match(line)
        if fm and (column <= 3 or _in_item(lines, i)):
            marker = fm.group(1)
            close = next((j for j in range(i + 1, len(lines)) if _closes(
                lines[j][1], marker, column)), len(lines))
            out[i], i = (close, True), close + 1
        elif example:
            end = re.compile(rf"^[ \t]*\{{\{{[<%][ \t]*/[ \t]*{example.group(1)}\b")
            close = next((j for j in range(i + 1, len(lines)) if end.match(lines[j][1])), -1)
            if close > 0:
                out[i] = (close, False)
            i = max(close, i) + 1
        else:
            i += 1
    return out


def _closes(line: str, marker: str, column: int) -> bool:
    """Whether ``line`` closes a fence of ``marker`` opened at ``column``."""
    fm = _FENCE.match(line)
    return (fm is not None and fm.group(1)[0] == marker[0] and len(fm.group(1)) >= len(marker)
            and len(line) - len(line.lstrip(" \t")) <= column + 3
            and not line[fm.end():].strip())


_ANY_ITEM = re.compile(rf"^[ \t]*{_MARKER}")  # at any depth


def _in_item(lines: list[tuple[int, str]], i: int) -> bool:
    """Whether line ``i`` (an indented one) is inside a list item: above it, before any
    line at the margin, a list item's line."""
    for k in range(i - 1, max(-1, i - 200), -1):
        line = lines[k][1]
        if not line.strip():
            continue
        if _ANY_ITEM.match(line):
            return True
        if not line[:1].isspace():
            return False
    return False


def _hidden_end(text: str, lines: list[tuple[int, str]], i: int) -> int:
    """The index of the line after the hidden block that starts at line ``i`` (an HTML
    comment up to its ``-->``, link definitions, empty anchors or bare block tags in a
    row), else ``i``."""
    start, line = lines[i]
    if _COMMENT.match(line):
        close = text.find("-->", start + line.index("<!--") + 4)
        if close < 0:
            return i  # never closed: kept, rather than hide the rest of the file
        j = i
        while j < len(lines) and lines[j][0] + len(lines[j][1]) < close + 3:
            j += 1
        return min(j + 1, len(lines))
    if i > 0 and lines[i - 1][1].strip():
        return i  # inside a paragraph, "[note]: …" is text (no definition interrupts one)
    j = i
    while j < len(lines) and (_LINK_DEFINITION.match(lines[j][1])
                              or _EMPTY_ANCHORS.match(lines[j][1])
                              or _BARE_TAGS.match(lines[j][1])):
        j += 1
    return j


def section_spans(text: str, headings: list[tuple[int, int, str]]) -> list[SectionSpan]:
    spans: list[SectionSpan] = []
    stack: list[tuple[int, str]] = []  # (level, title) of the open headings
    for i, (start, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = headings[i + 1][0] if i + 1 < len(headings) else len(text)
        if end > start:
            spans.append((start, end, " > ".join(t for _, t in stack)))
    return spans


class MarkdownLoader:
    """``.md`` / ``.markdown`` files."""

    name = "markdown"
    version = "11"  # 2: role spans; 3: hidden spans, headings without backticks; 4: rechunked,
    # hidden lines in no chunk of their own and in no index (chunking.py); 5: bare block tags;
    # 6: front matter hidden, fences indented in list items, Hugo shortcodes; 7: the code
    # review's mends (a fence only in a list item past column 3, closed within three columns
    # of its opener; front matter only of YAML); 8: headings as rendered, HTML headings;
    # 9-10: a table's header line a heading, its rule line hidden (one of as many cells);
    # 11: an HTML block's lines of tags alone hidden, its header cells a heading
    extensions: tuple[str, ...] = (".md", ".markdown", ".mdown", ".mkd")
    content_types: tuple[str, ...] = ("text/markdown", "text/x-markdown")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        text, encoding = decode_text(path, data)
        layout = _layout(text)
        headings, front = parse_headings(text, layout)
        meta = file_metadata(path, data, encoding)
        if front:
            meta["front_matter"] = front
        h1 = next((t for _, level, t in headings if level == 1), None)
        title = front.get("title") or h1 or (headings[0][2] if headings else None) or path.stem
        return LoadedDocument(
            text=text,
            content_type="text/markdown",
            title=title,
            metadata=meta,
            sections=section_spans(text, headings),
            roles=markdown_roles(text, headings, layout),
        )
