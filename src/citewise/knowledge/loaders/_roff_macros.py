"""Macros a man page defines for itself (``.de NAME`` … ``..``), and the conditions their
bodies test, for the man-page renderer (:mod:`.man`).

Why: a page's own macros carry its words. Tcl's pages quote with ``.QW args ,`` (“args”,),
show code between ``.CS`` and ``.CE`` (``.RS`` + ``.nf``), and list a C function's
arguments with ``.AP "unsigned int" size in``; pod2man's pages show verbatim text
between ``.Vb`` and ``.Ve``. Skipped, as they were, "the result of ``.QW "-57 / 10"`` is
always -6" was stored "the result of is always -6" (Tcl's review, 2026-12-05: 103 quotes
lost on 13 pages, six answers with them).

A call is expanded as roff does it: the body (copied with ``\\\\`` read as ``\\``) with
``\\$1`` … ``\\$9``, ``\\$*``, ``\\$@`` and ``\\n(.$`` put in, read again line by line as
if the page had said it. The macros that make the renderer's structure (``.SH``, ``.TP``,
``.RS`` …) keep their meaning even when a page redefines them; others (Tk's ``.OP``) are
the page's. Expansion has a budget of characters per page, checked before a call is
written: a macro that calls itself or doubles its arguments ends, it does not hang the
loader or fill its memory on a hostile page.
"""

from __future__ import annotations

import re

from citewise.knowledge.loaders._roff import split_args, unescape

__all__ = ["Macros", "condition"]


class Macros:
    """The macros one page has defined so far, and what expanding them may still cost."""

    def __init__(self, size: int) -> None:
        self.bodies: dict[str, list[str]] = {}
        # Characters expansion may still write: bounded by the page's size, not by calls —
        # ".de X" / ".X \\$* \\$*" doubles its arguments each call (a review of the change,
        # 2026-12-05: 20 calls were a second, 20,000 never ended).
        self.budget = max(_BUDGET, _PER_CHAR * size)

    def define(self, name: str, body: list[str], *, append: bool = False) -> None:
        """``.de``/``.de1`` (a new body) or ``.am`` (added to the old one), read in copy
        mode once: "\\\\$1" in a body is "\\$1" when called."""
        body = [line.replace("\\\\", "\\") for line in body]
        if append and name in self.bodies:
            self.bodies[name].extend(body)  # in place: 40,000 appends are not quadratic
        else:
            self.bodies[name] = body

    def expand(self, name: str, rest: str) -> list[str] | None:
        """The lines a call of ``name`` with the arguments ``rest`` stands for; None when the
        page defined no such macro or the budget is spent."""
        body = self.bodies.get(name)
        if body is None or self.budget <= 0:
            return None
        # What it may write, before writing it: every "\$" may stand for all the arguments.
        if sum(len(line) + line.count("\\$") * len(rest) for line in body) > self.budget:
            self.budget = 0
            return None
        args = split_args(rest)
        out = [_substituted(line, name, args) for line in body]
        self.budget -= max(1, sum(len(line) + 1 for line in out))
        return out if self.budget >= 0 else None


# Characters a page's macros may expand to: at least _BUDGET, or _PER_CHAR per character of
# the page. Of the 1,786 pages under /usr/share/man that define macros, the most expanded
# writes 3.3 per character (llvm-config(1), Sphinx's), and none more than 61 kB.
_BUDGET = 100_000
_PER_CHAR = 8
_ARG = re.compile(r"\\\$(\d|\*|@|\(\d\d|\[\d+\])")
_COUNT = re.compile(r"\\n(?:\(\.\$|\[\.\$\])")


def _substituted(line: str, name: str, args: list[str]) -> str:
    """A body line (in copy mode) as it reads for a call of ``name`` with ``args``."""

    def arg(m: re.Match[str]) -> str:
        key = m.group(1).strip("([]")
        if key == "*":
            return " ".join(args)
        if key == "@":
            return " ".join(f'"{a}"' for a in args)
        n = int(key)
        return name if n == 0 else args[n - 1] if n <= len(args) else ""

    return _COUNT.sub(str(len(args)), _ARG.sub(arg, line))


_NUMERIC = re.compile(r"(-?\d+)\s*(>=|<=|==|=|>|<)\s*(-?\d+)(?=\s|$)|(-?\d+)(?=\s|$)")


def condition(rest: str, strings: dict[str, str]) -> tuple[bool, str] | None:
    """A condition :mod:`.man` cannot read by name: a string comparison (``'a'b'``,
    ``"\\$2""``, either negated with ``!``) or a number, as ``(truth, what follows it)``;
    None for any other (``n``, ``t``, ``d NAME`` …)."""
    text = rest.lstrip()
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    if text[:1] in ("'", '"'):
        mark = text[0]
        middle = text.find(mark, 1)
        end = text.find(mark, middle + 1) if middle >= 0 else -1
        if end < 0:
            return None
        same = unescape(text[1:middle], strings) == unescape(text[middle + 1:end], strings)
        return same != negated, text[end + 1:]
    m = _NUMERIC.match(text)
    if m is None:
        return None
    if m.group(4) is not None:
        truth = int(m.group(4)) > 0
    else:
        a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
        truth = {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}.get(op, a == b)
    return truth != negated, text[m.end():]
