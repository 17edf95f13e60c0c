"""Sentences: where a text's sentences start and end, as chunking, claims and quotes cut them.

Apart from :mod:`citewise.text` (words and terms) because it is its own problem — the
punctuation of a dozen languages, abbreviations that end no sentence ("e.g.", "Dr."), lists
and quotes that go on past a full stop — and because every offset a citation carries was
cut here: the spans are of the text as stored, never of a rewrite of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.text import STOPWORDS

__all__ = ["BULLET", "ITEM_CHARS", "LIST_ITEMS", "SENTENCE_OPENERS", "ellipsis_dots",
           "ends_abbreviation", "item_starts", "join_abbreviations", "option_starts",
           "row_starts", "sentence_spans"]

#: A short list, as a lead-in introduces one ("… loaded automatically:" over "- mod_a"):
#: an item's bullet or number, how many items at most, an item's characters at most.
BULLET = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
LIST_ITEMS = 8
ITEM_CHARS = 160

#: Words that open sentences and are no one's name: after a capital letter and its full
#: stop ("Plan B. It worked.", "… and finally D. Thus, executing …" in Ant's manual),
#: the letter ends a sentence rather than being an initial.
SENTENCE_OPENERS = STOPWORDS | frozenset((
    "thus", "therefore", "hence", "however", "also", "otherwise", "instead", "finally",
    "note"))

# A sentence ends at . ! ? … followed by closing quotes/brackets and space, after CJK 。！？,
# or at a blank line. The match starts AT the punctuation (not with a look-behind after
# it): the regex engine can then skip ahead to candidate characters instead of trying
# the look-behind at every position (~2x faster); the cut is placed after the
# punctuation, which gives exactly the spans of the look-behind form (tests/test_text.py
# proves it against that implementation, the closing guillemet added to both).
# French closes a quotation with "»" after a space: "« Redémarrez le service. » Ensuite…";
# German opens one with it ("Gut. »Neustart« …"): a closing one has a space after it.
_GUILLEMET = r"(?:[ \u00a0\u202f]?[»›](?=\s))?"
_SENT_END = re.compile(rf"[.!?…]{_GUILLEMET}[\"'”’)\]]*\s+|[。！？]|\n\s*\n")
# The gap after punctuation that sits just before ``start`` (outside the searched range).
_GAP = re.compile(rf"{_GUILLEMET}[\"'”’)\]]*\s+")
_CLOSING_GUILLEMET = re.compile(_GUILLEMET)
_WORD = re.compile(r"\w+", re.UNICODE)


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of ``text[start:end]``, trimmed of surrounding space."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    pos = start
    if 0 < start < end and text[start - 1] in ".!?…":
        # A range that starts right after a sentence's punctuation starts in its gap.
        gap = _GAP.match(text, start, end)
        if gap is not None:
            pos = gap.end()
    inner = ellipsis_dots(text, start, end)
    for m in _SENT_END.finditer(text, pos, end):
        at = m.start()
        # A blank line ends the sentence before it; punctuation ends it after itself
        # (closing quotes and brackets go with the gap, as they always have).
        if text[at] == "." and at in inner:
            continue
        _push(text, pos, at if text[at] == "\n" else at + 1, spans)
        pos = m.end()
    _push(text, pos, end, spans)
    return spans


def ellipsis_dots(text: str, start: int, end: int) -> frozenset[int]:
    """The full stops of ``text[start:end]`` that are one of a spaced ellipsis (three dots
    or more, ". . .") but its last: LaTeX's \\ldots as a PDF's text has it is one mark (a
    cut after its first dot quoted "… to activate the debugger,." from GNU Prolog's
    manual, review 2026-12-07). No sentence ends at them. One pass over the text: a run
    of thousands of dots (a contents page's leaders) costs what its length does."""
    if text.find(". .", start, end) < 0:
        return frozenset()
    return frozenset(at for m in _ELLIPSIS.finditer(text, start, end)
                     for at in range(m.start(), m.end() - 1, 2))


_ELLIPSIS = re.compile(r"\.(?: \.){2,}")


# Abbreviations after which ``sentence_spans`` cuts although the sentence goes on. Titles,
# "e.g.", "i.e.", "vs.", German "bzw." and "vgl.", and a single capital
# initial ("J. Smith") never end a sentence in
# practice; the others often do ("…made by Acme Inc. The firm…"), so they only hold the
# sentence together when the next word is lower case or a number ("Acme Inc. is", "No. 5").
# ("I." is a pronoun ending a sentence far more often than an initial.)
_TITLES = frozenset(
    """
    dr mr mrs ms mx prof st mt rev hon gen col capt lt sgt gov sen rep vs cf e.g i.e eg ie
    bzw vgl
    """.split()  # noqa: SIM905
)
_ABBREVIATIONS = frozenset(
    """
    etc inc ltd co corp llc plc jr sr no nos fig figs vol vols ch sec art p pp ed eds approx
    est dept univ ave rd blvd jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues
    wed thu thur thurs fri sat sun min max ca al ref refs viz resp incl excl esp
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
# The word (or dotted acronym, "U.S.", "a.m.", "e.g.") that a span's final full stop ends.
_LAST_WORD = re.compile(r"(?:^|(?<=[^\w.]))((?:[^\W\d_]\.){2,}|[^\W\d_]+\.|\d+\.)\Z")


def join_abbreviations(text: str, spans: list[tuple[int, int]], *,
                       ellipses: bool = False) -> list[tuple[int, int]]:
    """``spans`` (from :func:`sentence_spans`) with the cuts made after an abbreviation
    ("Dr.", "U.S.", "e.g.", "J.") or after a number followed by a lower-case word undone,
    and those after a "!" or "?" that a lower-case word follows on the same line (code's:
    "`panic!` when", "the `?` operator") — and with ``ellipses``, after an ellipsis that
    one follows ("the numbers 0, 1, ... up to <stop>": a list left open, CMake review
    2026-12-04). Chunking leaves ellipses out, so that its boundaries stay as they were.

    A separate pass, not part of ``sentence_spans``: chunk boundaries and the evidence
    fast path depend on that function's exact spans, while claims and quotes need whole
    sentences. Spans separated by a blank line are never joined.
    """
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and (_continues(text, out[-1], a) or (ellipses and _open_list(text, out[-1], a))):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return [(a, _closed(text, b)) for a, b in out]


def _open_list(text: str, prev: tuple[int, int], start: int) -> bool:
    """``prev`` ends in an ellipsis that a lower-case word, a number or the bracket it is
    inside follows (one line: "(streams, dynamic code,. . . )." is one sentence)."""
    gap = text[prev[1]:start]
    return text.endswith(("...", "…", ". . ."), 0, prev[1]) and gap.isspace() \
        and "\n" not in gap and (text[start].islower() or text[start].isdigit()
                                 or text[start] in ")]")


def _closed(text: str, b: int) -> int:
    """The end of a whole sentence ending at ``b``: with the closing quotes and brackets
    right after its final punctuation, so that '(This is rare.)' and 'He said "Go."' are
    quoted whole, not '(This is rare.' with its ')' lost in the gap after it."""
    if b and text[b - 1] in ".!?…":
        m = _CLOSING_GUILLEMET.match(text, b)
        b = m.end() if m is not None else b
        while b < len(text) and text[b] in _CLOSERS:
            b += 1
    return b


# What follows a lone "!" or "?" of code: an option, a variable, a bracket, an operator.
_OPERAND = frozenset("-$([{!&|<>=~/\\")


def _continues(text: str, prev: tuple[int, int], start: int) -> bool:
    """Whether the sentence ``prev`` was cut short by punctuation that ends no sentence: a
    full stop after an abbreviation, or any inside a quotation."""
    a, b = prev
    gap = text[b:start]
    if gap.count("\n") > 1:
        return False
    if start < len(text) and text[start] in ")]}" and gap.isspace() and "\n" not in gap:
        return True  # no sentence starts by closing a bracket: "(…, ports, etc... ) to"
    if b - a >= 2 and text[b - 1] in ".!?" and text[b - 2] in "'\"‘“`" \
            and gap[:1] in "'\"’”`" and not text[start:start + 1].isupper():
        return True  # a mark named in quotes: "'_' (underscore), '.' (dot) and ':'"
    if text[b - 1] in ".!?…" and (
            (not gap.strip() and _quote_open(text, a, b))  # "Abandon ship. Now!"
            or (gap.strip() and not gap.strip().strip(_CLOSERS) and text[start].islower())):
        return True  # inside a quotation, or a quoted exclamation the sentence goes on from
    if text[b - 1] in "!?" and gap.isspace() and gap.count("\n") == 0 and (
            text[start].islower()
            or (b - 1 > a and text[b - 2].isspace() and text[start] in _OPERAND)
            or (b - 1 > a and not text[b - 2].isspace() and (
                text[start] == "=" or text.startswith(": ", start)))):
        # A mark inside code, not a sentence's end: Rust's macros and operator ("`panic!`
        # when", "the `?` operator can"), shell's negation standing alone ("[[ ! -e",
        # "! -f"), a Lisp predicate's name before its contract or default ("reuse? : any/c
        # = #f", "exact-nonnegative-integer? = 4": Racket's reference, 2026-12-06), "$? =
        # 255"; prose puts a capital, a number or a quote after "!" and "?" (French a space
        # before them too: "Vraiment ? 3 fois par jour.", "Pourquoi ? : parce que."), not a
        # "=" nor a ": " (a smiley after a question still ends it: "Does it work? :) Yes").
        return True
    if gap and not gap.isspace():
        return False
    dots = b
    while dots > a and text[dots - 1] == ".":
        dots -= 1
    if dots < b and b - dots != 3 and (dots == a or text[dots - 1] in _BEFORE_CODE_DOTS) \
            and "\n" not in gap and text[start].islower():  # (an ellipsis: join_abbreviations)
        # Dots that end no word are a name in code, not a stop: "Alt+. can be used", "For
        # numbers, . is always the radix character", "Now, .. transforms to cd ../" (fish's
        # manual, new-user review 2026-12-05).
        return True
    if _COMPLEXITY.fullmatch(text, a, b):
        # A complexity that opens its description is no sentence alone: Haddock writes
        # "O(log n). Insert a new key and value in the map." (GHC's review, 2026-12-05).
        return True
    if _DOTTED.search(text, max(a, b - 80), b) and _PLAIN_WORD.match(text, start):
        # A name with dots or hyphens that ends in its own full stop, a word after it that
        # starts no sentence: "called named.conf. which is", "ip6.arpa. is appended"
        # (BIND's manual, new-user review 2026-12-05: the answer's half was quoted
        # without the file it names).
        return True
    kind = _stop_kind(text, a, b)
    nxt = text[start]
    if kind == "number":  # "3. the next" — a number mid-sentence (list numbers aside)
        return nxt.islower()
    if kind == "title":
        return True
    if kind == "initial":
        # An initial ("J. Smith", "John F. Kennedy") — unless a word that starts sentences
        # follows: "Take vitamin C. Then rest.", "Plan B. It worked."
        return _next_word(text, start) not in SENTENCE_OPENERS
    if kind == "abbreviation":
        # … or a dash that closes an aside: "all request methods – POST, GET, HEAD, etc. –
        # will be routed" (Django's manual, new-user review 2026-12-05).
        return nxt.islower() or nxt.isdigit() or (nxt in "–—" and "\n" not in gap)
    return False


def _stop_kind(text: str, a: int, b: int) -> str:
    """What the full stop at ``text[b - 1]`` (of a span from ``a``) ends: a ``number``, a
    ``title`` ("Dr.", "e.g.", "z. B.": never a sentence's end), an ``initial`` ("J."), an
    ``abbreviation`` ("etc.", "U.S.": often a sentence's end too), the ``pronoun`` "I."
    (a sentence's end far more often than an initial), or "" (a word)."""
    if not b or text[b - 1] != ".":
        return ""
    m = _LAST_WORD.search(text[max(a, b - 40) : b])
    if m is None:
        return ""
    word = m.group(1)
    stem = word[:-1].lower()
    if word[0].isdigit():
        return "number"
    if stem in _TITLES or _SPLIT_ABBREVIATION.search(text, max(a, b - 8), b + 3):
        return "title"
    if len(word) == 2 and word[0].isupper():
        return "pronoun" if word == "I." else "initial"
    if stem in _ABBREVIATIONS or word.count(".") > 1:
        return "abbreviation"
    return ""


def ends_abbreviation(text: str, b: int) -> bool:
    """Whether the full stop at ``text[b - 1]`` ends an abbreviation or an initial ("e.g.",
    "et al.", "Dr.", "J.", "z. B."), not a word or a number."""
    return _stop_kind(text, 0, b) in ("title", "initial", "abbreviation", "pronoun")


# Abbreviations of two parts whose first stop ends no sentence, nor their second: French
# "p. ex.", German "z. B.", "d. h.", "u. a." (an English "ex." alone ends one: "my ex."),
# and English spaced "i. e.", "e. g." ("90 seconds, i. e. the server is idle": Cockpit's
# manual pages, review 2026-12-05).
_SPLIT_ABBREVIATION = re.compile(r"(?<![^\W\d_])(?:p\.\s?ex|z\.\s?B|d\.\s?h|u\.\s?a|i\.\s?e|e\.\s?g)"
                                 r"\.(?!\w)|(?<![^\W\d_])(?:[pzdu]\.(?=\s?(?:ex|B|h|a)\.)"
                                 r"|i\.(?=\s?e\.)|e\.(?=\s?g\.))")
_COMPLEXITY = re.compile(r"\s*(?:Complexity:\s*)?O\s?\((?:[^()]|\([^()]*\)){1,40}\)\.")
# A name with inner dots or hyphens and a full stop at its end ("named.conf.", "ip6.arpa.");
# and a word that starts no sentence, not a name that may ("postgresql.conf. configfile
# can also …", "dpkg-deb. dpkg will …": a review of the change, 2026-12-05).
_DOTTED = re.compile(r"(?<![\w.-])\w+(?:[.-]\w+)+\.\Z")
_PLAIN_WORD = re.compile(r"(?:which|whose|where|is|are|was|were|and|or|but|nor|that|to|of|in"
                         r"|on|at|for|with|by|from|as|than|into|be|been|has|have|had|not)\b")
_CLOSERS = "\"'”’)]»›"  # French guillemets close « … » and ‹ … ›
# What stands before dots that are a name in code: a space, a key's "+", an operator.
_BEFORE_CODE_DOTS = frozenset(" \t\xa0+-=(,")


def _quote_open(text: str, a: int, b: int) -> bool:
    """Whether a double quotation opened in ``text[a:b]`` is not closed there. Of straight
    quotes, an odd number whose last one opens — not after a word or a closing mark, nor
    the character named in quotes (‘"’, `"`): perlootut's "like "class", "object,
    "method", and "attribute" before." lacks a quote, and ran into the two sentences after
    it (Perl's review, 2026-12-07)."""
    straight = text.count('"', a, b)
    if straight % 2 == 1:
        last = text.rfind('"', a, b)
        closes = last > a and (text[last - 1].isalnum() or text[last - 1] in _CLOSES_AFTER)
        named = last > a and text[last - 1] in "‘`" and text[last + 1:last + 2] in ("’", "`")
        if not closes and not named and not text[last + 1:last + 2].isspace():
            return True  # 'He said "Stop.', 'title="Hello.', '*"Emphasis.' — not ‘"’
    return (text.count("“", a, b) > text.count("”", a, b)
            or text.count("«", a, b) > text.count("»", a, b))


_CLOSES_AFTER = frozenset(".,;!?)]'")  # what a closing quote follows, beside a word


def _next_word(text: str, start: int) -> str:
    m = _WORD.match(text, start)
    return m.group().lower() if m else ""


def _push(text: str, a: int, b: int, out: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a:
        out.append((a, b))


def row_starts(text: str, roles: Sequence[tuple[int, int, str]]) -> set[int]:
    """Where each row of a ``table`` role span after its first begins: a line of cells
    (" | ") under another. A quote is cut there (a row without a full stop ran into the
    next), and the evaluation's sentence of a cited row ends there too."""
    out: set[int] = set()
    for a, b, role in roles:
        if role != "table":
            continue
        at = text.find("\n", a, b)
        while at != -1:
            line_end = text.find("\n", at + 1, b)
            line = text[at + 1: line_end if line_end != -1 else b]
            before = text.rfind("\n", a, at)
            if "|" in line and "|" in text[a if before < 0 else before + 1:at]:
                out.add(at + 1)
            at = line_end
    return out


# A line of a command's help, as pasted in a code block: an option, its argument, two
# blanks or more, what it does ("  -a, --attach value      Attach to STDIN …",
# "      --cpus NanoCPUs     Number of CPUs (default 0.000)").
_OPTION_LINE = re.compile(r"[ \t]{0,8}(?:-[A-Za-z0-9?], )?--?[A-Za-z][\w.-]*"
                          r"(?:[ =][\w<>\[\]{}|.:,-]+)?[ \t]{2,}\S")
_SECTION_LINE = re.compile(r"[A-Z][\w ]{0,30}:")  # "Usage:  docker run …", "Options:"


def option_starts(text: str, roles: Sequence[tuple[int, int, str]]) -> set[int]:
    """Where each line of a command's help begins inside a ``code`` role span that holds
    two such lines or more (:data:`_OPTION_LINE`), and each "Options:" line of it. The
    help is one run of lines to the splitter, and Docker's usage blocks were quoted so
    ("Options: --help Print usage -t, --time int Seconds to wait …", review 2026-12-07); an
    option's wrapped description (indented under it) goes on over its lines."""
    out: set[int] = set()
    for a, b, role in roles:
        if role != "code":
            continue
        lines: list[tuple[int, str]] = []
        at = a
        while at < b:
            end = text.find("\n", at, b)
            end = b if end == -1 else end
            lines.append((at, text[at:end]))
            at = end + 1
        options = {at for at, line in lines if _OPTION_LINE.match(line)}
        if len(options) >= 2:
            out |= options | {at for at, line in lines if _SECTION_LINE.match(line)}
    return {at for at in out if at > 0 and text[at - 1] == "\n"}


def item_starts(text: str, roles: Sequence[tuple[int, int, str]]) -> set[int]:
    """Where a list item, a table's row (:func:`row_starts`) or a line of a command's help
    (:func:`option_starts`) begins: a quote is cut there, and so is the evaluation's
    sentence of a cited span."""
    return ({a for a, _, role in roles if role == "list_item"} | row_starts(text, roles)
            | option_starts(text, roles))
