"""The section path a loader gave the text at a probe: what the loader tests assert."""

from __future__ import annotations

from collections.abc import Sequence


def section_at(text: str, sections: Sequence[tuple[int, int, str]], probe: str) -> str:
    """The path of the section holding the first occurrence of ``probe`` in ``text``."""
    at = text.index(probe)
    return next(p for a, b, p in sections if a <= at < b)
