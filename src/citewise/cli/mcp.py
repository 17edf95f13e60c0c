"""``citewise mcp [--data-dir DIR]``: serve the knowledge base over MCP (stdio).

Tools: ``ask`` {question} → answer + citations (structured content; a paused run's
interrupts), ``resume`` {run_id, decisions}, ``search`` {query}.
stdout carries the protocol only; logs go to stderr.
"""

from __future__ import annotations

import argparse
import os

from citewise.cli.common import add_data_dir, add_embedder, open_kb

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("mcp", help="serve the knowledge base as an MCP server over stdio")
    p.add_argument("--model", default=None, help="model string for `ask` (default: extractive)")
    add_data_dir(p, tenant=True)
    add_embedder(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from citewise.mcp.server import serve_stdio

    with open_kb(args) as kb:
        model = args.model or os.environ.get("CITEWISE_MODEL") or "extractive"
        anyio.run(lambda: serve_stdio(kb, model=model))
    return 0
