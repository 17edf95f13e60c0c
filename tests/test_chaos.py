"""Chaos against real processes (issue 25): replicas stopped past their lease, killed at
random points of a run or an ingest, and fed a catastrophic regex — while their
``/healthz`` is polled.

Each replica is its own process (``tests/_chaos_replica.py``: ``create_app`` under
uvicorn), two of them sharing one PostgreSQL database with a short run lease, one more on
an SQLite data directory. The invariants, after every attack:

* every run's log holds exactly one final event (``run_finished`` / ``error``), and it
  is the log's last; the run's status agrees with it and does not change afterwards;
* a process that lost a run runs none of its tools after that and writes nothing more;
* a refused request writes nothing (no thread, no run);
* a killed ingest leaves a store the next process opens consistently;
* ``/healthz`` of every replica that is not stopped keeps answering: every poll gets a
  200, none waits as long as a stall (a blocked event loop would hold it for the whole
  attack — hours for the regex). A stall bound, not a latency figure: latency is for
  ``bench/service.py``, and the earlier 200 ms p99 bound failed on a loaded machine.

Marked slow: the module takes about a minute. Later scenarios may be appended at the end.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from _stores import PG, admin, database_url, pg_server  # noqa: F401  (fixture)
from citewise.store.base import EventRecord, Store, decoded
from citewise.store.postgres import PostgresStore

pytestmark = PG

HERE = Path(__file__).parent
LEASE_S = 3.0
TENANT = "default"
FINAL = ("run_finished", "error")
EVIL = {"type": "string", "pattern": "^(a+)+$"}
STALL_S = 2.0  # ten times what a loaded machine was seen to take


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Replica:
    """One server process; ``start`` again after ``kill`` for a fresh process."""

    name: str
    config: dict[str, Any]
    marks: Path
    port: int = field(default_factory=_free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> None:
        config = {**self.config, "host": "127.0.0.1", "port": self.port}
        log = open(self.marks.with_suffix(f".{self.name}.log"), "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "_chaos_replica.py"), json.dumps(config),
             str(self.marks)], stdout=log, stderr=subprocess.STDOUT, cwd=HERE,
            env={**os.environ, "PYTHONPATH": str(HERE)})
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc.poll() is None, f"replica {self.name} exited: see its log"
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"replica {self.name} did not start"
            time.sleep(0.1)
        # One question first: a fresh process loads what answering needs (the query
        # embedder's ONNX session holds the GIL ~1 s as it loads). That is start-up, not
        # an attack, and is not what /healthz is judged on.
        with self.http(timeout=timeout) as http:
            assert http.post("/v1/ask", json={"question": "warm up"}).status_code == 200

    def signal(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a stopped process dies too
            self.proc.kill()
            self.proc.wait(30)
        self.proc = None

    def http(self, timeout: float = 30.0) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=timeout)


class Health:
    """Polls ``/healthz`` of some replicas every 20 ms, in a thread, while in use."""

    def __init__(self, *replicas: Replica) -> None:
        self.replicas = replicas
        self.latencies: list[float] = []
        self.slow: list[str] = []  # which replica, how long into the attack
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> Health:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _poll(self) -> None:
        clients = [r.http(timeout=10) for r in self.replicas]
        start = time.perf_counter()
        try:
            while not self._stop.is_set():
                for replica, client in zip(self.replicas, clients, strict=True):
                    t0 = time.perf_counter()
                    try:
                        r = client.get("/healthz")
                    except httpx.HTTPError as exc:
                        r = None
                        self.errors.append(f"{replica.name} at {t0 - start:.2f} s: {exc!r}")
                    took = time.perf_counter() - t0
                    self.latencies.append(took)
                    if took >= STALL_S / 10:
                        self.slow.append(f"{replica.name} at {t0 - start:.2f} s: "
                                         f"{took * 1000:.0f} ms")
                    if r is not None and r.status_code != 200:
                        self.errors.append(f"{replica.name}: {r.status_code}")
                time.sleep(0.02)
        finally:
            for client in clients:
                client.close()

    def assert_responsive(self) -> None:
        assert not self.errors, self.errors
        assert len(self.latencies) >= 20, "too few /healthz polls to judge"
        longest = max(self.latencies)
        assert longest < STALL_S, (f"/healthz stalled {longest * 1000:.0f} ms "
                                   f"({len(self.latencies)} polls; slow: {self.slow})")


@dataclass
class Cluster:
    a: Replica
    b: Replica
    store: PostgresStore
    marks: Path

    def marks_of(self, run_id: str) -> list[tuple[float, int]]:
        if not self.marks.exists():
            return []
        rows = [line.split() for line in self.marks.read_text().splitlines()]
        return [(float(t), int(step)) for t, rid, step in rows if rid == run_id]


@pytest.fixture(scope="module")
def cluster(pg_server: str, tmp_path_factory: pytest.TempPathFactory  # noqa: F811
            ) -> Iterator[Cluster]:
    name = f"cw_chaos_{uuid.uuid4().hex[:12]}"
    admin(pg_server, f'CREATE DATABASE "{name}"')
    url = database_url(pg_server, name)
    root = tmp_path_factory.mktemp("chaos")
    marks = root / "marks.txt"
    common = {"database_url": url, "auth": "none", "run_lease_s": LEASE_S,
              "rate_limit_per_s": 0, "retain_s": 5.0, "poll_interval_s": 0.1,
              "heartbeat_s": 1.0, "max_steps": 60}  # a `long` run: 40 steps, ~6 s
    a = Replica("a", {**common, "data_dir": str(root / "a")}, marks)
    b = Replica("b", {**common, "data_dir": str(root / "b")}, marks)
    store = PostgresStore(url)  # opened first: the database is migrated once
    starters = [threading.Thread(target=r.start) for r in (a, b)]
    try:
        for t in starters:
            t.start()
        for t in starters:
            t.join()
        assert a.proc is not None and b.proc is not None
        with b.http() as http:  # what the regex attack's answers quote (set up early)
            r = http.post("/v1/documents",
                          files={"file": ("scream.md", f"She wrote this.\n\n{'a' * 40}!\n")})
            assert r.status_code in (200, 201), r.text
        yield Cluster(a, b, store, marks)
    finally:
        a.kill()
        b.kill()
        store.close()
        admin(pg_server, f'DROP DATABASE "{name}" WITH (FORCE)')


def _poll(what: Callable[[], Any], until: Callable[[Any], bool], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while not until(value := what()):
        assert time.monotonic() < deadline, f"still {value!r}"
        time.sleep(0.05)
    return value


def assert_one_end(store: Store, run_id: str) -> list[EventRecord]:
    """The run's log: seqs 1..n, one final event, the last; the status agrees with it."""
    log = store.read_events(TENANT, run_id, limit=10_000)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    finals = [e for e in log if e.kind in FINAL]
    assert len(finals) == 1 and finals[0] is log[-1], [e.kind for e in log][-5:]
    record = store.get_run(TENANT, run_id)
    assert record is not None
    expected = "completed" if log[-1].kind == "run_finished" else ("failed", "cancelled")
    assert record.status in expected, (record.status, log[-1].kind)
    return log


