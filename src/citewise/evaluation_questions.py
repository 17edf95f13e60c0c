"""Question files for ``citewise eval``: JSON Lines of labelled questions, checked line by line.

Why apart from :mod:`citewise.evaluation`: reading a user's file is its own job — every bad
line must be refused with its file and line number and a stable code
(``invalid_questions``), before a single question is asked — and the metrics need none of
it. The format is described in :mod:`citewise.evaluation`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from citewise.errors import InvalidInput, NotFound

__all__ = ["CELL", "UNANSWERABLE", "EvalQuestion", "label_forms", "load_questions", "norm",
           "parse_questions", "visible"]

#: The ``expected`` value of a question the documents do not answer.
UNANSWERABLE = "unanswerable"
_KEYS = frozenset({"id", "question", "expected", "kind", "document", "split", "note"})
_WS = re.compile(r"\s+")
#: A table's cell separator as the loaders write it (" | "): a label copied from the page as
#: a browser shows it has none ("max_rcpt Use: smtp Type: integer", Exim's review).
CELL = "|"
_CELL = re.compile(r"(?<!\S)\|(?!\S)")  # CELL alone; evaluation_match.normalised skips it too


def norm(text: str, *, rst: bool = False) -> str:
    """``text`` with every run of whitespace collapsed to one space, stripped; a cell
    separator standing alone counts as whitespace, and markdown's markup as the page shows
    it (:func:`visible`; with ``rst``, reStructuredText's too)."""
    return _WS.sub(" ", _CELL.sub(" ", visible(text, rst=rst)[0])).strip()


def label_forms(label: str) -> tuple[str, ...]:
    """What an expected sentence may read as in the stored text (:func:`norm`): as written,
    and, when it holds reStructuredText's markup, as the rST loader renders it."""
    plain, rendered = norm(label), norm(label, rst=True)
    return (plain,) if rendered == plain else (plain, rendered)


def visible(text: str, *, rst: bool = False) -> tuple[str, list[int]]:
    """``text`` as a rendered markdown page shows it — a link or an image as its text,
    without code spans' backticks or strong emphasis's asterisks — and each character's
    offset in ``text``. Markdown is stored as written, so a label copied from the rendered
    page ("csv (CSV table)") was never found in "`csv` ([CSV](https://…) table)": pandoc's
    review (2026-12-05) rewrote 24 of its 30 labels. A blockquote's "> " at a line's start
    is markup too. Text without such markup is itself."""
    if "`" not in text and "*" not in text and "_" not in text and "](" not in text and not (
            rst and ("\\" in text or "::" in text)) and not _QUOTED.search(text):
        return text, list(range(len(text)))
    chars: list[str] = []
    where: list[int] = []
    at = 0
    for m in (_RST if rst else _MARKUP).finditer(text):
        chars.extend(text[at:m.start()])
        where.extend(range(at, m.start()))
        inner = next((g for g in ("link", "em", "under", *(("ref", "esc") if rst else ()))
                      if m.group(g) is not None), None)
        if rst and m.group("role") is not None:  # a Sphinx role as the rST loader renders it
            from citewise.knowledge.loaders._rst_sphinx import unknown_role  # only for rST

            shown = unknown_role(m.group("role"))
            start = m.group("role").find(shown, m.group("role").index("`") + 1)
            chars.extend(shown)
            where.extend(range(m.start() + start, m.start() + start + len(shown)))
        elif rst and m.group("end") is not None:  # "as follows::" reads "as follows:"
            chars.append(":")
            where.append(m.start())
        elif inner is not None:  # the link's or the emphasis's text, itself rendered
            shown, at_inner = visible(m.group(inner), rst=rst)
            chars.extend(shown)
            where.extend(m.start(inner) + i for i in at_inner)
        at = m.end()
    chars.extend(text[at:])
    where.extend(range(at, len(text)))
    return "".join(chars), where


# A link or an image ("[text](address "title")": its text, a code span in it too: npm's
# "[`npm unpublish`](/commands/npm-unpublish)"), a code span's backtick, strong emphasis's
# "**", and emphasis by one "*" or "_" around words, a letter or digit inside each mark
# ("*must*", "_both_"; not "snake_case", a bullet's "* ", nor "an underscore (_) by default
# … (_)": Asciidoctor's ad18): npm's and Bootstrap's reviews (2026-12-07) rewrote 9 labels.
# And a blockquote's "> " at a line's start: Docker's notes ("> If you set the `--rm` flag,
# Docker also removes …" over two lines) could not be labelled as the page shows them
# (Docker's review, 2026-12-07) — a ">" with a blank or the line's end after it, not
# ">= 10" nor a doctest's ">>> " (code review, 2026-12-07).
_QUOTE_MARK = r"(?:^|(?<=\n))[ \t]{0,3}>(?:[ \t]|(?=\n)|\Z)"  # a blockquote's mark
_MARKUP = re.compile(rf"{_QUOTE_MARK}(?:>(?:[ \t]|(?=\n)|\Z))*"
                     r"|!?\[(?P<link>[^\]]{0,300})\]\([^)]{0,500}\)|`|\*\*"
                     r"|(?<![\w*])\*(?=[^\W_])(?P<em>[^*\n]{1,200}?)(?<=[^\W_])\*(?![\w*])"
                     r"|(?<![\w_])_(?=[^\W_])(?P<under>[^_\n]{1,200}?)(?<=[^\W_])_(?![\w_])")
# And, in a label only, reStructuredText's as its loader renders a Sphinx source (Sphinx's
# review, 2026-12-07: 12 of 30 labels copied from the .rst sources were "not found"): a role
# (":confval:`x`", ":ref:`Title <target>`", ":func:`~a.b`"), a reference ("`NumPy style`_",
# "`x <url>`__"), a backslash escape ("doesn\\'t"), a paragraph's closing "::". Not in the
# stored text: a page that shows a role's syntax as text (an HTML page on reST) keeps it.
_QUOTED = re.compile(_QUOTE_MARK)
_RST = re.compile(r"(?P<role>:[\w:+.-]{1,40}:`[^`\n]{1,300}`)"
                  r"|`(?P<ref>[^`<\n]{1,300}?)(?:\s*<[^<>\n]{0,500}>)?`__?(?!\w)"
                  r"|\\(?P<esc>[^\w\s])"
                  r"|(?<=\S)(?P<end>::)(?=[ \t]*(?:\n|$))|[ \t]+::(?=[ \t]*(?:\n|$))"
                  r"|" + _MARKUP.pattern)


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    """One labelled question. ``expected`` is None for a question the documents do not
    answer."""

    id: str
    question: str
    expected: tuple[str, ...] | None
    kind: str | None = None  # the question's kind, when its file gives one
    document: str | None = None
    split: str | None = None

    @property
    def answerable(self) -> bool:
        return self.expected is not None



def load_questions(path: str | Path) -> list[EvalQuestion]:
    """The questions of a JSONL file; a bad line raises ``InvalidInput`` naming it."""
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"no such question file: {path}", code="path_not_found")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{path}: cannot read: {exc}", code="invalid_questions") from None
    return parse_questions(text.splitlines(), name=str(path))


