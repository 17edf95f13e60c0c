"""reStructuredText (``.rst``, ``.rest``): the text a reader of the rendered page reads, with
its section structure.

Why docutils: rST is hard to read correctly with regexes (title adornments of any
punctuation, nested lists, definition and field lists, grid tables, literal blocks opened by
``::``), and docutils is the reference parser, pure Python. Its doctree is walked here and the
stored text is assembled block by block, so every section span is an exact offset into it.
What a reader reads: no title adornments, no inline markup (``**x**`` → ``x``), link
targets, comments and substitution definitions left out, lists as ``- item`` lines, table
rows as ``a | b``, literal and code blocks verbatim, admonitions as ``Note: …``.

Sphinx sources are the common case, and docutils does not know Sphinx's roles and
directives. An unknown role keeps its text (``:ref:`Install <install>``` → ``Install``,
``:func:`~pkg.mod.f``` → ``f``); an unknown directive's arguments and content are read as
rST (a ``py:function`` signature and its description), except for those that hold no prose
(``toctree``, ``automodule``, ``index`` …), which are dropped; version notes read as Sphinx
writes them (``.. versionadded:: 2.0`` → "New in version 2.0."), ``seealso`` as "See also:",
the doctest extension's ``testcode`` as code (unless ``:hide:``) and its set-up not at all.
Nothing is registered with docutils, so no other user of it in the process is affected.

Safety: ``include``, ``raw`` and ``csv-table :file:`` are disabled (a document must not read
other files of the server), docutils configuration files are not read, and no parse problem
stops the load: docutils reports them into a sink and goes on.
"""

from __future__ import annotations

import io
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders._blocks import Blocks
from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders._rst_sniff import looks_like_rst
from citewise.knowledge.loaders._rst_sphinx import (
    LABELS,
    METADATA,
    NO_PROSE,
    PREFIXES,
    SHOWN_AS_WRITTEN,
    TEST_CODE,
    field_label,
    reference_text,
    sphinx_classes,
    unknown_role,
)
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["RstLoader", "looks_like_rst", "read_rst", "render_rst"]

_SETTINGS: dict[str, Any] = {
    "report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
    "doctitle_xform": False, "sectsubtitle_xform": False, "syntax_highlight": "none",
    "_disable_config": True, "input_encoding": "unicode", "docinfo_xform": False,
    "pep_references": False, "rfc_references": False, "smart_quotes": False,
    "character_level_inline_markup": False,
}
_DIRECTIVE = re.compile(r"^\.\.\s+([\w:.+-]+)::[ \t]*(.*)$")
_SPACE = re.compile(r"\s+")


@dataclass
class _Out(Blocks):
    line: list[str] = field(default_factory=list)
    prefix: str = ""  # "- " or "3. " for the first block of a list item

    def write(self, text: str, sep: str = "\n\n") -> int | None:
        if self.prefix and text.strip():
            text, self.prefix = self.prefix + text, ""
        return super().write(text, sep)

    def flush(self, sep: str = "\n\n") -> int | None:
        text = _SPACE.sub(" ", "".join(self.line)).strip()
        self.line.clear()
        return self.write(text, sep)


def _inline(node: Any, out: _Out) -> None:
    """Inline content of a text element, markup dropped."""
    from docutils import nodes

    for child in node.children:
        if isinstance(child, nodes.Text):
            out.line.append(child.astext())  # a backslash escape is a NUL in str(child)
        elif isinstance(child, nodes.system_message | nodes.target | nodes.substitution_definition
                        | nodes.raw | nodes.comment | nodes.image):
            continue
        elif isinstance(child, nodes.problematic):
            # An unknown role, or a reference whose target is outside the directive's body
            # parsed alone ("`NumPy style`_", "[#]_" inside a Sphinx "confval": 20 places
            # of Sphinx's own sources read with their markup; review, 2026-12-07).
            raw = child.astext()
            if raw.startswith(":"):  # a role: its text as Sphinx shows it ("__init__")
                out.line.append(unknown_role(raw).replace("\x00", ""))
            else:
                out.line.append(reference_text(raw.replace("\x00", "")))
        elif isinstance(child, nodes.footnote_reference | nodes.citation_reference):
            out.line.append(f"[{child.astext()}]")
        else:
            _inline(child, out)


