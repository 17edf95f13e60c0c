"""Plain text (``.txt``): decoded as is, no newline or whitespace rewriting, so offsets index
the file — unless the file is reStructuredText, as many projects' ``.txt`` documentation
is (lighttpd's manual, Django's): then it is read as rST (:mod:`.rst`), with its sections and
without its markup. Read as plain text, such a page had "===================" for a title,
no sections, and quotes carried ``:Author:`` fields and trailing ``::`` (new-user review
over lighttpd's manual, 2026-12-03). Only a file that shows it is rST — section titles with
their adornment lines, and another title or rST construct besides (:func:`.rst.looks_like_rst`)
— is read so, and it stays plain text when docutils makes little of it or it is large.
AsciiDoc is tried first (git's manual pages are ``git-log.txt``): its underlined titles look
like rST's, and rST made a section of every ``----`` listing block's first line. A file
with two of AsciiDoc's own constructs (``[verse]``, ``linkgit:git-log[1]``, ``include::x[]``,
``== Title``, not titles alone: nginx's notes have "== PHP-FPM ==" over regexes;
:func:`.asciidoc.looks_like_asciidoc`) is read as AsciiDoc. Vim's help files
(``*options.txt*`` on the first line; :mod:`._vim_help`) are tried before both: their
column headings over dashed rules made ten of Vim's files rST. Plain text keeps its
numbered headings as sections ("Chapter 9. Reference > 3.163. mail_check": mutt's manual,
zsh's and zlib's FAQs, Valgrind's questions over their answers; :mod:`._text_headings`).
"""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders._decode import decode_text, file_metadata, first_line_title
from citewise.knowledge.loaders._rst_sniff import looks_like_rst
from citewise.knowledge.loaders._text_headings import numbered_headings
from citewise.knowledge.loaders._vim_help import looks_like_vim_help, read_vim_help
from citewise.knowledge.loaders.asciidoc import AsciiDocLoader, looks_like_asciidoc, read_asciidoc
from citewise.knowledge.loaders.base import LoadedDocument
from citewise.knowledge.loaders.rst import RstLoader, read_rst

__all__ = ["TextLoader", "decode_text", "file_metadata"]

# Rendered rST keeps at least this share of the file's letters and digits, or the file is
# read as plain text after all (a "title" docutils read as something else entirely).
_KEPT = 0.6
# docutils reads about 1 MB a second here: a larger file (a book, a log with underlined
# headings) stays plain text, read at once, rather than parsed as rST for many seconds.
_MAX_RST = 2_000_000


class TextLoader:
    """``.txt`` files."""

    name = "text"
    # 2: reStructuredText files read as rST, and since then as the rST loader's version reads
    # them (a change there re-reads these too)
    # 3: AsciiDoc read so; 4: Vim's help format read so; 5: plain text's numbered headings;
    # 6-7: a FAQ's numbered questions over their answers, rules under sentences no rST;
    # 8: "== Title ==" lines alone make no AsciiDoc, a label or "#!" line titles nothing;
    # 9-10: a numbered step set deeper than its level's headings is text (not one that
    # goes on from a kept heading's number)
    version = f"10-rst{RstLoader.version}-adoc{AsciiDocLoader.version}"
    extensions: tuple[str, ...] = (".txt", ".text")
    content_types: tuple[str, ...] = ("text/plain",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        text, encoding = decode_text(path, data)
        if looks_like_vim_help(text):
            rendered, title, sections, roles = read_vim_help(text)
            if rendered.strip():
                return LoadedDocument(
                    text=rendered, content_type="text/x-vim-help", title=title or path.stem,
                    metadata=file_metadata(path, data, encoding), sections=sections,
                    roles=roles)
        if len(text) <= _MAX_RST and looks_like_asciidoc(text):
            rendered, title, sections, attrs, roles = read_asciidoc(text)
            if rendered.strip():
                meta = file_metadata(path, data, encoding)
                if attrs:
                    meta["attributes"] = attrs
                return LoadedDocument(
                    text=rendered, content_type="text/asciidoc", title=title or path.stem,
                    metadata=meta, sections=sections, roles=roles)
        if len(text) <= _MAX_RST and looks_like_rst(text):
            rendered, title, sections, roles = read_rst(text)
            if _alnum(rendered) >= _KEPT * _alnum(text):
                return LoadedDocument(
                    text=rendered, content_type="text/x-rst", title=title or path.stem,
                    metadata=file_metadata(path, data, encoding), sections=sections,
                    roles=roles)
        sections, roles = numbered_headings(text)
        return LoadedDocument(
            text=text,
            content_type="text/plain",
            title=first_line_title(text, path.stem),
            metadata=file_metadata(path, data, encoding),
            sections=sections,
            roles=roles,
        )


def _alnum(text: str) -> int:
    return sum(c.isalnum() for c in text)
