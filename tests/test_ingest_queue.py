"""Document work runs on threads of its own, tenants taking turns (issue 25, finding 4):
one tenant's large or many jobs cannot hold every thread, nor the service's default
executor that every other request needs."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.server import ServerConfig, create_app
from citewise.server.ingest_queue import DocumentJobs
from citewise.server.testing import serve


def _sleeper(seconds: float, log: list[str], name: str) -> Callable[[], str]:
    def job() -> str:
        time.sleep(seconds)
        log.append(name)
        return name
    return job


def test_a_small_job_does_not_wait_behind_another_tenants_big_ones() -> None:
    async def go() -> tuple[float, list[str]]:
        jobs = DocumentJobs(workers=3, per_tenant=2)
        done: list[str] = []
        try:
            big = [asyncio.ensure_future(jobs.run("B", _sleeper(0.6, done, f"B{i}"), big=True))
                   for i in range(6)]
            await asyncio.sleep(0.05)
            assert await jobs.run("A", _sleeper(0.01, done, "A")) == "A"
            await asyncio.gather(*big)
        finally:
            jobs.close()
        return done

    done = asyncio.run(go())
    # Done before any of B's 0.6 s jobs: A took the worker B's per-tenant cap left free
    # (behind B's jobs it would come after three of them).
    assert done[0] == "A", done


def test_tenants_take_turns_and_each_runs_at_most_its_share() -> None:
    async def go() -> list[str]:
        jobs = DocumentJobs(workers=2, per_tenant=1)
        done: list[str] = []
        running: dict[str, int] = {}
        peak: dict[str, int] = {}
        lock = threading.Lock()

        def job(tenant: str, i: int) -> Callable[[], None]:
            def run() -> None:
                with lock:
                    running[tenant] = running.get(tenant, 0) + 1
                    peak[tenant] = max(peak.get(tenant, 0), running[tenant])
                time.sleep(0.05)
                with lock:
                    running[tenant] -= 1
                    done.append(f"{tenant}{i}")
            return run

        try:
            work = [jobs.run("B", job("B", i)) for i in range(5)]
            work += [jobs.run("C", job("C", i)) for i in range(2)]
            await asyncio.gather(*work)
        finally:
            jobs.close()
        assert peak == {"B": 1, "C": 1}
        return done

    done = asyncio.run(go())
    assert set(done[:4]) >= {"C0", "C1"}  # C's two jobs went between B's, not after all five


def test_errors_reach_the_caller_and_a_cancelled_wait_leaves_the_queue() -> None:
    async def go() -> None:
        jobs = DocumentJobs(workers=2, per_tenant=1)
        ran: list[str] = []
        try:
            def boom() -> None:
                raise ValueError("bad file")

            with pytest.raises(ValueError, match="bad file"):
                await jobs.run("A", boom)
            first = asyncio.ensure_future(jobs.run("A", _sleeper(0.3, ran, "first")))
            await asyncio.sleep(0.05)
            second = asyncio.ensure_future(jobs.run("A", _sleeper(0.0, ran, "second")))
            await asyncio.sleep(0.05)
            second.cancel()  # the client went away before its upload started
            await first
            await asyncio.sleep(0.1)
            assert jobs.queued() == 0
        finally:
            jobs.close()
        assert ran == ["first"]

    asyncio.run(go())


@pytest.mark.slow
def test_a_tenants_burst_of_uploads_leaves_other_requests_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More concurrent long uploads than the default executor has threads (each ingest
    made to take 2 s, as a large file does): the other requests still answer at once."""
    from citewise.knowledge.base import KnowledgeBase

    ingest = KnowledgeBase.ingest_bytes

    def slow_ingest(self: KnowledgeBase, *args: Any, **kwargs: Any) -> Any:
        time.sleep(2.0)
        return ingest(self, *args, **kwargs)

    monkeypatch.setattr(KnowledgeBase, "ingest_bytes", slow_ingest)
    config = ServerConfig(data_dir=tmp_path / "srv", rate_limit_per_s=0, auth="none")
    with serve(create_app(config)) as url, httpx.Client(base_url=url, timeout=120) as http:
        errors: list[str] = []

        def upload(i: int) -> None:
            with httpx.Client(base_url=url, timeout=300) as h:
                r = h.post("/v1/documents", files={"file": (f"b{i}.md", f"Part {i}.")})
                if r.status_code not in (200, 201):
                    errors.append(r.text)

        burst = [threading.Thread(target=upload, args=(i,)) for i in range(8)]
        for t in burst:
            t.start()
        time.sleep(1.0)
        t0 = time.perf_counter()
        r = http.get("/v1/documents")
        listed = time.perf_counter() - t0
        busy = any(t.is_alive() for t in burst)
        for t in burst:
            t.join()
    assert r.status_code == 200 and not errors
    assert busy  # measured while the burst was still ingesting
    assert listed < 1.0


@pytest.mark.slow
def test_one_tenants_big_upload_delays_anothers_small_one_by_seconds_at_most(
        tmp_path: Path) -> None:
    """Tenant A's one-line upload while tenant B's ~6 MB upload is in progress (it waited
    for all of B's ingest: 119 s for 19 MB). Big enough that B is still being stored and
    indexed when A asks, now that embedding happens after the upload returns."""
    import random

    from citewise.server.auth import create_key
    from citewise.store.sqlite import SQLiteStore

    config = ServerConfig(data_dir=tmp_path / "srv", rate_limit_per_s=0, auth="keys",
                          key_cache_s=0)
    rng = random.Random(1)
    words = [f"w{i}" for i in range(500)]
    big = "\n\n".join(" ".join(rng.choice(words) for _ in range(12)) + "."
                      for _ in range(84_000))
    with serve(create_app(config)) as url:
        with SQLiteStore(tmp_path / "srv" / "citewise.db") as store:
            key_a, key_b = create_key(store, "A")[1], create_key(store, "B")[1]
        took: dict[str, float] = {}

        def upload(key: str, name: str, text: str) -> None:
            with httpx.Client(base_url=url, timeout=600,
                              headers={"Authorization": f"Bearer {key}"}) as h:
                t0 = time.perf_counter()
                r = h.post("/v1/documents", files={"file": (name, text)})
                assert r.status_code == 201, r.text
                took[name] = time.perf_counter() - t0

        b = threading.Thread(target=upload, args=(key_b, "big.md", big))
        b.start()
        time.sleep(0.3)
        assert b.is_alive()  # B's upload is in progress
        upload(key_a, "small.md", "One line about refunds.")
        b.join()
    assert took["small.md"] < 3.0, took
