"""How the extractive model writes its chosen quotes as an answer: each sentence verbatim
with its marker, prose or a list, a paragraph per passage, the code or list a lead-in
introduces after it.

Why apart from the model (:mod:`.extractive`): the model decides what to quote and when to
search or decline; this is the answer's text, which verification then reads claim by
claim — so every sentence here must stay a substring of its passage (less the passage's
own bracketed footnotes and its hard line breaks), and a sentence without a full stop must
not run on into the next claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citewise.grounding.claims import BLOCK_LEAD, segments

__all__ = ["Quote", "render"]

_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’)\]]*\Z")


@dataclass(frozen=True, slots=True)
class Quote:
    """A candidate quote as the model weighs and writes it: a ranked sentence (or the
    sentences it is quoted with), where it is, and what comes with it."""

    score: float
    document_index: int
    text: str
    section: str = ""  # its passage's section path: quotes from two read as two paragraphs
    term: str = ""  # the term it is the first sentence under: named before the quote
    code: str = ""  # the line of code a lead-in introduces: quoted after it
    lead: str = ""  # the term its quote starts with, run on with its description
    items: tuple[str, ...] = ()  # the short list a lead-in introduces: quoted after it
    rank: int = 0  # its passage's rank in its search (0 = first)

    @property
    def words(self) -> str:
        """The text with its whitespace collapsed: two copies of a sentence broken into
        lines at other words are one quote (HAProxy's "setenv" and "presetenv" entries
        say "The changes immediately take effect …" alike, and it was quoted twice)."""
        return " ".join(self.text.split())


def render(chosen: list[Quote]) -> list[str]:
    """The answer's pieces: sentences run on as prose, each followed by its marker (a
    paragraph per passage); when one lacks a closing full stop (a list item, a heading),
    all are written as a list, or the claim splitter would glue it to the next sentence."""
    # One quote is no list ("- -i, --ignore-initial=SKIP" read as a double dash), and a
    # list of quotes that start with a dash takes "* " ("- -key filename" read as "--key").
    prose = len(chosen) == 1 or all(_SENTENCE_END.search(c.text) for c in chosen)
    dashed = any(c.text.startswith("-") for c in chosen)
    bullet = "" if prose else ("* " if dashed else "- ")
    return [f"{_separator(chosen[i - 1], c, prose) if i else ''}{bullet}{_marked(c)}"
            f"{_code_after(c) if prose else _code_under(c)}" for i, c in enumerate(chosen)]


def _code_after(c: Quote) -> str:
    """The code a quoted lead-in introduces, as a paragraph of its own with its marker
    ("… by running the command cargo fix: [1]" then "`cargo fix` [1]"), a claim cited and
    verified like the lead-in; not a fenced block, whose lines would be no claims. A list,
    or commands, one an item: each a claim, cited by its line."""
    bullet, lines = _introduced(c)
    if c.items or len(lines) > 1:
        return "\n\n" + "\n".join(f"{bullet if c.items else '- '}{x}" for x in lines)
    return f"\n\n{lines[0]}" if lines else ""


def _code_under(c: Quote) -> str:
    """In an answer written as a list, the code (or the list) a quoted lead-in introduces,
    each line an item under its item, cited: it was left out ("- To uninstall …, use the
    command [1]" with no command; Asymptote's review, 2026-12-07)."""
    bullet, lines = _introduced(c)
    return "".join(f"\n  {bullet}{x}" for x in lines)


def _introduced(c: Quote) -> tuple[str, list[str]]:
    """What a quoted lead-in introduces, each line as written with its marker (its list's
    items, or its code in code spans), and the bullet its lines take: "* " when one starts
    with a dash ("- -v" would read as a double dash)."""
    lines = list(c.items) or (c.code.split("\n") if c.code else [])
    bullet = "* " if any(line.startswith("-") for line in lines) else "- "
    shown = lines if c.items else [f"`{x}`" for x in lines]
    return bullet, [f"{x} [{c.document_index}]" for x in shown]


def _separator(before: Quote, c: Quote, prose: bool) -> str:
    """Between two quotes: a list's line break, or in prose a space — but a blank line
    between quotes from two sections or documents, which run on as one paragraph read as
    one passage ("… may make simultaneous backups fail. [1] Send a private email to the
    security contact …", from two entries of a FAQ)."""
    if not prose:
        return "\n"
    if before.code or before.items:
        return "\n\n"  # past the code's paragraph or the list
    same = (before.document_index, before.section) == (c.document_index, c.section)
    return " " if same else "\n\n"


def _marked(c: Quote) -> str:
    """``c``'s quote with its marker after each of its sentences: a quote of two ("Refuse
    to drop the table if … it. This is the default.") is two claims, each cited."""
    marker = f" [{c.document_index}]"
    spans = segments(c.text)
    # The term a definition is under, named first ("%*: Current time of day in 24-hour
    # format, with seconds."): the sentence alone does not say what it describes (zsh's
    # manual, new-user review 2026-12-04). Verification then cites the term with it.
    # A term that ends in its own colon ("bool / click.BOOL:", Sphinx's usual dt) gets no
    # second one (Click's review, 2026-12-05: "click.BOOL:: A parameter that …").
    label = (f"{_named(c.term.rstrip(':') or c.term)}: " if c.term and c.term not in c.text
             else "")
    if len(spans) < 2:
        return label + _unwrapped(c.text, c.lead) + marker
    # A part without a full stop runs on into the next as one claim: a marker after it
    # cited that claim twice ("… connection is dropped [1] Default: 30 [1]", lighttpd's
    # review, 2026-12-05).
    return label + " ".join(
        _unwrapped(c.text[a:b], c.lead if not i else "")
        + (marker if i == len(spans) - 1 or _SENTENCE_END.search(c.text[a:b].rstrip()) else "")
        for i, (a, b) in enumerate(spans))


_WRAP = re.compile(r"[ \t]*\n[ \t]*")


def _unwrapped(text: str, lead: str = "") -> str:
    """A prose quote's hard line breaks (a markdown paragraph wrapped at 72 columns) as
    spaces: the answer reads as a sentence. Its citation still points at the stored text,
    line breaks and all; a quote with a blank line or an indented line (code, a list) is
    kept as it is — except a definition: a term on its line and its sentence indented
    below it ("-w, --wrap=COLS\n    wrap encoded lines after COLS characters."), which
    reads as one line too. The term its loader marked (``lead``) is set off by a colon as
    a label is ("AccuracySec=: Specify the accuracy …": run on, the option read as the
    sentence's first word, systemd's review, 2026-12-05) — only that: a wrapped line is no
    term ("… a static web: server", HAProxy's review, 2026-12-05)."""
    if "\n\n" in text:
        return text
    if re.search(r"\n[ \t]", text):
        first, *rest = text.split("\n")
        indents = {len(line) - len(line.lstrip()) for line in rest if line.strip()}
        if first[:1].isspace() or len(indents) != 1 or not _SENTENCE_END.search(text):
            return text
    if lead and text.startswith(lead) and not lead.endswith((":", ".")):
        body = _WRAP.sub(" ", text[len(lead):]).strip()
        return f"{_named(_WRAP.sub(' ', lead))}: {body}" if body else _WRAP.sub(" ", text)
    return _WRAP.sub(" ", text)


def _named(term: str) -> str:
    """``term`` as an answer's line may open with it: in code when Markdown would read it
    as a list item or a heading — "+ or - (jump)", Lynx's keystroke help, lost its "+" to
    the list bullet (review, 2026-12-07)."""
    return f"`{term}`" if BLOCK_LEAD.match(f"{term} ") and "`" not in term else term
