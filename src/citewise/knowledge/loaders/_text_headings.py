"""The numbered headings of a plain-text manual or FAQ: its sections, the text unchanged.

Why: a manual rendered to text (mutt's ``manual.txt``, DocBook through a text browser), a
FAQ (zsh's, zlib's) carries its structure in numbered lines — "Chapter 9. Reference",
"13.2. Polling For New Mail", "1.5: What's the latest version?" — and read as bare text
it had no section at all: a variable's "Default: 10" could not be tied to its variable
(new-user review, 2026-12-05: 946 of mutt's chunks had no section). A line is a heading
when it stands alone between blank lines, opens with a chapter's or a section's number,
and reads as a title or a question (no full stop at its end: a numbered step is a
sentence); a table of contents (its lines one under another) has none. Three at least,
or the file has no such structure. The levels follow the numbers ("2.1." under "2."),
below a chapter ("Chapter 2.") when the file has them.

A rule line ("-----", "=====") bounds a heading as a blank line does, and a FAQ's numbered
question may open the paragraph of its answer or run over a few lines ("1.1. How do you
pronounce "Valgrind"?" over "The "Val" as in …"; Valgrind's FAQ, 2026-12-05): such a
question is a heading up to its line ending in "?", when its chapter ("1." for "1.1.") is
a heading too — a numbered step opening a paragraph has no numbered heading above it. In a
file with two such questions at least (a FAQ), one ending in ":" ("2.2. When building
Valgrind, 'make' fails with this:") and a numbered paragraph of up to
:data:`_QUESTION_LINES` lines ("4.5. Memcheck doesn't report any errors and I know my
program has errors.") are ones too; elsewhere they are a manual's steps. Between rules, a
number and its title have one space between them: a table's row between rules ("1.0
Initial release") sets them in columns.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citewise.knowledge.loaders._blocks import RoleSpan, SectionSpan, section_spans

__all__ = ["numbered_headings"]

_HEADING = re.compile(r"[ \t]{0,3}(?:(?P<chapter>(?:Chapter|Part|Appendix)[\s\xa0]+[\dA-Z]+[.:]?)"
                      r"|(?P<number>\d{1,3}(?:\.\d{1,3})*)(?:\.|:|\))?)[\s\xa0]+(?P<title>\S.{0,99})")
_LEAST = 3
_TITLE_END = re.compile(r"[.,;:]\Z")
_RULE = re.compile(r"[ \t]*([-=~*_#+])\1{2,}[ \t]*")
_QUESTION_LINES = 6  # lines a numbered question runs over at most
# A number set apart from its title as a table's columns are (two spaces or a tab).
_COLUMNS = re.compile(r"\A\S+(?: {2,}|\t)")
_NUMBERED = re.compile(r"[ \t]*\d{1,3}(?:\.\d{1,3})*[.:)]?[ \t]")


def numbered_headings(text: str) -> tuple[list[SectionSpan], list[RoleSpan]]:
    """``(sections, roles)`` of ``text``'s numbered headings (none: ``([], [])``)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def apart(i: int) -> bool:  # no line, a blank one or a rule
        return not 0 <= i < len(lines) or not lines[i].strip() or bool(_RULE.fullmatch(lines[i]))

    found: list[tuple[int, int, str, int, str]] = []  # start, level, title, stop, kind
    chapters = False
    for i, line in enumerate(lines):
        if apart(i) or not apart(i - 1):
            continue
        m = _HEADING.fullmatch(line.rstrip())
        if m is None:
            continue
        start = starts[i] + len(line) - len(line.lstrip())
        kind = "alone"
        if apart(i + 1):  # alone between blank lines or rules: a title, not a sentence
            if _TITLE_END.search(m.group("title")) or (
                    _ruled(lines, i) and _COLUMNS.search(line.strip())):
                continue
            last = i
        elif m.group("number") and "." in m.group("number"):
            end, kind = _question_end(lines, i, apart)
            if end is None:
                continue
            last = end
        else:
            continue
        title = " ".join(" ".join(lines[i:last + 1]).replace("\xa0", " ").split())
        stop = starts[last] + len(lines[last].rstrip())
        if m.group("chapter"):
            chapters = True
            level = 0
        else:
            level = m.group("number").count(".") + 1
        found.append((start, level, title, stop, kind))
    # A question that opens its answer's paragraph is a heading under its chapter's only,
    # and a numbered paragraph only in a file with such questions.
    numbers = {_number(text, h) for h in found if h[4] == "alone"}
    found = [h for h in found if h[4] == "alone" or _number(text, h).rpartition(".")[0] in numbers]
    if sum(h[4] == "question" for h in found) < 2:
        found = [h for h in found if h[4] not in ("colon", "paragraph")]
    found = _aligned(text, found)
    if len(found) < _LEAST:
        return [], []
    headings = [(start, level + (1 if chapters else 0) if level else 1, title)
                for start, level, title, _, _ in found]
    roles: list[RoleSpan] = [(start, stop, "heading") for start, _, _, stop, _ in found]
    return section_spans(headings, len(text)), roles


