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
_ASKED = re.compile(rf"(?:^|[.?!;:,]\s*|\band\s+)who\s+(?:\w+\s+)?(?:{_MADE})\b", re.I)
# "by Larry Wall", or a name of two or more capitalised words ("Guido van Rossum", "Ian
# Murdock", "Bjarne Stroustrup"), not an acronym's ("by LZW", "Debian GNU/Linux").
_PARTICLE = r"(?:van|von|de|der|den|di|da|del|le|la|du|[A-Z]\.)"
_NAMED = re.compile(rf"\bby\s+[A-Z][a-z]+|\b[A-Z][a-z]+\s+(?:{_PARTICLE}\s+)*[A-Z][a-z]+\b")


def asked(question: str) -> bool:
    """Whether ``question`` asks who made something ("Who created the Go language, and in
    which year?"), not who may do something ("who can read and write the table?")."""
    return _ASKED.search(question) is not None


def names_someone(text: str) -> bool:
    """Whether ``text`` names a person or a group: "by" before a name, or a name of two or
    more capitalised words."""
    return _NAMED.search(text) is not None
