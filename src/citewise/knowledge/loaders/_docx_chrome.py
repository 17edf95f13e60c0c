"""What a reader of a Word document skips, and what reads as one block: the table of
contents and the title over it, a chapter's running title, a bar of previous / next links;
a listing's paragraphs, one a line.

Apart from the loader (:mod:`.docx`), which reads each paragraph and table on its own:
these rules look at neighbours — a run of links is contents only where contents stand (under
a "Contents" title, before the text begins, or with page numbers), a code paragraph joins
the one after it. Found by a new user's review of the Debian FAQ as DOCX (LibreOffice 7.4,
2026-12-07) and mended after a code review of the first version, which dropped a "See
also:" list of three section links, read a text file's "Preformatted Text" paragraphs as one
listing, and merged two listings an empty paragraph kept apart.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Block", "tidy"]

#: A "Contents" or "Table of Contents" title, whatever its style.
_CONTENTS_TITLE = re.compile(r"(?i)(?:table of )?contents")
_CONTENTS_RUN = 3  # links into the document, one a paragraph, this many in a row


class Block(NamedTuple):
    """A paragraph or table as the loader read it."""

    text: str
    level: int | None  # a heading's level
    role: str | None  # ``_docx_paragraphs.Kind.role``, or "table"
    # "link": only a link into the document; "page": and a page number; "ext": only a link
    # elsewhere (a contents' chapter line that LibreOffice points at another file)
    linked: str = ""
    banner: bool = False  # a table whose one line repeats the heading after it


def tidy(blocks: list[Block]) -> list[tuple[str, int | None, str | None]]:
    """``(text, level, role)`` of what a reader reads, in order (see the module docstring).
    Code styles mark code only when some paragraph is of another style (a text file
    LibreOffice converts is all "Preformatted Text")."""
    written = [b for b in blocks if b.text.strip()]
    coded = sum(b.role == "code" for b in written)
    code = 0 < coded < len(written)
    out: list[tuple[str, int | None, str | None]] = []
    prose = False  # whether a paragraph of text has come: contents stand before it
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.linked:
            j = i
            while j < len(blocks) and blocks[j].linked:
                j += 1
            run = blocks[i:j]
            inside = [b for b in run if b.linked != "ext"]
            titled = bool(out) and _CONTENTS_TITLE.fullmatch(out[-1][0].strip()) is not None
            if len(inside) >= _CONTENTS_RUN and (
                    titled or not prose or all(b.linked == "page" for b in inside)):
                if titled:
                    out.pop()  # "Table of Contents" over them
            else:
                out += [(b.text, b.level, b.role) for b in run]
                prose = True
            i = j
            continue
        i += 1
        if block.role == "contents":
            if out and _CONTENTS_TITLE.fullmatch(out[-1][0].strip()):
                out.pop()
            continue
        after = next((b for b in blocks[i:] if b.text.strip()), None)
        if block.banner and after is not None and after.level is not None \
                and " ".join(block.text.split()) == after.text:
            continue  # the running title over a chapter's heading
        if code and block.role == "code":
            if out and out[-1][2] == "code" and blocks[i - 2].role == "code":
                out[-1] = (f"{out[-1][0]}\n{block.text}", None, "code")
            elif block.text.strip():
                out.append((block.text, None, "code"))
            continue
        if block.text.strip():
            out.append((block.text, block.level, None if block.role == "code" else block.role))
            prose = prose or block.level is None
    return [(text.strip("\n") if role == "code" else text, level, role)
            for text, level, role in out]