def _walk(node: Any, out: _Out, level: int, path_ok: bool) -> None:
    from docutils import nodes

    list_kind: str | None = None
    if isinstance(node, nodes.enumerated_list):
        list_kind = "enum"
    elif isinstance(node, nodes.bullet_list):
        list_kind = "bullet"
    number = int(node.get("start", 1)) if list_kind == "enum" else 0
    for child in node.children:
        if isinstance(child, nodes.Text):
            out.line.append(child.astext())
        elif isinstance(child, nodes.comment | nodes.target | nodes.substitution_definition
                        | nodes.raw | nodes.pending | nodes.image | nodes.transition):
            continue
        elif isinstance(child, nodes.topic) and "contents" in child.get("classes", ()):
            continue  # ".. contents::": the page's own table of contents, navigation
        elif isinstance(child, nodes.field) and _page_setting(child[0].astext()):
            continue  # ":tocdepth: 2", ":orphan:": Sphinx's settings for the page, not text
        elif isinstance(child, nodes.system_message):
            _unknown_directive(child, out, level)
        elif isinstance(child, nodes.section):
            out.flush()
            title = child.next_node(nodes.title)
            if title is not None:
                _inline(title, out)
            start = out.flush()
            if start is not None and path_ok:
                heading = out.parts[-1]
                out.headings.append((start, level, heading))
            _walk(child, out, level + 1, path_ok)
        elif isinstance(child, nodes.title) and isinstance(node, nodes.section):
            continue  # written with its section
        elif isinstance(child, nodes.literal_block | nodes.doctest_block | nodes.math_block):
            out.flush()
            body = child.astext().rstrip()
            start = out.write(body)
            if start is not None:
                doctest = isinstance(child, nodes.doctest_block) or body.startswith(">>>")
                out.roles.append((start, start + len(body), "doctest" if doctest else "code"))
        elif isinstance(child, nodes.list_item):
            out.flush()
            if list_kind == "enum":
                out.prefix = f"{number}. "
                number += 1
            elif list_kind == "bullet":
                out.prefix = "- "
            at = out.length
            _walk(child, out, level, path_ok)
            out.flush("\n")
            out.mark(at, "list_item")
            out.pending_sep = "\n"
        elif isinstance(child, nodes.row):
            out.flush()
            cells = []
            for entry in child.children:
                cell = _Out()
                _walk(entry, cell, level, False)
                cell.flush()
                cells.append(_SPACE.sub(" ", "".join(cell.parts)).strip())
            at = out.length
            out.write(" | ".join(cells), "\n")
            # A header row names the columns: a heading of the rows, no answer.
            out.mark(at, "heading" if isinstance(child.parent, nodes.thead) else "table")
        elif isinstance(child, nodes.Admonition):
            out.flush()
            name = type(child).__name__.replace("_", " ").capitalize()
            if isinstance(child, nodes.admonition):  # a titled one: its title says it
                name = ""
            out.prefix = f"{name}: " if name else ""
            _walk(child, out, level, path_ok)
            out.flush()
        elif isinstance(child, nodes.footnote | nodes.citation):
            out.flush()
            label = child.next_node(nodes.label)
            out.prefix = f"[{label.astext()}] " if label is not None else ""
            _walk(child, out, level, path_ok)
            out.flush()
        elif isinstance(child, nodes.label):
            continue  # a footnote's, written as its prefix
        elif isinstance(child, nodes.field):
            _field(child, out, level, path_ok)
        elif isinstance(child, nodes.option_list_item):
            _option_item(child, out, level, path_ok)
        elif isinstance(child, nodes.TextElement):
            out.flush()
            _inline(child, out)
            sep = "\n" if isinstance(child, nodes.term | nodes.line | nodes.field_name) else "\n\n"
            at = out.length
            out.flush(sep)
            if isinstance(child, nodes.term | nodes.field_name):
                out.mark(at, "term")
        else:
            at = out.length
            _walk(child, out, level, path_ok)
            if isinstance(child, nodes.table | nodes.definition_list | nodes.field_list
                          | nodes.line_block | nodes.option_list):
                out.flush()
                if isinstance(child, nodes.table):  # its rows, its header's among them
                    out.mark(at, "table")
                out.pending_sep = "\n\n"  # its rows and items were lines of one block
    if list_kind is not None:
        out.pending_sep = "\n\n"


def _page_setting(name: str) -> bool:
    """A field that is Sphinx's setting, not text: ``:tocdepth: 2``, ``:orphan:``, autodoc's
    ``:meta private:`` (but not a field named "Meta data")."""
    return name.lower() in METADATA or name.split(" ")[0] == "meta"


def _field(field: Any, out: _Out, level: int, path_ok: bool) -> None:
    """A field as a reader sees it rendered: "Author: Andrew Dalke", one line; Sphinx's
    info fields by what they say ("Parameter timeout: …", "Returns: …"), not ":param …:"."""
    from docutils import nodes

    out.flush()
    name, body = field[0].astext(), field[1]
    label = field_label(" ".join(name.split()))
    if body.children and isinstance(body[0], nodes.paragraph):
        out.prefix = f"{label}: "
    else:  # a list or a block under the name: the name is its lead-in line
        out.write(f"{label}:", "\n")
    _walk(body, out, level, path_ok)
    out.flush()
    out.prefix = ""


def _option_item(item: Any, out: _Out, level: int, path_ok: bool) -> None:
    """An option list's entry as a man page prints it: its options on one line, a term
    ("-o FILE, --output=FILE"), and its description under it."""
    from docutils import nodes

    out.flush()
    options = []  # its own: a description may hold an option list of its own
    for group in item.children:
        if isinstance(group, nodes.option_group):
            for option in group.children:  # an argument's text has its delimiter
                options.append("".join(c.astext() for c in option.children))
    at = out.length
    out.write(", ".join(options), "\n")
    out.mark(at, "term")
    for description in item.children:
        if isinstance(description, nodes.description):
            _walk(description, out, level, path_ok)
    out.flush()


