"""A page's own table of contents, in whatever form its generator writes it.

Apart from :mod:`._html_chrome` (navigation bars, banners, sidebars) because a contents
list is told by what its links point at — the page's own parts — more than by its markup:
DocBook's and Texinfo's classes name theirs, but Apache's pages, Texinfo's node menus,
ImageMagick's jump bars and man2html's "Index" are lists (or a paragraph, or a definition
list) of links into the page. Each repeats every section title in one block that matches
any search for them and answers none. A list the sentence before it introduces is the
text's, though each item links into the page (:func:`introduced`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from citewise.knowledge.loaders._html_blocks import class_names, element_sibling

__all__ = ["introduced", "is_contents", "is_index"]


# A generated manual's table of contents (DocBook XSL's ``toc`` and lists of tables,
# figures, examples): every section title again, in one block that matches any search for
# them and answers none.
# Texinfo 7 (makeinfo) wraps its own in ``<div class="Contents_element" id="SEC_Contents">``
# (and the short one in ``SEC_Shortcontents``); its ``<div class="contents">`` alone is no
# sign, Doxygen's page itself is one.
# section-toc, mini-toc: Texinfo 6.8's and 7's list of a node's sections, however short
# (diffutils' "Options to cmp", one item, was text: review, 2026-12-05).
_CONTENTS_CLASSES = frozenset(("toc", "section-toc", "mini-toc", "list-of-tables",
                               "list-of-figures", "list-of-examples", "list-of-procedures",
                               "contents_element", "sec_contents", "shortcontents_element",
                               "sec_shortcontents"))
_CONTENTS_HEADINGS = frozenset(("contents-heading", "shortcontents-heading"))


def is_contents(node: Any) -> bool:
    """A table of contents of the kind above (never an element holding main content)."""
    classes = class_names(node)
    if node.tag in ("h2", "h3") and classes & _CONTENTS_HEADINGS:
        return True  # Texinfo 6's "Table of Contents" over its contents, not inside them
    if node.tag == "p":
        return _jump_bar(node)
    if node.tag not in ("div", "dl", "ul", "ol", "nav"):
        return False
    classes.add((node.attributes.get("id") or "").lower())  # Apache's <ul id="toc">
    # docutils' "contents" directive: <div class="contents topic">, or <nav class="contents"
    # role="doc-toc"> since 0.18 (Doxygen's <div class="contents"> is the page itself).
    # Every section title of CMake's pages came first, as text (CMake review, 2026-12-04).
    local = {"contents", "topic"} <= classes or (node.tag == "nav" and "contents" in classes) \
        or (node.attributes.get("role") or "").lower() == "doc-toc"
    named = bool(classes & _CONTENTS_CLASSES) or local or (
        _in_page_links(node) and not introduced(node))
    return named and node.css_first("main, article") is None


# Texinfo's printed indexes: texi2any 6's ``<table class="index-cp">`` (``-fn``, ``-vr``,
# ``-tp``, ``-ky``, ``-pg`` and a manual's own), 7's ``<table class="cp-entries-printindex">``
# and its "Jump to:" bars (``cp-letters-header-printindex``; 6's is a bare table of
# ``a.summary-letter`` links). SBCL's one-page manual stored four, 789 rows of "rotate-byte:
# | | sb-rotate-byte" that searches found (new-user review, 2026-12-07).
_INDEX_CLASS = re.compile(r"index-[a-z]{2,}|[a-z]{2,}-entries-printindex")
_JUMP_LETTER = frozenset(("summary-letter", "summary-letter-printindex"))


def is_index(node: Any) -> bool:
    """A generated index (Texinfo's, above): every indexed term again with where it is, a
    list of links that answers nothing, as a table of contents is."""
    if node.tag != "table":
        return False
    if any(_INDEX_CLASS.fullmatch(c) for c in class_names(node)):
        # and Texinfo's: its entries link to their "#index-…" anchors ("index-table" is
        # any site's class name)
        return node.css_first('a[href*="#index-"]') is not None
    links = node.css("a")
    return bool(links) and all(class_names(a) & _JUMP_LETTER for a in links)


_CONTENTS_LEAD = re.compile(r"(?i)\b(?:topics?|contents|this (?:document|page|guide|"
                            r"chapter|section|manual)|sections|read more about)\b")


def introduced(node: Any) -> bool:
    """A list the sentence before it introduces ("WeeChat supports the following IRCv3
    extensions:"): content, though each item is a link to its part of the page — the
    sixteen extensions were dropped as the page's contents (WeeChat's review, 2026-12-06).
    The sentence is the block before the list or before the box around it; one that
    speaks of the page's topics ("Topics covered in this document:", Postfix's READMEs)
    introduces its contents."""
    for _ in range(3):
        before = element_sibling(node, "prev")
        if before is not None and before is not node:
            said = (before.text(deep=True) or "").rstrip()
            return said.endswith(":") and _CONTENTS_LEAD.search(said) is None
        node = node.parent
        if node is None or node.tag not in ("div", "section"):
            return False
    return False


def _in_page_links(node: Any, least: int = 3) -> bool:
    """A list of three or more items, each nothing but a link into the page itself
    (``<li><a href="#expiresactive">ExpiresActive</a></li>``) and maybe a list of such
    links (a chapter's, of its sections: Texinfo's contents): the page's own contents.
    man2html writes its "Index" as a definition list of such terms, empty descriptions
    between them (Privoxy's manual page, review 2026-12-07)."""
    if node.tag == "dl":
        return _in_page_terms(node, least)
    if node.tag not in ("ul", "ol"):
        return False
    items = [c for c in node.iter() if c.tag == "li"]
    if len(items) < least:
        return False
    for item in items:
        children = list(item.iter(include_text=True))
        if not all(_in_page_links(c, 1) for c in children if c.tag in ("ul", "ol")):
            return False
        if not _one_link_in(c for c in children if c.tag not in ("ul", "ol")):
            return False
    return True


def _one_link_in(nodes: Iterable[Any]) -> bool:
    """Whether ``nodes`` (an item's or a term's) show nothing but one link into the page."""
    own = list(nodes)
    links = [a for c in own if c.tag != "-text" for a in ([c] if c.tag == "a" else c.css("a"))]
    if len(links) != 1 or not (links[0].attributes.get("href") or "").startswith("#"):
        return False
    text = "".join((c.text(deep=True) or "") for c in own)
    return text.strip() == (links[0].text(deep=True) or "").strip()


def _in_page_terms(node: Any, least: int) -> bool:
    """A ``<dl>`` of ``least`` or more terms, each one link into the page, its descriptions
    empty or lists of such terms."""
    terms = 0
    for child in node.iter(include_text=True):
        if child.tag == "dt":
            if not _one_link_in(child.iter(include_text=True)):
                return False
            terms += 1
        elif child.tag == "dd":
            inner = list(child.iter(include_text=True))
            if any(c.tag != "dl" and (c.text(deep=True) or "").strip() for c in inner) or \
                    not all(_in_page_terms(c, 1) for c in inner if c.tag == "dl"):
                return False
        elif child.tag == "dl":
            if not _in_page_terms(child, 1):
                return False
        elif child.tag != "-comment" and (child.text(deep=True) or "").strip():
            return False
    return terms >= least


def _jump_bar(node: Any) -> bool:
    """A paragraph of three or more links into one page's parts and nothing between them
    but separators: ImageMagick's "The Anatomy of the Command-line • Input Filename •
    Command-line Options • Output Filename" under each page's title, and 3,900 characters
    of "-adaptive-blur • … • -write-mask" that won searches for the options (review,
    2026-12-06). Its links name the page they point into (``convert.html#options``)."""
    pages: set[str] = set()
    for child in node.iter(include_text=True):
        if child.tag == "a":
            href = child.attributes.get("href") or ""
            if "#" not in href:
                return False
            pages.add(href.split("#", 1)[0])
        elif child.tag != "-text" or _SEPARATORS.sub("", child.text_content or ""):
            return False
    return len(pages) == 1 and sum(1 for c in node.iter() if c.tag == "a") >= 3


_SEPARATORS = re.compile(r"[\s•·|/\-–—\[\]]+")
