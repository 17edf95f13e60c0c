"""The candidates for evidence: every sentence of the retrieved passages, with its context.

Apart from the ranking (:mod:`.sentence_rank`) because this is about where sentences are
in a passage, not about the question: a heading or an option's term is context for the
sentences below it, never a candidate; a term glued to its description by the splitter is
quoted with it; a sentence that only points back ("This is the default.", "Defaults to
1000.", "Default: enabled" as a paragraph of its own) is quoted with the sentence it
completes; chunks overlap, so a sentence comes once.
Every candidate is a verbatim slice of its passage: trimming only drops permalink marks
(``¶``) and blanks at its edges, never a character inside, and a sentence with a mark
inside is no candidate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from citewise.grounding.claims import segments
from citewise.models import candidate_spans as spans
from citewise.models.lead_ins import introduced_code, introduced_items, opens_code
from citewise.models.leaning import (
    LEANS_ON_TERM,
    PAIR_CHARS,
    REFERS_BACK,
    default_line,
    leans_whole,
)
from citewise.models.sentence_comments import comment_sentences
from citewise.models.sentence_structure import LABEL_ROLES, LEAD_IN_WORDS

__all__ = ["Sentence", "candidates"]

_MIN_CHARS = 12


@dataclass(frozen=True, slots=True)
class Sentence:
    """One candidate: ``text`` is verbatim in the retrieved passage of ``document_index``."""

    document_index: int
    rank: int  # the passage's rank in its search (0 = best)
    text: str
    before: str  # its context: the heading and sentences before it in its paragraph
    source: str
    title: str
    asserts: bool  # a full sentence or list item, not a lead-in, question or title line
    role: str | None = None  # what its loader says it is (``loaders.base.ROLES``); None: prose
    section: str = ""  # its passage's section path ("Options > --delete"), when it has one
    # The definition term it is the first sentence under ("%*", "work_mem (integer)"), when
    # that term is a line of its own: what an answer quoting it must name.
    term: str = ""
    # The one line of code a lead-in introduces ("… using the command cargo fix:" over
    # ``cargo fix``), verbatim: quoted after it, or the lead-in says nothing.
    code: str = ""
    # The short list a lead-in introduces ("three default modules are loaded
    # automatically:" over "- mod_indexfile" …), each item verbatim: quoted after it.
    items: tuple[str, ...] = ()
    # What to quote when it is chosen, where the next sentence completes it by pointing
    # back at it (``REFERS_BACK``): the two. "" quotes ``text``. Ranked as ``text``
    # alone: ranked as the pair, a sentence that answered alone ("This setting applies
    # only to new windows …") lost to others; and a sentence that points back is not
    # quoted after the one it points at, which would be cited first and answer less.
    quote: str = ""
    # The term its loader marked at its start, run on with its description ("AccuracySec="
    # over "Specify the accuracy …", one sentence to the splitter), verbatim; "" for none.
    lead: str = ""
    # The sentence before it in its paragraph, as quoted: "" when it is the first (what is
    # before it is a heading, a term or a lead-in) or its own text holds it already (a
    # pair, "It grows to 1 GB. This is the default."). What a sentence that points back
    # ("This is because …") is compared with by meaning, with it (sentence_rank.compared_texts).
    previous: str = ""
    # The default stated on a line of its own between its term and this, the first sentence
    # of the term's description ("Default value: 4" over "lhospitallim is the maximum number
    # of times …"), with this, verbatim: what a question asking the default quotes.
    with_default: str = ""


# A permalink mark glued to a heading's last word ("Configuration¶"), where a loader left
# one: a heading run into its text. The sign itself, spaced, is prose: MkDocs documents
# its setting "the paragraph symbol (¶ or &para;) is used as the link text".
_PERMALINK = re.compile(r"\w¶")


def candidates(observations: Sequence[dict[str, Any]]) -> list[Sentence]:
    """Every distinct sentence of the search results, in rank order, with its neighbour."""
    seen: set[tuple[str, str]] = set()
    out: list[Sentence] = []
    for obs in observations:
        for rank, r in enumerate(obs.get("results", [])):
            text = str(r.get("text", ""))
            source = str(r.get("source", ""))
            title = str(r.get("title") or "")
            section = str(r.get("section") or "")
            roles = spans.role_spans(r.get("roles"))
            context: list[str] = []  # the paragraph so far, from its heading on
            term = ""  # the term line just read, for the sentence under it
            # The term whose definition this is, to the end of the definition's first
            # paragraph (past a "New in version 3.24." note of its own), a heading or a term.
            defined = ""
            described = False  # whether a paragraph of the definition has begun
            end = 0
            previous: int | None = None  # where the paragraph's last full sentence starts
            listed = 0  # list items in a row up to that sentence
            stated: tuple[int, int] | None = None  # a default's line under a term (leaning)
            said = 0  # sentences asserted since the last heading, term or lead-in
            entry = 0  # where the first of those starts
            pointed: int | None = None  # its row in ``out``, if it was kept
            # Where the table ends whose header row is the context's heading (-1: none),
            # and the heading context that header row came under.
            headed_rows = -1
            outer: list[str] = []
            cut = spans.items_apart(text, roles, segments(text))
            hidden = spans.hidden_spans(roles)
            for a, b in comment_sentences(text, roles, cut):
                a, b = spans.trim(text, a, b)
                a = spans.term_start(text, roles, a)
                sentence = spans.quoted(text, a, b)
                if not sentence.strip("|"):
                    continue  # a Markdown row's closing pipe, after its cell's full stop
                # A new paragraph: after a blank line, or after lines not on the page (a
                # Markdown file's HTML table: "</td> <td>" between two cells' sentences).
                cell = end > 0 and bool(hidden) and spans.hidden_in(hidden, end, a)
                broken = cell or "\n\n" in text[end:a]
                opens = not end or broken  # the first of its paragraph
                if broken:  # a new paragraph keeps only its heading
                    if described:
                        defined = ""  # past the definition: "It is safe to combine …"
                    if headed_rows >= 0 and a >= headed_rows:  # past the table
                        context, headed_rows = outer, -1
                    else:  # (a <tbody> after its <thead> too: the header heads its rows)
                        context = context[:2] if context and context[0] == _HEAD else []
                    # "Default: enabled" as a paragraph of its own (an option's field body,
                    # lighttpd's manual) still completes the paragraph before it — not a
                    # list's last item when it speaks of them all: "Those delays are only
                    # examples." after "Other NMUs: 10 days" (the Developer's Reference's
                    # review); "It can be changed …" after one item is that item's. Never
                    # another cell's, across an HTML table's tag lines.
                    if cell or not leans_whole(sentence, across=True) or (
                            listed > 1 and _OF_THE_LIST.match(sentence)):
                        previous = None
                end = b
                role, lead = spans.described(roles, text, a, b)
                if role == "hidden":
                    continue  # not on the page (an HTML comment): neither answer nor context
                # A list item asserts, unless it asks: a FAQ's list of its questions
                # ("3.9 Which are good parameters for encoding high quality MPEG-4?") was
                # quoted as the answer (FFmpeg's review, 2026-12-05).
                asserts = (role not in LABEL_ROLES and (
                    (role == "list_item" and not spans.asks(text, a, b))
                    or spans.asserts(text, a, b, comment=role == "comment")))
                # A default on a line of its own right under its term — nothing said between
                # them — its description below. FFmpeg's options end with theirs ("Default
                # value is ‘once’."), above the next paragraph's other subject (code review).
                if role == "version_note" and stated is not None:
                    above = None  # "New in version 8.1.5." between a default and its entry
                else:
                    above, stated = stated, (a, b) if (
                        opens and not said and context[:1] == [_HEAD]
                        and default_line(sentence)) else None
                entry = a if asserts and not said else entry
                said = said + 1 if asserts else 0
                if asserts and lead > a:  # the term is the context of its definition
                    context = [_HEAD, " ".join(text[a:lead].split())]
                start = a
                label = term if asserts and previous is None else ""
                if asserts and not label:
                    label = _row_key(text, a)
                if asserts and not label and defined and (
                        LEANS_ON_TERM.match(sentence) or leans_whole(sentence)):
                    # "This removes any existing CMakeCache.txt file": said of --fresh,
                    # two sentences under it (CMake review, 2026-12-04); "Default value is
                    # 2." of --control-stack-size (SBCL's review, 2026-12-07).
                    label = defined
                term = ""
                if role == "term" and not asserts and lead == a:
                    term = defined = _term_label(sentence)
                    described = False
                elif not asserts:
                    defined = ""  # a heading or a lead-in: another subject
                elif role != "version_note":
                    described = True
                if asserts and previous is not None and leans_whole(sentence):
                    # "This is the default." says nothing alone: quote it with the
                    # sentence it points back to (one verbatim span of the passage).
                    start = previous
                    if (opens and default_line(sentence) and entry < previous
                            and b - entry <= PAIR_CHARS and _notes_between(text, entry, a)):
                        # An entry's default on its last line, under a note ("Note: The
                        # RRSIG's signature inception time …" over "Default: 14d") is the
                        # entry's, not the note's: quoted from its first sentence, which
                        # says what it is (Knot's review, 2026-12-07).
                        start = entry
                    sentence = spans.quoted(text, start, b)
                elif (asserts and previous is not None and b - previous <= PAIR_CHARS
                      and REFERS_BACK.match(sentence) is not None
                      and pointed is not None and not out[pointed].quote):
                    # The sentence it points back to is quoted with it (see REFERS_BACK).
                    out[pointed] = replace(out[pointed], quote=spans.quoted(text, previous, b))
                previous = a if asserts else None
                listed = listed + 1 if role == "list_item" else 0
                pointed = None
                if not asserts:
                    if role == "table":
                        continue  # a short row ("OSPF | 110"): neither answer nor heading
                    # A table's header row heads its rows (a second one too); the paragraph
                    # after the table is under the heading before it again.
                    ends = spans.table_end(roles, a) if role == "heading" else None
                    if ends is not None and headed_rows < 0:
                        outer = context[:2] if context[:1] == [_HEAD] else []
                    headed_rows = ends if ends is not None else -1
                    context = [_HEAD, sentence]
                    # Headings and questions (an FAQ's) are context for what follows,
                    # never the answer; a long lead-in ("…, run psql with …:") may be.
                    if not (sentence.endswith(":") and len(sentence.split()) > LEAD_IN_WORDS):
                        continue
                window = context[-_CONTEXT:]
                if headed_rows >= 0 and len(context) > _CONTEXT:  # a row: its header too
                    window = [context[1], *context[-_CONTEXT + 1:]]
                before = " ".join(c for c in window if c != _HEAD)
                # Chunks overlap: the same sentence comes again, maybe with its context.
                if (sentence, before) in seen:
                    if asserts:  # still the paragraph's: what follows points back to it
                        context.append(sentence)
                    continue
                if len(sentence) < _MIN_CHARS or _PERMALINK.search(sentence):
                    continue
                seen.add((sentence, before))
                code = introduced_code(text, roles, b) if opens_code(sentence) else ""
                items = introduced_items(text, roles, b) if sentence.endswith(":") and \
                    not code else ()
                if asserts:
                    pointed = len(out)
                glued = text[a:lead].rstrip() if asserts and lead > a and start == a else ""
                prior = context[-1] if asserts and start == a and context and not (
                    context[0] == _HEAD and len(context) <= 2) else ""
                with_default = spans.quoted(text, above[0], b) if (
                    above is not None and opens and asserts and start == a
                    and b - above[0] <= PAIR_CHARS) else ""
                out.append(Sentence(int(r["document_index"]), rank, sentence, before,
                                    source, title, asserts, role, section, label, code,
                                    items, lead=glued if sentence.startswith(glued) else "",
                                    previous=prior, with_default=with_default))
                if asserts:
                    context.append(sentence)
    return _unrestated(out)


# A pointer at several things: a list's items, not its last ("Those delays are …").
_OF_THE_LIST = re.compile(r"(?:those|these|they|such|both|all|each|the above)\b", re.I)

# A note's label: what a manual sets apart inside an entry, not another entry.
_NOTE = re.compile(r"\s*(?:Notes?|NOTES?|Warning|WARNING|Caution|CAUTION|Important|IMPORTANT"
                   r"|Tip|TIP|Hint|HINT|Attention|ATTENTION)\s*:")


def _notes_between(text: str, entry: int, at: int) -> bool:
    """Whether every paragraph between the one starting at ``entry`` and ``at`` is a note:
    a default after an entry's notes is the entry's; after a paragraph of another kind
    ("server.max-keep-alive-idle …" in a text file without headings) it may be another
    entry's."""
    paragraphs = [p for p in text[entry:at].split("\n\n") if p.strip()][1:]
    return bool(paragraphs) and all(_NOTE.match(p) for p in paragraphs)


