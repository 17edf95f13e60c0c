"""``citewise worker``: embed queued chunks, alone — as many of them as you like.

Any number of these processes, on any machines reaching the same database
(``--database-url``; or one embedded ``--data-dir``), share its embedding queue: each
leases one block of chunks at a time, commits its vectors batch by batch and renews the
lease while it works; a worker that dies (``kill -9``, a lost machine) loses its lease,
never a committed vector, and another takes the job over. SIGTERM or Ctrl-C stops it
after the batch in progress, giving its jobs back at once.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from types import FrameType

from citewise.cli.common import add_data_dir, add_embedder, open_kb
from citewise.cli.progress import LOG_EVERY_S, duration

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "worker", help="embed queued chunks in the background (N of them share one queue)",
        epilog="Runs until SIGTERM or Ctrl-C; --drain exits once the queue is empty.")
    p.add_argument("--drain", action="store_true",
                   help="exit when nothing is left to embed, instead of waiting for more")
    p.add_argument("--idle", type=float, default=1.0, metavar="S",
                   help="seconds between looks at an empty queue (default 1)")
    add_data_dir(p)
    add_embedder(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from citewise.errors import UsageError

    if not args.idle > 0:
        raise UsageError("--idle must be above 0", code="invalid_interval")
    stop = threading.Event()

    def on_signal(_sig: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with open_kb(args, must_exist=True) as kb, kb.embed_worker() as worker:
            kb.embedding_only()  # it stores vectors; the processes that search load them
            sys.stderr.write(f"worker {worker.owner}: embedding with {_model(kb)}\n")
            sys.stderr.flush()
            log = threading.Thread(target=_log_lines, args=(worker, stop), daemon=True)
            log.start()
            if args.drain:
                worker.drain(stop=stop)
            else:
                worker.run_forever(stop, idle_s=args.idle)
            stop.set()
            log.join(timeout=2)
            s = worker.stats
            sys.stderr.write(f"worker {worker.owner}: stopped; {s.jobs} jobs, "
                             f"{s.embedded} chunks embedded, sentences of {s.sentences} "
                             f"chunks, {s.failed} failed\n")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _model(kb: object) -> str:
    dense = getattr(kb, "dense", None)
    return str(getattr(dense, "model", "?"))


def _log_lines(worker: object, stop: threading.Event) -> None:
    """One line about every ``LOG_EVERY_S`` s while there is work: rate and queue."""
    from citewise.knowledge.ingest.embed_worker import EmbedWorker

    assert isinstance(worker, EmbedWorker)
    started = time.monotonic()
    last = 0
    while not stop.wait(LOG_EVERY_S):
        # A chunk counts once: its vector, or (a base made before them) its sentences'.
        done = max(worker.stats.embedded, worker.stats.sentences)
        if done == last:
            continue
        jobs, chunks = worker.store.pending_embed_jobs()
        rate = (done - last) / LOG_EVERY_S
        eta = f", ETA {duration(chunks / rate)} at this rate" if rate > 0 and chunks else ""
        sys.stderr.write(f"{done} chunks embedded ({rate:.1f}/s, up "
                         f"{duration(time.monotonic() - started)}); queue: {jobs} jobs, "
                         f"{chunks} chunks{eta}\n")
        sys.stderr.flush()
        last = done
