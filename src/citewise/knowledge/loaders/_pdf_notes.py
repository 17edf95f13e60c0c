"""Footnotes in a PDF's text layer: the marks glued to words, and the notes at a page's foot.

Why: TeX sets a footnote's mark as a small raised digit right after its word, and the
text layer has no superscript, so R's manual read "Command lines entered at the console
are limited3 to about 4095 bytes", "previous version6 of the R framework" — quoted so,
and the search index held "limited3", not "limited". The notes themselves sit at the
page's foot in the middle of the running text, glued to the line before, so a sentence
that ends the page ran on into its footnote (new-user review of R's PDF manuals,
2026-12-05).

The fonts tell a mark from a number in the text: pypdf's text visitor hands every piece
with its font size and text matrix, and a mark is a piece of one to three digits set at
most :data:`_SMALL` of the size of the text beside it and raised above its baseline. A
mark after a word (no space between) is removed from that word; a mark that opens a line
opens a note, and the page's first note starts a paragraph of its own. Matching is by
content, as for monospaced lines (:mod:`._pdf_fonts`): the word and its mark
("limited3") in the page's cleaned text, and the note's line as extracted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Notes", "apply_notes", "carry_over", "find_notes"]

_SMALL = 0.85  # a mark's size against the text beside it
_RAISED = 0.15  # how far above that text's baseline, in its size
_MARK = re.compile(r"\d{1,3}")
_LAST_WORD = re.compile(r"(\S+)$")


@dataclass(frozen=True, slots=True)
class Notes:
    """A page's footnote marks (``("limited", "3")``: the word and its mark) and the lines
    its notes open with ("3 some of the consoles will not allow you …")."""

    marks: frozenset[tuple[str, str]] = frozenset()
    openings: frozenset[str] = frozenset()


def _raised(mark: tuple[str, float, float], beside: tuple[str, float, float]) -> bool:
    _, size, base = mark
    _, other_size, other_base = beside
    return (0 < size <= _SMALL * other_size
            and base - other_base > _RAISED * other_size)


def find_notes(pieces: Sequence[tuple[str, float, float]]) -> Notes:
    """The marks and note openings of one page, from its text pieces in order as
    ``(text, font size, baseline)``."""
    marks: set[tuple[str, str]] = set()
    openings: set[str] = set()
    for i, piece in enumerate(pieces):
        text = piece[0]
        if not _MARK.fullmatch(text):
            continue
        before = pieces[i - 1] if i else None
        after = pieces[i + 1] if i + 1 < len(pieces) else None
        if before is not None and before[0][-1:].strip() and _raised(piece, before):
            word = _LAST_WORD.search(before[0])
            if word is not None and any(c.isalpha() for c in word.group(1)):
                marks.add((word.group(1), text))
        elif (before is None or before[0].endswith("\n")) and after is not None \
                and after[0].strip() and _raised(piece, after):
            rest = []
            for later in pieces[i + 1:]:
                rest.append(later[0])
                if "\n" in later[0]:
                    break
            openings.add(_key((text + "".join(rest)).split("\n", 1)[0]))
    return Notes(frozenset(marks), frozenset(openings))


def apply_notes(text: str, notes: Notes) -> str:
    """A page's cleaned ``text`` with each mark taken off its word (the first place the
    word carries it), a blank line before the page's first note, and a space after each
    note's mark."""
    if not notes.marks and not notes.openings:
        return text
    for word, mark in sorted(notes.marks, key=lambda m: -len(m[0])):
        found = re.search(rf"{re.escape(word)}{mark}(?!\d)", text)
        if found is not None:
            text = text[:found.end() - len(mark)] + text[found.end():]
    if notes.openings:
        lines = text.split("\n")
        for k in range(len(lines) - 1, 0, -1):  # back to front: a blank line shifts none
            if _key(lines[k]) not in notes.openings:
                continue
            # The mark glued to the note's first word ("6For completeness, we note …", the
            # dot guide's notes): a space between, as R's manual sets it.
            lines[k] = _GLUED.sub(r"\1 \2", lines[k], count=1)
            first = not any(_key(line) in notes.openings for line in lines[1:k])
            if first and lines[k - 1].strip():
                lines.insert(k, "")
        text = "\n".join(lines)
    return text


_GLUED = re.compile(r"^(\s*\d{1,3})([^\d\s])")


def _key(line: str) -> str:
    """A note's opening line as compared: its spaces collapsed, its mark apart."""
    return " ".join(_GLUED.sub(r"\1 \2", line, count=1).split())


_SENTENCE_END = re.compile(r"[.!?][)\"'’”]*(?=\s|$)")
_CARRY = 400  # the most characters of a sentence's end carried back over its notes


def carry_over(pages: list[str], notes: Sequence[Notes]) -> list[str]:
    """``pages`` where a sentence that goes on over a page break has its notes between
    its two halves ("For most purposes the only difference between ordered" / "2 Note
    that tapply() …" / "and unordered factors is that …"): the end of the sentence is
    moved up from the next page to before the notes, so the sentence reads whole. It is
    cited on the page it starts on, as any sentence over a page break is."""
    out = list(pages)
    for i in range(len(out) - 1):
        openings = notes[i].openings if i < len(notes) else frozenset()
        if not openings:
            continue
        lines = out[i].split("\n")
        at = next((k for k, line in enumerate(lines)
                   if k and not lines[k - 1].strip() and _key(line) in openings),
                  None)
        after = out[i + 1]
        if at is None or not after[:1].islower():
            continue
        body = "\n".join(lines[:at]).rstrip()
        if not (body[-1:].isalnum() or body[-1:] in ",;"):
            continue
        paragraph = after.split("\n\n", 1)[0][:_CARRY]
        end = _SENTENCE_END.search(paragraph)
        if end is None:
            continue
        out[i] = f"{body}\n{after[:end.end()]}\n\n" + "\n".join(lines[at:])
        out[i + 1] = after[end.end():].lstrip()
    return out
