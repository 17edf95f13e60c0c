"""Where a candidate sentence of a passage starts and ends, and what it is.

Apart from the candidates (:mod:`.sentence_candidates`), which walk a passage's sentences
keeping their context, because these judge one span alone: its role from the loader's
spans (a term glued to its description, a list item run into the next), its edges
(blanks, permalink marks, a bracket cut from its other half, citation markers) and whether
it asserts anything (a lead-in, a question or a title line does not). Every span stays a
verbatim slice of its passage: trimming only moves its edges.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import islice
from typing import Any

from citewise.grounding.claims import BLOCK_LEAD, MARKER_GROUP, QUESTION
from citewise.models.leaning import ARGUMENT_DEFAULT, STATES_DEFAULT
from citewise.sentences import item_starts

__all__ = ["asks", "asserts", "described", "hidden_in", "hidden_spans", "items_apart", "quoted",
           "role_spans", "table_end", "term_start", "trim"]

_TITLE_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’)\]]*\Z")
_EDGE = " \t\r\n¶#§"  # trimmed off a sentence's edges: blanks and permalink marks


def items_apart(text: str, roles: Sequence[tuple[int, int, str]],
                spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` cut where a list item begins inside one: items a page lists without
    bullets (HTML's ``<ul>``, cppreference's "src or dest is a null pointer" over
    "destsz is zero …") and without full stops are one sentence to the splitter, and were
    quoted as one ("… a null pointer destsz is zero or greater …"); and where a table's
    row begins: a row of cells without a full stop ran into the next ("G_KEY_FILE_NONE | No
    flags, default behaviour |" over "G_KEY_FILE_KEEP_COMMENTS | Use this flag …", GLib's
    review, 2026-12-05). A row is a line with a cell mark: a wrapped cell of a table laid
    out in text (an Info manual's) goes on over its lines; and where a line of a command's
    help begins in a code block (:func:`citewise.sentences.option_starts`). What is
    ``hidden`` is left out
    (:func:`_unhidden`)."""
    starts = sorted(item_starts(text, roles))
    if not starts:
        return _unhidden(roles, spans)
    out: list[tuple[int, int]] = []
    for a, b in spans:
        lo = bisect_right(starts, a)
        cuts = [c for c in starts[lo:bisect_left(starts, b)] if text[c - 1] == "\n"]
        for c in cuts:
            end = c - 1
            while end > a and text[end - 1].isspace():
                end -= 1
            if end > a:
                out.append((a, end))
            a = c
        out.append((a, b))
    return _unhidden(roles, out)


