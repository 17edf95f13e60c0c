"""What of an HTML page is page chrome, not content: boilerplate, navigation bars,
permalink marks (:mod:`citewise.knowledge.loaders.html` leaves them out).

Apart from the text assembly because these are guesses about names and shapes — class
names of DocBook XSL, Texinfo and Sphinx, the words of a Prev/Up/Home/Next bar — that
grow with every generator met, while the assembly's rules do not.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.knowledge.loaders._html_blocks import class_names
from citewise.knowledge.loaders._html_contents import introduced
from citewise.knowledge.loaders._html_generators import (
    is_haddock_chrome,
    is_mediawiki_chrome,
    is_rdoc_chrome,
    is_rustdoc_chrome,
    is_switch_default,
)
from citewise.knowledge.loaders._html_scribble import is_scribble_chrome
from citewise.knowledge.loaders._javadoc import is_javadoc_chrome

__all__ = ["ARROWS", "NAV_WORDS", "is_banner", "is_boilerplate", "is_empty_category",
           "is_footnote", "is_navigation", "is_tab_panel", "letters_of", "tab_label",
           "text_sidebar"]

# Sphinx's classic and basic themes name their sidebar (logo, search, site contents)
# "sphinxsidebar": borg's manual began every page with its logo's "Borg 1.2.4".
# LilyPond's manuals frame their contents as "tocframe": "<< Back to Documentation Index"
# and the manual's title were text on every page; LibreOffice's help closes each page with
# "relatedtopics", links to other pages that matched searches as bare lists of function
# names under the page's last section (reviews, 2026-12-06).
_BOILERPLATE = re.compile(
    r"(?:^|[\s_-])(?:nav|navbar|navigationbar|topbar|menu|sidebar|sphinxsidebar|tocframe|relatedtopics|footer|cookie|cookies|banner|advert|"
    r"ads|share|social|breadcrumbs?|newsletter|popup|skip-link|nosearch|tagline|titlearea)(?:$|[\s_-])",
    re.IGNORECASE,
)
_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b", re.I)
# Navigation bars: the class names of DocBook XSL and Texinfo 7, the link relations and
# words of a Prev/Up/Home/Next bar, and what else such a bar holds (labels, separators).
_BAR_TAGS = frozenset(("div", "table", "p", "ul", "ol", "span", "center"))
# docnav: Publican's; navigation: gtk-doc's header ("Top | Description" and its icons)
_NAV_CLASSES = frozenset(("navheader", "navfooter", "nav-panel", "docnav", "navigation"))
_NAV_RELS = frozenset(
    ("prev", "previous", "next", "up", "home", "start", "first", "last", "contents", "index",
     "top", "parent")
)
NAV_WORDS = frozenset(
    ("prev", "previous", "next", "up", "home", "top", "contents", "index", "back", "forward",
     "first", "last")
)
# …and a sentence made of them: "Go to the next section or return to the index." closes
# every page of Doxygen's manual (review, 2026-12-06).
_NAV_RESIDUE = re.compile(
    r"(?i)\b(?:go|return|back)\s+to\b|"
    r"(?:\b(?:next|prev|previous|up|home|top|contents|index|back|forward)\b\s*:?)|"
    r"\b(?:the|section|chapter|page|or)\b|[\s|\[\](){},;:.·•«»<>←→↑\-]+"
)


def is_tab_panel(node: Any) -> bool:
    """A tab's panel (``role="tabpanel"``: sphinx-tabs, Bootstrap, jQuery UI): hidden, by
    its attribute or its style, until its tab is clicked, and content all the same —
    Flask's manual sets an environment variable in Bash, Fish, CMD and PowerShell tabs, and
    only Bash's was read (new-user review, 2026-12-05)."""
    return (node.attributes.get("role") or "").lower() == "tabpanel"


def tab_label(node: Any) -> str | None:
    """A tab panel's label, the text of the tab its ``aria-labelledby`` names, found in the
    panel's tab set ("PowerShell"); None for anything else."""
    ident = (node.attributes.get("aria-labelledby") or "").split()
    if not is_tab_panel(node) or not ident or '"' in ident[0] or "\\" in ident[0]:
        return None
    scope = node.parent
    for _ in range(3):  # the tab list beside the panels, or beside their container
        if scope is None:
            break
        tab = scope.css_first(f'[id="{ident[0]}"]')
        if tab is not None:
            return " ".join((tab.text(deep=True) or "").split())[:_TAB_LABEL] or None
        scope = scope.parent
    return None


