"""The rendered text of a markup loader, assembled block by block with its offsets.

Why one class: a loader that renders markup (reStructuredText, man pages) writes blocks —
paragraphs, list items, literal blocks — and must know where each starts in the final text
(headings become sections, a citation's offsets index exactly that text). The joint between
two blocks is the separator the *earlier* block asked for ("\\n" after a list item's tag,
"\\n\\n" after a paragraph), unless it asked for none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Blocks", "heading_roles", "section_spans", "tidy_roles"]

RoleSpan = tuple[int, int, str]
SectionSpan = tuple[int, int, str]


def heading_roles(headings: list[tuple[int, int, str]], text: str) -> list[RoleSpan]:
    """The ``heading`` spans of ``(start, level, title)`` headings written into ``text``."""
    return [(start, start + len(title), "heading") for start, _, title in headings
            if text.startswith(title, start)]


def tidy_roles(spans: list[RoleSpan], text: str) -> list[RoleSpan]:
    """``spans`` sorted (outer before inner), each starting at its first visible character
    and ending after its last (a block's span is opened before the separator that precedes
    its text); empty ones dropped."""
    out: list[RoleSpan] = []
    for a, b, role in spans:
        b = min(b, len(text))
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b, role))
    out.sort(key=lambda r: (r[0], -r[1]))
    return out


def section_spans(headings: list[tuple[int, int, str]], end: int) -> list[SectionSpan]:
    """Each heading's section, ``(start, stop, "Top > Sub")``: from the heading to the
    next one (or ``end``), named by the path of the headings above it by level. A heading
    without a title ends the sections of its level and below: the text after it is its
    parent's again (nothing's, when there is none)."""
    spans: list[SectionSpan] = []
    path: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(headings):
        while path and path[-1][0] >= level:
            path.pop()
        if title:
            path.append((level, title))
        stop = headings[i + 1][0] if i + 1 < len(headings) else end
        if stop > start and path:
            spans.append((start, stop, " > ".join(t for _, t in path)))
    return spans


@dataclass
class Blocks:
    parts: list[str] = field(default_factory=list)
    length: int = 0
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (start, level, title)
    pending_sep: str = ""
    roles: list[RoleSpan] = field(default_factory=list)  # besides the headings'

    def mark(self, since: int, role: str) -> None:
        """What was written since offset ``since`` has ``role`` (nothing: no span)."""
        if self.length > since:
            self.roles.append((since, self.length, role))

    def role_spans(self) -> list[RoleSpan]:
        """Every role span of the text written: the headings' and those marked."""
        text = "".join(self.parts)
        return tidy_roles([*heading_roles(self.headings, text), *self.roles], text)

    def write(self, text: str, sep: str = "\n\n") -> int | None:
        """Append ``text`` as a block (nothing for blank text); its start offset."""
        if not text.strip():
            return None
        if self.length:
            joint = self.pending_sep or sep
            self.parts.append(joint)
            self.length += len(joint)
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        self.pending_sep = sep
        return start
