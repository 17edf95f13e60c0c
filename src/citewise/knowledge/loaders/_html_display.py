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
from collections.abc import Callable
from typing import Any

__all__ = ["code_display", "display_text", "is_code_display"]

_DISPLAY_TAGS = ("tt", "code", "kbd", "samp")
_BLOCKS = "p, pre, div, table, ul, ol, dl, li, blockquote, h1, h2, h3, h4, h5, h6, hr"
_SPACES = re.compile(r"[ \t\r\n\f]+")


def is_code_display(node: Any) -> bool:
    """Whether ``node`` is a display (:func:`code_display`)."""
    return code_display(node) is not None


def code_display(node: Any, ids: Callable[[Any], str | None] = lambda _: None
                 ) -> tuple[str, list[tuple[int, str]]] | None:
    """A ``<tt>`` or ``<code>`` element holding two lines or more, broken by ``<br>``, and no
    block (a ``<tt>`` left open runs on through the page's paragraphs and headings: the
    Asymptote FAQ's), nor inside a term (a ``<dt>``'s signature over two lines is its
    term, the description under it its own: Asymptote's "orthographic"), as
    :func:`display_text` reads it; None for any other element."""
    if node.tag not in _DISPLAY_TAGS or node.css_first("br") is None \
            or node.css_first(_BLOCKS) is not None:
        return None
    above = node.parent
    while above is not None and above.tag not in ("body", "html"):
        if above.tag == "dt":
            return None
        above = above.parent
    shown = display_text(node, ids)
    return shown if sum(1 for line in shown[0].split("\n") if line.strip()) >= 2 else None


def display_text(node: Any, ids: Callable[[Any], str | None] = lambda _: None
                 ) -> tuple[str, list[tuple[int, str]]]:
    """``node``'s lines as a browser shows them — indentation (no-break spaces) kept as
    spaces, line ends trimmed, blank lines at either end dropped — and where in them each
    element inside it that ``ids`` names starts (the Haskell Report's Prelude has 192
    instances' anchors inside its listings, pointed at by its index)."""
    parts: list[str] = []
    marks: list[tuple[int, str]] = []
    _collect(node, parts, marks, ids)
    raw = "".join(parts)
    lines: list[str] = []
    starts: list[tuple[int, int, int]] = []  # (raw start, raw end, written start) of each line
    at = written = 0
    for line in raw.split("\n"):
        kept = line.strip(" ").replace("\xa0", " ").rstrip()
        lead = len(line) - len(line.lstrip(" "))
        starts.append((at + lead, at + len(line), written))
        lines.append(kept)
        at += len(line) + 1
        written += len(kept) + 1
    text = "\n".join(lines)
    cut = len(text) - len(text.lstrip("\n"))
    text = text.strip("\n")
    placed: list[tuple[int, str]] = []
    for offset, ident in marks:
        for (begin, end, start), kept in zip(starts, lines, strict=True):
            if offset <= end:
                column = min(max(offset - begin, 0), len(kept))
                placed.append((min(max(start + column - cut, 0), len(text)), ident))
                break
    return text, placed


def _collect(node: Any, parts: list[str], marks: list[tuple[int, str]],
             ids: Callable[[Any], str | None]) -> None:
    child = node.child
    while child is not None:
        if child.tag == "-text":
            parts.append(_SPACES.sub(" ", child.text_content or ""))
        elif child.tag == "br":
            parts.append("\n")
        elif child.tag not in ("script", "style", "-comment"):
            if ident := ids(child):
                marks.append((sum(len(p) for p in parts), ident))
            _collect(child, parts, marks, ids)
        child = child.next