_TAB_LABEL = 60


def is_boilerplate(node: Any, guess: bool) -> bool:
    """Hidden elements and ARIA landmarks of page chrome; with ``guess``, also elements whose
    class/id names them as chrome (words that inside the main content describe content)."""
    attrs = node.attributes
    hidden = "hidden" in attrs or attrs.get("aria-hidden") == "true"  # bare ``hidden``: None
    # … or by its style: SQLite's search-only headings (jQuery UI hides a tab panel so).
    if (hidden or _HIDDEN_STYLE.search(attrs.get("style") or "")) and not is_tab_panel(node) \
            and not is_switch_default(node):
        return True
    # ... and buttons: MkDocs' front page links its guides as ``<a class="btn"
    # role="button">``, which read as a line "Getting Started User Guide".
    if (attrs.get("role") or "").lower() in {"navigation", "banner", "contentinfo", "search",
                                            "button"}:
        return True
    # Doxygen's tooltips (a symbol's signature and summary, shown on hover by its
    # stylesheet) after every code fragment: another page's text inside this one's; and
    # DocBook XSL's "[D]" link to an image's long description (aptitude's manual, nine
    # of them a paragraph "[D]" of its own: review, 2026-12-05). And Sphinx's toctree, the
    # titles of other pages and their sections as a list of links: Ghostscript's toc.html
    # (1,460 lines of them) came second for "How to Install Ghostscript on MS Windows",
    # and a guide's index stood for its chapters' words (review, 2026-12-08).
    if not {"ttc", "longdesc-link", "toctree-wrapper"}.isdisjoint(
            (attrs.get("class") or "").split()):
        return True
    if is_javadoc_chrome(node) or is_rustdoc_chrome(node) or is_haddock_chrome(node) \
            or is_rdoc_chrome(node) or is_scribble_chrome(node):
        return True
    if is_mediawiki_chrome(node):
        return True
    if not guess:
        return False
    ident = attrs.get("id") or ""
    named = _BOILERPLATE.search(attrs.get("class") or "") is not None or (
        _BOILERPLATE.search(ident) is not None and not _titled_id(node, ident))
    return named and node.css_first("main, article") is None and not text_sidebar(node) \
        and not (node.parent is not None and text_sidebar(node.parent))  # its title


def _titled_id(node: Any, ident: str) -> bool:
    """Whether the element's id is made of its own title's words: Sphinx's section
    "s-using-cookie-based-sessions" over "Using cookie-based sessions", a member's
    "…SessionBase.set_test_cookie" over "set_test_cookie()". Such an id names the text, not
    chrome (Django's review, 2026-12-05: two sections of its sessions page and four method
    names were dropped as cookie banners)."""
    title = node if node.tag in _TITLES else node.css_first(_TITLE_QUERY)
    if title is None:
        return False
    named = set(_ID_WORDS.findall((title.text(deep=True) or "")[:200].lower()))
    return len(named & set(_ID_WORDS.findall(ident.lower()))) >= 2


_TITLES = frozenset(("h1", "h2", "h3", "h4", "h5", "h6", "dt"))
_TITLE_QUERY = "h1, h2, h3, h4, h5, h6, dt"
_ID_WORDS = re.compile(r"[^\W_]{2,}")


def text_sidebar(node: Any) -> bool:
    """A box of the text, not a site's sidebar: DocBook's ``<sidebar>`` (the Debian
    Administrator's Handbook's "VOCABULARY", "SECURITY", "TIP" boxes: 192 paragraphs of 14
    pages, 2026-12-04), which DocBook XSL writes as ``<div class="sidebar">`` with a title
    page or Publican's ``div.para`` paragraphs, and rST's ``.. sidebar::`` and ``..
    topic::``, which docutils writes as ``<aside class="sidebar">`` / ``<aside
    class="topic">`` (``<div>`` before 0.18) with a ``<p class="sidebar-title">`` /
    ``"topic-title"`` (SQLAlchemy's "Lazy Connecting" and 14 more boxes, and Celery's
    "It supports" with its list of features, were lost: new-user reviews, 2026-12-05). A
    site's link list has none of these; a table of contents (``topic contents``) is one."""
    classes = (node.attributes.get("class") or "").split()
    if "sidebar" in classes:
        return node.css_first("div.titlepage, div.para, p.sidebar-title") is not None
    return "topic" in classes and "contents" not in classes and \
        node.css_first("p.topic-title") is not None