def _start_long(replica: Replica, label: str) -> str:
    with replica.http() as http:
        r = http.post("/v1/runs", json={"question": f"long {label}", "background": True})
    assert r.status_code == 202, r.text
    run_id: str = r.json()["run_id"]
    return run_id


def _diagnosis(cluster: Cluster) -> str:
    """The database's sessions and waiting locks, and the tail of each replica's log: what
    a run that was not ended in time was waiting on."""
    lines = []
    with cluster.store.engine.connect() as c:
        for row in c.execute(sa.text(
                "SELECT pid, application_name, state, wait_event_type, wait_event, "
                "now() - xact_start AS xact_age, left(query, 120) AS query "
                "FROM pg_stat_activity WHERE datname = current_database()")):
            lines.append(f"session {tuple(row)}")
        for row in c.execute(sa.text(
                "SELECT pid, locktype, relation::regclass, mode FROM pg_locks "
                "WHERE NOT granted")):
            lines.append(f"waiting lock {tuple(row)}")
    for replica in (cluster.a, cluster.b):
        log = cluster.marks.with_suffix(f".{replica.name}.log")
        if log.exists():
            tail = log.read_text(errors="replace").splitlines()[-15:]
            lines += [f"{replica.name}| {line}" for line in tail]
    return "\n".join(lines)


def _counts(store: PostgresStore) -> tuple[int, int]:
    with store.engine.connect() as c:
        runs = c.execute(sa.text("SELECT count(*) FROM runs")).scalar_one()
        threads = c.execute(sa.text("SELECT count(*) FROM threads")).scalar_one()
    return int(runs), int(threads)


# -- the attacks ----------------------------------------------------------------------------


