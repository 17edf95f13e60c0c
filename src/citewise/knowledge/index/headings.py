"""What a chunk's *heading* is, for the lexical indexes' heading field (issue #27).

A question that names a document — its title, a product and version, a module — should
rank that document first. In a chunk's body the name may occur once or not at all, while
a look-alike page repeats the words; the document's title and the chunk's section path
say what the chunk is *about*. So both lexical backends index them as a field of their
own beside the body text (tantivy: the ``heading`` field; PostgreSQL: ``heading_tsv``),
and a query's terms match it too, with the BM25 score there multiplied by a boost.

The heading of a chunk is its document's title followed by its section path (``A > B >
C``, as the loaders write it), with the path's parts equal to the title left out (an HTML
page's ``<h1>`` usually repeats its ``<title>``: counting it twice would only inflate the
title's term frequency) and permalink marks (``¶`` …, which HTML headings may carry)
replaced by spaces. The PostgreSQL column is computed by SQL that mirrors
:func:`heading_text` (``lexical_postgres_heading``); tests check the two agree.

:data:`HEADING_BOOST` was chosen by measurement (``bench/README.md``, "Title and section
fields (issue #27)"; raw numbers in ``bench/results/heading-boost.json``).
"""

from __future__ import annotations

__all__ = ["HEADING_BOOST", "PERMALINK_MARKS", "SECTION_SEPARATOR", "heading_text", "innermost"]

#: The factor on a query term's BM25 score in the heading field (0 turns the field off).
#: 0.1: the largest boost measured that costs ``bench/relevance.py`` nothing; it breaks
#: near-ties (lexical document@1 on the manuals' tune questions 81 → 86 %), larger ones
#: cost relevance and did not route hybrid search or the answers better.
HEADING_BOOST = 0.1
#: Marks that headings carry as self-links; never indexed.
PERMALINK_MARKS = "¶§🔗⚓"
#: How the loaders join a section path's parts.
SECTION_SEPARATOR = " > "


def innermost(section: str | None) -> str:
    """A section path's innermost part, the entry a passage is under ("OPTIONS > --partial"
    is "--partial"); "" for none."""
    return (section or "").rsplit(SECTION_SEPARATOR, 1)[-1]

_DROP = str.maketrans(dict.fromkeys(PERMALINK_MARKS, " "))


def heading_text(title: str | None, section: str | None) -> str:
    """The text of a chunk's heading field: title, then the section path's other parts."""
    title = " ".join((title or "").translate(_DROP).split())
    parts = [title] if title else []
    for part in (section or "").split(SECTION_SEPARATOR):
        part = " ".join(part.translate(_DROP).split())
        if part and part != title:
            parts.append(part)
    return " ".join(parts)
