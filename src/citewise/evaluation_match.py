"""The matching rule of :mod:`citewise.evaluation`: where an expected sentence is in a stored
text, and which sentence a citation quotes.

Why apart: it is text in, offsets out — no knowledge base, no answers — and it is the
part of the measurement a reader must be able to check by hand; the rule itself is
described in :mod:`citewise.evaluation`'s docstring.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.evaluation_questions import CELL, label_forms, visible
from citewise.sentences import ends_abbreviation

__all__ = [
    "MATCH_COVERAGE",
    "covered",
    "item_bounded",
    "locate",
    "normalised",
    "sentence_extent",
    "shown",
    "source_matches",
]

#: Share of an expected sentence's characters a citation's sentence must cover.
MATCH_COVERAGE = 0.5

# Sentence boundaries (see citewise.evaluation's docstring): the end of the sentence before is the
# match's start (for punctuation, one past it and any closer), the next starts at its end.
_BOUNDARY = re.compile(r"\n[ \t]*\n\s*|\n[ \t]*(?=[-*•]\s|\d+[.)]\s)|"
                       r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!\bvs\.)(?<!\bcf\.)[\"'”’)\]]*\s+(?=[^\sa-z])")


def normalised(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs collapsed (a cell separator standing alone is
    whitespace, and markdown's markup as the page shows it, as
    :func:`~citewise.evaluation_questions.norm` has it), and each output character's
    offset in ``text``."""
    shown, at = visible(text)
    chars: list[str] = []
    where: list[int] = []
    for m in re.finditer(r"\S+", shown):
        if m.group() == CELL:
            continue
        if chars:
            chars.append(" ")
            where.append(at[m.start() - 1])
        chars.extend(m.group())
        where.extend(at[m.start():m.end()])
    return "".join(chars), where


def locate(text: str, sentence: str, *, index: tuple[str, list[int]] | None = None
           ) -> list[tuple[int, int]]:
    """Every occurrence of ``sentence`` in ``text``, whitespace-insensitively, as offsets
    of ``text``. ``index`` is ``normalised(text)`` when the caller has it already."""
    flat, where = index if index is not None else normalised(text)
    out: list[tuple[int, int]] = []
    for needle in label_forms(sentence):  # as written first; an rST label also as rendered
        at = flat.find(needle) if needle else -1
        while at >= 0:
            if (found := (where[at], where[at + len(needle) - 1] + 1)) not in out:
                out.append(found)
            at = flat.find(needle, at + 1)
    return out


def sentence_extent(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` widened to the sentence(s) it lies in (the rule of the docstring of
    :mod:`citewise.evaluation`)."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    a = max(0, start - 4000)
    for m in _BOUNDARY.finditer(text, a):
        if m.end() > start:
            break
        if not _abbreviated(text, m):
            a = m.end()
    b = len(text)
    for m2 in _BOUNDARY.finditer(text, max(end - 1, start)):
        if not _abbreviated(text, m2):
            b = m2.start()
            break
    while b > a and text[b - 1].isspace():
        b -= 1
    while a < b and text[a].isspace():
        a += 1
    return (a, max(b, end)) if b > a else (start, end)


def _abbreviated(text: str, m: re.Match[str]) -> bool:
    """A boundary after an abbreviation's full stop ends no sentence: "(approx. 0.353mm).
    amount is given …" was widened from "0.353mm)" on, where ``ask`` quoted the sentence
    from its start (LilyPond's review, 2026-12-06)."""
    stop = m.start()
    while stop > 0 and text[stop - 1] in "\"'”’)]":
        stop -= 1
    return stop > 0 and text[stop - 1] == "." and ends_abbreviation(text, stop)


def item_bounded(text: str, extent: tuple[int, int], span: tuple[int, int],
                 items: Sequence[int]) -> tuple[int, int]:
    """``extent`` (the widened sentence around ``span``) cut at the starts ``items``
    (document offsets) of list items and table rows that begin a line inside it: the item
    or row holding the span is kept whole, the ones beside it are not part of its
    sentence."""
    a, b = extent
    for c in items:
        if not 0 < c <= len(text) or text[c - 1] != "\n" or not a < c < b:
            continue
        if c <= span[0]:
            a = c
        elif c >= span[1]:
            end = c
            while end > a and text[end - 1].isspace():
                end -= 1
            b = min(b, max(end, span[1]))
    return a, b


def shown(text: str, extent: tuple[int, int], span: tuple[int, int],
          term_ends: Sequence[int] = ()) -> str:
    """The sentence ``extent`` of ``text`` as a report shows it: its whitespace collapsed,
    and a term on its own line before the quoted ``span`` set off by a colon, as ``ask``
    writes it ("A-label: The ASCII …"; run on, "A-label The ASCII …" read as one sentence,
    Knot DNS's review, 2026-12-07)."""
    a, b = extent
    cut = max((e for e in term_ends if a < e <= span[0] and e < b), default=None)
    if cut is None:
        return " ".join(text[a:b].split())
    term = " ".join(text[a:cut].split()).rstrip(":")
    rest = " ".join(text[cut:b].split())
    return f"{term}: {rest}" if term and rest else " ".join(text[a:b].split())


def covered(extent: tuple[int, int], occurrence: tuple[int, int]) -> float:
    inter = min(extent[1], occurrence[1]) - max(extent[0], occurrence[0])
    return max(0, inter) / max(1, occurrence[1] - occurrence[0])


def source_matches(source: str, document: str) -> bool:
    source, document = source.replace("\\", "/"), document.replace("\\", "/").strip("/")
    return source == document or source.endswith("/" + document)
