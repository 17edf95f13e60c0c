"""The labels of a page's notes and boxes, as a reader sees them beside their text.

Apart from :mod:`._html_blocks` because each is one kind of small print a generator sets
off in its own way, and read as blocks of their own they became headings or lone lines:
an admonition's title ("Note", "Warning"), a sidebar's or a box's bold title, written as
the prefix of its first paragraph ("Note: …", "Lazy Connecting: …"); a footnote's label
("[1] ", written on its note's line) and its marker in the text ("[1]"); and a list
item's label, the name in code over its paragraphs, which is a term as a ``<dt>`` is.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.knowledge.loaders._html_blocks import class_names, element_id, element_sibling
from citewise.knowledge.loaders._html_tables import ADMONITION_CLASSES, is_note_table, table_of

__all__ = ["admonition_label", "footnote_label", "footnote_marker", "inline_note",
           "is_item_label"]


def admonition_label(node: Any) -> str:
    """An admonition's title as the prefix of its first paragraph ("Note: ", "See also: "),
    or a footnote's term as its note's ("[1] "), or "" when ``node`` is none. Sphinx and
    Python-Markdown (MkDocs) write it as ``<p class="admonition-title">Note</p>``: a
    paragraph of its own, it read as the heading of the note's text (its context) in place
    of the section's; rST's loader writes it so. A docutils sidebar's ``<p
    class="sidebar-title">`` and a container's bold label over its one paragraph
    (:func:`_box_label`) are read the same way."""
    if _footnote_term(node) or _texinfo_note_heading(node):
        # The label's brackets, not its links back to where it is cited ("(1,2)").
        shown = node.css_first("span.brackets") or node
        label = _bracketed((shown.text(deep=True) or "").strip().strip("()"))
        return f"{label} " if label else ""
    if _icon_cell(node):  # AsciiDoc's icon, its name in its alt, its title or its text
        icon = node.css_first("img[alt], i[title]")
        title = " ".join(((icon.attributes.get("alt") or icon.attributes.get("title") or "")
                          if icon is not None else (node.text(deep=True) or "")).split())
        return "" if not title or len(title) > 60 else title + ": "
    if not (node.tag == "p" and class_names(node) & _TITLE_CLASSES) and not _note_heading(node) \
            and not _box_label(node) and not _bold_note_word(node):
        return ""
    title = " ".join((node.text(deep=True) or "").split())
    return "" if not title or len(title) > 60 else title + (" " if title[-1] in ":.!?" else ": ")


_TITLE_CLASSES = frozenset(("admonition-title", "sidebar-title"))  # docutils' box titles


def _icon_cell(node: Any) -> bool:
    """The icon's cell of an AsciiDoc note (``<div class="admonitionblock"><table><tr><td
    class="icon"><img alt="Note"></td><td class="content">…``)."""
    if node.tag != "td" or "icon" not in class_names(node):
        return False
    table = table_of(node)
    return table is not None and is_note_table(table)


def _footnote_term(node: Any) -> bool:
    """A footnote's label as docutils before 0.18 wrote it, the term of a ``<dl
    class="footnote">`` (``<dt class="label"><span class="brackets"><a
    class="fn-backref">1</a></span></dt>``): it was a lone "1" over the note (SQLAlchemy's
    manual, new-user review 2026-12-05); it is written "[1] " on the note's line."""
    parent = node.parent
    return (node.tag == "dt" and "label" in class_names(node) and parent is not None
            and parent.tag == "dl" and not class_names(parent).isdisjoint(("footnote", "citation")))


def _texinfo_note_heading(node: Any) -> bool:
    """Texinfo's footnote label, a heading over its note (``<h5><a id="FOOT1"
    href="#DOCF1">(1)</a></h5>``): it was a section "Footnotes > (1)" of its own, the note
    under it (SBCL's one-page manual, new-user review 2026-12-07)."""
    if node.tag not in ("h3", "h4", "h5", "h6"):
        return False
    links = node.css("a")
    return len(links) == 1 and _TEXINFO_BACK.fullmatch(links[0].attributes.get("href") or "") \
        is not None and _TEXINFO_LABEL.fullmatch((node.text(deep=True) or "").strip()) is not None


