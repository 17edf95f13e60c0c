"""What an HTML block element is, and the text a browser shows for it beyond its own.

Apart from the walk (:mod:`.html`) because these are facts about single elements: an
element's role as evidence (a definition's term, a table, a version-change note, a notice,
a bold-only paragraph that is a heading), an ordered list item's number ("3. ", "c. ",
"iv. "), a superscript that reads as a power, and what a code block hides. A note's or a
box's label and a footnote's are in :mod:`._html_notes`; which tables are no data, in
:mod:`._html_tables`.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.knowledge.loaders._html_captions import is_image_caption
from citewise.knowledge.loaders._html_colophon import is_byline
from citewise.knowledge.loaders._html_generators import class_names, is_declaration
from citewise.knowledge.loaders._html_scribble import is_code_table
from citewise.knowledge.loaders._html_tables import HEADING_QUERY, HEADINGS, layout_table

__all__ = ["HEADING_QUERY", "LISTING_CODE", "ahead_of_term", "another_form", "block_role",
           "class_names", "element_id", "element_sibling", "is_caption", "is_code_block", "is_exponent",
           "is_hidden_code", "is_keyword", "is_section", "opens_entry"]


def opens_entry(node: Any) -> bool:
    """Whether ``node`` is a ``<dt>`` or ``<dd>`` after a ``<dd>``: the next entry of a
    definition list, or the next of a term's several descriptions, which a blank line sets
    apart. A description without a full stop ran on into the next as one sentence:
    Javadoc's "Parameters: userAgent - user-agent to use Returns: this Connection, for
    chaining See Also: HttpConnection.DEFAULT_UA" was one quote, and so were a method's
    exceptions under one "Throws:"."""
    if node.tag not in ("dt", "dd"):
        return False
    prev = node.prev
    while prev is not None and prev.tag == "-text" and not (prev.text_content or "").strip():
        prev = prev.prev
    return prev is not None and prev.tag == "dd"


# A number, a letter, or a word: Go's spec scales a mantissa "by 10<sup>exp</sup>" (read
# "10exp": new-user review, 2026-12-05) — not an ordinal's ending ("21<sup>st</sup>").
_EXPONENT = re.compile(r"[-−+]?(?:\d+|[a-zA-Z]|(?!(?:st|nd|rd|th|er|re|es|ème|eme)\Z)"
                       r"[a-zA-Z][a-zA-Z_]{1,11})")
# A power that is an expression: "2<sup>n - 1</sup>" (the Rust book's integer ranges).
_EXPONENT_TERM = re.compile(r"[-−+]?\s*(?:\d+|[a-zA-Z])(?:\s*[-−+*/]\s*(?:\d+|[a-zA-Z]))+")


def is_exponent(node: Any, before: str) -> str:
    """How a superscript right after a digit (``before``: the text just before it) reads
    as a power: "^" before a number or a letter (``2<sup>64</sup>``), "^(" before an
    expression, which then needs its ")" (``2<sup>n - 1</sup>`` is 2^(n - 1), not "2n - 1");
    "" when it is no power. After a variable — a letter standing alone, a bracket — a
    number or a letter is one too: ImageMagick's "x<sup>y</sup>", "e<sup>x</sup>",
    "A*r<sup>3</sup>", "[jinc(x)]<sup>2</sup>" read "xy", "ex", "A*r3" (review,
    2026-12-06); after a word it is a footnote's mark ("note<sup>1</sup>")."""
    text = (node.text(deep=True) or "").strip()
    if before and _VARIABLE.search(before) and _POWER.fullmatch(text) \
            and node.css_first("a") is None:
        return "^"
    if not before or not before[-1].isdigit():
        return ""
    if _EXPONENT.fullmatch(text) is not None:
        return "^"
    return "^(" if len(text) <= 20 and _EXPONENT_TERM.fullmatch(text) is not None else ""


_VARIABLE = re.compile(r"(?:^|[^\w.])[a-zA-Z]\Z|[)\]]\Z")
_POWER = re.compile(r"[-−+]?(?:\d{1,3}|[a-zA-Z])")


