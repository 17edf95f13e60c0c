"""An image's caption: a label under a picture, context for the text around it, not an
answer to quote.

Why apart from the other titles (:mod:`._html_blocks`): a figure's caption is written in
its own box below the image (DocBook's ``<div class="mediaobject"><img …/><div
class="caption"><p>…``, HTML's ``<figcaption>``), and read as prose it was quoted as the
answer: "Default thresholds." for "what do the default threshold settings do?", beside
"fig. 1", "Option unchecked" and "The resulting image." (GIMP's manual, new-user review
2026-12-06). A short caption names what the picture shows; a long one (past
:data:`CAPTION_WORDS` words) describes it in sentences of its own ("Original image with
an alpha channel. Color to alpha with default options: …"), and stays prose.

An icon set in a line of text with no alt text at all is a hole in its sentence: "the
cursor tells you this by showing .", "by clicking on and selecting Add Tab → Fonts"
(GIMP's ``<span class="guiicon"><img src="…/clone-bad.png"/></span>``, review
2026-12-06). It reads as a text browser shows it, by its file's name: "showing [image:
clone-bad]". An empty ``alt=""`` says the image is decoration, and reads as nothing.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from citewise.knowledge.loaders._html_generators import class_names

__all__ = ["CAPTION_WORDS", "image_stem", "inline_image", "is_image_caption"]

#: A caption of at most this many words is a label.
CAPTION_WORDS = 12


def is_image_caption(tag: str, node: Any) -> bool:
    """Whether ``node`` is a short caption of a picture: a ``<figcaption>``, or DocBook's
    ``div.caption`` in a media object."""
    docbook = tag == "div" and "caption" in class_names(node) and node.parent is not None \
        and "mediaobject" in class_names(node.parent)
    return (tag == "figcaption" or docbook) and \
        len((node.text(deep=True) or "").split()) <= CAPTION_WORDS


_INLINE = frozenset(("a", "abbr", "b", "cite", "code", "em", "i", "kbd", "samp", "small",
                     "span", "strong", "sub", "sup", "tt", "u", "var"))


def inline_image(node: Any) -> str:
    """``"[image: clone-bad]"`` for an ``<img>`` with no ``alt`` attribute inside a block
    that has text of its own (an icon in a sentence, a cell's button), "" otherwise: an
    image of its own block is a picture, a linked one a logo or a button, and one with alt
    text is read by it."""
    if "alt" in node.attributes:
        return ""
    block = node.parent
    while block is not None and block.tag in _INLINE:
        if block.tag == "a":
            return ""  # a linked image is a logo or a button to somewhere (HAProxy's)
        block = block.parent
    if block is None or block.tag in ("body", "html", "figure") or \
            "mediaobject" in class_names(block) or not (block.text(deep=True) or "").strip():
        return ""  # no text around it, or a picture over its caption
    name = image_stem(node)
    return f"[image: {name}]" if name else "[image]"


def image_stem(img: Any) -> str:
    """An image's file name without its folder, query or extension ("clone-bad")."""
    return PurePosixPath((img.attributes.get("src") or "").split("?")[0]).stem