_TEXINFO_BACK = re.compile(r"#DOCF\d+")
_TEXINFO_LABEL = re.compile(r"\(\d+\)")


def _box_label(node: Any) -> bool:
    """A bold paragraph over the one other paragraph of a docutils container: ``<div
    class="class-bases docutils container"><p><strong>Class signature</strong></p><p>class
    QueuePool (Pool)</p></div>`` (SQLAlchemy's API pages, 15 of them). Read as a heading it
    opened a section "Class signature" that ran on over the class's methods (new-user
    review, 2026-12-05). Its siblings only are looked at: a page of 10,000 paragraphs in
    one ``<div>`` asks this of each."""
    parent = node.parent
    if node.tag != "p" or parent is None or parent.tag != "div" or \
            "container" not in class_names(parent):
        return False
    before, after = element_sibling(node, "prev"), element_sibling(node, "next")
    if before is not None or after is None or after.tag != "p" \
            or element_sibling(after, "next") is not None \
            or not (after.text(deep=True) or "").strip():
        return False
    bold = list(node.iter(include_text=False))
    words = (node.text(deep=True) or "").strip()
    return (len(bold) == 1 and bold[0].tag in ("b", "strong") and 0 < len(words.split()) <= 4
            and (bold[0].text(deep=True) or "").strip() == words)


def _bold_note_word(node: Any) -> bool:
    """A paragraph that is only an admonition's word in bold, over the note's paragraph:
    SWI-Prolog's ``<p><b>Warning</b>`` then ``<p>The general purpose string interpolation
    … should not be used …``. Read as a bold heading, it opened a section "Warning" that
    ran on over every predicate after it (new-user review, 2026-12-07)."""
    if node.tag != "p" or not _NOTE_WORD.fullmatch((node.text(deep=True) or "").strip()):
        return False
    kids = list(node.iter(include_text=False))
    after = element_sibling(node, "next")
    return (len(kids) == 1 and kids[0].tag in ("b", "strong") and after is not None
            and after.tag == "p" and bool((after.text(deep=True) or "").strip()))


_NOTE_WORD = re.compile(r"(?i)(?:note|warning|caution|important|tip|hint|attention|danger)"
                        r"\s*[:!]?")


def _note_heading(node: Any) -> bool:
    """The title of a note written as a heading, its first element: DocBook's ``<div
    class="note"><h3 class="title">Note</h3>`` (PostgreSQL's manual), Apache's ``<div
    class="note"><h3>Note</h3>``, or the ``<th>`` beside its icon when DocBook XSL draws the
    box as a table (aptitude's manual). As a heading it opened a section "Note" that ran
    on past the note to the next real heading: 171 of PostgreSQL's 932 chunks were said to
    be in a "Note" they were not in."""
    if node.tag == "th":  # DocBook XSL's table form: the title beside the note's icon
        # "Note", or a title of its own ("Busy networks mean large captures", which was a
        # paragraph quoted as an answer: Wireshark's guide, review 2026-12-06); a label of
        # 60 characters at most (``admonition_label``).
        table = table_of(node)
        return table is not None and is_note_table(table)
    if node.tag not in ("h1", "h2", "h3", "h4", "h5", "h6"):
        return False
    parent = node.parent
    if parent is None or not class_names(parent) & ADMONITION_CLASSES:
        return False
    first = parent.child
    while first is not None and first.tag in ("-text", "-comment"):
        first = first.next
    return first is not None and first.mem_id == node.mem_id and len(
        (node.text(deep=True) or "").split()) <= 3


def footnote_marker(node: Any) -> str:
    """A footnote's marker in the text as it reads ("[1]"), or "" when ``node`` is none:
    mdBook writes ``tables<sup class="footnote-reference"><a>1</a></sup>``, pandoc
    ``<a class="footnote-ref"><sup>1</sup></a>`` and rustdoc ``<sup id="fnref1"><a
    href="#fn1">1</a></sup>``, which read "tables1" as plain text; Texinfo ``<a
    id="DOCF1" href="#FOOT1"><sup>1</sup></a>``, which glued diffutils' "… too long.1 The
    -z …" into one sentence (review, 2026-12-05)."""
    classes = class_names(node)
    role = (node.attributes.get("role") or "").lower()
    if not (classes & {"footnote-reference", "footnote-ref"} or role == "doc-noteref"
            or (node.tag == "sup" and (node.attributes.get("id") or "").startswith("fnref"))
            or (node.tag == "a" and _TEXINFO_NOTE.match(node.attributes.get("href") or ""))):
        return ""
    return _bracketed(node.text(deep=True) or "")