def _unrestated(out: list[Sentence]) -> list[Sentence]:
    """``out`` less the rows of a summary table that restate a sentence of the same page:
    Javadoc's and Doxygen's member tables repeat each member's first sentence ("boolean |
    isValid(Document dirtyDocument) | Determines if the input document bodyis valid, …"),
    which was quoted beside, or instead of, the member's own section. A row is told by its
    cells, not its role: a chunk that starts inside a table holds the row as a list item's
    (Javadoc's summary is a table inside a list)."""
    said = {(s.source, " ".join(s.text.split())) for s in out if "|" not in s.text}
    return [s for s in out if "|" not in s.text or (
        s.source, " ".join(s.text.rsplit("|", 1)[1].split())) not in said]


# A term short enough to name what it defines in an answer ("%*: Current time of day …"),
# not a signature with every parameter.
_TERM_LABEL_CHARS = 60


def _row_key(text: str, at: int) -> str:
    """The first cell of the table row a sentence is in, when the sentence is not at the
    row's start: what it describes. ImageMagick's "MAGICK_THREAD_LIMIT | Set maximum
    parallel threads. Use this environment variable to set the maximum number of threads
    …" was quoted from its second sentence on, the variable never named (review,
    2026-12-06)."""
    row = text.rfind("\n", 0, at) + 1
    if at - row > _ROW_REACH or len(_STOPS.findall(text, row, at)) > 2:
        return ""  # its first cell is too far back to be cited with it
    cell, bar, _ = text[row:at].partition(" | ")
    return _term_label(cell) if bar and cell.strip() else ""


