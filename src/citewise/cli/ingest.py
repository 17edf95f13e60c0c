"""``citewise ingest PATH…``: store and index the files, then embed them here.

The documents are searchable (BM25) as soon as they are stored; embedding them — the
slow part — follows in this process with a progress line (rate, ETA), unless
``--no-wait`` leaves it to workers. Either way it is durable queued work: Ctrl-C or a
kill loses at most the batch being computed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.cli.common import add_data_dir, add_embedder, open_kb, progress_bar
from citewise.cli.progress import Meter, duration
from citewise.cli.watch import add_watch_options

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.ingest.report import IngestReport

__all__ = ["embed_progress", "print_report", "progress", "register"]


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
    p.add_argument(
        "--no-wait", action="store_true",
        help="return once the documents are searchable (lexically): leave their embedding "
             "to `citewise worker` or `citewise serve`")
    p.add_argument(
        "-v", "--verbose", action="store_true",
        help="name every skipped file (by default, three per reason and a count)")
    add_watch_options(p)
    add_data_dir(p, tenant=True)
    add_embedder(p)
    p.set_defaults(func=run)


def progress(done: int, total: int) -> None:
    """Files read (the ``--watch`` first pass)."""
    progress_bar(done, total, "files")


def embed_progress(done: int, total: int) -> None:
    """Chunks embedded for dense retrieval (the ``--watch`` first pass)."""
    progress_bar(done, total, "chunks embedded")


def run(args: argparse.Namespace) -> int:
    from citewise.errors import IngestError

    missing = [p for p in args.paths if not Path(os.path.expanduser(p)).exists()]
    if len(missing) == len(args.paths):
        # Nothing to do: refuse before creating or touching the knowledge base.
        raise IngestError(f"no such file or folder: {missing[0]}", code="path_not_found")
    with open_kb(args) as kb:
        if args.watch:  # until stopped: citewise/cli/watch.py
            from citewise.cli.watch import watch

            return watch(kb, args, progress=progress, embed_progress=embed_progress)
        files = Meter("files")
        try:
            report = kb.ingest(
                args.paths,
                collection=args.collection,
                progress=files,
                on_file=files.file,
                prune=args.prune,
                wait=False,  # searchable now; the vectors follow below (or from workers)
            )
        except KeyboardInterrupt:
            files.end()
            # Each document is written in a transaction of its own: those done are kept.
            sys.stderr.write(f"interrupted after reading {files.done} of {files.total} "
                             "files: the documents written so far are kept and searchable; "
                             "run the same ingest again to go on\n")
            return 130
        finally:
            files.end()
        print_report(report, every_skip=args.verbose)
        read = report.added or report.updated or report.unchanged or report.removed
        status = 0 if not report.failed else (1 if read else 2)
        if not read and not report.failed and report.skipped:
            # A folder of files no loader reads ("no loader for .3tcl files"): nothing went
            # in, and a script must not take it for success (Tcl's review, 2026-12-05).
            sys.stderr.write("error: nothing was ingested: every file was skipped\n")
            return 2
        if kb.dense is None:
            return status
        if args.no_wait:
            left = kb.embedding_status()
            if left.not_embedded:
                sys.stderr.write(
                    f"{_chunks(left.not_embedded)} left to embed: `citewise worker` (or "
                    "`serve`) embeds them; searches use what is embedded meanwhile\n")
            return status
        return _embed(kb) or status


def print_report(report: IngestReport, *, every_skip: bool = False) -> None:
    """Every failure on its own line, the skipped files (a few per reason, or with
    ``every_skip`` all of them), then the summary."""
    for failure in report.failed:  # every one, each with the file it is about
        said = failure.message
        if failure.path not in said:
            said = f"{failure.path}: {said}"
        sys.stderr.write(f"error: {said} [{failure.code}]\n")
    # A few of each reason by name, then how many more: a manual's 157 images were as many
    # lines above the summary that counts them (Graphviz's review, 2026-12-06).
    named: dict[str, int] = {}
    for path in report.skipped:
        reason = report.skip_reason(path)
        named[reason] = named.get(reason, 0) + 1
        if every_skip or named[reason] <= _SKIPS_NAMED:
            sys.stderr.write(f"skipped: {path} ({reason})\n")
    for reason, count in report.skipped_by_reason().items():
        if count > _SKIPS_NAMED and not every_skip:
            sys.stderr.write(f"skipped: … and {count - _SKIPS_NAMED} more ({reason}; "
                             "--verbose names them)\n")
    # Documents that went: each said, as a skip is (a page a newer reader finds only
    # navigation in is removed: code review, 2026-12-08).
    _named(report.removed, "removed", every_skip)
    _named([f"{old} -> {new}" for old, new in report.moved], "moved", every_skip)
    print(report.summary())


_SKIPS_NAMED = 3  # skipped files named per reason


def _named(lines: list[str], what: str, every: bool) -> None:
    for line in lines if every else lines[:_SKIPS_NAMED]:
        sys.stderr.write(f"{what}: {line}\n")
    if len(lines) > _SKIPS_NAMED and not every:
        sys.stderr.write(f"{what}: … and {len(lines) - _SKIPS_NAMED} more (--verbose names "
                         "them)\n")


def _embed(kb: KnowledgeBase) -> int:
    """Embed what is queued, in this process (beside any other worker); Ctrl-C keeps every
    batch already committed: the next ingest, or a worker, goes on from there."""
    before = kb.embedding_status()
    if not before.queue.pending:
        return 0
    if before.not_embedded:
        sys.stderr.write(f"searchable now (lexically); embedding "
                         f"{_chunks(before.not_embedded)} for dense search — Ctrl-C stops, "
                         "the next run resumes\n")
    elif (row := kb.status()[0])["sentences"] is not None and row["sentences"] < row["chunks"]:
        # A knowledge base made before sentence vectors: once, then answers are faster.
        sys.stderr.write(f"computing the sentence vectors of "
                         f"{_chunks(row['chunks'] - row['sentences'])} (once: answers then "
                         "embed only the question) — Ctrl-C stops, the next run resumes\n")
    else:  # queued by another process, or a job whose worker died after its last batch
        sys.stderr.write(f"finishing {before.queue.pending} queued embedding jobs\n")
    meter = Meter("chunks embedded")
    kb.embedding_only()  # nothing searches in this process: do not hold the vectors too
    try:
        last: list[str] = []

        def name(document_id: str) -> None:  # the progress line's current file
            if last == [document_id]:
                return  # the next block of the same document
            last[:] = [document_id]
            # Its metadata only (the record would read the document's whole text).
            found = kb.store.get_document_versions(kb.tenant, [document_id]).get(document_id)
            meter.file(str(found[2].get("path") or document_id) if found else document_id)

        stats = kb.embed_pending(progress=meter, on_document=name)
    except KeyboardInterrupt:
        meter.end()
        left = kb.embedding_status()
        sys.stderr.write(f"interrupted: {left.not_embedded} chunks not embedded yet (kept "
                         "what was done; `citewise ingest` again or `citewise worker` "
                         "goes on)\n")
        return 130
    finally:
        meter.end()
    after = kb.embedding_status()
    took = duration(time.monotonic() - meter.started)
    line = f"embedded {_chunks(stats.embedded)} in {took}"
    if stats.embedded and meter.rate():
        line += f" ({stats.embedded / max(time.monotonic() - meter.started, 1e-9):.1f}/s)"
    if stats.skipped:  # another worker, or an earlier run, had embedded them
        line += f"; {_chunks(stats.skipped)} found embedded already"
    if stats.sentences:
        line += f"; stored the sentence vectors of {_chunks(stats.sentences)}"
    if after.queue.failed:
        line += f"; {after.queue.failed} jobs failed (see `citewise status`)"
    sys.stderr.write(line + "\n")
    return 1 if after.queue.failed else 0


def _chunks(n: int) -> str:
    return f"{n} chunk" if n == 1 else f"{n} chunks"
