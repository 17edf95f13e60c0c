"""AsciiDoc (``.adoc``, ``.asciidoc``): the text a reader of the rendered page
reads, with its section structure.

Why not Asciidoctor: it is Ruby (no maintained Python port on PyPI reads the current
syntax), and a subprocess per file is what the loaders avoid. AsciiDoc is line-oriented
enough for a careful reader of its common syntax: section titles (``== Title``, ``#``
style, and the older underlined two-line form), the document header (``= Title``,
author and revision lines, ``:attribute: value`` entries, whose ``{attribute}``
references are replaced), delimited blocks (listing ``----`` and literal ``....`` kept
verbatim, example, sidebar, quote and open blocks read as text, comment ``////`` and
passthrough ``++++`` blocks dropped), tables (``|===``, a row per line as ``a | b``), lists,
block titles, anchors and block attributes (dropped), and inline markup (``*bold*``,
``_em_``, ```mono```, ``link:url[text]``, ``<<id,text>>``, ``kbd:[…]`` … reduced to their
text). Paragraph lines are joined into one line, as a renderer flows them. ``include::``
is never followed (a document must not read other files of the server); images leave
their alt text.

The stored text is assembled block by block, so every section span is an exact offset
into it. Syntax this reader does not know stays as written: it loses formatting, never
words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from citewise.errors import IngestError
from citewise.knowledge.loaders._blocks import heading_roles, section_spans, tidy_roles
from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["AsciiDocLoader", "looks_like_asciidoc", "read_asciidoc", "render_asciidoc"]

_TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
_UNDERLINE = {"=": 0, "-": 1, "~": 2, "^": 3, "+": 4}
_ATTRIBUTE = re.compile(r"^:(!?[\w][\w-]*!?):(?:[ \t]+(.*))?$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|\|===+|,===+|"
                        r"!===+|`{3,}[\w+-]*)[ \t]*$")
_VERBATIM = ("-", ".", "`")  # listing, literal, fenced code: kept line for line
_DROPPED = ("+", "/")  # passthrough, comment
_LIST = re.compile(r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d+\.|[a-zA-Z]\.|<\d+>)[ \t]+(.*)$")
_TERM = re.compile(r"^(.*?\S)(:{2,4}|;;)(?:[ \t]+(.*))?$")
_SKIP_LINE = re.compile(r"^(?://(?!/).*|\[\[[^\]]*\]\]|\[[^\]]*\]|(?:include|toc|ifdef|ifndef|"
                        r"ifeval|endif)::.*|'{3,}|<{3,}|:\w[\w-]*:.*)$")
_IMAGE = re.compile(r"^image::[^\[]*\[([^\],]*)[^\]]*\][ \t]*$")
_INLINE: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    # ``link:url[]`` (no text) reads as the url itself, as Asciidoctor renders it
    (re.compile(r"\b(?:link|mailto|xref):([^\s\[]*)\[([^\]]*)\]"),
     lambda m: m.group(2) or m.group(1)),
    (re.compile(r"\b(?:https?|ftp|irc)://[^\s\[]+\[([^\]]+)\]"), r"\1"),
    # git's manual pages' own macro: "linkgit:git-reset[1]" is rendered "git-reset(1)"
    (re.compile(r"\blinkgit:([^\s\[]+)\[(\w+)\]"), r"\1(\2)"),
    (re.compile(r"<<[^,>]+,\s*([^>]+)>>"), r"\1"),
    (re.compile(r"<<([^>]+)>>"), r"\1"),
    (re.compile(r"\b(?:kbd|btn|footnote|pass|stem|latexmath|asciimath):\[([^\]]*)\]"), r"\1"),
    (re.compile(r"\bmenu:([^\[\s]+)\[([^\]]*)\]"), r"\1 > \2"),
    (re.compile(r"\bimage:[^\[\s]*\[([^\],]*)[^\]]*\]"), r"\1"),
    (re.compile(r"\[\[[^\]]*\]\]|\[#[\w-]+(?:\.[\w-]+)*\]|\[\.[\w-]+\]"), ""),
    (re.compile(r"(\*\*|__|``|##|\+\+)(.+?)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])"), r"\1"),
    (re.compile(r"(?<![\w`])`(?=\S)([^`\n]*?\S)`(?![\w`])"), r"\1"),
    (re.compile(r"(?<![\w#])#(?=\S)([^#\n]*?\S)#(?![\w#])"), r"\1"),
    (re.compile(r"(?<![\w+])\+(?=\S)([^+\n]*?\S)\+(?![\w+])"), r"\1"),
    (re.compile(r"\^(\S+?)\^|~(\S+?)~"), r"\1\2"),
]
_SPACE = re.compile(r"[ \t]+")


def _inline(text: str, attrs: dict[str, str]) -> str:
    text = re.sub(r"\{([\w-]+)\}", lambda m: attrs.get(m.group(1), m.group(0)), text)
    for rx, repl in _INLINE:
        text = rx.sub(repl, text)
    return text


@dataclass
class _Out:
    parts: list[str] = field(default_factory=list)
    length: int = 0
    para: list[str] = field(default_factory=list)
    headings: list[tuple[int, int, str]] = field(default_factory=list)
    roles: list[RoleSpan] = field(default_factory=list)  # besides the headings'

    def write(self, text: str, sep: str = "\n\n", role: str | None = None) -> int | None:
        if not text.strip():
            return None
        if self.length:
            self.parts.append(sep)
            self.length += len(sep)
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        if role is not None:
            self.roles.append((start, self.length, role))
        return start

    def flush(self) -> None:
        if self.para:
            lines = "\n".join(self.para)
            self.para.clear()
            self.write(lines)


def _title(lines: list[str], i: int) -> tuple[int, str] | None:
    """``(level, title)`` of a section title at line ``i`` (0 = the document title)."""
    m = _TITLE.match(lines[i])
    if m:
        return len(m.group(1)) - 1, m.group(2)
    if i + 1 < len(lines) and lines[i].strip() and not lines[i].startswith((" ", "\t", ".")):
        under = lines[i + 1].rstrip()
        if (len(under) >= 2 and under[0] in _UNDERLINE and under == under[0] * len(under)
                and abs(len(under) - len(lines[i].rstrip())) <= 1):  # as Asciidoctor
            return _UNDERLINE[under[0]], lines[i].strip()
    return None


def render_asciidoc(source: str) -> tuple[str, str | None, list[SectionSpan],
                                          dict[str, str]]:
    """``(text, title, sections, attributes)`` of an AsciiDoc document."""
    text, title, sections, attrs, _ = read_asciidoc(source)
    return text, title, sections, attrs


def read_asciidoc(source: str) -> tuple[str, str | None, list[SectionSpan],
                                        dict[str, str], list[RoleSpan]]:
    """``(text, title, sections, attributes, roles)`` of an AsciiDoc document."""
    lines = source.replace("\r\n", "\n").split("\n")
    out = _Out()
    attrs: dict[str, str] = {}
    doc_title: str | None = None
    block: str | None = None  # the open delimited block's delimiter
    verbatim: list[str] = []
    joined: list[str] = []  # the paragraph being flowed
    header = True  # author and revision lines follow the document title
    ordinal = 0  # the last number given to an item of the open ``. item`` list
    i = 0

    def end_paragraph() -> None:
        if joined:
            out.para.append(_SPACE.sub(" ", " ".join(joined)).strip())
            joined.clear()
        out.flush()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if block is not None:
            if stripped == block:
                if block[0] in _VERBATIM:
                    out.write("\n".join(verbatim).rstrip(), role="code")
                verbatim.clear()
                block = None
            elif block[0] in _VERBATIM:
                verbatim.append(line.rstrip())
            i += 1
            continue
        delim = _DELIMITER.match(stripped)
        if delim and (stripped != "--" or not joined):
            end_paragraph()
            d = delim.group(1)
            if d[0] in _VERBATIM or d[0] in _DROPPED:
                block = "```" if d.startswith("```") else d
            elif d[0] in "|,!":  # a table: one line per row
                i = _table(lines, i + 1, d, out, attrs)
            i += 1
            continue
        if not stripped:
            end_paragraph()
            header = False
            i += 1
            continue
        ordinal = 0 if not _LIST.match(line) else ordinal
        heading = _title(lines, i) if not joined else None
        if heading is not None:
            end_paragraph()
            level, text = heading
            text = _inline(text, attrs)
            start = out.write(text)
            if start is not None:
                out.headings.append((start, level, text))
            header = level == 0 and doc_title is None
            if header:
                doc_title = text
            i += 1 if _TITLE.match(line) else 2
            continue
        attr = _ATTRIBUTE.match(stripped)
        if attr and not joined:
            name = attr.group(1)
            if not name.startswith("!") and not name.endswith("!"):
                attrs[name] = attr.group(2) or ""
            i += 1
            continue
        if header and doc_title is not None and not joined:
            i += 1  # an author or revision line of the header
            continue
        image = _IMAGE.match(stripped)
        if image:
            end_paragraph()
            out.write(image.group(1).strip())
        elif _SKIP_LINE.match(stripped) and not joined:
            pass
        elif stripped.startswith(".") and len(stripped) > 1 and stripped[1] not in ". " \
                and not joined:
            end_paragraph()
            out.write(_inline(stripped[1:], attrs))  # a block title
        elif (item := _LIST.match(line)) is not None:
            if joined:
                out.para.append(_SPACE.sub(" ", " ".join(joined)).strip())
                joined.clear()
            marker = item.group(1)
            if marker[0] == ".":  # numbered by the renderer
                ordinal += 1
                bullet = f"{ordinal}. "
            else:
                bullet = "- " if marker[0] in "*-" else marker + " "
            joined.append(bullet + _inline(item.group(2), attrs))
            i += 1
            continue
        elif (term := _TERM.match(stripped)) is not None and not stripped.startswith("|"):
            if joined:
                out.para.append(_SPACE.sub(" ", " ".join(joined)).strip())
                joined.clear()
            out.para.append(_inline(term.group(1), attrs))
            if term.group(3):
                joined.append(_inline(term.group(3), attrs))
        elif stripped == "+":
            pass  # a list continuation: the next block belongs to the item
        else:
            hard_break = stripped.endswith(" +")
            joined.append(_inline(stripped[:-2] if hard_break else stripped, attrs))
            if hard_break:
                out.para.append(_SPACE.sub(" ", " ".join(joined)).strip())
                joined.clear()
        i += 1
    end_paragraph()
    if block is not None and block[0] in _VERBATIM and verbatim:
        out.write("\n".join(verbatim).rstrip(), role="code")  # unclosed: runs to the end
    text = "".join(out.parts)
    return (text, doc_title, section_spans(out.headings, len(text)), attrs,
            tidy_roles([*heading_roles(out.headings, text), *out.roles], text))


# The block attributes' word on a header row: "header" (declared), "noheader" (none).
_HEADER = re.compile(r"^\[[^\]\n]*(?:opts|options)=\"?[^\"\]\n]*?\b(?:(header)|noheader)\b"
                     r"|^\[[^\]\n]*%(?:(header)|noheader)\b")


def _table(lines: list[str], i: int, delim: str, out: _Out, attrs: dict[str, str]) -> int:
    """Write the table whose body starts at line ``i``; returns its closing line's index."""
    sep = {"|": "|", ",": ",", "!": "!"}[delim[0]]
    # A header row: so declared in the block's attributes, or the first line's cells with
    # a blank line under them (AsciiDoc's implicit header).
    above = i - 2  # the block's attribute line, above its ".Title" if it has one
    while above >= 0 and lines[above].strip()[:1] == ".":
        above -= 1
    declared = _HEADER.search(lines[above]) if above >= 0 else None
    if declared is not None:
        headed = bool(declared.group(1) or declared.group(2))
    else:
        headed = (i + 1 < len(lines) and lines[i].strip().count(sep) > 1
                  and not lines[i + 1].strip())
    rows: list[str] = []
    cells: list[str] = []
    while i < len(lines) and lines[i].strip() != delim:
        line = lines[i].strip()
        if not line:
            if cells:
                rows.append(" | ".join(cells))
                cells = []
        elif sep == "," and not line.startswith(","):
            rows.append(" | ".join(c.strip() for c in line.split(",")))
        else:
            # Cells start at the separator, after an optional spec (``2+|``, ``a|``).
            found = [c.strip() for c in re.split(rf"(?:^|(?<=\s))[\d.*+<^>a-z]*"
                                                  rf"{re.escape(sep)}", line)[1:]]
            if found and len(found) > 1 and not cells:
                rows.append(" | ".join(_inline(c, attrs) for c in found))
            else:
                cells.extend(_inline(c, attrs) for c in found or [line])
        i += 1
    if cells:
        rows.append(" | ".join(cells))
    rows = [r for r in rows if r.strip(" |")]
    at = out.write("\n".join(rows), role="table")
    if at is not None and len(rows) > 1 and headed:  # it names the columns: a heading
        out.roles.append((at, at + len(rows[0]), "heading"))
    return i



