"""``citewise ingest PATH…``"""

from __future__ import annotations

import argparse
import sys

from citewise.cli.common import add_data_dir, open_kb

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ingest", help="add files or folders (.txt, .md, …) to the knowledge base")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--collection", default="default", help="collection to put them in")
    add_data_dir(p)
    p.set_defaults(func=run)


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    end = "\n" if done >= total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files{end}")
    sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    from citewise.errors import IngestError

    with open_kb(args) as kb:
        report = kb.ingest(args.paths, collection=args.collection, progress=_progress)
    if report.failed and not (report.added or report.updated or report.unchanged):
        first = report.failed[0]
        raise IngestError(f"{first.path}: {first.message}", code=first.code)
    for failure in report.failed:
        sys.stderr.write(f"error: {failure.path}: {failure.message} [{failure.code}]\n")
    print(report.summary())
    return 1 if report.failed else 0
