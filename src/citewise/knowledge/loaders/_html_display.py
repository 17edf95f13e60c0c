"""Code set as typewriter text with line breaks, not in a ``<pre>``: a display.

Older HTML, written by hand or by converters of its time, sets a listing as ``<tt>`` (or
``<code>``) with a ``<br>`` at each line's end and no-break spaces for its indentation. The
Haskell 98 Report (hs2html) has 268 such displays: every library's module interface, the
whole Standard Prelude, the layout rule's example. Read as inline text they ran on as one
line — a ``--`` comment swallowed the code after it, and Haskell's indentation, which is
its syntax, was lost (new-user review, 2026-12-07). Apart from the walk because the white
space of such an element is read by its own rule: source line ends and spaces are one
space, as a browser lays them out; ``<br>`` ends a line; no-break spaces stay.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["display_text", "is_code_display"]

_DISPLAY_TAGS = ("tt", "code", "kbd", "samp")
_BLOCKS = "p, pre, div, table, ul, ol, dl, li, blockquote, h1, h2, h3, h4, h5, h6, hr"
_SPACES = re.compile(r"[ \t\r\n\f]+")


def is_code_display(node: Any) -> bool:
    """A ``<tt>`` or ``<code>`` element holding two lines or more, broken by ``<br>``, and no
    block (a ``<tt>`` left open runs on through the page's paragraphs and headings: the
    Asymptote FAQ's)."""
    if node.tag not in _DISPLAY_TAGS or node.css_first("br") is None \
            or node.css_first(_BLOCKS) is not None:
        return False
    return sum(1 for line in display_text(node).split("\n") if line.strip()) >= 2


def display_text(node: Any) -> str:
    """``node``'s lines as a browser shows them: indentation (no-break spaces) kept as
    spaces, line ends trimmed, blank lines at either end dropped."""
    parts: list[str] = []
    _collect(node, parts)
    lines = ["".join(line).strip(" ").replace("\xa0", " ").rstrip()
             for line in "".join(parts).split("\n")]
    return "\n".join(lines).strip("\n")


def _collect(node: Any, parts: list[str]) -> None:
    child = node.child
    while child is not None:
        if child.tag == "-text":
            parts.append(_SPACES.sub(" ", child.text_content or ""))
        elif child.tag == "br":
            parts.append("\n")
        elif child.tag not in ("script", "style", "-comment"):
            _collect(child, parts)
        child = child.next