def _unknown_directive(msg: Any, out: _Out, level: int) -> None:
    """An unknown (Sphinx) directive: its arguments and content read as rST; others of
    docutils' messages are no text of the document."""
    from docutils import nodes

    block = msg.next_node(nodes.literal_block)
    if block is None or "Unknown directive type" not in msg.astext():
        return
    lines = block.astext().splitlines()
    m = _DIRECTIVE.match(lines[0]) if lines else None
    if m is None or m.group(1).lower() in NO_PROSE:
        return
    name = m.group(1).lower()
    # Options are the lines right under the directive; a line of its content may open with
    # a role too (":ref:`urllib-howto` for extensive examples." in a seealso).
    n = 1
    while n < len(lines) and re.match(r"^\s+:[\w-]+:(?!`)", lines[n]):
        n += 1
    options, body = lines[1:n], textwrap.dedent("\n".join(lines[n:]))
    if name in TEST_CODE:
        # Sphinx's doctest extension: code shown as code, or not at all (":hide:", set-up).
        if name in ("testcode", "testoutput") and not any(":hide:" in o for o in options):
            out.flush()
            start = out.write(body.strip("\n").rstrip())
            if start is not None:
                out.roles.append((start, out.length, "code"))
        return
    argument = m.group(2)
    if name in SHOWN_AS_WRITTEN:
        # "..  rst:directive:: .. py:function:: name(parameters)": Sphinx shows the
        # directive it documents as written; parsed, only "name(parameters)" was left
        # (Sphinx's review, 2026-12-07: 74 entries of its domains and directives pages).
        out.flush()
        at = out.length
        shown = argument.strip()
        if not shown.startswith(".."):  # ".. toctree::", ":math:", as Sphinx shows them
            shown = f".. {shown}::" if name == "rst:directive" else f":{shown}:"
        if out.write(shown) is not None:
            out.mark(at, "term")
        _walk(_parse(body), out, level, False)
        return
    label = LABELS.get(name)
    if label is not None:
        # As Sphinx renders it: "Changed in version 3.9: The encoding argument was added."
        version, _, argument = argument.partition(" ")
        label = f"{label} {version}"
    doc = _parse(argument + "\n\n" + body)
    out.flush()
    at = out.length
    if label is not None and not doc.astext().strip():
        out.write(f"{label}.")
    else:
        out.prefix = f"{label}: " if label is not None else PREFIXES.get(name, "")
        _walk(doc, out, level, False)
        out.prefix = ""
    if label is not None:
        out.flush()
        out.mark(at, "version_note")




def _parse(text: str) -> Any:
    from docutils.core import publish_doctree

    return publish_doctree(text, settings_overrides={**_SETTINGS,
                                                     "warning_stream": io.StringIO()})


def render_rst(source: str) -> tuple[str, str | None, list[SectionSpan]]:
    """``(text, title, sections)`` of an rST document."""
    text, title, sections, _ = read_rst(source)
    return text, title, sections


def read_rst(source: str) -> tuple[str, str | None, list[SectionSpan], list[RoleSpan]]:
    """``(text, title, sections, roles)`` of an rST document."""
    out = _Out()
    _walk(_parse(sphinx_classes(source)), out, 1, True)
    out.flush()
    text = "".join(out.parts)
    spans: list[SectionSpan] = []
    stack: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(out.headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = out.headings[i + 1][0] if i + 1 < len(out.headings) else len(text)
        if end > start:
            spans.append((start, end, " > ".join(t for _, t in stack)))
    return text, (out.headings[0][2] if out.headings else None), spans, out.role_spans()


_INCLUDE = re.compile(r"(?m)^\.\.\s+include::\s*(\S+)")


class RstLoader:
    """``.rst`` / ``.rest`` files."""

    name = "rst"
    # 2: role spans; 3: no generated table of contents; 4: backslash escapes, Sphinx's
    # version notes as it writes them, test code, "See also:", page settings; 5: fields on
    # one line ("Author: …", Sphinx's "Parameter x: …"), option lists' options as terms;
    # 6: Sphinx's sources (_rst_sphinx); 7-8: a table's header rows are headings in its span
    version = "8"
    extensions: tuple[str, ...] = (".rst", ".rest")
    content_types: tuple[str, ...] = ("text/x-rst", "text/prs.fallenstein.rst")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        source, encoding = decode_text(path, data)
        text, title, sections, roles = read_rst(source)
        if not text.strip():
            included = _INCLUDE.findall(source)
            why = (f"it only includes {', '.join(included[:3])} (includes are not followed: "
                   "ingest those files themselves)" if included
                   else "no readable text in the document")
            raise IngestError(f"{path}: {why}", code="empty_document",
                              details={"path": str(path), **({"includes": included}
                                                             if included else {})})
        return LoadedDocument(text=text, content_type="text/x-rst", title=title or path.stem,
                              metadata=file_metadata(path, data, encoding), sections=sections,
                              roles=roles)
