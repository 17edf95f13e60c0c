"""Shared CLI plumbing: where data lives, opening the knowledge base, printing a run."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from citewise.cli.clipping import clipped
from citewise.events import Event
from citewise.grounding.claims import MARKER_GROUP
from citewise.grounding.declines import NO_ANSWER_ISSUE
from citewise.grounding.relevance import UNSUPPORTED_NOTE

if TYPE_CHECKING:
    from citewise.answer import Answer, CitationOccurrence, Snippet
    from citewise.knowledge.base import KnowledgeBase
    from citewise.store.base import Store

__all__ = [
    "StepPrinter",
    "add_data_dir",
    "data_dir",
    "database_url",
    "open_kb",
    "open_store",
    "print_answer",
    "progress_bar",
    "where",
]

_PASSAGE = re.compile(r"^\[\d+\] ", re.MULTILINE)
ENV_DATA_DIR = "CITEWISE_DATA_DIR"
ENV_DATABASE_URL = "CITEWISE_DATABASE_URL"
ENV_TENANT = "CITEWISE_TENANT"
ENV_EMBEDDER = "CITEWISE_EMBEDDER"
DB_NAME = "citewise.db"


def add_data_dir(parser: argparse.ArgumentParser, *, tenant: bool = False) -> None:
    """``--data-dir`` and ``--database-url`` (and, with ``tenant``, ``--tenant``: whose
    documents, threads and runs a command works on)."""
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help=f"where citewise keeps its SQLite file and indexes (env {ENV_DATA_DIR}; "
        "default: the user data directory)",
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        default=argparse.SUPPRESS,
        help=f"a PostgreSQL database (postgresql://…) to use instead of --data-dir, shared "
        f"by every replica (env {ENV_DATABASE_URL}; it wins over --data-dir, and "
        '--database-url "" means --data-dir; needs citewise[postgres])',
    )
    if tenant:
        parser.add_argument(
            "--tenant",
            metavar="NAME",
            default=argparse.SUPPRESS,
            help=f"the tenant whose documents, threads and runs to use (env {ENV_TENANT}; "
            "default: default) — the tenant an API key of the service acts for",
        )


def add_embedder(parser: argparse.ArgumentParser) -> None:
    """``--embedder NAME``: the text-embedding model of the knowledge base (remembered)."""
    parser.add_argument(
        "--embedder", metavar="NAME", default=argparse.SUPPRESS,
        help=f"the embedding model: minilm (default), minilm-128, static-minilm (~80x faster "
        f"to embed, a little less relevant), minilm-l3 (env {ENV_EMBEDDER}; remembered by the "
        "knowledge base: later commands use it without being told; see the README's table)")


def embedder_name(args: argparse.Namespace) -> str | None:
    return getattr(args, "embedder", None) or os.environ.get(ENV_EMBEDDER) or None


def data_dir(args: argparse.Namespace) -> Path:
    given = getattr(args, "data_dir", None) or os.environ.get(ENV_DATA_DIR)
    if given:
        return Path(given).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("citewise", appauthor=False))


def database_url(args: argparse.Namespace) -> str | None:
    """``--database-url`` or ``$CITEWISE_DATABASE_URL``; None: the embedded data dir. A
    database URL wins over ``--data-dir``; ``--database-url ""`` means the data dir even
    when the variable is set."""
    if hasattr(args, "database_url"):  # given on the command line (or set by a command)
        return args.database_url or None
    return os.environ.get(ENV_DATABASE_URL) or None


def where(args: argparse.Namespace) -> str:
    """What the command works on, for messages (a database URL without its password)."""
    url = database_url(args)
    if url is None:
        return str(data_dir(args))
    import sqlalchemy as sa

    try:
        from citewise.store._sql import shown_url

        return shown_url(sa.make_url(url))
    except sa.exc.ArgumentError:
        return "(invalid database URL)"


def open_store(args: argparse.Namespace) -> Store:
    """The store of ``--database-url``, else the SQLite file of ``--data-dir``."""
    url = database_url(args)
    if url is not None:
        from citewise.store.postgres import PostgresStore

        return PostgresStore(url)
    from citewise.store.sqlite import SQLiteStore

    return SQLiteStore(data_dir(args) / DB_NAME)


def progress_bar(done: int, total: int, unit: str) -> None:
    """A one-line progress bar, on a terminal only (the summary line says the rest)."""
    if total <= 0 or not sys.stderr.isatty():
        return
    width = 30
    filled = width * min(done, total) // total
    end = "\n" if done >= total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {unit}{end}")
    sys.stderr.flush()


def open_kb(args: argparse.Namespace, *, must_exist: bool = False) -> KnowledgeBase:
    """Open (or, unless ``must_exist``, create) the knowledge base of ``--data-dir``, or
    the one in the ``--database-url`` database."""
    from citewise.errors import NotFound
    from citewise.knowledge.base import KnowledgeBase
    from citewise.store.base import check_tenant

    url = database_url(args)
    tenant = check_tenant(getattr(args, "tenant", None) or os.environ.get(ENV_TENANT)
                          or "default")
    if url is not None:
        return KnowledgeBase.open_postgres(url, tenant=tenant, embedder_name=embedder_name(args))
    path = data_dir(args)
    if must_exist and not (path / DB_NAME).exists():
        raise NotFound(f"no knowledge base in {path}; run `citewise ingest PATH` first",
                       code="no_knowledge_base")
    return KnowledgeBase.open(path, tenant=tenant, embedder_name=embedder_name(args))


class StepPrinter:
    """Prints the agent's steps as they happen (to stderr, so stdout stays the answer)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self._in_thought = False

    def __call__(self, event: Event) -> None:
        w = self.out.write
        if event.kind == "thought":
            if not self._in_thought and event.text:
                w("· thought: ")
                self._in_thought = True
            w(event.text)
            if event.end_of_message and self._in_thought:
                w("\n")
                self._in_thought = False
        elif event.kind == "action":
            import json

            w(f"→ {event.tool} {json.dumps(event.input, ensure_ascii=False)}\n")
        elif event.kind == "observation":
            from citewise.agent.search_tool import SEARCHED  # here, not at the CLI's start

            first = event.text.strip().splitlines()[0] if event.text.strip() else ""
            if first.startswith(SEARCHED):  # a follow-up's search, its subject carried in
                w(f"  {first}\n")
            passages = len(_PASSAGE.findall(event.text))
            summary = f"{passages} passage(s)" if passages else first
            mark = "✗" if event.is_error else "←"
            w(f"{mark} {summary[:120]} ({event.duration_ms:.1f} ms)\n")
        elif event.kind == "warning":
            w(f"! warning [{event.code}]: {event.message}\n")
        elif event.kind == "error":
            w(f"✗ error [{event.code}]: {event.message}\n")
        elif event.kind == "run_paused":
            for i in event.interrupts:
                w(f"‖ paused: {i.tool} needs approval (interrupt {i.id})\n")
        self.out.flush()


