"""The rendered text of a markup loader, assembled block by block with its offsets.

Why one class: a loader that renders markup (reStructuredText, man pages) writes blocks —
paragraphs, list items, literal blocks — and must know where each starts in the final text
(headings become sections, a citation's offsets index exactly that text). The joint between
two blocks is the separator the *earlier* block asked for ("\\n" after a list item's tag,
"\\n\\n" after a paragraph), unless it asked for none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Blocks"]


@dataclass
class Blocks:
    parts: list[str] = field(default_factory=list)
    length: int = 0
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (start, level, title)
    pending_sep: str = ""

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