def parse_questions(lines: Iterable[str], *, name: str = "questions") -> list[EvalQuestion]:
    """Parse JSONL question lines (blank lines skipped); errors name ``name:LINE``."""
    out: list[EvalQuestion] = []
    seen: set[str] = set()
    bad: list[tuple[int, InvalidInput]] = []  # every bad line is read, the first is told
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            q = _parse_line(line, f"{name}:{number}")
            if q.id in seen:
                raise InvalidInput(f"{name}:{number}: duplicate id {q.id!r}",
                                   code="invalid_questions")
        except InvalidInput as exc:
            bad.append((number, exc))
            continue
        seen.add(q.id)
        out.append(q)
    if bad:
        first = bad[0][1]
        if len(bad) > 1:
            more = ", ".join(str(n) for n, _ in bad[1:_MORE + 1])
            more += ", …" if len(bad) > _MORE + 1 else ""
            raise InvalidInput(f"{first.message} (and {len(bad) - 1} more bad line(s): {more})",
                               code="invalid_questions", details={"lines": [n for n, _ in bad]})
        raise first
    if not out:
        raise InvalidInput(f"{name}: no questions", code="invalid_questions")
    return out


_MORE = 10  # bad lines' numbers told after the first's message


def _parse_line(line: str, where: str) -> EvalQuestion:
    def bad(why: str) -> InvalidInput:
        return InvalidInput(f"{where}: {why}", code="invalid_questions")

    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise bad(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise bad("a line must be a JSON object")
    unknown = sorted(set(row) - _KEYS)
    if unknown:
        raise bad(f"unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})")
    for key in ("id", "question"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise bad(f"{key!r} must be a non-empty string")
    for key in ("kind", "document", "split"):  # null is absent, as a JSON writer puts it
        if row.get(key) is not None and (not isinstance(row[key], str) or not row[key].strip()):
            raise bad(f"{key!r} must be a non-empty string when given")
    raw = row.get("expected")
    expected: tuple[str, ...] | None
    if raw == UNANSWERABLE:
        expected = None
    elif (isinstance(raw, list) and raw
          and all(isinstance(s, str) and norm(s) for s in raw)):
        expected = tuple(raw)
    elif raw == []:
        raise bad('"expected" is an empty list: write "unanswerable" for a question the '
                  'documents do not answer')
    else:
        raise bad('"expected" must be a non-empty list of sentences or "unanswerable"')
    return EvalQuestion(id=row["id"], question=row["question"], expected=expected,
                        kind=row.get("kind"), document=row.get("document"),
                        split=row.get("split"))
