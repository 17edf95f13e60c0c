"""A candidate sentence's role as evidence: what its structure makes it worth as an answer.

Apart from the ranking (:mod:`.sentence_rank`) because these are facts about documents,
not about questions: a notice, a navigation bar, a version-change note, a table row, a
line of code, a pointer to the answer ("as described above") or a contents line ("How to
…") is worth less as an answer to anything. Where the loader said what a span is
(``Sentence.role``: HTML, markdown, reStructuredText and man pages do), that counts; the
patterns here catch the same things in formats that say nothing (plain text, PDF). A
table row whose last cell is a sentence is prose, though: Doxygen's parameter tables and
DocBook's notes (set as tables) hold a manual's defaults, limits and cautions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from citewise.models.leaning import FIELDS_ROW

if TYPE_CHECKING:
    from citewise.models.sentence_candidates import Sentence

__all__ = ["CODE_ROLES", "LABEL_ROLES", "LEAD_IN_WORDS", "structure_penalty"]

LEAD_IN_WORDS = 8  # a longer sentence before a colon still says something

_NOTICE = re.compile(r"copyright|©|\(c\) \d{4}|all rights reserved|licen[cs]ed? under|"
                     r"\bgnu (?:general|free documentation)|permission is granted|"
                     r"this (?:page|document) was (?:generated|last|created (?:by|with|using"
                     r"|from|automatically))", re.I)
_NAVIGATION = re.compile(r"\b(?:prev|next|home|up|top)\b(?:\s*\|\s*\b(?:prev|next|home|up|"
                         r"top)\b)+|^\s*(?:prev|next)\s*\|", re.I)
# … and a note naming its product ("Available since scons 4.2.", the Ninja builder's: it
# was quoted for which Python SCons needs, at confidence 0.65; review, 2026-12-07).
_VERSION_NOTE = re.compile(r"^\s*(?:(?:changed|new|added|deprecated|removed) (?:in|since) "
                           r"(?:version )?\d|(?:changed|new|added|deprecated|removed|available"
                           r"|introduced) (?:in|since) (?:version |[A-Za-z][\w.+-]* )v?\d+\.\d)",
                           re.I)
# A sentence that sends the reader elsewhere instead of saying it ("See Section 5.3.",
# "turn it off as described above", "Consult the Dovecot documentation …", "For the full
# list of accepted command line options, run xapian-tcpsrv --help or see the xapian-tcpsrv
# man page.", quoted over the required option it follows: Xapian's review), and a
# contents line that names a topic ("How to turn off … warnings."): what they point at is
# the answer, not they.
_POINTER = re.compile(r"^\s*\(?(?:see|refer to|consult)\b|^\s*for (?:more|further|details|"
                      r"information)\b[^.]*,\s*see\b|^\s*for (?:the|a) (?:full|complete) "
                      r"(?:list|reference) of\b[^.]{0,160}?,?\s(?:see|consult|refer to)\b|"
                      r"^\s*for (?:the|a) (?:full|complete) (?:list|reference) of\b[^.]{0,160}?,"
                      r"\s*run\b[^.]{0,80}?(?:--help|\s-h\b|\bhelp\b|\bman\b)|"
                      r"\bas (?:described|explained|discussed|"
                      r"mentioned|shown|noted) (?:above|below|earlier|later|at the end|in the "
                      r"(?:next|previous|following) section)|\b(?:see|described) (?:above|below)\b",
                      re.I)
_TOPIC = re.compile(r"^\s*how to\b", re.I)
# A "See also" section lists other pages: cppreference's "is_trivially_copyable (C++11) |
# checks if a type is trivially copyable" outranked memcpy's own answer (2026-12-05).
_SEE_ALSO = re.compile(r"(?:^|> )see also\s*\Z", re.I)
# "As noted above, if the file does not exist, …": a reminder that then says it again.
_RESTATES = re.compile(r"^\s*as (?:described|explained|discussed|mentioned|shown|noted) "
                       r"(?:above|below|earlier|later)\s*,(?:\s*\S+){5}", re.I)
_CODE = re.compile(r"^\s*(?:\$ |>>> |\.\.\. |#!|[\w.-]+\s*\(.*\)\s*[{;]?\s*$)|[{};]\s*$|"
                   r"\b\w+\([^)]*\)\s*¶?\s*$")


# A command line: a lower-case program name, then an option, with no full stop at the end
# ("psql -X --set ON_ERROR_STOP=on dbname < dumpfile", "git log --oneline -5").
_COMMAND = re.compile(r"(?!(?:the|a|an|this|that|it|you|we|if|when|use|with|and|or|to)\b)"
                      r"[a-z][\w.-]*(?: [\w.-]+)? --?[A-Za-z][^\n]*(?<![.!?:])\s*\Z")


def structure_penalty(s: Sentence, code_wanted: bool, version_wanted: bool = False) -> float:
    """How much less ``s`` is worth as an answer for its role (0 for plain prose); a
    version-change note is worth as much as prose when the question asks which version."""
    # A markdown link reads as its text: its address and title are not on the page (the
    # title "GNU General Public License" made pandoc's "Released under the GPL" a notice,
    # and a URL's punctuation made a list item of formats code: new-user review,
    # 2026-12-05, five of its thirty questions).
    text = _LINK.sub(r"\1", s.text)
    if s.role == "notice" or _NOTICE.search(text) or _NAVIGATION.search(text):
        return 0.6
    penalty = 0.0
    if not s.asserts:  # a heading or lead-in: context for its section, not an answer
        penalty += 0.4 if len(text.split()) <= LEAD_IN_WORDS else 0.1
    if (_POINTER.search(text) and not _RESTATES.match(text)) or _TOPIC.match(text) \
            or _SEE_ALSO.search(s.section):
        penalty += 0.25  # what it points at answers, not it (nor a "See also" list's line)
    if not version_wanted and (s.role == "version_note" or _VERSION_NOTE.search(text)):
        penalty += 0.25  # the change note ranks below the current behaviour
    if (s.role == "table" or text.count("|") >= 2) and not _prose_cell(text) \
            and not FIELDS_ROW.fullmatch(text.strip()):
        # a table row or a navigation bar (not a row whose last cell is prose, nor a row of
        # named values: "type: integer | default: 10 | mandatory: no", as a field list)
        penalty += 0.25
    if not code_wanted:
        # Markdown's own markup is no code: "**Default:** `16384` (16 KiB)." is prose
        # (Node.js's API docs state every default so; it ranked as code).
        bare = _MARKUP.sub("", text)
        symbols = sum(not (c.isalnum() or c.isspace()) for c in bare)
        if (s.role in CODE_ROLES or _CODE.search(text) or symbols > 0.18 * len(bare)
                or _COMMAND.match(text)):
            penalty += 0.3
    return penalty


# A row whose last cell is a sentence of its own (Doxygen's parameter tables: "[in] | x |
# opus_int32: Allowed values: 0 Disable DTX (default)."): prose in a table.
def _prose_cell(text: str) -> bool:
    """Whether ``text``, a table's, is one row ending in a cell of prose (a sentence of six
    words or more), not rows run together by the sentence splitter."""
    cell = text.rstrip().removesuffix("|").rsplit("|", 1)[-1].strip()  # "| … | prose. |"
    rows = sum("|" in line for line in text.split("\n"))
    return rows <= 1 and cell.endswith((".", "!", "?")) and len(cell.split()) >= 6


_MARKUP = re.compile(r"\*\*|`")  # strong emphasis and inline code, as markdown writes them
# A markdown link or image, "[text](address "title")": its text.
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(\s*<?[^)\s>]*>?(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
CODE_ROLES = frozenset(("code", "doctest"))
#: Roles whose text names what follows (a section, an option, a signature): context only.
LABEL_ROLES = frozenset(("heading", "term"))
