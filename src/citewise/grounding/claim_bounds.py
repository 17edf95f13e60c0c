"""Where the claims of an answer's text begin and end (:mod:`.claims` splits by them).

Apart from the claims themselves because it is the one part that reads sentence ends, and
those need their own rules: a citation marker after a full stop ends a claim whatever
follows, but not after "et al." or a list item's "1."; a list item or a heading starts one
without a full stop; the markers are blanked before the sentences are found. Offsets are
code points into the text as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.sentences import (
    SENTENCE_OPENERS,
    ends_abbreviation,
    join_abbreviations,
    sentence_spans,
)

__all__ = ["ITEM", "claim_spans"]

#: A list item's bullet or number: markdown's, the typographic bullets and dashes of
#: converted documents ("• ", "– ", "▪ "), and "(a)" / "a)" / "(iv)" enumerations.
ITEM = r"(?:[-*+•·‣◦▪●○■–]|\d{1,3}[.)]|\((?:[a-z]|[ivx]{1,4}|\d{1,3})\)|[a-z]\))"
_LIST_NUMBER = re.compile(r"\d{1,3}[.)]")
# A markdown list item or heading starts a new claim even without a full stop before it,
# and a heading line ends one.
_BLOCK_START = re.compile(rf"\n(?=[ \t]*(?:{ITEM}|\d+[.)]|#{{1,6}})[ \t])"
                          r"|(?m:^[ \t]*#{1,6}[ \t][^\n]*\n)")


def claim_spans(text: str, marked: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each claim of ``text``, whose marker groups are ``marked``."""
    return _spans(_masked(text, marked), _stops(text, marked))


def _masked(text: str, blanks: Sequence[tuple[int, int]]) -> str:
    # Blank the markers out (same length, so offsets hold) before finding sentence ends:
    # "…days.[1] Next" must end after "days." and not glue two sentences together.
    chars = list(text)
    for a, b in blanks:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _stops(text: str, marked: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The marker groups after a sentence's full stop: a claim ends at one, whatever
    follows. "… set to 1. [1] follow: If set …" was one claim, both markers given the
    second quote's passage (FFmpeg's review, 2026-12-05)."""
    stops = []
    for a, b in marked:
        dot = a
        while dot > 0 and text[dot - 1] in " \t\"'”’)]":
            dot -= 1
        line = text.rfind("\n", 0, dot) + 1
        if _STOPPED.search(text, max(0, a - 8), a) and _ends(text, dot, b) \
                and not _LIST_NUMBER.fullmatch(text[line:dot].strip()):
            stops.append((a, b))  # not after an item's "1."
    return stops


def _ends(text: str, dot: int, after: int) -> bool:
    """Whether the full stop before ``dot`` ends a sentence: not after "et al.", "e.g." —
    but "… the prefix i.e. [1] Flask can …" is two quotes (Flask's manual, review
    2026-12-05), unlike "Dr. [1] Smith"; and "… and finally D. [1] Thus, executing …" is
    two (Ant's manual, review 2026-12-05: the letter read as an initial, one claim was
    cited by the second quote's passage alone), unlike "J. [1] Smith"."""
    if not ends_abbreviation(text, dot):
        return True
    after_text = text[after:].lstrip().lstrip("\"'“‘(")
    if _ENDS_CLAUSE.search(text, 0, dot):
        return after_text[:1].isupper()
    word = _OPENER.match(after_text)
    return bool(_INITIAL.search(text, 0, dot) and word
                and word.group().lower() in SENTENCE_OPENERS)


_STOPPED = re.compile(r"[.!?…][\"'”’)\]]*[ \t]*\Z")
# Abbreviations that can close a sentence's clause ("… i.e.", "… etc."), not a name's.
_ENDS_CLAUSE = re.compile(r"(?<![\w.])(?:i\.e|e\.g|etc|viz|cf)\.\Z", re.I)
# A capital letter alone before the stop (a name's initial, or a thing named by a letter)
# and the capitalised word after the marker.
_INITIAL = re.compile(r"(?<![\w.])[A-Z]\.\Z")
_OPENER = re.compile(r"[A-Z][a-z]+\b")


def _spans(masked: str, stops: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    spans = _raw_spans(masked)
    # "1. Refunds …": the sentence splitter ends a "sentence" after a list number.
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and _LIST_NUMBER.fullmatch(masked, *merged[-1]):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    if not stops:
        return merged
    cut: list[tuple[int, int]] = []
    for a, b in merged:
        for stop, after in ((x, y) for x, y in stops if a < x and y < b):
            end, start = stop, after
            while end > a and masked[end - 1].isspace():
                end -= 1
            while start < b and masked[start].isspace():
                start += 1
            if a < end and start < b:
                cut.append((a, end))
                a = start
        cut.append((a, b))
    return cut


def _raw_spans(masked: str) -> list[tuple[int, int]]:
    # List items and headings are cut first and sentences inside them after: an item
    # without a full stop must not run on into the next item's number ("…days\n2. Items"
    # would otherwise read "days\n2." as one sentence, the "2." glued to this claim).
    spans: list[tuple[int, int]] = []
    for a, b in _blocks(masked):
        spans.extend(join_abbreviations(masked, sentence_spans(masked, a, b), ellipses=True))
    return spans


def _blocks(masked: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for m in _BLOCK_START.finditer(masked):
        out.append((pos, m.start()))
        if not m.group(0).startswith("\n"):  # a heading line: a block of its own
            out.append((m.start(), m.end()))
        pos = m.end()
    out.append((pos, len(masked)))
    return out