def _aligned(text: str, found: list[tuple[int, int, str, int, str]]
             ) -> list[tuple[int, int, str, int, str]]:
    """``found`` less the headings set deeper than most of their level's: a numbered step
    indented under its section ("  1. copy a suitable lib/config-*.h file …" under curl's
    FAQ "  1.15 How do I port libcurl to my OS?", whose chapters "1. Philosophy" start
    their lines) is the section's text, not a chapter (libcurl's review, 2026-12-07). Deeper
    means both its number and its title start further right than most of its level's do:
    a right-aligned "10." starts left of " 9.", a left-aligned one's title right of it. One
    whose number follows a kept heading of its level's is kept however set."""
    def columns(h: tuple[int, int, str, int, str]) -> tuple[int, int]:
        """Where its number and its title start on its line."""
        line = text.rfind("\n", 0, h[0]) + 1
        end = text.find("\n", h[0])
        m = _HEADING.fullmatch(text[line:end if end >= 0 else len(text)].rstrip())
        return h[0] - line, m.start("title") if m else h[0] - line

    at = [columns(h) for h in found]
    by_level: dict[int, list[tuple[int, int]]] = {}
    for h, where in zip(found, at, strict=True):
        by_level.setdefault(h[1], []).append(where)
    usual = {}
    for level, cols in by_level.items():
        common = max(set(cols), key=cols.count)
        if cols.count(common) * 2 > len(cols) and cols.count(common) >= _LEAST:
            usual[level] = common
    out = []
    kept: dict[int, list[str]] = {}  # each level's numbers kept
    dropped: dict[int, bool] = {}  # whether each level's last heading was left out
    for h, (number_at, title_at) in zip(found, at, strict=True):
        number = _number(text, h)
        deeper = (h[1] in usual and number_at > usual[h[1]][0]
                  and title_at > usual[h[1]][1])
        # One that goes on from a heading of its level kept is one, however set (libjxr's
        # "   13 JXRDecApp …" after "12 Encoder …": code review, 2026-12-07) — but not the
        # next step of a list left out ("  2. edit …" after "  1. copy …").
        keep = not deeper or (not dropped.get(h[1]) and any(
            _follows(k, number) for k in kept.get(h[1], ())))
        dropped[h[1]] = not keep
        if keep:
            kept.setdefault(h[1], []).append(number)
            out.append(h)
    return out


def _follows(before: str, number: str) -> bool:
    """Whether ``number`` comes right after ``before`` ("12" then "13", "1.4" then "1.5")."""
    a, _, x = before.rpartition(".")
    b, _, y = number.rpartition(".")
    return a == b and x.isdigit() and y.isdigit() and int(y) == int(x) + 1


def _question_end(lines: list[str], i: int, apart: Callable[[int], bool]
                  ) -> tuple[int | None, str]:
    """The last line of the numbered question opening the paragraph at line ``i`` and
    ``"question"`` or ``"colon"`` (the first line ending in "?" or ":"), or
    ``"paragraph"`` (a paragraph that short), or None when the paragraph runs on (a
    numbered step's text) or numbers its lines (a table of contents)."""
    for j in range(i, min(i + _QUESTION_LINES, len(lines))):
        if apart(j):
            return j - 1, "paragraph"
        if j > i and _NUMBERED.match(lines[j]):
            return None, ""
        end = lines[j].rstrip()[-1:]
        if end in ("?", ":"):
            return j, "question" if end == "?" else "colon"
    return (i + _QUESTION_LINES - 1, "paragraph") if apart(i + _QUESTION_LINES) else (None, "")


def _ruled(lines: list[str], i: int) -> bool:
    """Whether line ``i`` has a rule above or below it."""
    return any(0 <= j < len(lines) and _RULE.fullmatch(lines[j]) for j in (i - 1, i + 1))


def _number(text: str, heading: tuple[int, int, str, int, str]) -> str:
    """A heading's number ("1.2"; "" for a chapter's)."""
    m = _HEADING.match(text, heading[0])
    return (m.group("number") or "") if m else ""
