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
"""

from __future__ import annotations

import re

from citewise.knowledge.loaders._blocks import RoleSpan, SectionSpan, heading_roles, section_spans

__all__ = ["numbered_headings"]

_HEADING = re.compile(r"[ \t]{0,3}(?:(?P<chapter>(?:Chapter|Part|Appendix)[\s\xa0]+[\dA-Z]+[.:]?)"
                      r"|(?P<number>\d{1,3}(?:\.\d{1,3})*)(?:\.|:|\))?)[\s\xa0]+(?P<title>\S.{0,99})")
_LEAST = 3
_TITLE_END = re.compile(r"[.,;:]\Z")


def numbered_headings(text: str) -> tuple[list[SectionSpan], list[RoleSpan]]:
    """``(sections, roles)`` of ``text``'s numbered headings (none: ``([], [])``)."""
    lines = text.split("\n")
    found: list[tuple[int, int, str]] = []
    chapters = False
    at = 0
    for i, line in enumerate(lines):
        start = at
        at += len(line) + 1
        if not line.strip() or (i and lines[i - 1].strip()) or (
                i + 1 < len(lines) and lines[i + 1].strip()):
            continue  # a heading stands alone between blank lines
        m = _HEADING.fullmatch(line.rstrip())
        if m is None or _TITLE_END.search(m.group("title")):
            continue
        title = " ".join(line.replace("\xa0", " ").split())
        if m.group("chapter"):
            chapters = True
            level = 0
        else:
            level = m.group("number").count(".") + 1
        found.append((start + len(line) - len(line.lstrip()), level, title))
    if len(found) < _LEAST:
        return [], []
    headings = [(start, level + (1 if chapters else 0) if level else 1, title)
                for start, level, title in found]
    return section_spans(headings, len(text)), heading_roles(headings, text)
