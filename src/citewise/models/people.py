"""Questions that ask who made something, and the sentences that name someone.

Why: "Who created the Erlang language?" over Erlang's manuals shares "Erlang" and
"language" with hundreds of sentences, and the best of them ("Otherwise
erlang:universaltime() is equivalent to erlang:localtime().") names nobody. A sentence that
answers names a person or a group ("written by Larry Wall", "Guido van Rossum created …"),
so one that names no one does not answer, as a sentence without a number does not answer
"How many …?" (:mod:`.quantities`). Only questions about who made, founded or won
something: "Who can read the table?" is answered by "This is the default setting for the
access rights." (bench er11).
"""

from __future__ import annotations

import re

__all__ = ["PERSON", "asked", "names_someone"]

#: The kind of answer "Who created …?" asks for (:mod:`.question_intent`'s kinds).
PERSON = "person"

_MADE = (r"created|wrote|written|invented|founded|designed|developed|authored|painted|won"
         r"|started|discovered|composed|directed")
# … made a named thing, or a language, a project, a book …: not "Who created the backup in
# /var/backups?" nor "Who wrote the log entry?", which a program did (the code review,
# 2026-12-07).
_MADE_THING = (r"language|project|program|software|library|tool|format|protocol|algorithm"
               r"|standard|specification|system|distribution|book|novel|report|paper|company"
               r"|foundation|framework|editor|shell|compiler|game|cup")
_ASKED = re.compile(
    rf"(?:^|[.?!;:,]\s*|\band\s+)(?i:who\s+(?:\w+\s+)?(?:{_MADE})\s+(?:the\s+|an?\s+)?"
    rf"(?:(?:original|first|initial)\s+)?)(?:[A-Z0-9]"
    rf"|(?i:(?:[\w+#.-]+\s+){{1,2}}(?:{_MADE_THING})s?\b))")
# "by Larry Wall", or a name of two or more capitalised words ("Guido van Rossum", "John
# McCarthy", "José Valim", "Tim O'Reilly", "D. J. Bernstein"), not an acronym's ("by LZW",
# "Debian GNU/Linux") nor one that opens with a word any sentence may ("The Erlang runtime",
# "See Section 4", "Use Visual Studio").
_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
_WORD = rf"[{_UPPER}](?:['’][{_UPPER}])?[{_LOWER}]+(?:[{_UPPER}][{_LOWER}]+)?"
_PARTICLE = r"(?:van|von|de|der|den|di|da|del|le|la|du)"
_NAMED = re.compile(rf"(?:\b[{_UPPER}]\.\s+)+{_WORD}|\b{_WORD}(?:\s+(?:{_PARTICLE}\s+)*{_WORD})+\b")
_BY = re.compile(rf"\bby\s+(?:[{_UPPER}]\.\s+)*{_WORD}")
_OPENER = frozenset((
    "the", "a", "an", "in", "on", "at", "see", "use", "for", "if", "when", "this", "that",
    "these", "those", "to", "by", "with", "from", "note", "each", "all", "some", "generated",
    "while", "after", "before", "as", "it", "its", "our", "your", "their"))


def asked(question: str) -> bool:
    """Whether ``question`` asks who made something ("Who created the Go language, and in
    which year?"), not who may do something ("who can read and write the table?")."""
    return _ASKED.search(question) is not None


def names_someone(text: str) -> bool:
    """Whether ``text`` names a person or a group: "by" before a name, or a name of two or
    more capitalised words past a word any sentence may open with ("In Guido van Rossum's
    design"). A product's name of two words ("Visual Studio") is one too: it is a check
    that a name is there at all, which catches the sentences that name only the thing."""
    if _BY.search(text) is not None:
        return True
    for m in _NAMED.finditer(text):
        words = m.group().split()
        if words[0].lower() in _OPENER:  # "In Guido van Rossum's design": the rest
            words = words[1:]
        if sum(word[0].isupper() for word in words) >= 2:
            return True
    return False