def is_code_block(node: Any) -> bool:
    """A code listing written without ``<pre>``: Doxygen's ``<div class="fragment">``, a
    ``<div class="line">`` per line (read as ``<pre>`` is: its lines, the ``code`` role);
    Pygments' ``<table class="highlighttable">`` and gtk-doc's ``<table
    class="listing_frame">``, their line numbers in one cell and the code in the next (read
    as the code's ``<pre>``: GLib's 62 listings were rows "1 2 3 … 10 | // Notice that …",
    new-user review 2026-12-05); Scribble's tables of code lines (:mod:`._html_scribble`)."""
    classes = class_names(node)
    return (node.tag == "div" and "fragment" in classes) or is_code_table(node) or (
        node.tag == "table" and not classes.isdisjoint(("highlighttable", "listing_frame")))


#: A line-numbered listing's cell of code (``is_code_block``): Pygments', gtk-doc's.
LISTING_CODE = "td.code pre, td.listing_code pre"


def is_hidden_code(node: Any) -> bool:
    """What a code block holds and is no code: mdBook's "boring" lines
    (``#![allow(unused)]``, ``fn main() {`` around an example), hidden by its stylesheet, and
    Pygments' line numbers (``<span class="linenos">``, a table's ``linenos`` cell): BIND's
    manual stored "24ns1 IN A 192.168.254.2" (new-user review, 2026-12-05)."""
    return bool(class_names(node) & _NOT_CODE)


_NOT_CODE = frozenset(("boring", "linenos", "lineno", "linenodiv", "ln"))  # "ln": docutils


_VERSION_CLASSES = frozenset(("versionadded", "versionchanged", "deprecated",
                              "deprecated-removed", "versionremoved"))
_NOTICE_CLASS = re.compile(r"copyright|legalnotice|licen[cs]e", re.I)
_BLOCK_ROLES = {"li": "list_item", "dt": "term", "table": "table"}


def block_role(tag: str, node: Any) -> str | None:
    """The role of a block element's text (:data:`loaders.base.ROLES`), if it has one: list
    items, terms (an option, a Sphinx or RDoc signature), tables, version notes, notices."""
    classes = (node.attributes.get("class") or "").lower()
    if classes:
        if set(classes.split()) & _VERSION_CLASSES:
            return "version_note"
        if _NOTICE_CLASS.search(classes) or is_byline(node):
            return "notice"
        if tag == "div" and "method-heading" in classes.split():
            # RDoc's signature of a method ("slice!(start, length) → new_array or nil"):
            # a term, as Sphinx's <dt> is, not prose to quote (Ruby's review, 2026-12-05).
            return "term"
    if tag == "p" and _is_term_line(node):
        return "term"
    if (tag in ("p", "div") and (_is_bold_title(node) or _is_caption_line(node)
                                 or _box_title(node))) or is_image_caption(tag, node):
        return "heading"
    if tag == "table" and (node.css_first(_CELL_HEADING) is not None or layout_table(node)):
        return None  # a layout table (is_layout_cell)
    return _BLOCK_ROLES.get(tag)


def is_section(node: Any) -> bool:
    """An element that is a section of the text, its heading and all it says: an
    ``<article>``, Haddock's declaration, Sphinx's ``div.section``, DocBook's ``div.sect1``
    … and ``div.refsect1`` … (gtk-doc's: a function's "Since: 2.12" follows its
    "Parameters" and "Returns" subsections, and was filed under "Returns": GLib's review,
    2026-12-05), Erlang's types of a function (its description follows them). Not every
    ``<section>``: rustdoc's holds an impl's header, and the impl's members follow it."""
    if node.tag == "article":
        return True
    if node.tag != "div":
        return False
    classes = class_names(node)
    if not _SECTION_CLASSES.isdisjoint(classes) or is_declaration(node):
        return True
    # Names a site may give a layout block too ("hero" sections): a section of the text
    # when it is named (Sphinx's <div class="section" id="install">) and opens with its
    # heading (DocBook's, after its title page).
    if _COMMON_SECTION_CLASSES.isdisjoint(classes):
        return False
    first = node.child
    while first is not None and (first.tag in ("-text", "-comment", "a") or (
            first.tag == "span" and not (first.text(deep=True) or "").strip())):
        first = first.next  # blanks, comments, Sphinx's empty targets
    if first is not None and first.tag == "div" and "titlepage" in class_names(first):
        return True
    return bool(node.attributes.get("id")) and first is not None and first.tag in HEADINGS