# The verifier finds a label near its quote (``grounding.verify``), but a first cell three
# sentences back (Ant's "onMissingExtensionPoint | What to do if … (“fail”, “warn”,
# “ignore”). since Ant 1.8.2. | No; not allowed unless extensionOf is present, defaults to
# “fail”.") made the labelled claim unsupported and the answer a decline (bench an07,
# at09). So at most two sentences may stand between, within this reach.
_ROW_REACH = 240
_STOPS = re.compile(r"[.!?][\"')\]”’]*\s")


def _term_label(sentence: str) -> str:
    """The term as it names its definition; several terms, one a line (``<dt>line-width</dt>
    <dt>line-width=size\\unit</dt>`` over one description), read "line-width,
    line-width=size\\unit", not run together (LilyPond's review, 2026-12-06); a Markdown
    file's HTML table cell without its tags ("<td><strong>no</strong></td>" is "no")."""
    shown = (" ".join(_CELL_TAGS.sub("", line).split()) for line in sentence.splitlines())
    label = ", ".join(line for line in shown if line)
    return label if 0 < len(label) <= _TERM_LABEL_CHARS else ""


_CELL_TAGS = re.compile(r"</?(?:td|th|tr|strong|b|em|i|code|tt|span|a|kbd|br)\b[^<>]*>", re.I)
_HEAD = "\x00"  # marks a context that starts at a heading
_CONTEXT = 3
