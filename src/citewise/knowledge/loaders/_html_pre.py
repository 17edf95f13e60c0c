"""What a ``<pre>`` shows, and which elements show nothing.

Apart from the walk (:mod:`.html`) because a listing is read by its own rules: its white
space is the text (a table of code lines, Scribble's, has a row a line), and what a
stylesheet hides inside it is not (HAProxy's keyword menus). :data:`DROP` names the
elements neither the walk nor a listing reads: scripts, styles, forms, navigation.
"""

from __future__ import annotations

from typing import Any

from citewise.knowledge.loaders._html_blocks import is_hidden_code
from citewise.knowledge.loaders._html_chrome import is_boilerplate
from citewise.knowledge.loaders._html_scribble import cell_text, is_code_table

__all__ = ["DROP", "pre_text"]

#: Elements that show no text of the page's own.
DROP = frozenset((
    "script", "style", "noscript", "template", "svg", "canvas", "nav", "header", "footer",
    "aside", "form", "iframe", "object", "embed", "button", "select", "textarea", "input",
    "label", "dialog", "menu", "head"))


def pre_text(node: Any, table: bool = False) -> str:
    """A ``<pre>``'s text as shown: without what is hidden in it (a keyword's drop-down
    menu of the sections it is in, which Bootstrap's stylesheet hides: HAProxy's manual
    wrote "ca-fileThis keyword is available in sections :Bind options…" in a sentence)."""
    parts: list[str] = []
    table = table or is_code_table(node)  # whose white space is not preformatted
    child = node.child
    while child is not None:
        if child.tag == "-text":
            text = child.text_content or ""
            parts.append(cell_text(node, text) if table else text)
        elif child.tag == "br" or (child.tag == "tr" and parts):
            parts.append("\n")  # a table of code lines (Scribble's) has a row a line
        if child.tag not in ("-text", "br") and child.tag not in DROP \
                and not is_boilerplate(child, True) and not is_hidden_code(child):
            parts.append(pre_text(child, table))
        child = child.next
    return "".join(parts)