def test_a_replica_stopped_past_its_lease_writes_nothing_more(cluster: Cluster) -> None:
    """SIGSTOP a replica mid-run for longer than the lease: the other ends the run
    ``run_lost``; once it is continued, the stopped one runs no tool of it and writes
    nothing (one final event, status stays failed, both replicas serve the same log)."""
    a, b, store = cluster.a, cluster.b, cluster.store
    with Health(b) as health:
        run_id = _start_long(a, "stalled")
        _poll(lambda: len(cluster.marks_of(run_id)), lambda n: n >= 3, 30)
        a.signal(signal.SIGSTOP)
        try:
            record = _poll(lambda: store.get_run(TENANT, run_id),
                           lambda r: r is not None and r.status != "running", 6 * LEASE_S)
        except AssertionError as exc:  # flaky in full-suite runs once: say what held it
            raise AssertionError(f"{exc}\n{_diagnosis(cluster)}") from None
        finally:
            a.signal(signal.SIGCONT)
        woke = time.time()
        assert record.status == "failed"
        time.sleep(1.5)  # ten of its steps' time: had it gone on, it had marked them
        log = assert_one_end(store, run_id)
        assert log[-1].kind == "error" and decoded(log[-1].data)["code"] == "run_lost"
        assert [t for t, _ in cluster.marks_of(run_id) if t > woke] == []
        after = store.get_run(TENANT, run_id)
        assert after is not None and after.status == "failed"
        replays = []
        for replica in (a, b):
            with replica.http() as http, http.stream("GET", f"/v1/runs/{run_id}/events") as r:
                assert r.status_code == 200
                replays.append([json.loads(line[5:]) for line in r.iter_lines()
                                if line.startswith("data:")])
        assert replays[0] == replays[1] and len(replays[0]) == len(log)
    health.assert_responsive()


def test_a_replica_killed_mid_run_has_its_runs_ended_once(cluster: Cluster) -> None:
    """kill -9 at a random point of two runs: the survivor ends each exactly once; the
    restarted replica serves them as ended."""
    a, b, store = cluster.a, cluster.b, cluster.store
    rng = random.Random()
    with Health(b) as health:
        runs = [_start_long(a, f"killed {i}") for i in range(2)]
        time.sleep(rng.uniform(0.1, 2.0))
        a.kill()
        for run_id in runs:
            _poll(lambda rid=run_id: store.get_run(TENANT, rid),  # type: ignore[misc]
                  lambda r: r is not None and r.status != "running", 6 * LEASE_S)
            assert_one_end(store, run_id)
    health.assert_responsive()
    a.start()
    with a.http() as http:
        for run_id in runs:
            info = http.get(f"/v1/runs/{run_id}").json()
            assert info["status"] == "failed"
    for run_id in runs:
        assert_one_end(store, run_id)


def test_the_catastrophic_regex_stalls_nobody(cluster: Cluster) -> None:
    """Answers quoting 'aaa…a!' validated against ^(a+)+$ on both replicas at once, while
    their /healthz is polled; a schema RE2 cannot take is refused and writes nothing."""
    a, b, store = cluster.a, cluster.b, cluster.store
    before = _counts(store)
    with Health(a, b) as health:
        results: list[httpx.Response] = []
        until = time.monotonic() + 4.0  # each asker asks again and again for 4 s

        def ask(replica: Replica) -> None:
            with replica.http(timeout=60) as http:
                while True:
                    results.append(http.post("/v1/ask", json={"question": "a" * 40 + "?",
                                                              "output_schema": EVIL}))
                    if time.monotonic() > until:
                        return

        askers = [threading.Thread(target=ask, args=(r,)) for r in (a, b, a, b)]
        for t in askers:
            t.start()
        with b.http() as http:
            refused = http.post("/v1/runs", json={
                "question": "a" * 40 + "?",
                "output_schema": {"type": "string", "pattern": r"^(a)\1+$"}})
        for t in askers:
            t.join()
    health.assert_responsive()
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["code"] == "invalid_output_schema"
    assert len(results) >= 4
    run_ids = []
    for r in results:
        assert r.status_code in (200, 422, 500), r.text
        run_ids.append(r.headers["X-Run-Id"])
    for run_id in run_ids:
        assert_one_end(store, run_id)
    runs, threads = _counts(store)
    # One run and one thread per ask: the refused request wrote nothing.
    assert (runs, threads) == (before[0] + len(results), before[1] + len(results))


def test_an_ingest_killed_at_random_points_leaves_a_consistent_store(
        tmp_path: Path) -> None:
    """kill -9 an SQLite-backed replica at random points of an upload; the next process
    opens a consistent store and takes the same upload again."""
    from citewise.knowledge.base import KnowledgeBase

    marks = tmp_path / "marks.txt"
    replica = Replica("sqlite", {"data_dir": str(tmp_path / "kb"), "auth": "none",
                                 "rate_limit_per_s": 0}, marks)
    words = " ".join(f"term{i}" for i in range(300))
    body = "\n\n".join(f"Section {p}. {words}." for p in range(40))
    rng = random.Random()
    try:
        for attempt in range(2):
            replica.start()

            def upload() -> None:
                try:
                    with replica.http(timeout=60) as http:
                        http.post("/v1/documents", files={"file": ("big.md", body)})
                except httpx.HTTPError:
                    pass  # the server was killed under it

            uploader = threading.Thread(target=upload)
            uploader.start()
            time.sleep(rng.uniform(0.05, 1.5))
            replica.kill()
            uploader.join()
            with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
                consistency = kb.check_consistency()
                assert consistency.ok, (attempt, consistency)
                doc = kb.find_source("big.md")
                assert doc is None or kb.store.get_document_chunks(kb.tenant, doc.id)
        replica.start()
        with replica.http(timeout=120) as http:
            r = http.post("/v1/documents", files={"file": ("big.md", body)})
            assert r.status_code in (200, 201), r.text
            hits = http.post("/v1/search", json={"query": "term7 section"}).json()["hits"]
            assert hits and hits[0]["source"] == "big.md"
    finally:
        replica.kill()


