"""Whether a text with no rST extension is reStructuredText (a README, a FAQ in text).

Apart from :mod:`.rst` because it reads the raw text, never docutils' tree: the text
loader asks it of every file it is given, before deciding which reader to use.
"""

from __future__ import annotations

import re

__all__ = ["looks_like_rst"]


def looks_like_rst(text: str) -> bool:
    """Whether a file with no rST extension is written in reStructuredText: it has a section
    title adorned as rST adorns one (a line of one punctuation character under it, as long
    as the title at least, and maybe over it), and a second title or another rST construct
    — a directive (``.. contents::``), a field list (``:Author: …``), a literal block's
    ``::``, an inline literal (````x````). One underlined heading alone is how plain text
    marks a heading too, and such a file stays plain text."""
    head = text[:_SNIFF]
    lines = head.splitlines()
    titles = [i for i in range(1, len(lines)) if _adorns(lines[i - 1], lines[i])]
    construct = _CONSTRUCT.search(head) is not None
    if not construct and any(_rule_under_prose(lines, i) for i in titles):
        return False
    return len(titles) >= 2 or (len(titles) == 1 and construct)


def _rule_under_prose(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a plain-text rule under a sentence rather than a title's
    underline: a long rule (a text's fixed-width separator) well longer than the line above
    it, which ends as a sentence does, and no overline. Valgrind's FAQ separates its
    entries so, and read as rST the last sentence of an answer became a section, every
    question was glued to its answer and the file's title was "1. Background"."""
    title, rule = lines[i - 1].rstrip(), lines[i].rstrip()
    return (len(rule) >= _RULE and len(rule) > len(title) + 8 and title[-1:] in ".;,"
            and not (i >= 2 and lines[i - 2].rstrip() == rule))


def _adorns(title: str, line: str) -> bool:
    title, line = title.rstrip(), line.rstrip()
    return (len(line) >= max(3, len(title)) and len(set(line)) == 1 and line[0] in _ADORNMENT
            and any(c.isalnum() for c in title) and not title[:1].isspace()
            and len(title) <= 120)


_SNIFF = 20_000  # characters read to decide: a title and a construct come early
_RULE = 60  # characters: a rule this long under a shorter sentence is a separator
_ADORNMENT = frozenset("=-~^\"'`#*+:._")
_CONSTRUCT = re.compile(r"(?m)^\.\.\s+[\w:.-]+::|^:[A-Za-z][\w .-]*:(?:\s|$)|\S::[ \t]*$|"
                        r"``[^`\n]+``")