# An <aside> is left out as a sidebar, except the notes a page's text refers to: docutils
# (Sphinx) writes footnotes and citations as <aside class="footnote">, and their markers
# ("… in some circumstances [1].") stay in the text.
_NOTE_CLASSES = frozenset(("footnote", "footnote-list", "footnotes", "citation",
                           "citation-list", "endnote", "endnotes", "footnote-definition"))
_NOTE_ROLES = frozenset(("doc-footnote", "doc-endnote", "doc-endnotes"))


def is_footnote(node: Any) -> bool:
    """A footnote, a citation or a list of them (kept where other asides are not)."""
    classes = class_names(node)
    return bool(classes & _NOTE_CLASSES) or (
        (node.attributes.get("role") or "").lower() in _NOTE_ROLES)


def is_navigation(node: Any) -> bool:
    """A generated manual's navigation bar, wherever it sits (these names and shapes do
    not describe content even inside ``<main>``): DocBook's ``navheader``/``navfooter``,
    Publican's ``docnav``, Texinfo's ``nav-panel``, or a block whose only text is
    Prev/Up/Home/Next-style links with their labels and separators (Texinfo 6's ``<div
    class="header">``, a bare table of such links). Never an element holding the page's
    main content."""
    if node.tag not in _BAR_TAGS:
        return False
    classes = class_names(node)
    named = bool(classes & _NAV_CLASSES) or (bool(classes & _FRAME_CLASSES)
                                             and _links_only(node))
    if not named and not _is_link_bar(node) and not (_is_trail(node) and not introduced(node)):
        return False
    return node.css_first("main, article") is None


# A page's frame, as Docutils' HTML writer names it: "<div class="header">" holding "Docutils
# | Overview | About | Users | Reference | Developers" opened every page's text (review,
# 2026-12-07). Only when it holds links and separators alone.
_FRAME_CLASSES = frozenset(("header", "footer"))


def _links_only(node: Any) -> bool:
    """Two links or more to other pages, and nothing beside them but separators — not a
    heading with its permalink, nor a list of names ("Alice Smith, Bob Jones")."""
    links = node.css("a")
    if len(links) < 2 or node.css_first("h1, h2, h3, h4, h5, h6") is not None or all(
            (a.attributes.get("href") or "#").startswith("#") for a in links):
        return False
    return not re.sub(r"[\s|·•/\[\]\-–—]+", "", _beside_links(
        node.text(deep=True, separator=" ") or "", links))


def _beside_links(text: str, links: list[Any]) -> str:
    """``text`` (a block's) with each of its ``links``' words taken out once."""
    for link in links:
        text = text.replace(link.text(deep=True, separator=" ") or "", " ", 1)
    return text


def letters_of(words: str) -> str:
    """A link's words as its letters only: "<-previous" is "previous"."""
    return re.sub(r"[^a-z]", "", words.lower())


_TRAIL_SEPARATORS = re.compile(r"[\s>›»/|:]+")


def _is_trail(node: Any) -> bool:
    """A breadcrumb trail ("Apache > HTTP Server > Documentation > Modules") or a language
    switcher ("Available Languages: en | fr | ja", its links ``hreflang``): links and
    separators only, read on every page of a manual and answering nothing."""
    links = node.css("a")
    if len(links) < 2 or len(links) > 20:
        return False
    text = node.text(deep=True, separator=" ") or ""
    if len(text) > 400:
        return False
    text = _beside_links(text, links)
    rest = _TRAIL_SEPARATORS.sub("", text)
    if not rest and re.search(r"[>›»]", text):
        return True  # a trail: nothing but links and arrows
    if not rest and all((a.attributes.get("href") or "").startswith("#") for a in links) \
            and node.css_first("h1, h2, h3, h4, h5, h6") is None:
        # The page's own parts, "Typedefs | Functions" (Doxygen's summary); not a heading
        # with its permalink in a block of its own (the code review, 2026-12-07).
        return True
    languages = sum(1 for a in links if a.attributes.get("hreflang"))
    return languages >= len(links) - 1 and re.sub(r"(?i)\W|languages?|available", "", rest) == ""


