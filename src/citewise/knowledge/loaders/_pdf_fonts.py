"""Which lines of a PDF are set in a monospaced font: its examples and syntax lines.

Why: a PDF's text layer has no ``<pre>``, so an example ("set style line 1 lt 1 lw 2",
"plot sin(x)") reads as a sentence like any other, and the extractive model quoted one
first for a question about what the command does (gnuplot's manual, new-user review of
2026-12-04). The fonts say what the layout showed: LaTeX sets verbatim text in ``CMTT``,
word processors in Courier or a "Mono" face. A line whose visible characters are (nearly)
all in such a font gets the ``code`` role, which ranks it below prose unless the question
asks for code. A run of such lines is also made a paragraph of its own (:func:`set_apart`):
an example has no full stop, so the sentence splitter read "For example, to sample at
500 points:", the example and the next sentence as one sentence.

pypdf's text visitor is handed every piece of text it extracts, with its font, and the
pieces concatenate to exactly the page's text (checked per page: a page where they do not
gets no code lines). Lines are matched to the final text by content, after the loader's
clean-up, so nothing here depends on offsets the later passes move. A document most of
whose lines are monospaced (a typewritten report, an RFC) has its body in that font: it
gets no code role at all.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from citewise.knowledge.loaders._pdf_notes import Notes, find_notes
from citewise.knowledge.loaders.base import PageSpan, RoleSpan

__all__ = ["PageFonts", "extract_page", "in_prose", "line_roles", "monospaced_body",
           "numbered_titles", "run_in_titles", "set_apart"]

# Font names of monospaced faces: TeX's typewriter fonts (CMTT, LMMono, SFTT, "txtt"),
# Courier, DejaVu/Liberation/Noto "Mono", Consolas, Menlo, Inconsolata, Source Code.
_MONO = re.compile(r"CMTT|LMMono|LMTT|SFTT|txtt|Courier|Mono|Consol|Menlo|Inconsolata|"
                   r"Code(?:Pro|New)?\b|Typewriter", re.I)
_MONO_SHARE = 0.9  # of a line's visible characters
_MIN_CHARS = 3  # "55." or "{" alone says too little
_BODY_SHARE = 0.5  # of a document's lines: its body font is monospaced


# Bold faces: TeX's CMB/CMBX (and Latin Modern's "Bold"), "Bold"/"Bd"/"Heavy"/"Black"
# faces of every other font.
# URW's Times ("NimbusRomNo9L-Medi", the dot guide's headings: Graphviz's review, 2026-12-06)
# calls its bold weight Medium.
_BOLD = re.compile(r"\bCMBX?\d|Bold|[-,]Bd\b|Heavy|Black|Semibold|Demi|-Medi|Medium", re.I)


@dataclass(frozen=True, slots=True)
class PageFonts:
    """What a page's fonts say: its monospaced lines and its bold ones (stripped), and
    its footnotes."""

    mono: frozenset[str] = frozenset()
    bold: frozenset[str] = frozenset()
    notes: Notes = field(default_factory=Notes)


def extract_page(page: Any) -> tuple[str, PageFonts]:
    """A page's extracted text and what its fonts say of its lines."""
    # (text, monospaced, bold, size, baseline) of every piece the text layer is made of
    pieces: list[tuple[str, bool, bool, float, float]] = []

    def visit(text: str, _cm: Any, tm: Any, font: Any, size: Any) -> None:
        name = str(font.get("/BaseFont", "")) if font else ""
        try:  # TeX scales its fonts in the text matrix: the size is the product
            placed = float(size) * (abs(float(tm[3])) or 1.0), float(tm[5])
        except (TypeError, ValueError, IndexError):
            placed = 0.0, 0.0
        pieces.append((text, bool(_MONO.search(name)), bool(_BOLD.search(name)), *placed))

    text = page.extract_text(visitor_text=visit) or ""
    if "".join(p[0] for p in pieces) != text:
        return text, PageFonts()
    mono: set[str] = set()
    bold: set[str] = set()
    line: list[str] = []
    visible = in_mono = letters = in_bold = 0

    def close() -> None:
        body = "".join(line).strip()
        if visible >= _MIN_CHARS and in_mono >= _MONO_SHARE * visible:
            mono.add(body)
        elif letters >= _MIN_CHARS and in_bold == letters:  # "6. Unfilled lines"
            bold.add(body)

    for piece, is_mono, is_bold, _, _ in pieces:
        for ch in piece:
            if ch == "\n":
                close()
                line, visible, in_mono, letters, in_bold = [], 0, 0, 0, 0
            else:
                line.append(ch)
                if not ch.isspace():
                    visible += 1
                    in_mono += is_mono
                if ch.isalpha():
                    letters += 1
                    in_bold += is_bold
    close()
    return text, PageFonts(frozenset(mono), frozenset(bold),
                           find_notes([(p[0], p[3], p[4]) for p in pieces]))


