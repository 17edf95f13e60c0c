"""Command-line switches a question names, and whether a text writes one.

Apart because two readers need the same reading of them: the ranking
(:mod:`.sentence_rank`), where "-c" is not "-C" — perl's manual was asked "What does perl's
-c switch do?" and quoted "-C"'s entry, because every word index lower-cases and drops the
dash, so "c" was a word of both (2026-12-07) —, and the abstention (:mod:`.answerability`),
which declines a question whose switch no passage writes.
"""

from __future__ import annotations

import re

from citewise.models.question_intent import EXAMPLE

__all__ = ["DASHES", "named_switches", "writes"]

# A command-line switch the question names, "-Z" or "--vanilla" (not "e-mail", "x - 1",
# nor a negation in a formula: "e^-x", "(-x)", "-x + 1").
_SWITCH = re.compile(r"(?<![\w^=(*+/-])(-[A-Za-z]|--[A-Za-z][\w-]*[A-Za-z0-9])(?![\w-])"
                     r"(?!\s*[=+*/^)])")
#: Dashes as a typesetter writes them (−, –, ‐, ‑), translated to "-" before :func:`writes`.
DASHES = str.maketrans("\u2212\u2013\u2010\u2011", "----")


def named_switches(question: str) -> list[tuple[str, int, int]]:
    """Each switch ``question`` names, with where: ``(switch, start, end)``, as often as it
    names it. Not one
    inside the asker's own example or quote, nor a letter the question also uses as a
    variable ("What is the value of -x when x is negative?")."""
    examples = [m.span() for m in EXAMPLE.finditer(question)]
    out: list[tuple[str, int, int]] = []
    for m in _SWITCH.finditer(question):
        switch = m.group(1)
        if any(a <= m.start() < b for a, b in examples) or (
                len(switch) == 2 and switch[1] not in "aAI"
                and re.search(rf"(?<![\w.'’-]){switch[1]}(?![\w'’.-])", question)):
            continue
        out.append((switch, m.start(), m.end()))
    return out


def writes(text: str, switch: str) -> bool:
    """Whether ``text`` (dashes as :data:`DASHES` makes them) writes ``switch``: a one-letter
    one in its own case, alone or glued to its argument as manuals write them
    ("-Idirectory", "-O2", "-i[extension]"; so "-Wall" writes "-W" too), a long one whole
    and in any case ("--line-length" is not "--line-length-limit")."""
    if len(switch) == 2:
        return re.search(rf"(?<![\w-]){re.escape(switch)}", text) is not None
    return re.search(rf"(?<![\w-]){re.escape(switch)}(?![\w-])", text, re.I) is not None
