"""Perl's POD (``.pod`` files: perlfaq, perlfunc, a module's manual): rendered to the text
``perldoc`` shows.

Why a loader of its own: POD is the documentation format of Perl and of every CPAN module,
and read as plain text its commands (``=head2``, ``=item``, ``=over``) and formatting codes
(``C<$x>``, ``L<perlop/"Quote-Like Operators">``, ``E<gt>``) end up inside the quotes a
citation shows — and a FAQ's questions (its ``=head2`` lines) would not be sections. Here
``=headN`` are the sections (nested by level), ``=item`` tags are definition terms (a bullet
is a list item), indented (verbatim) paragraphs are code, ``=begin``/``=end`` and ``=for``
blocks for other formatters are skipped, and formatting codes become the text they print
(``L<text|target>`` its text, ``E<lt>`` "<", ``X<>`` and ``Z<>`` nothing).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from citewise.errors import IngestError
from citewise.knowledge.loaders._blocks import Blocks, section_spans
from citewise.knowledge.loaders._decode import decode_text, file_metadata
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


def read_pod(source: str) -> tuple[str, str | None, list[SectionSpan], list[RoleSpan]]:
    """``(text, title, sections, roles)`` of a POD document."""
    page = Blocks()
    title: str | None = None
    in_pod = True  # a .pod file is POD from its start; after a =cut, up to the next command
    skipping: str | None = None  # the format of an open =begin block
    name_next = False
    for para in re.split(r"\n[ \t]*\n", source.replace("\r\n", "\n")):
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
            if command == "begin" and rest.split()[:1] not in (["text"], ["plain"]):
                skipping = rest
            elif command.startswith("head") and command[4:].isdigit():
                heading = inline(rest)
                start = page.write(heading)
                if start is not None:
                    page.headings.append((start, int(command[4:]), heading))
                name_next = heading.upper() == "NAME"
            elif command == "item":
                tag = inline(rest)
                bullet = tag in ("*", "") or re.fullmatch(r"\d+\.?", tag) is not None
                at = page.length
                page.write(tag if not bullet else "•", "\n" if not bullet else " ")
                page.mark(at, "term" if not bullet else "list_item")
            continue
        if not in_pod or skipping is not None:
            continue
        if para[0] in " \t":  # verbatim: code, line for line
            lines = para.rstrip().split("\n")
            margin = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
            at = page.length
            page.write("\n".join(ln[margin:] for ln in lines))
            page.mark(at, "code")
            continue
        text = " ".join(inline(para).split())
        page.write(text)
        if name_next and title is None:
            title, name_next = text, False
    text = "".join(page.parts)
    if title is None and page.headings:
        title = page.headings[0][2]
    return text, title, section_spans(page.headings, len(text)), page.role_spans()


class PodLoader:
    """``.pod`` files (POD inside ``.pm``/``.pl`` stays with the source-code loader)."""

    name = "pod"
    extensions: tuple[str, ...] = (".pod",)
    content_types: tuple[str, ...] = ("text/x-pod",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        source, encoding = decode_text(path, data)
        text, title, sections, roles = read_pod(source)
        if not text.strip():
            raise IngestError(f"{path}: no readable text in the document",
                              code="empty_document", details={"path": str(path)})
        return LoadedDocument(text=text, content_type="text/x-pod", title=title or path.stem,
                              metadata=file_metadata(path, data, encoding), sections=sections,
                              roles=roles)