def in_prose(text: str, code: frozenset[str]) -> frozenset[str]:
    """``code`` (a page's monospaced lines) less those that go on with a sentence of the
    prose line before them: a name in the code font that the line break left alone on its
    line ("This is achieved by using the function" / "mnesia:wait_for_tables/2.", 118
    in ten Erlang manuals), which is no example — set apart, it cut its sentence in two.
    Such a line is a few words after a line of prose that ends with no stop or colon, and
    it ends the sentence (a stop or comma of its own) or the prose goes on after it in
    lower case; "type" / "make install" / "It installs …" keeps its example."""
    inline: set[str] = set()
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    for i, body in enumerate(lines):
        before = lines[i - 1] if i else ""
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if (body in code and len(body.split()) <= _INLINE_WORDS and before not in code
                and len(before.split()) >= _PROSE_WORDS and before[-1] not in ".:!?;"
                and (body[-1] in ".,;" or (after[:1].islower() and after not in code))):
            inline.add(body)
    return code - inline if inline else code


_INLINE_WORDS = 3
_PROSE_WORDS = 4


def set_apart(text: str, code: frozenset[str]) -> str:
    """A page's ``text`` with a blank line before and after each run of lines in ``code``
    (cleaned, stripped lines), so that the run is a paragraph of its own."""
    if not code:
        return text
    out: list[str] = []
    was_code = False
    for line in text.split("\n"):
        body = line.strip()
        # A result too short to tell its font ("ok" between two shell prompts) is part of
        # the run it sits in, not a paragraph of its own.
        is_code = body in code or (was_code and len(body) < _MIN_CHARS)
        if out and out[-1].strip() and is_code != was_code and line.strip():
            out.append("")
        out.append(line)
        was_code = is_code if line.strip() else was_code
    return "\n".join(out)


def line_roles(text: str, pages: Sequence[PageSpan], mono: Sequence[frozenset[str]],
               taken: Sequence[RoleSpan] = (), role: str = "code") -> list[RoleSpan]:
    """``role`` spans of the assembled ``text``: runs of lines of page ``n`` (one-based,
    as ``pages`` numbers them) that are one of ``mono[n - 1]``'s lines (cleaned as the
    page was); lines inside a span of ``taken`` (the outline's headings) are left as
    they are."""
    held = sorted((a, b) for a, b, _ in taken)
    starts = [a for a, _ in held]
    spans: list[RoleSpan] = []
    for a, b, number in pages:
        code = mono[number - 1] if 0 < number <= len(mono) else frozenset()
        pos = a
        for line in text[a:b].split("\n"):
            start, end = pos, pos + len(line)
            pos = end + 1
            body = line.strip()
            if not body or body not in code or _overlaps(held, starts, start, end):
                continue
            start += len(line) - len(line.lstrip())
            end -= len(line) - len(line.rstrip())
            if spans and text[spans[-1][1]:start].strip() == "" and \
                    text.count("\n", spans[-1][1], start) == 1:
                spans[-1] = (spans[-1][0], end, role)  # the next line of one block
            else:
                spans.append((start, end, role))
    return spans


