"""What a ``<pre>`` shows, which elements are blocks or preformatted, and which show
nothing.

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

__all__ = ["BLOCK", "DROP", "PRE", "pre_text"]

#: Elements that show no text of the page's own.
DROP = frozenset((
    "script", "style", "noscript", "template", "svg", "canvas", "nav", "header", "footer",
    "aside", "form", "iframe", "object", "embed", "button", "select", "textarea", "input",
    "label", "dialog", "head"))

#: The elements that are blocks of their own: a line, a paragraph, a list.
BLOCK = frozenset((
    "address", "article", "aside", "blockquote", "body", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li",
    "main", "ol", "p", "pre", "section", "summary", "table", "tbody", "thead", "tfoot", "tr",
    "ul", "caption",
    # A list as HTML 2 wrote one, and HTML5 a list of commands: browsers show both as <ul>
    # (Graphviz's DOT language page lists the four forms of an ID in a <MENU>, which was
    # dropped as navigation: new-user review, 2026-12-07). Navigation is told by its class.
    "menu", "dir", "xmp", "listing"))
#: Preformatted text: <pre>, and HTML 2's <xmp> and <listing>, whose text is not even
#: markup (Graphviz's pages show their DOT examples and an image map's HTML in <XMP>s,
#: which were read as a sentence's words: new-user review, 2026-12-07).
PRE = frozenset(("pre", "xmp", "listing"))


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
