"""An ordered list's numbers as a browser draws them: "3. ", "c. ", "iv. ".

Apart from the blocks (:mod:`._html_blocks`) because it is state across a list's items —
where it starts, how it counts, an item's own ``value`` — not a fact about one element.
The text says "see step 8", and the steps' numbers were lost without them.
"""

from __future__ import annotations

from typing import Any

from citewise.knowledge.loaders._html_generators import class_names

__all__ = ["item_number", "list_type", "start_number"]


def start_number(value: Any) -> int:
    """An ``<ol start>``: the first item's number (1 when missing or malformed)."""
    return _int(value, 1)


def list_type(node: Any) -> str:
    """An ``<ol>``'s numbering: its ``type`` ("a", "I" …), else the one docutils names in
    its class (``<ol class="loweralpha" start="12">``, which a stylesheet draws as "l.":
    pandas' guide was stored "12. For StringDtype …", review 2026-12-07), else "1"."""
    kind = node.attributes.get("type")
    if kind:
        return str(kind)
    classes = class_names(node)
    return next((mark for name, mark in _LIST_CLASSES.items() if name in classes), "1")


_LIST_CLASSES = {"loweralpha": "a", "upperalpha": "A", "lowerroman": "i", "upperroman": "I"}


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        return default


def item_number(numbering: list[Any], value: Any) -> str:
    """An ordered list item's marker as a browser shows it ("3. ", "c. ", "iv. "):
    the text says "see step 8", and the steps' numbers were lost without it."""
    n = _int(value, numbering[0]) if value is not None else numbering[0]
    numbering[0] = n + 1
    kind = numbering[1]
    if kind in ("a", "A") and 1 <= n <= 26:
        label = chr(ord(kind) + n - 1)
    elif kind in ("i", "I") and 1 <= n < 40:
        roman = "".join(r * c for r, c in zip(
            ("x", "ix", "v", "iv", "i"),
            (n // 10, n % 10 // 9, n % 10 % 9 // 5, n % 10 % 9 % 5 // 4, n % 10 % 9 % 5 % 4),
            strict=True))
        label = roman if kind == "i" else roman.upper()
    else:
        label = str(n)
    return f"{label}. "
