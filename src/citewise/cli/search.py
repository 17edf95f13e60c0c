"""``citewise search QUERY``: the passages the knowledge base finds, best first.

Why: ``ask`` shows what was quoted; when an answer is wrong or declined, a user's next
question is what the search found at all — the HTTP API has ``POST /v1/search`` and the
MCP server its search tool, and the command line had nothing (three new-user reviews,
2026-12-05, reached for ``citewise search`` and got "invalid choice"). The same call as
the route (:meth:`KnowledgeBase.search`), the same JSON shape under ``--json``
(``SearchResponse``); plain output is one block per passage: its place (source, section,
page or line), its score, and its text on one line.
"""

from __future__ import annotations

import argparse
import json
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
    from citewise.errors import InvalidInput

    query = " ".join(str(args.query).split())
    if not query:
        raise InvalidInput("the query is empty", code="empty_query")
    if not 1 <= args.k <= 50:
        raise InvalidInput(f"-k must be 1 to 50, got {args.k}", code="invalid_k")
    filters = {key: value for key, value in (("collection", args.collection),
                                             ("source", args.source)) if value}
    with open_kb(args, must_exist=True) as kb:
        hits = kb.search(query, k=args.k, filters=filters or None, mode=args.mode)
        unknown = _unknown_source(kb, args.source) if args.source and not hits else None
    if unknown is not None:
        print(unknown, file=sys.stderr)
    if args.json:
        from citewise.server.schemas import SearchResponse, hit_info

        response = SearchResponse(hits=[hit_info(h, h.source) for h in hits])
        print(json.dumps(response.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print("no passage found")
        return 0
    for n, hit in enumerate(hits, 1):
        print(f"[{n}] {_place(hit)}  (score {hit.score:.3f})")
        text = " ".join(hit.text.split())
        if not args.full and len(text) > _SHOWN:
            text = text[:_SHOWN].rsplit(" ", 1)[0] + " …"
        # Not at a hyphen: "--ignore-space-change" stays one word to copy (review, 2026-12-05).
        print(textwrap.indent(textwrap.fill(text, width=96, break_on_hyphens=False,
                                            break_long_words=False), "    "))
    return 0


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
