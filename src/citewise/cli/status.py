"""``citewise status``: what the knowledge base holds and how much is left to embed.

Per tenant: documents, chunks, chunks searchable by vector and not yet, the embedding
queue (pending, running and failed jobs), and the chunks whose sentences are embedded for
the answers ("-": not computed) — the numbers an operator checks after ``citewise ingest
--no-wait``, or to see whether the workers keep up.
"""

from __future__ import annotations

import argparse
import json
import os

from citewise.cli.common import ENV_TENANT, add_data_dir, open_kb

__all__ = ["register"]

_COLUMNS = (("tenant", "tenant"), ("documents", "docs"), ("chunks", "chunks"),
            ("embedded", "embedded"), ("not_embedded", "not embedded"),
            ("pending_jobs", "pending jobs"), ("running_jobs", "running"),
            ("failed_jobs", "failed jobs"), ("sentences", "sentences"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "status", help="documents, chunks and the embedding queue, per tenant",
        epilog="Every tenant unless --tenant (or CITEWISE_TENANT) names one.")
    p.add_argument("--json", action="store_true", help="one JSON object: {tenants: [...]}")
    add_data_dir(p, tenant=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    one = getattr(args, "tenant", None) or os.environ.get(ENV_TENANT)
    with open_kb(args, must_exist=True) as kb:
        rows = kb.status(all_tenants=not one)
    if args.json:
        print(json.dumps({"tenants": rows}, indent=2))
        return 0
    table = [[label for _, label in _COLUMNS]]
    table += [["-" if row[key] is None else str(row[key]) for key, _ in _COLUMNS]
              for row in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(_COLUMNS))]
    for r in table:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    if any(not row["dense"] for row in rows):
        print("(dense retrieval is off: nothing is embedded)")
    return 0