# Stored as the file's own text, so a line of the stored text is a line of the file.
_LINE_TYPES = frozenset({"text/plain", "text/markdown"})


def file_lines(document: Mapping[str, Any]) -> bool:
    """Whether a document's stored text is its file's own (plain text, markdown, source
    code), so a line of it is a line of the file: an HTML page's or a PDF's is extracted,
    and "line 89" of it was line 442 of the page's source (GIMP's review, 2026-12-06)."""
    return document.get("content_type") in _LINE_TYPES or document.get("loader") == "source"


def print_answer(answer: Answer, kb: KnowledgeBase | None, out: TextIO | None = None) -> None:
    """The answer, then its sources: each cited document once — where it is (file:line
    for plain text, markdown and source code, the page for a PDF, the file alone for other
    formats, whose stored text is extracted: its lines are not the file's), its section when
    it has one — and under it every quote the answer took from it; a quote from another
    section, page or line of the same document says where it is first."""
    out = out or sys.stdout
    if answer.citations and any(i.code == NO_ANSWER_ISSUE for i in answer.issues):
        # Every claim unsupported (a quote off the question, a model's own words): said
        # first, where the answer is read, not after it nor only in a warning on stderr.
        out.write("The documents do not answer this question: what follows quotes the "
                  "closest passages, and they do not answer it.\n\n")
    elif answer.citations and any(i.code == "weak_evidence" for i in answer.issues):
        out.write(f"The evidence is weak (confidence {answer.confidence or 0:.2f}): check "
                  "that the first quote below answers the question.\n\n")
    shown = _shown_numbers(answer)
    text = answer.text.removesuffix(UNSUPPORTED_NOTE).strip()  # said above
    out.write(_renumbered(text, shown) + "\n")
    for issue in answer.issues:  # vectors still being computed: the answer says so
        if issue.code == "embedding_incomplete":
            sys.stderr.write(f"note: {issue.message} (`citewise status`)\n")
    if not answer.citations:
        _closest(answer, out)
        return
    # Under the decline, the sources are what a decline lists: its closest passages.
    declined = any(i.code == NO_ANSWER_ISSUE for i in answer.issues)
    out.write(f"\n{_CLOSEST if declined else 'Sources:'}\n")
    quotes: dict[int, list[tuple[str, str]]] = {}  # per document: (place, quote)
    texts: dict[str, str | None] = {}
    flagged = _flagged(answer)
    for c in answer.citations:
        label, quote = _labelled(answer, c)
        quote = _one_line(quote)
        # A quote is the evidence: cut only a very long one (at 160 the cut fell on the
        # answer itself, "events of severity WARNING a…", review, session 16).
        quote = clipped(quote, _QUOTE_CHARS)
        quote = f"{label}“{quote}”"
        if c.claim_index in flagged:
            quote += f"\n      ({flagged[c.claim_index]})"
        seen = quotes.setdefault(c.document_index, [])
        if all(q != quote for _, q in seen):
            seen.append((_place(answer, c, kb, texts), quote))
    for n, items in quotes.items():
        source = answer.search_documents[n - 1].source
        last = items[0][0]
        out.write(f"[{shown.get(n, n)}] {source}{last}\n")
        for place, quote in items:
            if place != last:
                out.write(f"    at {source.rsplit('/', 1)[-1]}{place}:\n")
                last = place
            out.write(f"    {quote}\n")


