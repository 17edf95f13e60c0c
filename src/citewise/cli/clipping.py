"""Long text cut to fit a line of plain output, at a word's end.

One function for every place the CLI shortens what it quotes (an answer's sources, the
closest passages of a decline, ``eval``'s warnings and table): each cut at a fixed count
of characters ended inside a word ("… or some of the new database will not i…", Xapian's
review, 2026-12-07), which reads as a typo in the source.
"""

from __future__ import annotations

__all__ = ["clipped"]

#: A cut goes back at most this share of the limit to find a word's end (a long URL or
#: an identifier without spaces is cut where it must be).
_BACK = 0.2


def clipped(text: str, limit: int) -> str:
    """``text`` as is when it has at most ``limit`` characters; else its longest run of
    whole words within ``limit`` less one, then "…" (the limit is never exceeded)."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    space = head.rfind(" ")
    if space >= limit * (1 - _BACK) and not text[limit - 1].isspace():
        head = head[:space]
    return head.rstrip() + "…"
