"""Words a PDF's text layer runs together, spaced again as PDFium reads them.

A PDF has no spaces, only glyphs and where they stand; an extractor puts a space where the
gap between two glyphs is wide enough for one. pypdf measures it against the font's space
glyph, and for a font encoded by glyph number (``Identity-H``: what xdvipdfmx writes, so
XeLaTeX's and Sphinx's PDFs as Debian builds them) it looks up the glyph numbered 32, which
is no space: the Debian Policy Manual came out as "Thesinglelinesynopsisshouldbekeptbrief"
on 1,827 of its 3,350 long lines — justified lines, whose word gaps are the narrowest — and
nothing could be found by its words (new-user review, 2026-12-07). PDFium (``pypdfium2``,
already what renders a cited page) places its spaces by the glyphs' positions. A page whose
text shows runs of letters no word is that long is read by PDFium too, and each of its lines
that PDFium reads as the same characters with more spaces between them is taken as PDFium
reads it; every other line stays as pypdf read it (its fonts tell code and titles apart).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from citewise.knowledge.loaders._pdf_fonts import PageFonts

__all__ = ["respaced"]

# Letters run together past any word's length ("Everypackagehasaversionnumber"); a page with
# a few such runs is read again. German compounds and URLs make one now and then.
_RUN = re.compile(r"[^\W\d_]{22,}")
_RUNS_PER_PAGE = 3
# PDFium is not safe to call from two threads at once (ingest reads files in parallel).
_PDFIUM = threading.Lock()


def respaced(data: bytes, pages: Sequence[tuple[str, PageFonts]]
             ) -> list[tuple[str, PageFonts]]:
    """``pages`` (pypdf's text of each page of the PDF ``data``, with its fonts' lines) with
    the lines of squashed pages spaced as PDFium reads them; unchanged when none is."""
    squashed = [i for i, (text, _) in enumerate(pages)
                if len(_RUN.findall(text)) >= _RUNS_PER_PAGE]
    if not squashed:
        return list(pages)
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    out = list(pages)
    with _PDFIUM:
        try:
            doc = pdfium.PdfDocument(data)
        except Exception:  # PDFium refuses what pypdf read: keep pypdf's text
            return out
        try:
            for i in squashed:
                if i >= len(doc):
                    break
                textpage = doc[i].get_textpage()
                other = _lines_of(textpage.get_text_range())
                textpage.close()
                out[i] = _respaced_page(*pages[i], other)
        finally:
            doc.close()
    return out


def _respaced_page(text: str, fonts: PageFonts, other: str) -> tuple[str, PageFonts]:
    """``text``'s lines with a run of letters as ``other`` has the same characters, when
    it has more spaces between them; the fonts' lines renamed alike."""
    lines: dict[str, str] = {}
    for line in other.split("\n"):
        lines.setdefault(_key(line), line.strip())
    changed: dict[str, str] = {}
    out: list[str] = []
    for line in text.split("\n"):
        body = line.strip()
        better = lines.get(_key(body)) if _RUN.search(body) else None
        if better is not None and better.count(" ") > body.count(" "):
            changed[body] = better
            line = line[:len(line) - len(line.lstrip())] + better
        out.append(line)
    if not changed:
        return text, fonts
    return "\n".join(out), replace(fonts, mono=frozenset(changed.get(x, x) for x in fonts.mono),
                                   bold=frozenset(changed.get(x, x) for x in fonts.bold))


def _lines_of(text: str) -> str:
    """PDFium's page text with pypdf's line breaks: a word hyphenated at a line's end is
    one to PDFium, its hyphen U+FFFE ("source pack\ufffeages")."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-\n")


def _key(line: str) -> str:
    """A line's characters without its white space, as both extractors spell them."""
    return "".join(unicodedata.normalize("NFKC", line).split())