_SECTION_CLASSES = frozenset(("sect1", "sect2", "sect3", "sect4", "sect5", "refsect1",
                              "refsect2", "refsect3", "refsection", "simplesect",
                              "fun-types"))
_COMMON_SECTION_CLASSES = frozenset(("section", "chapter", "appendix", "preface"))


def _is_term_line(node: Any) -> bool:
    """A paragraph that is only a definition's term (``<p><span class="term">Banner</span>
    </p>``: DocBook's variable list set as a table writes its terms so)."""
    kids = list(node.iter(include_text=False))
    return (len(kids) == 1 and "term" in class_names(kids[0])
            and (node.text(deep=True) or "").strip() == (kids[0].text(deep=True) or "").strip())


_CELL_HEADING = ", ".join(f"{cell} {h}" for cell in ("td", "th") for h in HEADINGS)


def _is_caption_line(node: Any) -> bool:
    """A paragraph that is nothing but a caption (mdBook's ``<p><span class="caption">
    Listing 1-2: …</span></p>`` under each example, Sphinx's ``<div
    class="code-block-caption">`` over a listing, "page.txt"): it names a listing, answers
    nothing. (As prose, Jinja's captions ran on through their listings: "page.txt {% block
    body required %} issue.txt", review 2026-12-05.)"""
    if not class_names(node).isdisjoint(_CAPTION_CLASSES):
        return True
    found = False
    child = node.child
    while child is not None:
        if child.tag == "-text":
            if (child.text_content or "").strip():
                return False
        elif child.tag != "-comment":
            if found or "caption" not in class_names(child):
                return False
            found = True
        child = child.next
    return found


_TITLE_END = re.compile(r"[.!?:;,]\s*\Z")
_TITLE_WORDS = 12


def _box_title(node: Any) -> bool:
    """DocBook XSL's title of an example, a figure, a table, a procedure or a sidebar
    (``<div class="example"><p class="title"><b>Example 4.1. A capture filter for telnet
    that captures traffic to and from a particular host</b></p>``, ``<div class="sidebar">…
    <p class="title"><b>What are checksums for?</b>``): its title however long, or worded
    as a question. Past twelve words it was prose, and the answer to "a capture filter for
    telnet" quoted the title instead of the filter (Wireshark's guide, review 2026-12-06)."""
    if node.tag != "p" or "title" not in class_names(node) or \
            len(node.text(deep=True) or "") > _BOX_TITLE_CHARS:
        return False
    kids = [k for k in node.iter(include_text=True)
            if k.tag != "-comment" and (k.tag != "-text" or (k.text_content or "").strip())]
    if len(kids) != 1 or kids[0].tag not in ("b", "strong"):
        return False
    box = node.parent
    for _ in range(4):  # the title's <div class="titlepage"><div><div> in a sidebar
        if box is None or box.tag != "div":
            return False
        if not class_names(box).isdisjoint(_TITLED_BOXES):
            return True
        box = box.parent
    return False


_TITLED_BOXES = frozenset(("example", "figure", "table", "procedure", "sidebar", "equation",
                           "informalexample"))
_BOX_TITLE_CHARS = 200


def element_sibling(node: Any, way: str) -> Any:
    """The element before or after ``node`` (``way``: "prev" or "next"), past comments and
    blank text; ``node`` itself stands for text that is not blank. Its siblings only are
    looked at: a ``<div>`` or ``<dd>`` of thousands of paragraphs asks it of each."""
    sibling = getattr(node, way)
    while sibling is not None and (sibling.tag == "-comment" or (
            sibling.tag == "-text" and not (sibling.text_content or "").strip())):
        sibling = getattr(sibling, way)
    return node if sibling is not None and sibling.tag == "-text" else sibling