# -- uploads that unpack, and a feedback token used at once (appended for issue 25's
#    findings 3 and 6) ----------------------------------------------------------------------


def _docx(paragraphs: bytes) -> bytes:
    """A real DOCX (python-docx's template) whose body is ``paragraphs``."""
    import io
    import zipfile

    import docx

    template = io.BytesIO()
    docx.Document().save(template)
    src = zipfile.ZipFile(io.BytesIO(template.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in src.infolist():
            if info.filename != "word/document.xml":
                z.writestr(info, src.read(info.filename))
        z.writestr("word/document.xml", b'<?xml version="1.0" encoding="UTF-8"?><w:document '
                   b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                   b"<w:body>" + paragraphs + b"</w:body></w:document>")
    return out.getvalue()


def _embedded(http: httpx.Client, limit_s: float = 60.0) -> None:
    """Wait until no embedding job is pending: the first one loads the embedder, in the
    background, and its memory was counted against the bomb (a flaky +170 MB)."""
    deadline = time.monotonic() + limit_s
    while http.get("/v1/status").json()["pending_jobs"]:
        assert time.monotonic() < deadline, "the ordinary upload is still being embedded"
        time.sleep(0.1)


def _peak_rss_mb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


def test_a_docx_bomb_is_refused_while_healthz_keeps_answering(cluster: Cluster) -> None:
    """~149 KB that unpack to ~50 MB of XML (it cost +1 GB RSS and 255 s): refused as
    ``archive_bomb`` at once, nothing written, memory flat, every replica responsive."""
    a, b = cluster.a, cluster.b
    bomb = _docx(b"<w:p><w:r><w:t>a</w:t></w:r></w:p>" * 1_400_000)
    assert len(bomb) < 180_000
    ordinary = _docx(b"<w:p><w:r><w:t>Refunds take 14 days.</w:t></w:r></w:p>")
    with a.http(timeout=120) as http:  # what ingest loads once (the embedder) comes first
        assert http.post("/v1/documents",
                         files={"file": ("ordinary.docx", ordinary)}).status_code in (200, 201)
        _embedded(http)  # … and embeds, which a worker does after the upload answered
    assert a.proc is not None
    before = _peak_rss_mb(a.proc.pid)
    with Health(a, b) as health, a.http(timeout=60) as http:
        time.sleep(0.3)
        for i in range(3):
            t0 = time.monotonic()
            r = http.post("/v1/documents", files={"file": (f"bomb{i}.docx", bomb)})
            assert r.status_code == 422 and r.json()["error"]["code"] == "archive_bomb", r.text
            assert time.monotonic() - t0 < 5
        time.sleep(0.3)
    health.assert_responsive()
    assert _peak_rss_mb(a.proc.pid) - before < 50
    with b.http() as http:
        sources = [d["source"] for d in http.get("/v1/documents").json()["documents"]]
    assert not [s for s in sources if "bomb" in s]  # nothing of a refused upload


def test_one_feedback_token_used_20_times_at_once_stores_one_rating(cluster: Cluster) -> None:
    """20 posts of one token at once, half to each replica: one 201, nineteen 409, one row
    (it stored 2–6: the check and the insert were apart, with no unique constraint)."""
    with cluster.a.http(timeout=60) as http:
        answer = http.post("/v1/ask", json={"question": "How long do refunds take?"}).json()
    token = answer["trajectory"]["feedback_token"]
    barrier = threading.Barrier(20)

    def post(i: int) -> int:
        replica = cluster.a if i % 2 else cluster.b
        with replica.http(timeout=60) as client:
            barrier.wait()
            r = client.post("/v1/feedback", json={"token": token, "rating": i % 4})
            return r.status_code

    threads: list[threading.Thread] = []
    statuses: list[int] = []
    for i in range(20):
        t = threading.Thread(target=lambda i=i: statuses.append(post(i)))
        threads.append(t)
        t.start()
    for t in threads:
        t.join(90)
    assert sorted(statuses) == [201] + [409] * 19
    assert len(cluster.store.list_feedback(TENANT, run_id=answer["run_id"])) == 1
