"""Links that are no words of the text: a heading's self-link ("¶"), a summary's "More…"
jump, a page turn ("<-previous", "next->"), a footnote's way back ("↩").

Why apart from the page's chrome (:mod:`._html_chrome`): these sit inside the text, in
headings and sentences, and are dropped one link at a time; the chrome is whole blocks
around the text.
"""

from __future__ import annotations

import re
from typing import Any

from citewise.knowledge.loaders._html_blocks import class_names
from citewise.knowledge.loaders._html_chrome import ARROWS, NAV_WORDS, letters_of

__all__ = ["is_jump_link", "is_page_turn", "is_permalink"]


def is_page_turn(node: Any) -> bool:
    """A link to the previous or next page on its own, outside any bar ("<a
    class="previous_page">&lt;-previous</a><a class="next_page">next-&gt;</a>" opened and
    closed each chapter of Exim's manual as the text "<-previousnext->"): said so by its
    class, by an arrow or by standing in no paragraph, and in any case in a page turn's
    words, never a sentence's link ("See the <a class="next-page">next chapter</a> …")."""
    words = node.text(deep=True) or ""
    letters = letters_of(words)
    if not (letters in NAV_WORDS or letters == "tableofcontents" or
            (not letters and ARROWS.fullmatch(words.strip() or "x"))):
        return False
    if node.css_first("code, tt, kbd, samp") is not None:
        return False  # an operator named in code: Ruby's "push or <<" (RDoc, 2026-12-05)
    if letters and node.parent is not None and node.parent.tag == "body" and all(
            side is None or side.tag != "-text" or not (side.text_content or "").strip()
            for side in (node.prev, node.next)):
        # Outside any paragraph and any sentence, a link in a page turn's words is one:
        # LinuxDoc-Tools writes "<A HREF="bird-4.html">Next</A> <A …>Previous</A> <A
        # …>Contents</A>" straight into the body, a chunk of its own on each page (BIRD's
        # review); "see the <a>next</a> chapter" in a page without <p> is a sentence's.
        return True
    before = node.prev
    if before is not None and before.tag == "-text" and _VALUE_LABEL.search(
            before.text_content or "") and not _TURN_LABEL.search(before.text_content or ""):
        return False  # a label's value: RDoc's "Alias for: <<" (Asciidoctor's API, 2026-12-05)
    return any(_PAGE_TURN.fullmatch(c) for c in class_names(node)) or _ARROW_MARK.search(words) is not None


_VALUE_LABEL = re.compile(r"\w:\s*\Z")
_TURN_LABEL = re.compile(r"(?i)\b(?:next|prev|previous|up|forward|back)\s*:\s*\Z")
_PAGE_TURN = re.compile(r"(?:prev(?:ious)?|next|toc|up|home)[-_](?:page|link)")
_ARROW_MARK = re.compile(r"<-|->|<<|>>|[«»←→]")


def is_permalink(node: Any) -> bool:
    """A heading's or definition's self-link (Sphinx's ``headerlink``, Texinfo's
    ``copiable-anchor``, GitHub's ``anchor``) or Sphinx's ``[source]`` link to its code (90
    in Requests' API page): a mark that would end up in section paths and quotes."""
    if _PERMALINK_CLASS.search(node.attributes.get("class") or "") or node.css_first(
            ".viewcode-link, .viewcode-back") is not None:
        return True
    return (node.text(deep=True) or "").strip() in _PERMALINK_MARKS


_PERMALINK_CLASS = re.compile(r"(?:^|\s)(?:headerlink|copiable-anchor|anchor-link|permalink|"
                              r"heading-anchor)(?:$|\s)")
# ◆: Doxygen's; ↩: a footnote's link back to its marker (rustdoc's, pandoc's "↩︎")
_PERMALINK_MARKS = frozenset(("¶", "§", "#", "🔗", "⚓", "◆", "↩", "↩\ufe0e"))


def is_jump_link(node: Any) -> bool:
    """A link from a summary to the text further down ("… More..." after each of
    Doxygen's brief descriptions): a pointer that reads as a word of the sentence."""
    text = (node.text(deep=True) or "").strip().lower()
    return text in ("more...", "more…", "more") and (
        node.attributes.get("href") or "").partition("#")[2] != ""