def _shown_numbers(answer: Answer) -> dict[int, int]:
    """The number each cited document gets in the plain answer: 1, 2, … in the order it is
    first cited. A marker is a document's place in ``search_documents`` (the wire formats'
    contract), so an answer from the search's second document read "… [2]" under a list of
    sources that began at [2] (new-user reviews, 2026-12-03 and -04). Left as they are
    when the text has a marker no citation explains: renumbered, it could collide."""
    shown: dict[int, int] = {}
    for c in answer.citations:
        shown.setdefault(c.document_index, len(shown) + 1)
    written = {int(n) for g in MARKER_GROUP.finditer(answer.text) for n in _NUMBER.findall(
        g.group(0))}
    return shown if written <= shown.keys() else {}


def _renumbered(text: str, shown: dict[int, int]) -> str:
    if not shown:
        return text
    return MARKER_GROUP.sub(lambda g: _NUMBER.sub(
        lambda n: str(shown.get(int(n.group(0)), n.group(0))), g.group(0)), text)


_NUMBER = re.compile(r"\d+")


def _flagged(answer: Answer) -> dict[int, str]:
    """Per claim that the checks found wanting, what to say under its quote. The warning
    went to stderr only, and a reader of the answer saw a quote that does not address the
    question among those that do, looking just as sure (new-user review, 2026-12-03). An
    answer all of whose claims fail is said so above it already."""
    if any(i.code == NO_ANSWER_ISSUE for i in answer.issues):
        return {}
    out: dict[int, str] = {}
    for issue in answer.issues:
        index = issue.details.get("claim_index") if issue.details else None
        if isinstance(index, int) and issue.code in _FLAGS:
            support = issue.details.get("support")
            score = f", support {support:.2f}" if isinstance(support, float) else ""
            out.setdefault(index, f"{_FLAGS[issue.code]}{score}")
    return out


_FLAGS = {"off_topic_evidence": "this passage does not address the question",
          "unsupported_claim": "this passage does not support the claim",
          "quote_not_in_source": "this quote is not in the source"}


_QUOTE_CHARS = 400
_CLOSEST = "Closest passages (they do not answer it):"