# What only AsciiDoc writes: a block attribute line ("[verse]", "[source,sh]", "[NOTE]"), an
# inline or block macro with its brackets ("linkgit:git-log[1]", "link:url[text]",
# "include::x.txt[]", "ifdef::git-asciidoc[]"), a one-line section title ("== Options").
_ASCIIDOC = re.compile(
    r"(?m)^\[(?:verse|source|listing|literal|quote|NOTE|TIP|IMPORTANT|WARNING|CAUTION|"
    r"horizontal|appendix|cols=|options=|id=|#)[^\]\n]*\][ \t]*$"
    r"|\b(?:linkgit|xref|link|include|image|footnote|kbd|ifdef|ifndef|endif)::?"
    r"[^\s\[\]]*\[[^\]\n]*\]|(?P<title>^={1,5}[ \t]+\S)")
_SNIFF = 20_000  # characters read to decide


def looks_like_asciidoc(text: str) -> bool:
    """Whether a file with no AsciiDoc extension (git's manual pages are ``git-log.txt``) is
    AsciiDoc: two or more of its own constructs in its first 20,000 characters, not all of
    them "== Title" lines. Its underlined titles alone look like reStructuredText's, and
    git's ``----`` listing blocks read as rST made their first line a section ("$ git bisect
    good v2.6.13-rc2"). Titles alone are a wiki's or a plain note's: nginx's ``php`` notes
    have "== PHP-FPM ==" over shell and regexes, and read as AsciiDoc their ``.*/.*`` was
    bold and their ``(.+)`` a passthrough (new-user review, 2026-12-06)."""
    found = list(_ASCIIDOC.finditer(text, 0, _SNIFF))
    return len(found) >= 2 and any(m.group("title") is None for m in found)


class AsciiDocLoader:
    """``.adoc`` / ``.asciidoc`` files (not ``.asc``: that is a PGP signature as often)."""

    name = "asciidoc"
    version = "7"  # 2: link:URL[] reads as its URL; 3: role spans; 4: git's linkgit:x[1];
    # 5-7: a table's header row is a heading, as its attributes say (past a .Title line)
    extensions: tuple[str, ...] = (".adoc", ".asciidoc")
    content_types: tuple[str, ...] = ("text/asciidoc", "text/x-asciidoc")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        source, encoding = decode_text(path, data)
        text, title, sections, attrs, roles = read_asciidoc(source)
        if not text.strip():
            raise IngestError(f"{path}: no readable text in the document",
                              code="empty_document", details={"path": str(path)})
        meta = file_metadata(path, data, encoding)
        if attrs:
            meta["attributes"] = attrs
        return LoadedDocument(text=text, content_type="text/asciidoc",
                              title=title or path.stem, metadata=meta, sections=sections,
                              roles=roles)
