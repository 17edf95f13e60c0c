"""Sentences that lean on a neighbour: what a candidate sentence is quoted with.

Why apart from the candidates (:mod:`.sentence_candidates`): these are judgements of
wording — "This is the default." says nothing alone, "If neither of these is given, …"
names its subject only by pointing back, "Default value: 4" on a line of its own before an
option's description is that option's default — and the candidates' loop is about where
sentences are in a passage. Each rule says which neighbour completes a sentence: the one
before it (:func:`leans_whole`, :data:`REFERS_BACK`) or, for a default stated on a line
over its description, the one after (:func:`default_line`).
"""

from __future__ import annotations

import re

from citewise.text import POINTING_WORDS

__all__ = ["ARGUMENT_DEFAULT", "FIELDS_ROW", "LEANS_ON_TERM", "PAIR_CHARS", "REFERS_BACK",
           "STATES_DEFAULT", "default_line", "leans_whole"]

# A sentence whose subject is what the paragraph is about: "This removes …", "It is …".
LEANS_ON_TERM = re.compile(rf"(?:{POINTING_WORDS})\b(?! (?:is|was) (?:why|how|because)\b)",
                            re.I)
# A sentence without a subject of its own leans on the one before it too: "Defaults to
# 1000 - 59999." (adduser.conf(5)), "Default: 30 seconds.", "Default value is 2." (SBCL's
# --control-stack-size, quoted alone: new-user review, 2026-12-07).
_POINTS_BACK = re.compile(rf"(?:{POINTING_WORDS}|the (?:latter|former|same)"
                          r"|defaults?(?: value)? (?:to|is)|default(?: value)?:)(?:\b|\s)", re.I)
_POINTS_BACK_WORDS = 8
# "This is the default value if none is specified." (Apache's cookie flag): a sentence that
# only says what the one before it is, a little longer — in its paragraph, and not "It is
# possible to …", which says something of its own.
_RENAMES_BACK = re.compile(r"(?:this|that) (?:is|was)\b", re.I)
_RENAMES_BACK_WORDS = 10
# An argument's line in a signature, its default after "=": "max-allow-wait :
# exact-nonnegative-integer? = 4" (Racket's reference, review 2026-12-06) — a statement,
# however short, not a title.
ARGUMENT_DEFAULT = r"[\w?!*<>/.-]+ : [^=\n]+ = \S"
# "Default: enabled", "Defaults to 30": a value, however short, and no title.
STATES_DEFAULT = re.compile(r"defaults?(?::|\s+(?:to|is))\s*\S", re.I)


def leans_whole(sentence: str, *, across: bool = False) -> bool:
    """A short sentence that only points back ("This is the default.", "It is off by
    default."): its meaning is the sentence before it (``across`` a paragraph break, only
    the shortest do: "Default: enabled")."""
    words = len(sentence.split())
    return (_POINTS_BACK.match(sentence) is not None and words <= _POINTS_BACK_WORDS) or (
        not across and _RENAMES_BACK.match(sentence) is not None
        and words <= _RENAMES_BACK_WORDS)


# A sentence that names what it is about only by pointing at the sentence before: "If
# neither of these is given, the default by=1 is assumed." (after "The next two arguments
# to seq() may be named by=value and length=value …"), "To read such files set fill =
# TRUE.", "(The last three are normally used to set the locale …)" — quoted alone, it
# answered nothing a reader could follow, and the sentence before it, quoted alone, left
# out the answer (new-user review of R's manuals, 2026-12-05): chosen, that sentence is
# quoted with it. "It" is left out: as often as not it points at nothing ("It is quite
# common …"), and so is "Each lighthouse …": "each", "both", "neither" point back only
# as "each of these". "This can happen if …" points back at what happens.
REFERS_BACK = re.compile(
    r"\(?(?:(?:if|when|for|in|with|of|to|unless|because of)\s+(?:[\w-]+\s+){0,2}?)?"
    r"(?:(?:these|those|such)\b(?!\s+(?:is|was)\s+(?:why|how)\b)"
    r"|(?:both|neither|either|none|each|all|one)\s+of\s+(?:these|those|them|the\s+above)\b"
    r"|(?:this|that)\s+(?:is|was|means|case|way|mode|option|value|setting|form|one|behaviou?r)\b"
    # "This can happen if an old copy … is restored": the sentence before says what does
    # (SCons' review, 2026-12-07: quoted alone, it left out the answer).
    r"|(?:this|that)\s+(?:(?:can|may|might|could|will|would|often|usually|only)\s+)?"
    r"happens?\b"
    r"|the\s+(?:former|latter|above|first|second|last(?:\s+(?:two|three|four))?)\b)", re.I)
PAIR_CHARS = 400  # a pair longer than this is two quotes, not one


# "Default value: 4" (Texinfo's option variables: Maxima's manual), "Default: {'json'}
# (set, list, or tuple)." (Celery's settings), "Default value is ‘replace’.": a default
# stated on a line of its own, the value and nothing else.
_DEFAULT_LINE = re.compile(r"defaults?(?:\s+value)?(?::|\s+(?:is|to)\b)\s*\S", re.I)
_DEFAULT_LINE_WORDS = 10


def default_line(sentence: str) -> bool:
    """Whether ``sentence`` only states a default: a line that, between a term and its
    description, is that term's default (Maxima's review, 2026-12-06: "lhospitallim is the
    maximum number of times L’Hospital’s rule is used in limit." was the answer to its
    default, without the "Default value: 4" above it) — or a row of named values with a
    default among them (:data:`FIELDS_ROW`: "type: integer | default: 10 | mandatory: no"
    over each of rsyslog's parameters, review 2026-12-07)."""
    return (_DEFAULT_LINE.match(sentence) is not None and len(sentence.split()) <=
            _DEFAULT_LINE_WORDS) or (FIELDS_ROW.fullmatch(sentence.strip()) is not None
                                     and _DEFAULT_FIELD.search(sentence) is not None)


# A row of values each under its column's name, as the HTML loader writes a table of one
# row under its header (``_html_rows.field_names``): "type: integer | default: 10".
_FIELD = r"[^:|\n]{1,40}: (?:(?! \| )[^\n])+"  # a value may hold a "|": "format: on|off"
FIELDS_ROW = re.compile(rf"{_FIELD}(?: \| {_FIELD})+")
_DEFAULT_FIELD = re.compile(r"(?:^|\| )defaults?(?: value)?: \S", re.I)