def _overlaps(held: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps a span of ``held`` (sorted, not overlapping each
    other: the outline's headings, one line each), found by bisection."""
    k = bisect_left(starts, end)  # spans starting before ``end``: only the last can reach
    return k > 0 and held[k - 1][1] > start


def monospaced_body(page_texts: Sequence[str], mono: Sequence[frozenset[str]]) -> bool:
    """Whether most of the lines of the pages are monospaced: the document's body font."""
    lines = coded = 0
    for text, code in zip(page_texts, mono, strict=True):
        for line in text.split("\n"):
            if body := line.strip():
                lines += 1
                coded += body in code
    return coded > _BODY_SHARE * lines


_TITLE_WORDS = 10
_ENUMERATOR = re.compile(r"^(?:\d{1,3}[.)]|[a-z][.)]|[•·∙▪–-])\s+")


def run_in_titles(text: str, bold: frozenset[str]) -> tuple[str, frozenset[str]]:
    """A page's ``text`` with each run-in title made a paragraph of its own, and those
    titles (stripped lines). A run-in title is a short line set wholly in bold, maybe
    after its item's number ("6. Unfilled lines"), between the end of a sentence (or a
    paragraph) and a line that starts one: R's manual lists "5. Missing values", "6.
    Unfilled lines" over their paragraphs, and with no full stop of its own a title read as
    the first words of its paragraph's sentence ("Unfilled lines It is quite common …").
    A bold word the line break left alone inside a sentence is none of them. A bold line
    that opens with a section number ("2.1 Node Shapes") is a title wherever it stands: the
    dot guide's came after a URL with no full stop, and before "dot draws …", a sentence
    that opens with its program's lower-case name (new-user review, 2026-12-06) — unless
    the line after it is bold too and unnumbered, the rest of a title too long for one line
    ("2.7 Index vectors; selecting and modifying subsets of a data" over "set" in R's
    manual; "2 Graph Drawing" over "2.1 Basic Commands" is two titles) — nor a contents
    entry, which ends in its page's number ("1 Definition of CRC 2")."""
    if not bold:
        return text, frozenset()
    lines = text.split("\n")
    found: set[str] = set()
    out: list[str] = []
    before = ""  # the last line with text before this one
    for k, line in enumerate(lines):
        body = line.strip()
        after = lines[k + 1].strip() if k + 1 < len(lines) else ""
        if (body in bold and len(body.split()) <= _TITLE_WORDS and body[-1] not in ".,;"
                and ((_SECTION_NUMBER.match(body) is not None and not body[-1].isdigit()
                      and (after not in bold or _SECTION_NUMBER.match(after) is not None))
                     or ((not before or before[-1] in ".:!?)" or not lines[k - 1].strip()
                          or _ENUMERATOR.match(body) is not None)
                         and (not after or after[0].isupper() or after[0].isdigit())))):
            found.add(body)
            if out and out[-1].strip():
                out.append("")
            out.append(line)
            if after:
                out.append("")
        else:
            out.append(line)
        before = body or before
    return "\n".join(out), frozenset(found)


def numbered_titles(page_texts: Sequence[str], titles: Sequence[frozenset[str]]
                    ) -> list[tuple[int, str, int]]:
    """For a PDF without an outline: its run-in titles that carry a section number ("3.1
    Initial Configuration", "5 Miscellaneous") as outline entries, ``(depth, title,
    one-based page)`` in reading order, the depth from the number's parts. Graphviz's
    guides have no outline, and their numbered headings were terms: no sections at all,
    and "3.1 Initial Configuration:" named a sentence three lines below it as if it were an
    option's (new-user review, 2026-12-06)."""
    found: list[tuple[int, str, int]] = []
    seen: set[str] = set()
    last: tuple[int, ...] = ()
    for page, (text, lines) in enumerate(zip(page_texts, titles, strict=True), start=1):
        for at, line in sorted((text.find(line), line) for line in lines):
            m = _SECTION_NUMBER.match(line)
            if m is None or at < 0:
                continue
            parts = m.group(1).split(".")
            number = tuple(int(p) for p in parts)
            if number <= last:
                continue  # numbering that goes back is a list's, not the document's
            # Under the titles of its number's parts that were found ("3.1" under "3");
            # one not found ("2" over "2.2") is no level.
            found.append((sum(".".join(parts[:k]) in seen for k in range(1, len(parts))),
                          line, page))
            seen.add(m.group(1))
            last = number
    return found


# "3.1 Initial Configuration", not a step "1. Download it" (its number ends in a stop).
_SECTION_NUMBER = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,3})\s+[A-Z]")

