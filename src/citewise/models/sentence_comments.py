"""The sentences of a source or configuration file's comments, as the evidence choice reads them.

Why apart from the candidates (:mod:`.sentence_candidates`): a comment is prose written
between markers, and the sentence splitter knows markdown, not comments. A "#" line is a
heading to it, so each line of "# If group is not specified, group is assumed" / "# to be
the same as user." was a sentence of its own (Debian's example nginx.conf, new-user review
2026-12-06); a "//" line is nothing to it, so the line of code above a Go comment ran into
the comment's first sentence. Inside the loader's ``comment`` spans
(:func:`citewise.knowledge.loaders.source.comments`), sentences are cut where a comment
starts and ends and at each of its lines, a line's marker is no part of a sentence that
starts the line, and a sentence goes on over the next line when that line goes on in lower
case after more than a title's words. Every span stays a verbatim slice of the file: a
sentence over two lines keeps the marker between them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from citewise.knowledge.loaders.source import BLOCK_MARK, DOCSTRING_OPEN, LINE_COMMENT
from citewise.sentences import sentence_spans

__all__ = ["comment_sentences"]

# A line's comment marker and the blanks after it, by the kind of comment: a line comment's
# (the loader's markers, any language's), a block comment's (``/**``, `` * ``), and in a
# docstring none but its opening quotes ("%s is replaced …", "-- options are …" and
# "**Note**" in a docstring are its text). Each with the break between two of its lines.
_LINE_MARK = re.compile(rf"{LINE_COMMENT}[ \t]*")
_BLOCK_MARK = re.compile(rf"{BLOCK_MARK}[ \t]*")
_DOC_OPEN = re.compile(rf"{DOCSTRING_OPEN}[ \t]*")
_NOTHING = re.compile(r"(?!)")
_BREAKS = {kind: re.compile(rf"[ \t\r]*\n[ \t]*(?:{mark})?[ \t]*") for kind, mark in (
    ("line", LINE_COMMENT), ("block", BLOCK_MARK), ("doc", "(?!)"))}
_LINE = re.compile(r"\n[ \t]*(?=\S)")
# A line of this many words or fewer is a title, not a sentence going on.
_TITLE_WORDS = 3
# What ends a sentence, or a label ("Syntax:"): no sentence goes on past it.
_ENDED = re.compile(r"[.!?…:][\"'”’)\]]*\Z")


def comment_sentences(text: str, roles: Sequence[tuple[int, int, str]],
                      spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (sentences, in order) read inside ``text``'s comments: cut at each
    comment's edges, without a line's leading marker, and joined over a line break that a
    sentence goes on past. Unchanged without a ``comment`` role."""
    runs = sorted((a, b) for a, b, role in roles if role == "comment")
    if not runs:
        return spans
    spans = _split_apart(text, runs, spans)
    # Each comment's edges and each of its lines' starts: a line goes on into the next only
    # by the rule below, whatever the splitter made of it ("// Logging" over "// Sets …").
    edges = sorted({p for run in runs for p in run} | {
        m.end() for a, b in runs for m in _LINE.finditer(text, a, b)})
    cut: list[tuple[int, int]] = []
    for a, b in spans:
        for c in edges[bisect_right(edges, a):bisect_left(edges, b)]:
            cut.append(_stripped(text, a, c))
            a = c
        cut.append(_stripped(text, a, b))
    out: list[tuple[int, int]] = []
    starts = [a for a, _ in runs]
    for a, b in cut:
        if a >= b:
            continue
        run = bisect_right(starts, a) - 1
        inside = run >= 0 and a < runs[run][1]
        kind = _kind(text, runs[run][0]) if inside else "line"
        if inside and not text[text.rfind("\n", 0, a) + 1:a].strip():
            # At a line's start: its marker is no part of the sentence ("%d prints …"
            # inside a comment keeps its "%").
            m = _marks(kind, a == runs[run][0]).match(text, a, b)
            a = m.end() if m is not None and m.end() < b else a
        if inside and out and out[-1][0] >= runs[run][0] \
                and not _ENDED.search(text, out[-1][0], out[-1][1]) \
                and _BREAKS[kind].fullmatch(text, out[-1][1], a) and text[a].islower() \
                and len(text[out[-1][0]:out[-1][1]].split()) > _TITLE_WORDS:
            # A sentence that goes on ("… group is assumed" / "to be the same as user."),
            # not a title over its comment ("Logging" / "Sets the log level …").
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _split_apart(text: str, runs: list[tuple[int, int]], spans: list[tuple[int, int]]
                 ) -> list[tuple[int, int]]:
    """``spans`` outside the comments, and each comment's text after its opening marker
    split on its own: a docstring's opening quotes opened a quotation to the splitter over
    the whole text, and none of its sentences were cut ("\"\"\"Sets the user. If …")."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        for ra, rb in runs[max(0, bisect_right(runs, (a, a)) - 1):]:
            if ra >= b:
                break
            if rb > a and ra < b:
                if ra > a:
                    out.append((a, ra))
                a = max(a, rb)
        if a < b:
            out.append((a, b))
    for ra, rb in runs:
        m = _marks(_kind(text, ra), True).match(text, ra, rb)
        out.extend(sentence_spans(text, m.end() if m is not None else ra, rb))
    return sorted(_stripped(text, a, b) for a, b in out)


def _kind(text: str, start: int) -> str:
    """What the comment starting at ``start`` is: a block comment, a docstring or a run
    of line comments."""
    if text.startswith("/*", start):
        return "block"
    return "doc" if _DOC_OPEN.match(text, start) else "line"


def _marks(kind: str, first: bool) -> re.Pattern[str]:
    """The marker a line of a comment of ``kind`` starts with (``first``: its first line)."""
    if kind == "doc":
        return _DOC_OPEN if first else _NOTHING
    return _BLOCK_MARK if kind == "block" else _LINE_MARK


def _stripped(text: str, a: int, b: int) -> tuple[int, int]:
    """``(a, b)`` without the blanks at its edges."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b
