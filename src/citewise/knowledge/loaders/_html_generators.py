"""The chrome of particular page generators, named by their own class names and ids: a
MediaWiki skin, rustdoc's pages. (Javadoc's, which also moves headings, is :mod:`._javadoc`.)

Why apart from the general chrome (:mod:`._html_chrome`): these names mean chrome only on
the generator's pages, and nothing here applies to a page whose markup does not use them.

rustdoc (Rust's standard library reference, any crate's ``cargo doc``): its stylesheet
hides or moves parts of its pages that read as text without it, all found by a new-user
review of Debian's ``rust-doc`` (2026-12-05):

- a return type's "Notable traits" tooltip, shown on hover (``span.notable-traits``):
  ``pub const fn new() -> Vec<T, Global>ⓘNotable traits for Vec<u8, A>impl<A: Allocator>
  Write for Vec<u8, A>`` was a member's heading;
- the version and "source" link at a member's right margin (``span.rightside``; a
  page's, ``span.out-of-band``), written
  before its heading: "1.57.0 · source" ended the previous member's text (1,034 times);
- each example's "Run" link (``a.test-arrow``), shown on hover; "Expand description"
  (``summary.hideme``), hidden while the description is open; the "[−]" button that folds
  every description (``#toggle-all-docs``);
- a stability badge (``span.stab``) set apart by its margin: "park_timeout_msDeprecated".

Haddock (GHC's library reference, Debian's ``ghc-doc``; its review the same day):

- each instance's folded details (``details`` with an ``i:…`` id: "Instance details
  Defined in GHC.IORef Methods (==) :: …"), 74 % of Prelude's text, left out, with the
  synopsis that repeats every signature (``details#syn``), the "Expand" labels shown only
  without JavaScript (``summary.hide-when-js-enabled``) and each signature's "Source" link;
- a declaration (``div.top`` over its ``p.src`` signature) is a section of its own: the
  "Instances" and "Examples" headings inside one were the section of every declaration
  after it (:func:`is_declaration`);
- MathJax's TeX as it reads: ``\\(\\mathcal{O}(n^2)\\)`` is "O(n^2)" (:func:`math_text`).

RDoc (Ruby's Darkfish pages: Asciidoctor's API reference, Debian's ``asciidoctor-doc``;
its review, 2026-12-05): each method's source listing, folded until its heading is clicked
(``div.method-source-code``: 42 % of the text of 13 pages, its code quoted for a prose
question), and the "click to toggle source" hint shown on hover (``span.method-click-
advice``), which ended 203 method signatures. Sphinx's ``imgmath`` writes a formula as an
image whose ``alt`` is its text: "forming the expression (2 + 2) + 16 = 20" (Celery's
manual, the same day), not "forming the expression".
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "class_names",
    "drawn_before",
    "heading_depth",
    "is_declaration",
    "is_haddock_chrome",
    "is_mediawiki_chrome",
    "is_rdoc_chrome",
    "is_rustdoc_chrome",
    "is_switch_default",
    "math_text",
    "search_heading",
]

# A MediaWiki page's skin around its text (every wiki export, cppreference's offline copy
# among them): the tagline "From cppreference.com", the breadcrumb under the title ("< c |
# string | byte", with left-to-right marks), "[edit]" links, "Jump to navigation", the
# "Retrieved from "http://…&oldid=85666"" print footer and the category links; and
# cppreference's "Run this code" button over each example (new-user review, 2026-12-04).
_MEDIAWIKI_IDS = frozenset(("siteSub", "contentSub", "contentSub2", "jump-to-nav", "catlinks",
                            "mw-navigation", "mw-head", "mw-panel"))
_MEDIAWIKI_CLASSES = frozenset(("printfooter", "catlinks", "mw-editsection", "mw-jump",
                                "mw-jump-link", "t-example-live-link"))


def class_names(node: Any) -> set[str]:
    """An element's classes, lower-cased (a fresh set: the caller may add to it)."""
    return set((node.attributes.get("class") or "").lower().split())


def is_mediawiki_chrome(node: Any) -> bool:
    """A MediaWiki skin's part around the text, or cppreference's "Run this code"."""
    attrs = node.attributes
    return attrs.get("id") in _MEDIAWIKI_IDS or not _MEDIAWIKI_CLASSES.isdisjoint(
        (attrs.get("class") or "").split())