def _is_bold_title(node: Any) -> bool:
    """A paragraph that is nothing but one bold phrase (``<p><b>Maximum Number Of Tables
    In A Join</b></p>``): a heading written without a heading element, which names what
    follows and answers nothing. A bold sentence (one ending in a full stop) is prose,
    unless it is numbered like an FAQ's entries; an FAQ's question may be longer (up to 30
    words: numbered and ending in "?", or labelled "Q." however it ends), and its bold may
    come in pieces when one of them is an anchor linking to itself (Graphviz's ``<A name=Q2
    HREF=#Q2><B>Q2</A>. Where …?</B>``). After the phrase may come an argument
    synopsis (``<div class="keyword"><b>hard-stop-after</b> <span>&lt;time&gt;</span>``,
    each of HAProxy's 1,300 keywords): text with ``<``, ``[``, ``{`` or ``|``, not
    words ("<b>Warning</b> do not …" is prose). The whole of a definition's description is
    its value, not a heading (Celery's "revoke" entry, ``<dd><p><strong>celery -A proj
    control revoke &lt;task_id&gt;</strong></p></dd>``, headed a section: review,
    2026-12-05), and so is the whole of a list item (Sphinx's theming page lists a theme's
    options as ``<li><p><strong>linkcolor</strong></p></li>``: five one-word sections, new-user
    review 2026-12-06). A synopsis right under its "Synopsis" heading is its text
    (sphinx-build's manual page headed a section with it, under which nothing stood)."""
    parent = node.parent
    before = element_sibling(node, "prev")
    if parent is not None and parent.tag in ("dd", "li") and before is None \
            and element_sibling(node, "next") is None:
        return False
    bold: list[str] = []  # the phrase, in bold pieces: a link's may be one (an FAQ's)
    after: list[str] = []
    child = node.child
    while child is not None:
        text = (child.text_content or "") if child.tag == "-text" else ""
        if child.tag == "-comment" or (child.tag == "-text" and not text.strip()):
            pass
        elif (child.tag in ("b", "strong") or _bold_link(child)) and not after:
            bold.append(child.text(deep=True) or "")
        elif bold and child.tag in ("-text", "span", "code", "i", "em", "var"):
            after.append(text if child.tag == "-text" else child.text(deep=True) or "")
        elif child.tag != "a" or (child.text(deep=True) or "").strip():
            return False
        child = child.next
    text = " ".join("".join(bold).split())
    if len(bold) > 1 and _NUMBERED.match(text) is None:
        return False  # bold words apart ("<b>kdig</b> <b>-h</b>": a synopsis), not a title
    synopsis = " ".join(after).strip()
    if synopsis and _SYNOPSIS.search(synopsis) and before is not None and before is not node \
            and before.tag in HEADINGS \
            and _SYNOPSIS_HEADING.match((before.text(deep=True) or "").strip()):
        return False  # a command's synopsis under "Synopsis": its text, not a heading
    # A block its generator names a keyword's (haproxy-dconv's ``div.keyword``) heads its
    # entry however long its synopsis ("stick-table type {ip | integer | string [len
    # <length>] | …} size <size> [expire <expire>] …", "acl <aclname> <criterion> …
    # <value> ..."): 25 such entries were filed under the one before (review, 2026-12-05).
    # A synopsis ending in a dash is a parameter's, its description after it (Sphinx's
    # "<strong>newline_sequence</strong> (<em>te.Literal</em><em>[</em>…) – " of each
    # parameter with a subscripted type: five sections of Jinja's API, review 2026-12-05).
    if synopsis and not is_keyword(node) and (
            _SYNOPSIS.search(synopsis) is None or len(synopsis.split()) > _TITLE_WORDS
            or _TITLE_END.search(synopsis) or _LEAD_DASH.search(synopsis)):
        return False
    # An FAQ's question, numbered ("Q2. Where can I discuss Graphviz?", "3. How …?"), may be
    # longer: Graphviz's 48 were quoted back as answers (new-user review, 2026-12-07).
    words, numbered = len(text.split()), _NUMBERED.match(text) is not None
    if words <= _TITLE_WORDS:
        return bool(text) and (_TITLE_END.search(text) is None or numbered)
    return words <= _QUESTION_WORDS and ((text.endswith("?") and numbered)
                                         or _ASKED.match(text) is not None)