_TEXINFO_NOTE = re.compile(r"#FOOT\d+\Z")


def inline_note(node: Any) -> tuple[str, str, tuple[str, ...]] | None:
    """A footnote written inside the sentence that cites it, as its marker and its note
    ("[142]", "Unfortunately not covered by any standard."), or None for any other
    element. SWI-Prolog's manual writes ``portable<sup class="fn">142<span
    class="fn-text">Unfortunately …</span></sup> way to produce …``, the note hidden until
    the mark is hovered: read in place it split the sentence ("portable142Unfortunately not
    covered by any standard. way to produce textual output", 25 notes on 10 of a review's
    18 pages, 2026-12-07). The marker stays in the sentence; the note is a paragraph of its
    own after the paragraph, with the ids inside the note (an index's links point at them)."""
    if node.tag != "sup" or "fn" not in class_names(node):
        return None
    note = node.css_first("span.fn-text")
    if note is None:
        return None
    text = " ".join((note.text(deep=True) or "").split())
    mark = "".join((c.text_content or "") for c in node.iter(include_text=True)
                   if c.tag == "-text")
    marker = _bracketed(mark)
    ids = tuple(i for inner in note.traverse(include_text=False) if (i := element_id(inner)))
    return (marker, text, ids) if marker and text else None


def _bracketed(label: str) -> str:
    """A footnote's or citation's label as its marker reads, "[1]", "[Smith2002]"; "" when
    it is none or too long to be one."""
    label = " ".join(label.split()).strip("[]")
    return f"[{label}]" if 0 < len(label) <= _LABEL_CHARS else ""


_LABEL_CHARS = 24


def footnote_label(node: Any) -> str:
    """A docutils footnote's label ("[1] "), taken out of the tree to be written on its
    text's line: it is a <span> before the note's <p>, which would leave it a line alone.
    Its links back to where it is referenced ("(1,2)") go: they are navigation."""
    label = ""
    for sup in node.css("sup.footnote-definition-label"):  # mdBook's
        if sup.parent is not None and sup.parent.mem_id == node.mem_id:
            label = f"[{' '.join(sup.text().split())}]"
            sup.decompose()
    for span in node.css("span.label, span.backrefs"):
        if span.parent is None or span.parent.mem_id != node.mem_id:
            continue  # a nested note's (a list of footnotes holds each)
        if "label" in (span.attributes.get("class") or "").split():
            label = " ".join(span.text().split())
        span.decompose()
    return f"{label} " if label else ""


def is_item_label(block: Any, first_break: bool = False) -> bool:
    """Whether the text before ``block`` in its list item is the item's label: a name in
    code or bold alone, four words at most, the item's text in the blocks after it.
    LilyPond's manual lists properties so (``<li><code>force-hshift</code><p>The
    force-hshift property is …``), and the lone name was quoted as the answer to "what
    units is force-hshift specified in" (review, 2026-12-06); as a ``<dt>`` it is a term.
    ``block`` may be the item's first ``<br>`` (``first_break``): SWI-Prolog's format/2
    directives, ``<li><code>D</code><br>Same as d, …``."""
    item = block.parent
    if item is None or item.tag != "li":
        return False
    words, node = 0, item.child
    while node is not None and node.mem_id != block.mem_id:
        if first_break and node.tag == "br":
            return False  # ``block``, a <br>, is not the first: the label is above it
        shown = (node.text(deep=True) or "").strip()
        if node.tag in _LABEL_TAGS:
            words += len(shown.split())
        elif shown and node.tag != "-comment":  # plain words, or anything else
            return False
        node = node.next
    return 0 < words <= 4


_LABEL_TAGS = frozenset(("code", "tt", "kbd", "samp", "var", "strong", "b"))
