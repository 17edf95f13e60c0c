"""Store benchmark: the durable event log on SQLite and on PostgreSQL (run by hand).

    python bench/store.py                 # both backends, writes bench/results/store.json
    python bench/store.py --readme        # … and the "## Store" section of bench/README.md
    python bench/store.py --postgres-url postgresql://…   # an existing server, not pgserver

Measures, per backend (fresh database each, same process, same synthetic events):

* ``append_events`` rate, one event per call (a commit per event: the worst case) and
  in batches of 100 (what the server's log writer does under load);
* ``read_events`` latency: a page of 100 from a random offset of a 2,000-event run, and
  the tail (``after`` = last seq - 5, what a streaming reader asks most often);
* PostgreSQL only: ``wait_for_events`` wake-up latency — one store appends, another
  (a second pool, as a second replica would have) is blocked in ``wait_for_events``;
  time from the append's commit returning to the waiter returning.

PostgreSQL runs from ``pgserver`` (PostgreSQL 16 + pgvector, unix socket, same machine)
unless ``--postgres-url`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.store.base import EventRecord, Store
from citewise.store.postgres import PostgresStore
from citewise.store.sqlite import SQLiteStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "store.json"
README = HERE / "README.md"
SINGLE = 1_000  # events appended one per call
BATCHED = 20_000  # events appended 100 per call
RUN_EVENTS = 2_000  # the run read back
READS = 500
WAKES = 100


def _events(run_id: str, start: int, n: int) -> list[EventRecord]:
    text = "Refunds are issued within 14 days of the request [1]. "
    return [
        EventRecord(run_id, seq, "answer_delta",
                    {"type": "answer_delta", "seq": seq, "run_id": run_id, "text": text[: 8 + seq % 40]})
        for seq in range(start, start + n)
    ]


def _stats(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples_s)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50_ms": round(q[49], 3), "p99_ms": round(q[98], 3), "mean_ms": round(statistics.fmean(ms), 3)}


def measure(store: Store, rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    evs = _events("single", 1, SINGLE)
    t0 = time.perf_counter()
    for e in evs:
        store.append_events("t1", [e])
    out["append_single_events_per_s"] = round(SINGLE / (time.perf_counter() - t0))

    evs = _events("batched", 1, BATCHED)
    t0 = time.perf_counter()
    for i in range(0, BATCHED, 100):
        store.append_events("t1", evs[i : i + 100])
    out["append_batch100_events_per_s"] = round(BATCHED / (time.perf_counter() - t0))

    store.append_events("t1", _events("read", 1, RUN_EVENTS))
    page, tail = [], []
    for _ in range(READS):
        after = rng.randrange(0, RUN_EVENTS - 100)
        t0 = time.perf_counter()
        got = store.read_events("t1", "read", after=after, limit=100)
        page.append(time.perf_counter() - t0)
        assert len(got) == 100 and got[0].seq == after + 1
        t0 = time.perf_counter()
        got = store.read_events("t1", "read", after=RUN_EVENTS - 5)
        tail.append(time.perf_counter() - t0)
        assert len(got) == 5
    out["read_page100"] = _stats(page)
    out["read_tail5"] = _stats(tail)
    return out


def measure_wake(owner: PostgresStore, follower: PostgresStore) -> dict[str, float]:
    samples: list[float] = []
    for i in range(1, WAKES + 1):
        ready = threading.Event()
        done: list[float] = []

        def wait(seq: int = i, ready: threading.Event = ready, done: list[float] = done) -> None:
            ready.set()
            got = follower.wait_for_events("t1", "wake", after=seq - 1, timeout=10)
            done.append(time.perf_counter())
            assert got and got[0].seq == seq

        t = threading.Thread(target=wait)
        t.start()
        ready.wait()
        time.sleep(0.02)  # let it reach the wait (a read that finds nothing, then sleep)
        owner.append_events("t1", _events("wake", i, 1))
        committed = time.perf_counter()
        t.join()
        samples.append(max(0.0, done[0] - committed))
    return _stats(samples)


@contextmanager
def postgres_server(url: str | None) -> Iterator[Callable[[], str]]:
    """Yields ``new_database() -> url``."""
    import psycopg
    import sqlalchemy as sa

    server: Any = None
    root = Path(tempfile.mkdtemp(prefix="cw-bench-pg-"))
    if url is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgserver.postgres_server import get_server

            server = get_server(root / "data", cleanup_mode="delete")
        url = server.get_uri()
    assert url is not None
    made: list[str] = []

    def new_database() -> str:
        name = f"bench_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return sa.make_url(url).set(database=name).render_as_string(hide_password=False)

    try:
        yield new_database
    finally:
        with psycopg.connect(url, autocommit=True) as c:
            for name in made:
                c.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if server is not None:
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def write_readme(res: dict[str, Any]) -> None:
    meta = res["meta"]
    rows = []
    for i, rnd in enumerate(res["rounds"], 1):
        for name, r in rnd["backends"].items():
            rows.append(
                f"| {name} | {i} ({rnd['load_avg'].split(',')[0]}) | "
                f"{r['append_single_events_per_s']:,} | {r['append_batch100_events_per_s']:,} | "
                f"{r['read_page100']['p50_ms']} / {r['read_page100']['p99_ms']} | "
                f"{r['read_tail5']['p50_ms']} / {r['read_tail5']['p99_ms']} | "
                + (f"{r['wake']['p50_ms']} / {r['wake']['p99_ms']}" if "wake" in r else "—") + " |"
            )
    rows.sort(key=lambda row: row.split("|")[1] != " SQLite ")  # SQLite rows first
    section = (
        "## Store\n\n"
        "`python bench/store.py --readme` — the durable event log through the `Store` API, "
        "each backend on a fresh database in the same process: "
        f"{SINGLE:,} events appended one per call (a commit each), {BATCHED:,} in batches of "
        f"100 (what the server's log writer does under load), then {READS} reads of a "
        f"100-event page at a random offset of a {RUN_EVENTS:,}-event run, and of its last "
        "5 events (a streaming reader's usual ask). *wake* (PostgreSQL only): a second "
        "store, as another replica would have, is blocked in `wait_for_events`; time from "
        "the appending store's commit to the waiter returning with the event (LISTEN/NOTIFY, "
        f"no polling), {WAKES} times. SQLite: WAL, `synchronous = NORMAL`, a file in /tmp. "
        f"PostgreSQL: {meta['postgres']} over a unix socket on the same machine, default "
        "settings (`synchronous_commit = on`: every commit waits for its WAL flush). "
        f"Machine: {meta['machine']}, shared (*round* gives the 1-minute load average at its "
        f"start), Python {meta['python']}; run {meta['date']}. Raw numbers: "
        "`bench/results/store.json`.\n\n"
        "| backend | round (load) | append, 1 per call (events/s) | append, 100 per call (events/s) | "
        "read 100 p50 / p99 ms | read tail p50 / p99 ms | wake p50 / p99 ms |\n"
        "|---|---|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\n"
        "Read as: every PostgreSQL call is 4 round trips to another process (pool pre-ping, "
        "BEGIN, the statement, COMMIT/ROLLBACK) and every commit waits for a WAL flush; on "
        "a shared machine each round trip also waits for a CPU, so the numbers move a lot with "
        "the load (compare the rounds). Batching hides most of the commit cost. What "
        "PostgreSQL buys is not speed on one "
        "machine but several API replicas and workers on one database — a run resumed exactly "
        "once across them, and a replica streaming another replica's run woken by NOTIFY.\n"
    )
    text = README.read_text() if README.exists() else "# Benchmarks\n\n"
    start = text.find("## Store")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + ("" if end < 0 else text[end:])
    README.write_text(text)


def run_once(new_database: Callable[[], str], rng: random.Random) -> dict[str, Any]:
    """One round: SQLite, then PostgreSQL, each on a fresh database."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    backends: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        s = SQLiteStore(Path(tmp) / "bench.db")
        try:
            backends["SQLite"] = measure(s, rng)
        finally:
            s.close()
    url = new_database()
    a, b = PostgresStore(url), PostgresStore(url)
    try:
        backends["PostgreSQL"] = measure(a, rng)
        backends["PostgreSQL"]["wake"] = measure_wake(a, b)
    finally:
        a.close()
        b.close()
    return {"load_avg": load, "backends": backends}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--postgres-url", help="an existing server (superuser: creates databases)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="repeat everything (the spread shows how much the machine's load moves it)")
    ap.add_argument("--readme", action="store_true", help="rewrite the ## Store section")
    args = ap.parse_args()
    rng = random.Random(7)
    with postgres_server(args.postgres_url) as new_database:
        probe = PostgresStore(new_database())
        try:
            with probe.engine.connect() as c:
                version = str(c.exec_driver_sql("SHOW server_version").scalar()).split()[0]
        finally:
            probe.close()
        rounds = [run_once(new_database, rng) for _ in range(args.rounds)]
    res = {
        "meta": {
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
            "python": platform.python_version(),
            "postgres": f"PostgreSQL {version}" + (" (pgserver)" if args.postgres_url is None else ""),
            "seed": 7,
        },
        "rounds": rounds,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))
    if args.readme:
        write_readme(res)


if __name__ == "__main__":
    main()