def _bold_link(node: Any) -> bool:
    """An anchor whose text is all bold, linking nowhere but to itself (``<a name=Q2
    href=#Q2><b>Q2</b></a>``): not a contents line's link to a chapter (HAProxy's ``<a
    href="#1"><b>Quick reminder about HTTP</b></a>``)."""
    if node.tag != "a":
        return False
    name = node.attributes.get("name") or node.attributes.get("id")
    href = node.attributes.get("href")
    if not name or (href is not None and href != f"#{name}"):
        return False
    shown = (node.text(deep=True) or "").strip()
    return bool(shown) and shown == "".join(
        (b.text(deep=True) or "").strip() for b in node.css("b, strong"))


def is_keyword(node: Any) -> bool:
    """A block its generator names a keyword's entry (haproxy-dconv's ``div.keyword``)."""
    return "keyword" in class_names(node)


_SYNOPSIS = re.compile(r"[<\[{|]")
_SYNOPSIS_HEADING = re.compile(r"(?i)(?:synopsis|usage)\b")
_LEAD_DASH = re.compile(r"\s[-–—]\s*\Z")

# "Table 21.1.", "Example 8.3.", "Figure A.1." (not "Example usage", which heads a section)
_CAPTION = re.compile(r"(?:Table|Example|Figure|Listing|Procedure|Equation)\s+(?:\d|[A-Z]\.)")


def is_caption(node: Any, text: str) -> bool:
    """A bold block that titles a table, an example or a figure (DocBook's ``<p
    class="title"><strong>Table 21.1. Methods</strong>``), not the text after it: a
    caption, never a section."""
    classes = class_names(node)
    return (not classes.isdisjoint(("title", "caption", *_CAPTION_CLASSES))
            or _CAPTION.match(text) is not None)


# A listing's caption (Sphinx), a docutils topic's title ("It supports" over a list).
_CAPTION_CLASSES = frozenset(("code-block-caption", "topic-title"))


# A numbered entry's title, such as an FAQ's "(18) Case-insensitive matching … does not
# work.": a heading even when it is written as a sentence.
# An FAQ's question by its label, however it ends ("Q. When I have a red edge it shows up as
# a solid red in PNG and GIF formats, but has a black border when rendered to JPEG.").
_FAQ_LABEL = r"Q\s?\d{0,3}[a-z]?[.:)]\s"
_ASKED = re.compile(_FAQ_LABEL)
_NUMBERED = re.compile(rf"\(?\d{{1,3}}[a-z]?[.)]\s|{_FAQ_LABEL}")
_QUESTION_WORDS = 30


def another_form(heading: Any) -> bool:
    """Whether a heading below the page's sections (``<h3>`` and down) comes right after
    one of its own tag, no element or text between: another form of the same entry —
    Erlang's ``seq(From, To)`` over ``seq(From, To, Incr)``, Qt's overloads, ImageMagick's
    "-set key value" over "+set key" — which one description follows (``Out.add_heading``)."""
    before = element_sibling(heading, "prev")
    return heading.tag not in ("h1", "h2") and before is not None and before is not heading \
        and before.tag == heading.tag


def element_id(node: Any) -> str | None:
    """The name a link can point at: the element's id, or an ``<a>``'s ``name``."""
    ident = node.attributes.get("id") or (node.attributes.get("name") if node.tag == "a" else None)
    return str(ident) if ident else None


def ahead_of_term(term: Any) -> list[Any]:
    """The elements of a ``<dt>`` that come before its name's first visible word, past a
    bracketed tag: SWI-Prolog writes ``<dt><span class="pred-tag">[det]</span><a
    id="dicts_slice/3">…``, the tag drawn at the right, and the id pointed at the tag's
    end, where the predicate above's anchor still ruled (review, 2026-12-07). Their ids
    name the term. A second name's id (``rdf_current_ns/1, <a id=…>rdf_register_ns/2``)
    stays where its name is."""
    out: list[Any] = []
    said = ""
    for node in term.traverse(include_text=True):
        if node.mem_id == term.mem_id:
            continue
        if node.tag == "-text":
            said += node.text_content or ""
            if said.strip() and not _TAG.fullmatch(said.strip()):
                break
        elif node.tag not in ("script", "style", "template"):
            out.append(node)
    return out


_TAG = re.compile(r"\[[^\]\n]{1,20}\]")  # "[det]", "[semidet]", "[ISO]"
