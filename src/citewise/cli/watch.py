"""``citewise ingest --watch PATH…``: keep the knowledge base in step with folders until
stopped.

Why polling: a stat of every file each interval costs milliseconds for thousands of files,
works the same on every OS, filesystem and network mount (inotify misses NFS and SMB
changes, and has per-user watch limits), and needs no dependency. The first pass is an
ordinary ``ingest --prune`` (so deletions made while nothing watched are caught up); then
the files are polled by (mtime, size, inode). A change is acted on once the tree has been
quiet for ``--debounce`` seconds (an editor's save, a ``git checkout``, a copy of many
files: one sync, not one per write; at most :data:`MAX_SETTLE_S` of waiting on a tree that
never settles), and then only what changed is read: the changed and new files go through
the same incremental ``KnowledgeBase.ingest``, and the documents of deleted files are
deleted. A file counts as deleted only when it is known to be gone, as with ``--prune``: not
when it sits behind a folder that became unreadable, and nothing at all under a watched
folder that is itself missing (an unmounted drive must not empty the knowledge base).

The writer lock is taken per sync, not for the watch, so ``citewise ask`` in another
process works between syncs. SIGINT (Ctrl-C) or SIGTERM stops the watch cleanly, exit
status 0: a sync in progress finishes first (its writes are transactions either way); a
second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase

__all__ = ["MAX_SETTLE_S", "add_watch_options", "snapshot", "watch"]

#: Longest wait for a tree that keeps changing before it is synced anyway.
MAX_SETTLE_S = 10.0

Signature = tuple[int, int, int]  # (mtime_ns, size, inode)
Progress = Callable[[int, int], None]


def add_watch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--watch", action="store_true",
                   help="keep following changes (edits, new files, deletions, which are "
                        "pruned) until stopped with Ctrl-C")
    p.add_argument("--watch-interval", type=float, default=1.0, metavar="SECONDS",
                   help="with --watch: how often to look for changes (default 1)")
    p.add_argument("--debounce", type=float, default=0.5, metavar="SECONDS",
                   help="with --watch: how long the files must be quiet before a sync "
                        "(default 0.5)")


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _files(root: str, kb: KnowledgeBase, exclude: set[tuple[int, int]]) -> Iterator[str]:
    """What a folder ingest reads under ``root``: files a loader reads, no hidden names nor
    the folders an ingest leaves out, symlinked folders followed once, the data directory
    left out."""
    from citewise.knowledge.ingest.files import left_out_file, left_out_folder

    seen = set(exclude)
    for here, dirs, files in os.walk(root, followlinks=True):
        ident = _identity(here)
        if ident in seen:
            dirs[:] = []
            continue
        if ident is not None:
            seen.add(ident)
        dirs[:] = [d for d in dirs if not left_out_folder(here, d)]
        for name in files:
            path = os.path.join(here, name)
            if (not name.startswith(".") and not left_out_file(here, name)
                    and (kb.registry.for_path(name) is not None or _sniffed(kb, path))):
                yield path


def _sniffed(kb: KnowledgeBase, path: str) -> bool:
    """Whether a loader reads ``path`` by its first bytes (a text file with no extension),
    read again only when the file changes: a poll is a ``stat`` per file, not a read."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    key = (path, st.st_mtime_ns, st.st_size, st.st_ino)
    known = _SNIFFED.get(key)
    if known is None:
        if len(_SNIFFED) >= _SNIFFED_MAX:
            _SNIFFED.clear()
        known = _SNIFFED[key] = kb.registry.for_file(Path(path)) is not None
    return known


_SNIFFED: dict[tuple[str, int, int, int], bool] = {}
_SNIFFED_MAX = 100_000


def snapshot(roots: list[str], kb: KnowledgeBase) -> dict[str, Signature]:
    """``{path: (mtime_ns, size, inode)}`` of every file the watched paths hold."""
    exclude = set()
    if kb.data_dir is not None and (ident := _identity(str(kb.data_dir))) is not None:
        exclude.add(ident)
    out: dict[str, Signature] = {}
    for root in roots:
        candidates = _files(root, kb, exclude) if os.path.isdir(root) else iter([root])
        for path in candidates:
            try:
                st = os.stat(path)
            except OSError:
                continue
            out[path] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return out


def _under_present_root(path: str, roots: list[str]) -> bool:
    return any(path == r or (os.path.isdir(r) and path.startswith(r.rstrip(os.sep) + os.sep))
               for r in roots)


class _Stopper:
    """SIGINT/SIGTERM set a flag (the loop ends after the current sync); the next SIGINT
    raises KeyboardInterrupt as usual."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _Stopper:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.event.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)


def _print(report_line: str, failures: list[tuple[str, str, str]]) -> None:
    for path, message, code in failures:
        said = message if path in message else f"{path}: {message}"
        sys.stderr.write(f"error: {said} [{code}]\n")
    stamp = datetime.now().strftime("%H:%M:%S")
    sys.stdout.write(f"{stamp} {report_line}\n")
    sys.stdout.flush()
    sys.stderr.flush()


def watch(kb: KnowledgeBase, args: argparse.Namespace, *, progress: Progress | None = None,
          embed_progress: Progress | None = None) -> int:
    """Sync ``args.paths`` now, then on every change until stopped; returns 0. The progress
    callbacks report the first pass (the later ones are small)."""
    from citewise.errors import InvalidInput

    interval, debounce = args.watch_interval, args.debounce
    if not (interval > 0 and debounce >= 0):
        raise InvalidInput("--watch-interval must be above 0 and --debounce 0 or more",
                           code="invalid_interval")
    roots = [os.path.abspath(os.path.expanduser(p)) for p in args.paths]
    with _Stopper() as stop:
        report = kb.ingest(roots, collection=args.collection, progress=progress,
                           embed_progress=embed_progress, prune=True)
        _print(report.summary(), [(f.path, f.message, f.code) for f in report.failed])
        seen = snapshot(roots, kb)
        sys.stderr.write(f"watching {len(seen)} files in {len(roots)} path(s); "
                         "Ctrl-C to stop\n")
        sys.stderr.flush()
        while not stop.event.wait(interval):
            now = snapshot(roots, kb)
            if now == seen:
                continue
            settle_by = time.monotonic() + MAX_SETTLE_S
            while time.monotonic() < settle_by and not stop.event.wait(debounce):
                later = snapshot(roots, kb)
                if later == now:
                    break
                now = later
            if stop.event.is_set():
                break  # the next run's first pass catches this change up
            _sync(kb, args, roots, seen, now)
            seen = now
    sys.stderr.write("stopped watching\n")
    return 0


def _sync(kb: KnowledgeBase, args: argparse.Namespace, roots: list[str],
          before: dict[str, Signature], now: dict[str, Signature]) -> None:
    from citewise.knowledge.ingest.files import file_gone

    changed = [p for p, sig in now.items() if before.get(p) != sig]
    deleted = [p for p in before
               if p not in now and file_gone(p) and _under_present_root(p, roots)]
    report = kb.ingest(changed, collection=args.collection, walked=True)
    for path in deleted:
        doc = kb.find_document(Path(path))
        if doc is not None and kb.delete_document(doc.id):
            report.removed.append(path)
    if changed or report.removed:
        _print(report.summary(), [(f.path, f.message, f.code) for f in report.failed])