def hidden_spans(roles: Sequence[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """The ``hidden`` spans of ``roles``, sorted: found once per passage, not per sentence."""
    return sorted((a, b) for a, b, role in roles if role == "hidden")


def hidden_in(hidden: Sequence[tuple[int, int]], a: int, b: int) -> bool:
    """Whether one of the sorted spans ``hidden`` (:func:`hidden_spans`) lies within
    ``a``..``b`` (between two sentences)."""
    for h0, h1 in islice(hidden, bisect_left(hidden, (a, -1)), None):
        if h0 >= b:
            return False  # sorted: the rest lie past ``b``
        if h1 <= b:
            return True
    return False


def _unhidden(roles: Sequence[tuple[int, int, str]],
              spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` less what is ``hidden``, cut in two where a hidden span lies inside one:
    the lines of bare tags of a Markdown file's HTML table ("<tr>", "<td>") ran into the
    cell's text around them, and the sentence was quoted with its markup — or, starting
    hidden, was no candidate at all (Docker's run reference, review 2026-12-07)."""
    hidden = hidden_spans(roles)
    if not hidden:
        return spans
    out: list[tuple[int, int]] = []
    first = 0  # the first hidden span that may reach a span yet to come (both sorted)
    for a, b in spans:
        while first < len(hidden) and hidden[first][1] <= a:
            first += 1
        for h0, h1 in hidden[first:]:
            if h0 >= b:
                break
            if h0 > a:
                out.append((a, h0))
            a = max(a, h1)
        if a < b:
            out.append((a, b))
    return out


def role_spans(raw: Any) -> list[tuple[int, int, str]]:
    """A search result's ``roles`` (``[[start, end, role], …]``), malformed ones left out."""
    out: list[tuple[int, int, str]] = []
    for span in raw if isinstance(raw, list) else ():
        if (isinstance(span, list | tuple) and len(span) == 3 and isinstance(span[0], int)
                and isinstance(span[1], int) and isinstance(span[2], str)):
            out.append((span[0], span[1], span[2]))
    return out


def _role_at(roles: Sequence[tuple[int, int, str]], at: int) -> str | None:
    """The innermost (narrowest) role whose span holds offset ``at`` (spans are sorted by
    start; a list item and the heading that opens it start together)."""
    found: str | None = None
    width = math.inf
    for a, b, role in roles:
        if a > at:
            break
        if at < b and (b - a < width or (b - a == width and role == "heading")):
            found, width = role, b - a  # a table's header row clipped with its table: a heading
    return found


def described(roles: Sequence[tuple[int, int, str]], text: str, a: int, b: int
              ) -> tuple[str | None, int]:
    """The role of the span ``a:b`` and where what it says starts: its first character's,
    except for a term glued to its description ("-P max-procs\n    Run up to max-procs
    processes at a time; the default is 1." is one sentence to the splitter). That is the
    description, quoted with its term: the answer to "how many does it run at once?" that
    names the option."""
    role = _role_at(roles, a)
    at = a
    while role == "term":  # past the term, and a second one ("re.I\nre.IGNORECASE")
        end = max((e for s, e, r in roles if r == "term" and s <= at < e), default=at)
        while end < b and text[end].isspace():
            end += 1
        if end >= b or end == at:
            return "term", a  # a term alone, or terms only: context
        at, role = end, _role_at(roles, end)
    return role, at


def table_end(roles: Sequence[tuple[int, int, str]], at: int) -> int | None:
    """Where the table whose span holds offset ``at`` ends (None: in no table)."""
    return max((b for a, b, role in roles if a <= at < b and role == "table"), default=None)


def term_start(text: str, roles: Sequence[tuple[int, int, str]], a: int) -> int:
    """Where the sentence at ``a`` starts: at its line's start when what was read as a list
    bullet there is the first character of a term the loader marked ("+ or - (jump)" of
    Lynx's keystroke help, quoted "or - (jump)": review, 2026-12-07)."""
    line = text.rfind("\n", 0, a) + 1
    marked = line < a and BLOCK_LEAD.fullmatch(text, line, a) is not None
    return line if marked and _role_at(roles, line) == "term" else a


def quoted(text: str, a: int, b: int) -> str:
    """The passage's ``text[a:b]`` as a candidate quotes it: without citation markers
    and the edge characters a sentence does not begin or end with."""
    return MARKER_GROUP.sub("", text[a:b]).strip(_EDGE)


def trim(text: str, a: int, b: int) -> tuple[int, int]:
    """``text[a:b]`` without its edge characters, nor a bracket the sentence splitter cut
    from its other half: "(What Exim actually does … option." of a parenthesis of two
    sentences was quoted with its "(" and no ")" (Exim's review, 2026-12-05)."""
    while a < b and text[a] in _EDGE:
        a += 1
    while b > a and text[b - 1] in _EDGE:
        b -= 1
    if a < b and text[a] == "(" and ")" not in text[a:b]:
        a += 1
    elif a < b and text[b - 1] == ")" and _UNOPENED.search(text[a:b]):
        b -= 1
    while a < b and text[a] in _EDGE:
        a += 1
    while b > a and text[b - 1] in _EDGE:
        b -= 1
    return a, b


# A ")" no "(" or "[" opened, not an item's ("a)", "3)"): "[0, 1)" is an interval.
_UNOPENED = re.compile(r"\A[^(\[]*(?<!\b\w)\)\Z")


def _body(text: str, a: int, b: int) -> str:
    """``text[a:b]`` without citation markers and the edge characters it ends with."""
    return MARKER_GROUP.sub("", text[a:b]).rstrip(_EDGE)


def asks(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` is a question."""
    return QUESTION.search(_body(text, a, b)) is not None


def asserts(text: str, a: int, b: int, *, comment: bool = False) -> bool:
    """False for a lead-in ("Options:"), a question (an FAQ's heading) and a title line:
    a few words with no full stop that are no list item name a topic, they say nothing.
    A line after "#" is a markdown heading, unless it is a ``comment`` (a configuration
    file's "# If group is not specified, group is assumed to be the same as user.")."""
    body = _body(text, a, b)
    if body.endswith(":") or QUESTION.search(body):
        return False
    line = text.rfind("\n", 0, a) + 1
    lead = text[line:a]
    if lead.lstrip().startswith("#") and not comment:
        return False  # a markdown heading, however long
    listed = BLOCK_LEAD.fullmatch(lead) is not None
    return bool(_SENTENCE_END.search(body) or listed or len(body.split()) > _TITLE_WORDS
                or STATES_DEFAULT.match(body) or _ARGUMENT.fullmatch(body))


_ARGUMENT = re.compile(ARGUMENT_DEFAULT + r"[^\n]*")
