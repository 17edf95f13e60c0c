"""Which tables are no data: a page laid out in a table, and a note drawn as one.

Apart from the blocks (:mod:`._html_blocks`) because each answer is about a whole table,
asked for each of its cells: a cell of such a table is a block of the text (its
paragraphs apart, its heading a heading), not a cell of a row written "a | b"; and a
note's table is a note, its title the label of its text (:mod:`._html_notes`).
"""

from __future__ import annotations

from typing import Any

from citewise.knowledge.loaders._html_captions import image_stem
from citewise.knowledge.loaders._html_display import is_code_display
from citewise.knowledge.loaders._html_generators import class_names
from citewise.knowledge.loaders._html_scribble import LAYOUT_TABLES as SCRIBBLE_BOXES

__all__ = ["ADMONITION_CLASSES", "HEADINGS", "HEADING_QUERY", "in_box", "is_layout_cell", "is_note_table",
           "layout_table", "table_of"]

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
HEADING_QUERY = ", ".join(HEADINGS)


def is_layout_cell(node: Any) -> bool:
    """A table cell that holds a heading, or a list set in columns: a page laid out in a
    table, not a table's cell (gtk-doc's ``<td><h2>Hash Tables</h2><p>Hash Tables — …``
    was a table row "Hash Tables Hash Tables — … |" with no heading: GLib's review)."""
    if node.tag not in ("td", "th"):
        return False
    if node.css_first(HEADING_QUERY) is not None:
        return True
    # qdoc's property summary, one list in two columns ("active : const bool interval : int
    # … | singleShot : bool …" was one line); DocBook's variable list set as a table, a
    # description's paragraphs and examples run on as one line (Qt's, Cockpit's reviews).
    # A row whose cells hold code of several lines: flattened on one line, YAML's "!!binary
    # |" read as a cell's end (Wireshark's review, 2026-12-06). Its cells are blocks. So
    # are a row's whose cell holds code between paragraphs: run on, "… with a single
    # define: -define png:include-chunk=none,gAMA As a special case, …" was one sentence,
    # quoted so (ImageMagick's review, 2026-12-08).
    # DocBook XSL's table footnotes, one cell across the table below its rows (``<tbody
    # class="footnotes"><tr><td colspan="5"><div class="footnote">…``): a note a line, not
    # "[a] The SQL backends … [b] MySQL and …" run on as one (GnuCash's guide, 2026-12-06).
    table, row = table_of(node), node.parent
    if (table is not None and layout_table(table)) or (
            row is not None and row.parent is not None and "footnotes" in class_names(row.parent)):
        return True
    # So is a box around a typewriter display, a row of one cell (the Haskell Report's
    # module interfaces: :mod:`._html_display`); a diagram's cells stay a row (Postfix's).
    return row is not None and (
        any("\n" in (pre.text(deep=True) or "").strip() or _among_paragraphs(pre)
            for pre in row.css("td > pre, th > pre"))
        or (len(row.css("td, th")) == 1 and any(
            is_code_display(c) for c in row.css("td > tt, td > code, th > tt, th > code"))))


def _among_paragraphs(pre: Any) -> bool:
    """Whether a cell's ``<pre>`` has a paragraph of the cell beside it."""
    cell = pre.parent
    return cell is not None and any(p.parent is not None and p.parent.mem_id == cell.mem_id
                                    for p in cell.css("p"))


def table_of(cell: Any) -> Any:
    """The table a cell (or any element inside one) is in, or None."""
    table = cell.parent
    while table is not None and table.tag not in ("table", "body"):
        table = table.parent
    return table if table is not None and table.tag == "table" else None


def in_box(node: Any) -> bool:
    """Whether ``node`` is inside a framed box: a table with a border and one cell, as older
    hand-written pages draw a figure or a note (the Haskell Report's ``<table border=2
    cellpadding=3><tr><td><h3>Translation:</h3>…``)."""
    table = table_of(node)
    if table is None or (table.attributes.get("border") or "0").strip() in ("", "0"):
        return False
    cells = [c for c in table.css("td, th")
             if (own := table_of(c)) is not None and own.mem_id == table.mem_id]
    if len(cells) != 1:
        return False
    # Not a page laid out in a frame (its h1 and h2 are the page's, and its headings many),
    # nor a banner that is its heading alone: a box has a caption or two over its own text
    # (the Report leaves its boxes open, so one may run on into the next figure's).
    headings = cells[0].css(HEADING_QUERY)
    shown = len((cells[0].text(deep=True) or "").strip())
    return 0 < len(headings) <= _BOX_HEADINGS \
        and all(h.tag not in ("h1", "h2") for h in headings) \
        and shown > sum(len((h.text(deep=True) or "").strip()) for h in headings)


_BOX_HEADINGS = 4


def layout_table(table: Any) -> bool:
    """A table that lays out its content: qdoc's property summary, DocBook's variable list
    set as a table, Scribble's definition box, and the table DocBook XSL draws an
    admonition with."""
    return not class_names(table).isdisjoint(_LAYOUT_TABLES) or is_note_table(table)


def is_note_table(table: Any) -> bool:
    """The table DocBook XSL draws a note with, its icon beside its title over its text
    (aptitude's manual, the Debian Reference: "Important | If you do not resolve …" was a
    table row; new-user review 2026-12-05): in a note's box, summarised by the note's
    title or holding its "[Important]" icon; AsciiDoc's ``admonitionblock`` (crmsh's
    manual: "Version information This section applies …" was a table row, its "Note" lost;
    review 2026-12-05); or holding the note's icon by file name, with no alt text and no
summary (GnuCash's ``<img src="./stylesheet/note.png">``: 44 boxes in 17 pages read "Note |
By default …" as a table's row; review 2026-12-06). A data table inside a note (Sphinx's,
MkDocs') is none."""
    box = table.parent
    if box is not None and box.tag == "div" and "admonitionblock" in class_names(box):
        return True  # AsciiDoc's and Asciidoctor's: an icon's cell beside the note's
    if box is None or box.tag != "div" or class_names(box).isdisjoint(ADMONITION_CLASSES):
        return False
    summary = (table.attributes.get("summary") or "").strip().lower()
    return summary in ADMONITION_CLASSES or table.css_first('img[alt^="["]') is not None \
        or any(image_stem(img).lower() in ADMONITION_CLASSES for img in table.css("img"))


_LAYOUT_TABLES = frozenset(("propsummary", "variablelist", *SCRIBBLE_BOXES))
#: The classes of a note's box (Sphinx's, DocBook's, Apache's …).
ADMONITION_CLASSES = frozenset(("note", "tip", "warning", "caution", "important", "admonition",
                                "hint", "attention", "danger", "seealso"))
