"""Words a PDF's text layer runs together, spaced again as PDFium reads them.

A PDF has no spaces, only glyphs and where they stand; an extractor puts a space where the
gap between two glyphs is wide enough for one. pypdf measures it against the font's space
glyph, and for a font encoded by glyph number (``Identity-H``: what xdvipdfmx writes, so
XeLaTeX's and Sphinx's PDFs as Debian builds them) it looks up the glyph numbered 32, which
is no space: the Debian Policy Manual came out as "Thesinglelinesynopsisshouldbekeptbrief"
on 1,827 of its 3,350 long lines — justified lines, whose word gaps are the narrowest — and
nothing could be found by its words (new-user review, 2026-12-07). PDFium (``pypdfium2``,
already what renders a cited page) places its spaces by the glyphs' positions.

A page whose text shows runs of letters no word is that long is read by PDFium too. Each of
its lines that PDFium reads as the same characters takes PDFium's spaces — only those
before a letter, a digit or an opening bracket or quote that follow a letter, a digit or a
stop ("Thesingle" → "The single", "Alternately,you" → "Alternately, you", "minus(-)" →
"minus (-)"), never one PDFium sets at a wide kern ("KOMA-Script" is not "KOMA -Script");
a line set in a monospaced font (code) stays as pypdf read it (code review, 2026-12-07).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from citewise._pdfium import PDFIUM

__all__ = ["respaced"]

# Letters run together past any word's length ("Everypackagehasaversionnumber"); a page with
# a few such runs is read again. German compounds and long names make one now and then.
_RUN = re.compile(r"[^\W\d_]{22,}")
_RUNS_PER_PAGE = 3
_BEFORE_SPACE = frozenset(",;:.!?)")  # what a space may follow besides a letter or digit
_AFTER_SPACE = frozenset("(“‘")  # and what it may come before ("minus (-) signs")


def respaced(data: bytes, pages: Sequence[str], mono: Sequence[frozenset[str]],
             bold: Sequence[frozenset[str]]
             ) -> tuple[list[str], list[frozenset[str]], list[frozenset[str]]]:
    """``pages`` (the cleaned text of each page of the PDF ``data``), with the lines of a
    squashed page spaced as PDFium reads them, and its ``mono`` and ``bold`` lines (the
    fonts' lines of each page) renamed alike; unchanged when no page is squashed."""
    texts, monos, bolds = list(pages), list(mono), list(bold)
    squashed = [i for i, text in enumerate(texts) if len(_RUN.findall(text)) >= _RUNS_PER_PAGE]
    if not squashed:
        return texts, monos, bolds
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    with PDFIUM:
        try:
            doc = pdfium.PdfDocument(data)
        except Exception:  # PDFium refuses what pypdf read: keep pypdf's text
            return texts, monos, bolds
    try:
        for i in squashed:
            with PDFIUM:
                try:
                    if i >= len(doc):
                        break
                    textpage = doc[i].get_textpage()
                    other = textpage.get_text_range()
                    textpage.close()
                except Exception:  # one page PDFium cannot read keeps pypdf's text
                    continue
            code = monos[i] if i < len(monos) else frozenset()
            texts[i], changed = _respaced_page(texts[i], _lines_of(other), code)
            if changed and i < len(monos):
                monos[i] = frozenset(changed.get(x, x) for x in monos[i])
            if changed and i < len(bolds):
                bolds[i] = frozenset(changed.get(x, x) for x in bolds[i])
    finally:
        with PDFIUM:
            doc.close()
    return texts, monos, bolds


def _respaced_page(text: str, other: str, code: frozenset[str]) -> tuple[str, dict[str, str]]:
    """``text``'s lines spaced as ``other`` spaces the same characters (see the module),
    and which stripped line became which."""
    lines: dict[str, str] = {}
    for line in other.split("\n"):
        lines.setdefault(_key(line), unicodedata.normalize("NFKC", line.strip()))
    changed: dict[str, str] = {}
    out: list[str] = []
    for line in text.split("\n"):
        body = line.strip()
        theirs = lines.get(_key(body)) if body and body not in code else None
        spaced = _merged(body, theirs) if theirs is not None else body
        if spaced != body:
            changed[body] = spaced
            line = line[:len(line) - len(line.lstrip())] + spaced
        out.append(line)
    return "\n".join(out), changed


def _merged(ours: str, theirs: str) -> str:
    """``ours`` with the spaces of ``theirs`` (the same characters but for white space)
    that fall after a letter, a digit or a stop and before a letter or a digit."""
    if "".join(ours.split()) != "".join(theirs.split()):
        return ours  # other characters (a ligature, an accent): no telling where
    spaced_before: set[int] = set()  # indexes, among the non-space characters, after a space
    k = 0
    for j, ch in enumerate(theirs):
        if ch.isspace():
            continue
        if j and theirs[j - 1].isspace():
            spaced_before.add(k)
        k += 1
    out: list[str] = []
    k = 0
    for j, ch in enumerate(ours):
        if not ch.isspace():
            prev = ours[j - 1] if j else ""
            if (k in spaced_before and prev and not prev.isspace()
                    and (ch.isalnum() or ch in _AFTER_SPACE)
                    and (prev.isalnum() or prev in _BEFORE_SPACE)):
                out.append(" ")
            k += 1
        out.append(ch)
    return "".join(out)


def _lines_of(text: str) -> str:
    """PDFium's page text with pypdf's line breaks: a word hyphenated at a line's end is
    one to PDFium, its hyphen U+FFFE ("source pack\\ufffeages")."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-\n")


def _key(line: str) -> str:
    """A line's characters without its white space, as both extractors spell them."""
    return "".join(unicodedata.normalize("NFKC", line).split())
