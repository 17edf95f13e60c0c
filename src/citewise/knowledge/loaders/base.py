"""The loader contract: bytes of one file in, extracted text plus maps back to it out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["ROLES", "LoadedDocument", "Loader", "PageSpan", "RoleSpan", "SectionSpan"]

SectionSpan = tuple[int, int, str]  # (start_char, end_char, section path "Intro > Scope")
PageSpan = tuple[int, int, int]  # (start_char, end_char, one-based page number)
RoleSpan = tuple[int, int, str]  # (start_char, end_char, one of ROLES)

#: What a span of text is, as its format says (text in no role span is prose). Why: a
#: heading names its section and answers nothing; a code block, a doctest, a table, a
#: signature, a notice or a version-change note is evidence only for questions about
#: those (issue #27) — and guessing that from the words alone mistakes "work_mem
#: (integer)" for prose and "Changed in version 3.2: …"'s second sentence for the current
#: behaviour.
ROLES = frozenset((
    "heading",  # a section's title
    "term",  # what a definition list defines: an option, a parameter, a signature
    "list_item",
    "code",  # a preformatted or fenced block
    "doctest",  # an interactive session (">>> …")
    "table",
    "notice",  # copyright, licence, legal boilerplate
    "version_note",  # "Changed in version 3.2: …", "Deprecated since …"
    "hidden",  # in the source, not on the page: a markdown file's HTML comments, link definitions
    "comment",  # a source or configuration file's whole-line comments: its prose
))


@dataclass(slots=True)
class LoadedDocument:
    """What a loader extracted. Every offset is a code-point index into ``text``, and
    ``text`` is what gets stored: citations quote it verbatim."""

    text: str
    content_type: str
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # Sorted, non-overlapping spans; a char outside every span has no section/page.
    sections: list[SectionSpan] = field(default_factory=list)
    pages: list[PageSpan] = field(default_factory=list)
    # Sorted by start; may nest (a code block in a list item): the innermost counts.
    roles: list[RoleSpan] = field(default_factory=list)


@runtime_checkable
class Loader(Protocol):
    """A document format. Registered under the ``citewise.loaders`` entry-point group,
    the object there being a zero-argument callable (a class works) returning a Loader.

    ``load`` raises :class:`citewise.errors.IngestError` with a stable code
    (``binary_file``, ``empty_document``, ``corrupt_file``, …) for bad input.
    """

    name: str
    # Optional ``version: str`` (default "1"): raised when the loader renders the same
    # bytes differently, so unchanged files are read again on their next ingest.
    extensions: tuple[str, ...]  # lower case, with the dot: (".md", ".markdown")
    content_types: tuple[str, ...]  # MIME types it reads

    def load(self, path: Path, data: bytes) -> LoadedDocument: ...
