"""The measuring half every runtime script shares (standard library only).

A runtime script builds, per tool-call count ``n``, an object with two coroutines and
hands it to :func:`main`:

* ``run(n)``      — one complete run of the scripted task through the runtime's fastest
  full-run entry point; returns ``(answer_text, tool_calls_made)`` so the harness can
  check that the runtime really did the work.
* ``stream(n)``   — an async iterator over the runtime's own streamed events for one run
  (the harness times the first item, then drains the rest untimed).

The task is the same everywhere: the model asks for one tool call per turn until ``n``
calls are done, then answers ``ANSWER``; the tool validates one string argument and returns
:data:`PAYLOAD` (200 characters). In ``concurrency`` mode the tool first sleeps
:data:`SLEEP_S` asynchronously.

Modes (argv[1]):

* ``steps ITERS WARMUP``  — alternating 1-step and 10-step runs, then first-event latency;
  prints a JSON object of raw samples (µs, wall and process CPU).
* ``concurrency RUNS``    — ``RUNS`` concurrent 3-call runs in this fresh process; prints
  wall time, runs/s and the process's peak RSS (``ru_maxrss``).
* ``once``                — one 1-step run, checked (used by the smoke test).
"""

from __future__ import annotations

import asyncio
import gc
import json
import resource
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, Protocol

PAYLOAD = ("citewise-bench-payload " * 9 + "x" * 200)[:200]
ANSWER = "done"
QUESTION = "What does the lookup tool say?"
SLEEP_S = 0.05
CONCURRENT_CALLS = 3

assert len(PAYLOAD) == 200


class Runtime(Protocol):
    def run(self, n: int) -> Coroutine[Any, Any, tuple[str, int]]: ...

    def stream(self, n: int) -> AsyncIterator[Any]: ...


Factory = Callable[[bool], Runtime]
"""``factory(sleep)`` builds the runtime's agents (``sleep``: the tool sleeps SLEEP_S)."""


def _check(result: tuple[str, int], n: int, name: str) -> None:
    text, calls = result
    if ANSWER not in text or calls != n:
        raise SystemExit(f"{name}: wrong result for n={n}: text={text!r} tool_calls={calls}")


async def _steps(rt: Runtime, iters: int, warmup: int, name: str) -> dict[str, Any]:
    for n in (1, 10):
        _check(await rt.run(n), n, name)
    for _ in range(warmup):
        await rt.run(1)
        await rt.run(10)
        async for _ev in rt.stream(1):
            pass
    wall: dict[str, list[float]] = {"t1": [], "t10": [], "first_event": []}
    cpu: dict[str, list[float]] = {"t1": [], "t10": []}
    pc, pt = time.perf_counter, time.process_time
    for _ in range(iters):
        for n, key in ((1, "t1"), (10, "t10")):
            c0, w0 = pt(), pc()
            await rt.run(n)
            w1, c1 = pc(), pt()
            wall[key].append((w1 - w0) * 1e6)
            cpu[key].append((c1 - c0) * 1e6)
    for _ in range(iters):
        it = rt.stream(1).__aiter__()
        w0 = pc()
        first = await it.__anext__()
        wall["first_event"].append((pc() - w0) * 1e6)
        async for _ev in it:
            pass
        del first
    return {"wall_us": wall, "cpu_us": cpu}


async def _concurrency(rt: Runtime, runs: int, name: str) -> dict[str, Any]:
    _check(await rt.run(CONCURRENT_CALLS), CONCURRENT_CALLS, name)
    # Warm-up: a small concurrent batch, so first-call caches are not in the timing.
    await asyncio.gather(*(rt.run(CONCURRENT_CALLS) for _ in range(20)))
    gc.collect()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c0, w0 = time.process_time(), time.perf_counter()
    results = await asyncio.gather(*(rt.run(CONCURRENT_CALLS) for _ in range(runs)))
    wall = time.perf_counter() - w0
    cpu = time.process_time() - c0
    for r in results:
        _check(r, CONCURRENT_CALLS, name)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "runs": runs,
        "wall_s": wall,
        "cpu_s": cpu,
        "runs_per_s": runs / wall,
        "peak_rss_mb": peak / 1024,
        "rss_before_burst_mb": rss_before / 1024,
    }


def main(name: str, factory: Factory, versions: dict[str, str]) -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "once"
    if mode == "steps":
        iters, warmup = int(sys.argv[2]), int(sys.argv[3])
        out = asyncio.run(_steps(factory(False), iters, warmup, name))
    elif mode == "concurrency":
        out = asyncio.run(_concurrency(factory(True), int(sys.argv[2]), name))
    elif mode == "once":
        rt = factory(False)
        result = asyncio.run(rt.run(1))
        _check(result, 1, name)
        out = {"answer": result[0], "tool_calls": result[1]}
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    out.update(runtime=name, mode=mode, versions=versions)
    print(json.dumps(out))
