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
"""

from __future__ import annotations

from typing import Any

from citewise.knowledge.loaders._html_generators import class_names

__all__ = ["CAPTION_WORDS", "is_image_caption"]

#: A caption of at most this many words is a label.
CAPTION_WORDS = 12


def is_image_caption(tag: str, node: Any) -> bool:
    """Whether ``node`` is a short caption of a picture: a ``<figcaption>``, or DocBook's
    ``div.caption`` in a media object."""
    docbook = tag == "div" and "caption" in class_names(node) and node.parent is not None \
        and "mediaobject" in class_names(node.parent)
    return (tag == "figcaption" or docbook) and \
        len((node.text(deep=True) or "").split()) <= CAPTION_WORDS
