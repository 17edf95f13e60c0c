"""Split an answer into claims and find its citation markers.

A *claim* is one sentence (or one markdown list item / heading line) of the model's text.
A *marker group* is one or more markers written together — ``[1]``, ``[1][3]``, ``[1, 3]``;
each number is a one-based document number of the run's evidence ledger. A group belongs
to the sentence it stands in, or — when the model wrote it after the full stop
(``"Refunds take 14 days. [1]"``) — to the sentence before it.

Offsets are code points into the text the model wrote, so :func:`rebuild` can put the
answer back together with some markers or sentences left out and everything else intact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from citewise.grounding.claim_bounds import ITEM, claim_spans
from citewise.grounding.declines import is_decline
from citewise.text import content_terms

__all__ = [
    "BLOCK_LEAD",
    "MARKER",
    "MARKER_GROUP",
    "QUESTION",
    "DraftClaim",
    "MarkerGroup",
    "mask_json",
    "plain_text",
    "rebuild",
    "says_no_answer",
    "segments",
    "split_claims",
    "unfenced",
]

_ONE = r"\[\s*\d{1,4}(?:\s*[,;]\s*\d{1,4})*\s*\]"
# Not a markdown link (`[1](url)`) nor a link reference definition (`[1]: url`).
MARKER_GROUP = re.compile(rf"[ \t]*{_ONE}(?:[ \t]*{_ONE})*(?![(:])")
#: A single marker, as it is written back into the text after verification.
MARKER = re.compile(r"\s?\[(\d{1,4})\]")
_NUM = re.compile(r"\d{1,4}")
#: The bullet, number or heading hashes a list item or heading line starts with.
BLOCK_LEAD = re.compile(rf"[ \t]*(?:{ITEM}|#{{1,6}})[ \t]+")
# A line's markdown lead: heading hashes, a list item's bullet or number, a blockquote mark.
_MD = re.compile(rf"(^#{{1,6}}\s+|^\s*(?:{ITEM}|\d+[.)])\s+|^\s*>\s?)", re.MULTILINE)
# Strong emphasis and code spans, only where they pair up as markdown would read them:
# "**Default:**", "`16384`". A lone or word-inner "**" is text, and a quote keeps it: the
# zsh manual's "‘-3**2’ evaluates as ‘9’" lost its "**", and the claim's "-32" then
# failed the number check of a quote that was verbatim (new-user review, 2026-12-04).
_STRONG = re.compile(r"(?<![\w*])(\*\*|__)(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# Quotations the answer attributes to a source. Shorter ones are names or scare quotes.
_QUOTE = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”|«([^»\n]+)»|„([^“”\n]+)[“”]")
MIN_QUOTE_WORDS = 3
# "I could not find …in the documents": saying the sources lack an answer is not a claim
# about the world and needs no citation (the extractive model's NO_ANSWER is one).
_ABSTAIN = re.compile(
    r"\b(?:could\s*n[o']t|can\s*n[o']t|cannot|unable\s+to|did\s*n[o']t|do\s*n[o']t|"
    r"does\s*n[o']t|no)\b.{0,80}\b(?:knowledge\s+base|documents?|sources?|passages?|"
    r"context|search\s+results?|retrieved)\b",
    re.IGNORECASE,
)



def says_no_answer(text: str) -> bool:
    """True when ``text`` says the sources hold no answer ("I could not find … in the
    documents", or citewise's own decline in any language): an abstention, which
    ``assemble`` reports as ``no_answer_in_sources``."""
    return is_decline(text) or _ABSTAIN.search(text) is not None


# Courtesy addressed to the reader ("I hope this helps!") asserts nothing about the sources.
_CHATTER = re.compile(
    r"^\W*(?:i\s+hope\s+(?:this|that)\s+helps|let\s+me\s+know|feel\s+free|"
    r"(?:i\s+am|i'm)\s+happy\s+to\s+help|please\s+let\s+me\s+know|is\s+there\s+anything)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class MarkerGroup:
    """Markers written together; ``start``/``end`` include the blanks before them."""

    start: int
    end: int
    numbers: tuple[int, ...]


@dataclass(slots=True)
class DraftClaim:
    """One sentence of the draft, with the markers that belong to it."""

    start: int
    end: int
    raw: str
    text: str
    markers: list[MarkerGroup] = field(default_factory=list)
    quotes: list[str] = field(default_factory=list)
    index: int | None = None  # claim number; None when the sentence is not a claim

    @property
    def is_claim(self) -> bool:
        return self.index is not None

    @property
    def numbers(self) -> list[int]:
        """Marker numbers in order of appearance, repeats removed."""
        out: list[int] = []
        for group in self.markers:
            out.extend(n for n in group.numbers if n not in out)
        return out


def plain_text(text: str) -> str:
    """``text`` without citation markers and markdown emphasis. A line's markdown lead
    goes before its emphasis and code spans: a code span or a bold span that opens a line is
    text, whatever it starts with ("`+ or - (jump)`: …", a term that would read as a list
    item); a step's number in bold ("**1.** Install …", a model's numbered steps) is a lead
    still."""
    text = _MD.sub("", _BOLD_NUMBER.sub("", MARKER_GROUP.sub("", text)))
    return _CODE.sub(r"\2", _STRONG.sub(r"\2", text)).strip()


# A step's number in bold at a line's start ("**1.** Install …"): a lead, not text. Only a
# number: "**-** means stdin" says "-" (second code review, 2026-12-07).
_BOLD_NUMBER = re.compile(r"(?m)^[ \t]*(\*\*|__)\d{1,3}[.)]\1[ \t]+")


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?')


def mask_json(text: str) -> str:
    """``text`` with everything but JSON string *values* blanked (same length).

    A structured answer's claims are its string values: keys, numbers and punctuation are
    not statements and must not count as evidence words. A blanked stretch starts with a
    blank line (when it has room) so that two values never merge into one sentence.
    """
    out: list[str] = []
    pos = 0

    def blank(n: int) -> None:
        out.append("\n\n" + " " * (n - 2) if n >= 2 else " " * n)

    for m in _JSON_STRING.finditer(text):
        if m.group(1):  # a key: blanked with the rest
            continue
        a, b = m.start() + 1, m.end() - 1
        blank(a - pos)
        out.append(text[a:b])
        pos = b
    blank(len(text) - pos)
    return "".join(out)


def split_claims(text: str) -> list[DraftClaim]:
    """Every sentence of ``text`` in order; checkable ones get consecutive ``index`` values."""
    groups = [
        MarkerGroup(m.start(), m.end(), tuple(int(n) for n in _NUM.findall(m.group(0))))
        for m in MARKER_GROUP.finditer(text)
    ]
    marked = [(g.start, g.end) for g in groups]
    spans = claim_spans(text, marked)
    if not spans:
        return []
    claims = [DraftClaim(start=a, end=b, raw="", text="") for a, b in spans]
    for g in groups:
        owner = _owner(claims, g)
        owner.markers.append(g)
        owner.start = min(owner.start, g.start)
        owner.end = max(owner.end, g.end)
    number = 0
    for c in claims:
        c.start = _skip_blanks(text, c.start, c.end)
        c.raw = text[c.start : c.end]
        c.text = plain_text(c.raw)
        c.quotes = _quotes(c.text)
        if _is_claim(c):
            c.index = number
            number += 1
    return claims


def rebuild(
    text: str, claims: Sequence[DraftClaim], keep: Sequence[bool],
    markers: dict[MarkerGroup, tuple[int, ...]],
) -> tuple[str, list[tuple[int, int] | None]]:
    """``text`` with the dropped sentences and markers left out.

    ``keep[i]`` says whether ``claims[i]`` stays; ``markers`` maps each group to the
    numbers that survive verification (written back as ``[1][3]``; none → the group goes).
    Returns the new text and each claim's span in it (None for a dropped claim). Between
    two kept sentences the widest original gap is used, so paragraphs and list items stay
    apart after a sentence between them is removed.
    """
    out: list[str] = []
    pos = 0
    spans: list[tuple[int, int] | None] = []
    gap = ""
    prev_end = 0
    for claim, kept in zip(claims, keep, strict=True):
        between = text[prev_end : claim.start]
        gap = between if _wider(between, gap) else gap
        prev_end = claim.end
        if not kept:
            spans.append(None)
            continue
        piece = _rewrite_markers(text, claim, markers)
        if out:
            out.append(gap or " ")
            pos += len(gap or " ")
        else:
            lead = text[: claim.start] if not claims or claim is claims[0] else ""
            out.append(lead)
            pos += len(lead)
        spans.append((pos, pos + len(piece)))
        out.append(piece)
        pos += len(piece)
        gap = ""
    tail = text[prev_end:] if all(keep) else ""
    return "".join(out) + tail, spans


def segments(text: str) -> list[tuple[int, int]]:
    """The spans ``split_claims`` would cut ``text`` into: sentences, list items, headings,
    each without its list bullet, number or heading hashes (a claim's text has none).

    For quoting and excerpting a *source* the same way an answer is split: its own
    bracketed footnotes (``"tall.[2] It was"``) are read as marker groups, so they end a
    sentence where a full stop stands before them and are never inside a span's edges.
    """
    out: list[tuple[int, int]] = []
    marked = [m.span() for m in MARKER_GROUP.finditer(text)]
    for a, b in claim_spans(text, marked):
        lead = BLOCK_LEAD.match(text, a, b)
        body = lead.end() if lead else a
        while body < b and text[body].isspace():
            body += 1
        out.append((body, b) if body < b else (a, b))
    return out


def unfenced(text: str, a: int, b: int) -> tuple[int, int]:
    """The code of ``text[a:b]`` when that is a whole markdown code block (a line opening
    with ``` or ~~~ above it, a line of only backticks or tildes below), trimmed of
    blanks; else ``(a, b)``. What a source's code block is quoted as: its code, never its
    fences. One scan of each edge line, no backtracking."""
    first, last = text.find("\n", a, b), text.rfind("\n", a, b)
    if first < 0 or last <= first or not text[a:first].lstrip().startswith(_FENCE_MARKS):
        return a, b
    closing = text[last + 1 : b].strip()
    if len(closing) < 3 or not (set(closing) <= {"`"} or set(closing) <= {"~"}):
        return a, b
    start, end = first + 1, last
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else (a, b)


_FENCE_MARKS = ("```", "~~~")


# -- helpers ------------------------------------------------------------------------------


def _owner(claims: list[DraftClaim], g: MarkerGroup) -> DraftClaim:
    """The sentence a marker group cites for: the one it is in, else the one before it."""
    owner = claims[0]
    for c in claims:
        if c.start <= g.start:
            owner = c
        else:
            break
    return owner


def _skip_blanks(text: str, a: int, b: int) -> int:
    while a < b and text[a] in " \t":
        a += 1
    return a


def _quotes(claim: str) -> list[str]:
    out: list[str] = []
    for m in _QUOTE.finditer(claim):
        quote = next(g for g in m.groups() if g is not None).strip()
        if len(quote.split()) >= MIN_QUOTE_WORDS:
            out.append(quote)
    return out


#: A sentence that ends as a question (closing quotes and brackets aside).
QUESTION = re.compile(r"[?？][\"'”’)\]]*\Z")


def _is_claim(c: DraftClaim) -> bool:
    if not content_terms(c.text):
        return False  # "[1]", "—", "Sources:" … say nothing checkable
    if QUESTION.search(c.text):
        return False  # a question asserts nothing (an FAQ's heading quoted back, say)
    if c.markers:
        return True  # the model itself says this sentence rests on a source
    stripped = c.raw.lstrip()
    if stripped.startswith("#") or c.text.endswith(":"):
        return False  # a heading or a lead-in ("The policy says:")
    return not (says_no_answer(c.text) or _CHATTER.search(c.text))


def _wider(a: str, b: str) -> bool:
    return (a.count("\n"), len(a)) > (b.count("\n"), len(b))


def _rewrite_markers(
    text: str, claim: DraftClaim, markers: dict[MarkerGroup, tuple[int, ...]]
) -> str:
    out: list[str] = []
    pos = claim.start
    for g in claim.markers:
        out.append(text[pos : g.start])
        kept = markers.get(g, ())
        original = text[g.start : g.end]
        if kept == g.numbers:
            out.append(original)  # untouched: keep the model's own spelling
        elif kept:
            lead = original[: len(original) - len(original.lstrip(" \t"))]
            out.append(lead + "".join(f"[{n}]" for n in kept))
        pos = g.end
    out.append(text[pos : claim.end])
    return "".join(out)