def _is_link_bar(node: Any) -> bool:
    links = node.css("a")
    if not links or len(links) > 12 or not all(_is_nav_link(a) or _is_labelled(a)
                                               for a in links):
        return False
    text = node.text(deep=True, separator=" ") or ""
    if len(text) > 600:
        return False
    for link in links:  # what is left once the links are out: labels, separators only
        text = text.replace(link.text(deep=True, separator=" ") or "", " ", 1)
        title = (link.attributes.get("title") or "").strip()
        if title:
            text = text.replace(title, " ")
    return not _NAV_RESIDUE.sub("", text)


def _is_nav_link(link: Any) -> bool:
    attrs = link.attributes
    rels = set((attrs.get("rel") or "").lower().split())
    if rels & _NAV_RELS or (attrs.get("accesskey") or "").lower() in {"p", "n", "u", "h"}:
        return True
    words = link.text(deep=True) or " ".join(
        img.attributes.get("alt") or "" for img in link.css("img")
    )
    letters = letters_of(words)
    if letters in NAV_WORDS:
        # A name in code is no "Last" or "Next" button: Jinja's filters ``first()`` and
        # ``last()`` were dropped from its table of filters (review, 2026-12-05).
        return link.css_first("code, tt, kbd, samp") is None
    # Texinfo 6 (texi2any's ``<table class="header">``): "<<", "<", ">", ">>", "?", each
    # with a title saying where it goes ("Next section in reading order").
    if not letters and words.strip() and ARROWS.fullmatch(words.strip()):
        return True
    return bool(_NAV_TITLE.search(attrs.get("title") or ""))


def _is_labelled(link: Any) -> bool:
    """A link right after a "Next:", "Up:" or "Previous:" label: Texinfo's bar at a page's
    foot names where each link goes by its title alone, without the ``rel`` and
    ``accesskey`` of the bar at its head ("Next: Catching Errors, Up: Handling Errors
    [Contents][Index]" closed all 11 pages of Octave's manual a review read, 2026-12-05)."""
    before = link.prev
    return before is not None and before.tag == "-text" and \
        _NAV_LABEL.search(before.text_content or "") is not None


_NAV_LABEL = re.compile(r"(?i)\b(?:next|prev|previous|up|forward|back)\s*:\s*\Z")
ARROWS = re.compile(r"[<>?«»‹›←→↑↓\s]+")
_NAV_TITLE = re.compile(
    r"(?i)^\s*(?:(?:next|previous|prev|up|beginning of this|cover|table of)\b.*"
    r"\b(?:section|chapter|node|page|document|contents)\b|index|about \(help\))\s*$")


def is_banner(node: Any) -> bool:
    """A site's name as a heading above the page, one link to the site ("<h1
    id="header"><a href="http://www.exim.org">Exim Internet Mailer</a></h1>"): Exim's
    manual opened every section path of every chapter with it (review, 2026-12-05). Only
    outside a page's main content, named so exactly (not "section-header", "card-header"),
    and linking elsewhere (a heading that links to itself is a section's)."""
    if node.tag not in ("h1", "h2", "div", "p"):
        return False
    links = node.css("a")
    text = (node.text(deep=True) or "").strip()
    href = (links[0].attributes.get("href") or "#") if len(links) == 1 else "#"
    if href.startswith("#") or (links[0].text(deep=True) or "").strip() != text or not text:
        return False
    names = f"{node.attributes.get('id') or ''} {node.attributes.get('class') or ''}"
    # … or an <h1> that links to the site's front page, however named: Django's
    # "Django 3.2.25 documentation" over every page (review, 2026-12-05).
    return bool(_BANNER_NAMES.intersection(names.lower().split())) or (
        node.tag == "h1" and "//" not in href
        and _FRONT_PAGE.search(href.partition("?")[0]) is not None)


_FRONT_PAGE = re.compile(r"(?:^|/)(?:index\.html?)?\Z")
_BANNER_NAMES = frozenset(("header", "banner", "masthead", "logo", "site-title", "site-name",
                           "sitename", "sitetitle"))


def is_empty_category(node: Any) -> bool:
    """Texinfo's category of a definition left blank (``@deftypefn {} {}``): a ``<span
    class="category">`` holding ": " alone, which opened every one of Octave's function
    signatures (": bsxfun (f, A, B)") and the answers naming them. A category with a name
    ("Function: ") says something and stays."""
    classes = (node.attributes.get("class") or "").split()
    return bool({"category", "category-def"} & set(classes)) and \
        not (node.text(deep=True) or "").strip(" :\xa0\t\n")
