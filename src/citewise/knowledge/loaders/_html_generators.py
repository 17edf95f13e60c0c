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
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_badge", "is_mediawiki_chrome", "is_rustdoc_chrome"]

# A MediaWiki page's skin around its text (every wiki export, cppreference's offline copy
# among them): the tagline "From cppreference.com", the breadcrumb under the title ("< c |
# string | byte", with left-to-right marks), "[edit]" links, "Jump to navigation", the
# "Retrieved from "http://…&oldid=85666"" print footer and the category links; and
# cppreference's "Run this code" button over each example (new-user review, 2026-12-04).
_MEDIAWIKI_IDS = frozenset(("siteSub", "contentSub", "contentSub2", "jump-to-nav", "catlinks",
                            "mw-navigation", "mw-head", "mw-panel"))
_MEDIAWIKI_CLASSES = frozenset(("printfooter", "catlinks", "mw-editsection", "mw-jump",
                                "mw-jump-link", "t-example-live-link"))


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


def is_badge(node: Any) -> bool:
    """A stability badge after an item's name ("Deprecated", "Experimental"): a word of its
    own, not the name's last letters."""
    return node.tag == "span" and "stab" in (node.attributes.get("class") or "").split()
