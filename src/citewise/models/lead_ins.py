"""What a lead-in introduces: the one line of code, or the short list or table, right after
a sentence that ends in a colon (or, for code, that the code completes), quoted after it.

Why: a lead-in ("… by running the command cargo fix:", "three default modules are loaded
automatically:") is often the sentence that matches a question best and says nothing
without what follows it; quoted alone it was the whole answer (the Rust book's review,
lighttpd's, 2026-12-05). What follows is taken only when it is short and whole in the
passage: a longer block is a passage to read, and one the passage cuts off would be
quoted in part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.grounding.claims import MARKER_GROUP, segments, unfenced
from citewise.models.sentence_structure import CODE_ROLES
from citewise.sentences import BULLET, ITEM_CHARS, LIST_ITEMS

__all__ = ["introduced_code", "introduced_items", "opens_code"]


# A line of code short enough to quote inline, after the lead-in that introduces it, and
# how many such lines it may be: "… set a password for relay, with these commands:" was
# quoted without its two (WeeChat's review, 2026-12-06).
_CODE_LINE_CHARS = 120
_CODE_LINES = 3
# A line that goes on into the next, or closes one before it: a program to read in the
# passage, not commands to quote one by one.
_GOES_ON = re.compile(r"[{(\[\\,:;=|&]\s*$|^\s*[})\]]")


def opens_code(sentence: str) -> bool:
    """Whether ``sentence`` may introduce the code after it: it ends in a colon, or in a
    word that leaves it open — a sentence the code completes ("To uninstall …, use the
    command" over ``make uninstall``, "… change the ./configure command to", Asymptote's
    manual as a PDF sets them: review, 2026-12-07); not a list item, a caption or a
    version ("… headers installed", "… in version 3": code review, 2026-12-07)."""
    if sentence.endswith(":"):
        return True
    last = sentence.rsplit(None, 1)[-1].lower() if sentence.strip() else ""
    return last in _OPEN_ENDS


# Last words that leave a sentence waiting for what follows.
_OPEN_ENDS = frozenset((
    "command", "commands", "run", "type", "enter", "use", "execute", "invoke", "call", "with",
    "as", "by", "to", "following", "like", "using", "via", "is", "are", "be", "the", "a",
    "an", "line", "lines", "option", "options"))


def introduced_code(text: str, roles: Sequence[tuple[int, int, str]], end: int) -> str:
    """The code a lead-in ending at ``end`` introduces, when it comes right after it
    (blanks between) as one to three short lines that each stand alone (commands, not a
    program), one a line: "" for prose, a longer or indented example (one to read in the
    passage) or a block the passage cuts off."""
    at = end
    while at < len(text) and text[at].isspace():
        at += 1
    spans = [(a, b) for a, b, role in roles if a == at and role in CODE_ROLES]
    if not spans:
        return ""
    b = max(b for _, b in spans)
    code = text[slice(*unfenced(text, at, b))].strip()  # markdown's fences are no code
    lines = code.split("\n")
    if (b >= len(text) or not code or "`" in code or len(lines) > _CODE_LINES
            or any(len(line) > _CODE_LINE_CHARS for line in lines)
            or MARKER_GROUP.search(code)):
        return ""  # a subscript ("argv[1]") would read as a citation marker in an answer
    if len(lines) > 1 and any(not line.strip() or line[:1].isspace() or _GOES_ON.search(line)
                              for line in lines):
        return ""  # a program, not commands
    return code


# A list short enough to quote after the lead-in that introduces it (a longer one is a
# passage to read, not an answer's lines).
_LIST_CHARS = 600


def _rows(text: str, a: int, b: int) -> tuple[str, ...]:
    """The rows of the table ``text[a:b]`` as items: two to LIST_ITEMS lines of cells, each
    short and cited alone, the table whole in the passage, its header row left out ("Code |
    Meaning" says nothing: code review, 2026-12-07); () otherwise."""
    rows = [line.strip() for line in text[a:b].strip().split("\n")]
    if len(rows) > 2 and _header(rows[0]) and not all(_header(row) for row in rows[1:]):
        rows = rows[1:]
    if b >= len(text) or not all("|" in row for row in rows) or not _quotable(rows):
        return ()
    return tuple(rows)


def _quotable(items: list[str]) -> bool:
    """Whether ``items`` are a short list an answer quotes line by line: two to LIST_ITEMS,
    none twice, each short, one sentence and free of what reads as a citation marker."""
    return (2 <= len(items) <= LIST_ITEMS and sum(map(len, items)) <= _LIST_CHARS
            and len(set(items)) == len(items)
            and all(item and len(item) <= ITEM_CHARS and not MARKER_GROUP.search(item)
                    and len(segments(item)) == 1 for item in items))


def _header(row: str) -> bool:
    """Whether every cell of ``row`` reads as a column's title."""
    return all(_HEADER_CELL.fullmatch(c.strip()) for c in row.split("|") if c.strip())


# A header row's cell: a word or three in title case, no value ("Exit status", "Meaning").
_HEADER_CELL = re.compile(r"[A-Z][a-z]+(?: [A-Za-z][a-z]*){0,2}")


def introduced_items(text: str, roles: Sequence[tuple[int, int, str]], end: int
                      ) -> tuple[str, ...]:
    """The items of the list a lead-in ending at ``end`` introduces, when the list comes
    right after it (blanks between), has two to :data:`~citewise.sentences.LIST_ITEMS`
    items of one line and one sentence each, none twice, and ends inside the passage; each
    item's text verbatim, its bullet or number left out (an item of two sentences would be
    two claims, the first uncited).
    lighttpd's "Starting with lighttpd 1.4.0 three default modules are loaded
    automatically:" was quoted without the three (new-user review, 2026-12-05).
    A short table's rows are its items too, each row's line whole: Docutils' "For on/off
    switch settings (booleans), the following values are recognized:" over "On: | "true",
    "yes", …" and "Off: | "false", "no", …" was the whole answer to which values mean off
    (review, 2026-12-07)."""
    starts = {a for a, _, role in roles if role == "list_item"}
    at = end
    while at < len(text) and text[at].isspace():
        at += 1
    table = max((b for a, b, role in roles if a == at and role == "table"), default=None)
    if table is not None:
        return _rows(text, at, table)
    items: list[str] = []
    while at < len(text):
        if items and text.startswith("\n\n", at):
            break  # a blank line after an item: the list is over
        while at < len(text) and text[at].isspace():
            at += 1
        stop = text.find("\n", at)
        stop = len(text) if stop == -1 else stop
        bullet = BULLET.match(text, at, stop)
        if bullet is None and at not in starts:
            if items:
                return ()  # an item's second line, or text run on after the list
            break
        items.append(text[bullet.end() if bullet else at:stop].strip())
        at = stop
    if at >= len(text) or not _quotable(items):
        return ()  # no list, one too long to quote, or one the passage may cut off
    return tuple(items)