_RUSTDOC_CLASSES = frozenset(("notable-traits", "rightside", "out-of-band", "test-arrow"))
_RUSTDOC_IDS = frozenset(("toggle-all-docs",))


def is_rustdoc_chrome(node: Any) -> bool:
    """A part of a rustdoc page its stylesheet hides, moves away or shows on hover only."""
    attrs = node.attributes
    classes = (attrs.get("class") or "").split()
    return (not _RUSTDOC_CLASSES.isdisjoint(classes) or attrs.get("id") in _RUSTDOC_IDS
            or (node.tag == "summary" and "hideme" in classes))


def drawn_before(node: Any) -> str | None:
    """What a page's stylesheet draws before ``node``, as text (None: nothing): a stability
    badge after an item's name ("Deprecated", "Experimental") is a word of its own, not the
    name's last letters; numpydoc's type after a parameter's name has the ":" that Sphinx's
    ``.classifier:before`` draws — pandas' "sep : str, default ‘,’" was stored "sepstr,
    default ‘,’", 173 names in nine pages (review, 2026-12-07). Not where docutils writes
    the colon itself (a ``classifier-delimiter`` before it)."""
    if node.tag != "span":
        return None
    classes = (node.attributes.get("class") or "").split()
    if "stab" in classes:
        return " "
    if "classifier" in classes:
        before = node.prev
        while before is not None and before.tag == "-text" and not (before.text_content or "").strip():
            before = before.prev
        delimited = before is not None and "classifier-delimiter" in (
            before.attributes.get("class") or "").split()
        return None if delimited else " : "
    return None


def is_haddock_chrome(node: Any) -> bool:
    """What Haddock's page shows folded, repeats, or shows only without JavaScript."""
    attrs = node.attributes
    if node.tag == "details":  # an instance's ("i:id:…", a class's "i:ic:…"); the synopsis
        ident = attrs.get("id") or ""
        return (ident.startswith("i:") and "open" not in attrs) or ident == "syn"
    if node.tag == "summary":
        return "hide-when-js-enabled" in (attrs.get("class") or "").split()
    if node.tag == "a":
        return ("link" in (attrs.get("class") or "").split()
                and (node.text(deep=True) or "").strip() == "Source")
    return False


_RDOC_CLASSES = frozenset(("method-source-code", "method-click-advice"))


def is_rdoc_chrome(node: Any) -> bool:
    """A method's folded source listing on an RDoc page, or its hover hint."""
    return not _RDOC_CLASSES.isdisjoint((node.attributes.get("class") or "").split())


def is_declaration(node: Any) -> bool:
    """Haddock's declaration: a ``div.top`` whose first element is its signature."""
    if node.tag != "div" or "top" not in (node.attributes.get("class") or "").split():
        return False
    first = node.child
    while first is not None and first.tag == "-text":
        first = first.next
    return first is not None and first.tag == "p" and "src" in (
        first.attributes.get("class") or "").split()


def math_text(node: Any) -> str | None:
    """A MathJax span's TeX as it reads ("\\(\\mathcal{O}(n \\log n)\\)" is "O(n log
    n)"), a formula's image as its ``alt`` text (Sphinx's imgmath), or None for any other
    element."""
    classes = (node.attributes.get("class") or "").split()
    if node.tag == "img" and "math" in classes:
        return " ".join((node.attributes.get("alt") or "").split())
    if node.tag == "img" and not _DOXYGEN_FORMULA.isdisjoint(classes):
        # Doxygen's formulas, their TeX in ``alt``: "The distance between (x_1,y_1) and
        # (x_2,y_2) is …" read "The distance between and is ." and every "LaTeX" of its
        # manual (its logo, "{\LaTeX}") was a hole (new-user review, 2026-12-06).
        return _tex_reads(node.attributes.get("alt") or "")
    if node.tag != "span" or "mathjax" not in classes:
        return None
    return _tex_reads(node.text(deep=True) or "")


def _tex_reads(tex: str) -> str:
    """TeX as it reads: delimiters, font and box commands and a group's outer braces off,
    a command's backslash off ("\\sqrt" is "sqrt")."""
    tex = _TEX_DELIMITERS.sub("", tex)
    tex = _TEX_FONT.sub(r"\1", tex)
    tex = _TEX_ESCAPE.sub(r"\1", tex)  # "LOOKUP\_CACHE\_SIZE" is LOOKUP_CACHE_SIZE
    tex = " ".join(_TEX_COMMAND.sub(r"\1", tex).split())
    while tex.startswith("{") and tex.endswith("}") and "}" not in tex[1:-1]:
        tex = tex[1:-1].strip()
    return tex