def _closest(answer: Answer, out: TextIO, limit: int = 3) -> None:
    """When the documents do not answer: the closest passages the search found, said to
    be no answer (a reader can judge; the JSON has them all in ``search_documents``)."""
    if not answer.search_documents or not any(
            i.code == NO_ANSWER_ISSUE for i in answer.issues):
        return
    out.write(f"\n{_CLOSEST}\n")
    for n, doc in enumerate(answer.search_documents[:limit], 1):
        if not doc.snippets:
            continue
        snippet = doc.snippets[0]
        raw = snippet.evidence.text if snippet.evidence else snippet.text
        # A markdown heading line is the section's name, shown after the source already.
        text = _one_line(" ".join(ln for ln in raw.splitlines()
                                  if not ln.lstrip().startswith("#")) or raw)
        text = clipped(text, 160)
        section = f" — {_one_line(snippet.section)}" if snippet.section else ""
        # With its page, as a cited passage has (new-user review of R's PDF manuals).
        out.write(f"[{n}] {doc.source}{_page(snippet)}{section}\n    “{text}”\n")


def _place(answer: Answer, c: CitationOccurrence, kb: KnowledgeBase | None,
           texts: dict[str, str | None]) -> str:
    """Where in its document a citation is, as a suffix of the document's source:
    ``" (page 3) — Costs"``, ``" (page iv, PDF page 4)"`` (a printed label), ``":12 — Install
    > Linux"``, ``"#opt-fresh — Options"`` (the page element it quotes, HTML), ``" — Hotels"``
    or ``""``."""
    from citewise.text import line_of

    doc = answer.search_documents[c.document_index - 1]
    snippet = doc.snippets[c.snippet_index] if c.snippet_index is not None else None
    where = ""
    if snippet is not None and snippet.page is not None:
        where = _page(snippet)
    elif (kb is not None and c.start_char is not None
          and file_lines(doc.document)):
        key = str(doc.document.get("id"))
        if key not in texts:
            texts[key] = kb.document_text(key)
        text = texts[key]
        if text is not None:
            where = f":{line_of(text, c.start_char)}"
    elif c.anchor:  # a link to the element quoted: "cmake.1.html#cmdoption-cmake-fresh"
        # … as a URL's fragment: AsciiDoc's listing ids have spaces ("#Listing%203").
        where = f"#{quote(c.anchor, safe=_FRAGMENT_SAFE)}"
    section = _one_line(snippet.section or "") if snippet is not None else ""
    if not section and doc.document.get("content_type") in _TITLED:  # a web page without
        # headings: its title (ImageMagick's webp.html was a bare path; review, 2026-12-08)
        title = _one_line(str(doc.document.get("title") or ""))
        name = doc.source.rsplit("/", 1)[-1]
        section = title if title not in ("", name, name.rsplit(".", 1)[0]) else ""
    return f"{where} — {section}" if section else where


_TITLED = frozenset(("text/html", "application/xhtml+xml", "application/epub+zip"))  # declared


_FRAGMENT_SAFE = "!$&'()*+,;=:@/?-._~"  # what RFC 3986 lets a fragment hold as it is


def _page(snippet: Snippet) -> str:
    """``" (page 3)"``, or with a printed label ``" (page iv, PDF page 4)"`` (the label is
    the page a reader looks for; the number, the viewer's); ``""`` off a paged format."""
    if snippet.page is None:
        return ""
    if snippet.page_label:
        return f" (page {snippet.page_label}, PDF page {snippet.page})"
    return f" (page {snippet.page})"


def _labelled(answer: Answer, c: CitationOccurrence) -> tuple[str, str]:
    """A quote of a definition's term and its sentence, as the claim names them ("folder
    magic: Specifies the type of folder to use …"): the term as a label before the quote
    marks, the sentence inside. On one line they read as one sentence, "folder magic
    Specifies the type of folder …" (Wireshark's, GIMP's and Mutt's reviews, 2026-12-06)."""
    term, brk, rest = c.excerpt.partition("\n")
    claims = answer.claims
    claim = claims[c.claim_index].text if c.claim_index is not None and \
        0 <= c.claim_index < len(claims) else ""
    if brk and rest.strip() and term.strip() and claim.startswith(f"{_one_line(term)}: "):
        return f"{_one_line(term)}: ", rest
    return "", c.excerpt


def _one_line(text: str) -> str:
    """``text`` on one line, without permalink marks (a page ingested before the HTML
    loader dropped them still has them in its section paths)."""
    return " ".join(text.replace("¶", " ").split())
