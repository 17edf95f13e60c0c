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
from typing import Any

from citewise.knowledge.loaders.base import PageSpan, RoleSpan

__all__ = ["code_roles", "extract_page", "in_prose", "monospaced_body", "set_apart"]

# Font names of monospaced faces: TeX's typewriter fonts (CMTT, LMMono, SFTT, "txtt"),
# Courier, DejaVu/Liberation/Noto "Mono", Consolas, Menlo, Inconsolata, Source Code.
_MONO = re.compile(r"CMTT|LMMono|LMTT|SFTT|txtt|Courier|Mono|Consol|Menlo|Inconsolata|"
                   r"Code(?:Pro|New)?\b|Typewriter", re.I)
_MONO_SHARE = 0.9  # of a line's visible characters
_MIN_CHARS = 3  # "55." or "{" alone says too little
_BODY_SHARE = 0.5  # of a document's lines: its body font is monospaced


def extract_page(page: Any) -> tuple[str, frozenset[str]]:
    """A page's extracted text and its monospaced lines (stripped)."""
    pieces: list[tuple[str, bool]] = []

    def visit(text: str, _cm: Any, _tm: Any, font: Any, _size: Any) -> None:
        name = str(font.get("/BaseFont", "")) if font else ""
        pieces.append((text, bool(_MONO.search(name))))

    text = page.extract_text(visitor_text=visit) or ""
    if "".join(t for t, _ in pieces) != text:
        return text, frozenset()
    mono: set[str] = set()
    line: list[str] = []
    visible = in_mono = 0
    for piece, is_mono in pieces:
        for ch in piece:
            if ch == "\n":
                if visible >= _MIN_CHARS and in_mono >= _MONO_SHARE * visible:
                    mono.add("".join(line).strip())
                line, visible, in_mono = [], 0, 0
            else:
                line.append(ch)
                if not ch.isspace():
                    visible += 1
                    in_mono += is_mono
    if visible >= _MIN_CHARS and in_mono >= _MONO_SHARE * visible:
        mono.add("".join(line).strip())
    return text, frozenset(mono)


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


def code_roles(text: str, pages: Sequence[PageSpan], mono: Sequence[frozenset[str]],
               taken: Sequence[RoleSpan] = ()) -> list[RoleSpan]:
    """``code`` spans of the assembled ``text``: runs of lines of page ``n`` (one-based,
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
                spans[-1] = (spans[-1][0], end, "code")  # the next line of one block
            else:
                spans.append((start, end, "code"))
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
