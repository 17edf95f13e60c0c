"""``citewise ingest PATH…``"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from citewise.cli.common import add_data_dir, open_kb, progress_bar

__all__ = ["embed_progress", "progress", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "ingest", help="add files or folders (.txt, .md, …) to the knowledge base",
        epilog="Each file that cannot be ingested is reported on its own line; the others are "
               "ingested. Exit status: 0 all went in, 1 some files failed, 2 none went in.")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--collection", default="default", help="collection to put them in")
    p.add_argument(
        "--prune",
        action="store_true",
        help="also remove documents of files that no longer exist under the given folders",
    )
    add_data_dir(p, tenant=True)
    p.set_defaults(func=run)


def progress(done: int, total: int) -> None:
    """Files read."""
    progress_bar(done, total, "files")


def embed_progress(done: int, total: int) -> None:
    """Chunks embedded for dense retrieval (the slow part of a large ingest)."""
    progress_bar(done, total, "chunks embedded")


def run(args: argparse.Namespace) -> int:
    from citewise.errors import IngestError

    missing = [p for p in args.paths if not Path(os.path.expanduser(p)).exists()]
    if len(missing) == len(args.paths):
        # Nothing to do: refuse before creating or touching the knowledge base.
        raise IngestError(f"no such file or folder: {missing[0]}", code="path_not_found")
    with open_kb(args) as kb:
        report = kb.ingest(
            args.paths,
            collection=args.collection,
            progress=progress,
            embed_progress=embed_progress,
            prune=args.prune,
        )
    for failure in report.failed:  # every one, each with the file it is about
        said = failure.message
        if failure.path not in said:
            said = f"{failure.path}: {said}"
        sys.stderr.write(f"error: {said} [{failure.code}]\n")
    print(report.summary())
    if not report.failed:
        return 0
    return 1 if report.added or report.updated or report.unchanged or report.removed else 2
