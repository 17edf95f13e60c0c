"""The words of a question that no document contains, as the extractive model weighs them.

Every search reports such words (``unmentioned``: the lexical index's answer, for English
questions over a knowledge base of some size). Most are how a user words a question —
"Is it *okay* to …", "how many objects *pile up*" — and say nothing about whether the
documents answer it; some are what it is about: "bcrypt" in "How do I compute a bcrypt
password hash with hashlib?". Why a module of its own: telling them apart is a judgement
by meaning (MiniLM), with its own thresholds, apart from the answerability it feeds
(:data:`.answerability.UNMENTIONED`) and from the decline that names them.

A word carries the question when the question without it is less like itself by more than
:data:`SALIENT` (1 − MiniLM's cosine): "bcrypt" above 0.17, "okay" in "Is it okay to run
fsck on a mounted filesystem?" 0.04. When such words are half the question's keywords or
more, all of them count ("How do I read artist and title tags from an Opus file?" over
libopus's API reference).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from citewise.knowledge.retrieve.query import keywords
from citewise.models.question_intent import EXAMPLE
from citewise.models.sentence_rank import SemanticScorer

__all__ = ["SALIENT", "Absent", "absent_words"]

#: How much less like itself the question must be without a word for the word to count.
#: Set on the ``tune`` split of ``bench/data/answers`` with ``UNMENTIONED`` (bench/README.md).
SALIENT = 0.08


class Absent(NamedTuple):
    """What the question asks that no document contains."""

    #: The words that lower the answerability, as the search reported them (lower case).
    counted: list[str]
    #: The words a decline names, as the question wrote them: the counted ones, or when
    #: none counts alone, all of them if together they carry the question ("Flathub" and
    #: "flatpak" in "How do I install applications from Flathub with flatpak?" each say
    #: what the other says).
    named: list[str]


def absent_words(question: str, observations: Sequence[dict[str, Any]],
                 scorer: SemanticScorer | None) -> Absent:
    """The words of ``question`` that the searches (``observations``) report no document
    contains — less the asker's own data (a quoted value, an example: "e.g. O'Brien") and a
    follow-up's words carried from its thread — weighed by ``scorer`` (none without one,
    but for the half-the-question rule)."""
    reported = dict.fromkeys(w for o in observations for w in o.get("unmentioned") or ()
                             if isinstance(w, str) and w)
    if reported:
        # A word that is part of an identifier is in the text the search found, though no
        # index token is it: "coarse" of Qt's "Qt::CoarseTimer", "hash" of "hash_table"
        # (Qt's review, 2026-12-05: "None of them contains 'coarse'" was untrue).
        parts = _identifier_parts(observations)
        shown = _texts(observations)
        reported = {w: None for w in reported
                    if w.lower() not in parts and not _ASKS_LIMIT.fullmatch(w)
                    and not _written_as_symbol(w, shown)}
    if not reported:
        return Absent([], [])
    examples = [m.span() for m in EXAMPLE.finditer(question)]
    asked: dict[str, tuple[re.Pattern[str], str]] = {}
    for word in reported:
        # The word as the question wrote it, with a clitic ("Keycloak's") if it has one.
        pattern = re.compile(rf"(?<![\w'’-])({re.escape(word)})(?:['’]\w+)?(?![\w-])", re.I)
        written = [m.group(1) for m in pattern.finditer(question)
                   if not any(a <= m.start() < b for a, b in examples)]
        if written:
            asked[word] = (pattern, written[0])
    if not asked:
        return Absent([], [])
    if 2 * len(asked) >= len(keywords(question, "en")):
        return Absent(list(asked), [w for _, w in asked.values()])
    if scorer is None:
        return Absent([], [])

    def drop(*patterns: re.Pattern[str]) -> float:
        """How much less like itself the question is without what ``patterns`` match."""
        rest = question
        for pattern in patterns:
            rest = pattern.sub(" ", rest)
        return 1.0 - float(scorer(question, [" ".join(rest.split())])[0])

    counted = [word for word, (pattern, _) in asked.items() if drop(pattern) > SALIENT]
    if counted:
        return Absent(counted, [asked[w][1] for w in counted])
    if len(asked) > 1 and drop(*(p for p, _ in asked.values())) > SALIENT:
        return Absent([], [w for _, w in asked.values()])
    return Absent([], [])


# A word that asks for a limit, not what about: "What is the longest input line Docutils
# accepts by default?" was declined with "None of them contains 'longest'" over a page
# that says "line_length_limit … Default: 10 000" (Docutils' review, 2026-12-07). A manual
# states a limit as a value; the superlative is the asker's.
_ASKS_LIMIT = re.compile(r"(?:long|short|larg|bigg|small|high|low|great|few|wid|narrow|deep"
                         r"|tall)est|maximum|minimum|maximal|minimal|max|min", re.I)


# A punctuation mark's name: no index holds "~", so "tilde" was reported absent and declined
# "Can matching a lazy pattern written with a tilde ever fail?" over the Haskell Report's
# "Matching the pattern ~apat against a value v always succeeds." (review, 2026-12-07).
# Only names that are no ordinary word ("star", "bang", "dash", "pipe", "hash" are, and their
# marks are in every passage: "Does grep use the big bang search algorithm?" was answered —
# code review, 2026-12-07); the mark must be written against a word or another mark, as an
# operator is ("~apat", "^x", "`cmd`"), not as punctuation between words.
_SYMBOLS = {"tilde": "~", "caret": "^", "backslash": "\\", "backtick": "`", "backquote": "`",
            "ampersand": "&", "asterisk": "*", "octothorpe": "#", "semicolon": ";",
            "underscore": "_", "ellipsis": "..."}


def _written_as_symbol(word: str, shown: str) -> bool:
    """Whether ``word`` names a punctuation mark that a found passage writes."""
    name = word.lower()
    symbol = _SYMBOLS.get(name) or _SYMBOLS.get(name.removesuffix("es")) \
        or _SYMBOLS.get(name.removesuffix("s"))
    return symbol is not None and re.search(
        rf"\S{re.escape(symbol)}|{re.escape(symbol)}\S", shown) is not None


def _texts(observations: Sequence[dict[str, Any]]) -> str:
    return "\n".join(str(r.get("text") or "") for o in observations
                     for r in o.get("results") or ())


# An identifier in camel case or with underscores ("CoarseTimer", "hash_table", "QT_HASH_SEED").
_IDENTIFIER = re.compile(r"\b(?=\w*(?:[a-z][A-Z]|_\w))\w+\b")
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _identifier_parts(observations: Sequence[dict[str, Any]]) -> set[str]:
    """The words inside the identifiers of the passages the searches found, lower-cased."""
    parts: set[str] = set()
    for o in observations:
        for r in o.get("results") or ():
            for name in _IDENTIFIER.findall(str(r.get("text") or "")):
                parts.update(p.lower() for p in _PART.findall(name))
    return parts
