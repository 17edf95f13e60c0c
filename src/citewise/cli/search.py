"""``citewise search QUERY``: the passages the knowledge base finds, best first.

Why: ``ask`` shows what was quoted; when an answer is wrong or declined, a user's next
question is what the search found at all — the HTTP API has ``POST /v1/search`` and the
MCP server its search tool, and the command line had nothing (three new-user reviews,
2026-12-05, reached for ``citewise search`` and got "invalid choice"). The same call as
the route (:meth:`KnowledgeBase.search`), the same JSON shape under ``--json``
(``SearchResponse``); plain output is one block per passage: its place (source, section,
page, line or element), its score named for what it is, and its text with the lines it
has — a table's rows and a list's items one to a line, not run together (GIMP's and
Mutt's reviews read "Loop forever Frame rate …" as one sentence), paragraphs apart.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.cli.common import add_data_dir, file_lines, open_kb

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.retrieve.hits import Hit

__all__ = ["register"]

_SHOWN = 400  # characters of a passage shown without --full
_LINES = 12  # and its lines
_TAIL = 40  # a line cut shorter than this is left out ("Specifying …")
_WIDTH = 96
_MARGIN = "    "  # under a passage's heading line
# Two spaces or more inside a line, not after a stop; after a comma three (prose has two).
_COLUMNS = re.compile(r"(?:[^\s.,!?:;] {2,}|, {3,})\S")
# What a hit's score is, by the mode that found it: BM25's is unbounded, hybrid's the
# fused score in 0..1, dense's a cosine; one word "score" for all three read as one scale.
_SCORE = {"lexical": "BM25", "hybrid": "fused score", "dense": "cosine"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("search", help="the passages a query finds, best first (no answer)")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5, metavar="N", help="how many passages (1-50)")
    p.add_argument("--collection", default=None, help="only this collection's documents")
    p.add_argument("--source", default=None, metavar="PATH_OR_GLOB",
                   help='only this document, or documents matching a glob ("*.pdf")')
    p.add_argument("--mode", choices=("hybrid", "lexical", "dense"), default=None,
                   help="hybrid (default with embeddings), lexical (BM25) or dense")
    p.add_argument("--full", action="store_true", help="print whole passages")
    p.add_argument("--json", action="store_true",
                   help="print JSON (the HTTP API's SearchResponse)")
    # No --embedder: a lookup must not re-key the knowledge base (``ask`` and ``ingest``
    # choose the embedder; a search uses the one it has).
    add_data_dir(p, tenant=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from citewise.agent.search_tool import NO_DOCUMENT_CONTAINS
    from citewise.errors import InvalidInput

    query = " ".join(str(args.query).split())
    if not query:
        raise InvalidInput("the query is empty", code="empty_query")
    if not 1 <= args.k <= 50:
        raise InvalidInput(f"-k must be 1 to 50, got {args.k}", code="invalid_k")
    filters = {key: value for key, value in (("collection", args.collection),
                                             ("source", args.source)) if value}
    with open_kb(args, must_exist=True) as kb:
        found = kb.retrieve(query, k=args.k, filters=filters or None, mode=args.mode)
        hits = found.hits
        unknown = _unknown_source(kb, args.source) if args.source and not hits else None
        # What the agent's search tool says before its passages (README: "No document
        # contains: bcrypt"); BIRD's review looked for it here (2026-12-06).
        missing = [] if args.json else kb.unmentioned(query)
    if unknown is not None:
        print(unknown, file=sys.stderr)
    if args.json:
        from citewise.server.schemas import SearchResponse, hit_info

        response = SearchResponse(hits=[hit_info(h, h.source) for h in hits])
        print(json.dumps(response.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return 0
    if missing:
        print(f"{NO_DOCUMENT_CONTAINS}{', '.join(missing)}\n")
    if not hits:
        print("no passage found")
        return 0
    score = _SCORE.get(found.mode, "score")
    for n, hit in enumerate(hits, 1):
        print(f"[{n}] {_place(hit)}  ({score} {hit.score:.3f})")
        at = 0 if args.full else _focus(hit.text, query)
        print("\n".join(([_MARGIN + "…"] if at else []) + _body(hit.text[at:], full=args.full)))
    return 0


def _focus(text: str, query: str) -> int:
    """Where the shortened view of a passage starts: at its start when the line with the
    most of the query's words is in the view from there (:data:`_SHOWN` characters and
    :data:`_LINES` lines, as :func:`_body` cuts), else at that line. Privoxy's option
    entries open with field labels ("Specifies: / Type of value: / Default value: …"),
    and the view never reached the notes that answered (new-user review, 2026-12-07)."""
    from citewise.text import content_terms

    asked = set(content_terms(query))
    best, at, start, shown = 0, 0, 0, 0
    view = 0  # where the view from the start ends
    for line in text.splitlines(keepends=True):
        if line.strip() and shown < _LINES and start < _SHOWN:
            shown += 1
            view = start + len(line)
        found = len(asked & set(content_terms(line)))
        if found > best:
            best, at = found, start
        start += len(line)
    return 0 if at < view else at


def _body(text: str, *, full: bool) -> list[str]:
    """A passage's lines as printed: each of its lines wrapped under a four-space margin
    (its own indent kept), runs of blank lines one; without ``full``, about the first
    :data:`_SHOWN` characters in at most :data:`_LINES` lines, then "…"."""
    out: list[str] = []
    left = _SHOWN
    for raw in text.expandtabs(4).splitlines():
        # A line laid out in columns (a key and what it does, side by side in a <pre>)
        # keeps its spacing: run together, "+ (or SPACE,   - If the bottom of …" read as
        # one phrase (Lynx's review, 2026-12-07). Two spaces after a full stop are no column.
        fits = len(_MARGIN) + len(raw.rstrip()) <= _WIDTH  # printed under the margin
        columns = fits and _COLUMNS.search(raw.strip()) is not None
        words = raw.strip() if columns else " ".join(raw.split())
        if not words:
            if out and out[-1]:
                out.append("")
            continue
        cut = not full and len(words) > left
        if not full and (len(out) >= _LINES or (cut and left < _TAIL)):
            out.append(_MARGIN + "…")
            break
        if cut:
            words = words[:left].rsplit(" ", 1)[0] + " …"
        # A line that fits keeps its whole indent: an option's description continued
        # under its column ("-A <start time>  only read …" / 25 spaces "to) the given
        # time.") was printed 9 columns left of it (Wireshark's review, 2026-12-07).
        indent = len(raw) - len(raw.lstrip())
        margin = _MARGIN + " " * (indent if fits else min(indent, 16))
        if columns:
            out.append(margin + words)
        else:
            out += _wrapped(words, margin)
        if cut:
            break
        left -= len(words)
    while out and not out[-1]:
        out.pop()
    return out


def _wrapped(words: str, margin: str) -> list[str]:
    """``words`` wrapped under ``margin`` at :data:`_WIDTH`, with no word left alone on the
    last line: a line a word too long for the width was printed with that word under it,
    read as a line of its own (Docker's review, 2026-12-07) — narrower lines, down to two
    thirds of the width, until the last holds two words or more."""
    first: list[str] | None = None
    for width in range(_WIDTH, _WIDTH * 2 // 3, -1):
        # Not at a hyphen: "--ignore-space-change" stays one word to copy (review,
        # 2026-12-05).
        lines = textwrap.wrap(words, width=width, initial_indent=margin,
                              subsequent_indent=margin, break_on_hyphens=False,
                              break_long_words=False)
        first = first or lines
        if len(lines) < 2 or " " in lines[-1].strip():
            return lines
    return first or []


def _unknown_source(kb: KnowledgeBase, given: str) -> str | None:
    """What to tell a user whose ``--source`` names no document: a relative path is read
    from the current folder, as ``ingest`` reads it, and "quickstart.html" given from
    elsewhere found nothing, silently (new-user review, 2026-12-06). None when the path (or
    a glob, or a URI) names documents that the query merely did not find."""
    from citewise.knowledge.ingest.files import source_for

    if "://" in given or any(ch in given for ch in "*?[") or kb.find_document(given):
        return None
    wanted = source_for(given)
    name = Path(wanted).name
    alike = kb.store.sources_named(kb.tenant, name, limit=_ALIKE)
    hint = (f"; documents named {name}: " + ", ".join(alike[:_ALIKE]) if alike
            else f'; a glob matches anywhere in the path ("*/{name}", "*/{name}/*")')
    return (f"note: no document's source is {wanted} (a relative path is read from the "
            f"current folder, as ingest reads it){hint}")


_ALIKE = 3


def _place(hit: Hit) -> str:
    """Where a passage is: its source, section, and page or line."""
    parts = [hit.source]
    if hit.section:
        parts.append(hit.section)
    if hit.page is not None:
        parts.append(f"p. {hit.page_label or hit.page}")
    elif hit.line is not None and file_lines(hit.metadata):
        parts.append(f"line {hit.line}")
    elif hit.anchor:  # an extracted page: the element it is at
        parts.append(f"#{hit.anchor}")
    return " — ".join(parts)