_TEX_DELIMITERS = re.compile(r"\\[()\[\]]|(?<!\\)\$")
_TEX_FONT = re.compile(
    r"\\(?:mathcal|mathrm|mathit|mathbf|text|operatorname|mbox)\{([^{}]*)\}")
_TEX_ESCAPE = re.compile(r"\\([_%&#$])")
_DOXYGEN_FORMULA = frozenset(("formulaInl", "formulaDsp"))
_TEX_COMMAND = re.compile(r"\\([A-Za-z]+)")


def heading_depth(node: Any) -> int:
    """How far below its tag's level a heading is (above it, when negative): Texinfo 6.8
    writes a subsubsection as an ``<h4>`` like the subsection above it, told apart only by
    its class, and "2.2.3.2 Showing C Function Headings" sat beside "2.2.3 Showing Which
    Sections Differences Are in" rather than under it (diffutils' manual); DocBook XSL
    titles an article with the ``<h2>`` its first sections have, and FreedomBox's pages
    read "Backups" beside "Backups", the title a chunk of its own that won searches for
    its word (reviews, 2026-12-05)."""
    classes = class_names(node)
    if node.tag == "h4" and not _TEXINFO_DEEPER.isdisjoint(classes):
        return 1
    if node.tag == "h2" and "title" in classes:
        page = node.parent
        while page is not None and page.tag == "div" and "titlepage" not in class_names(page):
            page = page.parent  # <div class="titlepage"><div><div><h2 class="title">
        if page is None or page.tag != "div":
            return 0  # no DocBook title page: a blog's <article><h2 class="title">
        box = page.parent
        if box is not None and "article" in class_names(box) and not any(
                _DOCBOOK_BOOKS & class_names(up) for up in _ancestors(box)):
            return -1  # an article of its own, not one of a book's
        if box is not None and not _DOCBOOK_CHAPTERS.isdisjoint(class_names(box)) and not any(
                _DOCBOOK_BOOKS & class_names(up) for up in _ancestors(box)):
            # A chapter's page, its title over its first sections, all <h2>: "1. Files"
            # beside "Chapter 6. Getting Images out of GIMP", not under it (GIMP's review).
            # In a whole book's page the chapter stays below the book's <h1>.
            return -1
    return 0


_DOCBOOK_CHAPTERS = frozenset(("chapter", "appendix", "preface"))


_DOCBOOK_BOOKS = frozenset(("book", "part", "set"))


def _ancestors(node: Any) -> list[Any]:
    out = []
    node = node.parent
    while node is not None and node.tag not in ("body", "html"):
        out.append(node)
        node = node.parent
    return out


_TEXINFO_DEEPER = frozenset(("subsubsection", "unnumberedsubsubsec", "appendixsubsubsec",
                             "subsubheading"))


def search_heading(node: Any) -> str:
    """The name of an entry that SQLite's pages head with a heading only their site search
    reads — ``<h _id=pragma_page_size style="display:none"> PRAGMA page_size</h><hr>``
    over each of pragma.html's 74 pragmas — or "" for any other element. Hidden, it is no
    text; it names the entry's section, which read "List Of PRAGMAs > Determination Of When
    To Run Analyze" (a bold line in PRAGMA optimize) for every pragma after that one."""
    if node.tag != "h" or "_id" not in node.attributes:
        return ""
    return " ".join((node.text(deep=True) or "").split())


def is_switch_default(node: Any) -> bool:
    """The word a reader sees of a LibreOffice help switch: a word that differs by system
    or application is written as hidden spans in a ``<span class="switchinline">``
    (``<span hidden="true" id="MAC…">Command</span><span hidden="true"
    id="default…">Ctrl</span>``), and the page's script shows the system's one, else the
    one whose id starts with "default". Every hidden span was left out: "press +Enter",
    "go to and check if the option …" on 223 of 781 Calc and Writer pages (review,
    2026-12-06). The default one is the page's text; the others are left out."""
    parent = node.parent
    return node.tag == "span" and (node.attributes.get("id") or "").startswith("default") \
        and parent is not None and "switchinline" in class_names(parent)
