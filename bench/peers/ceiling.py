"""How far could citewise go on this machine? The 1,000-run round without its promises.

The peers' driver (``driver.py``) measures what citewise costs. This script asks the other
question #9 leaves open: on this machine, is 1,500 runs/s for 1,000 concurrent runs within
reach at all, and which of citewise's promises would it take to drop? It runs the driver's
concurrency round (``harness.py``: 1,000 concurrent runs of 3 calls, each tool sleeping
50 ms, a fresh process per measurement) for variants that each remove one more thing:

* ``citewise``                  — the default ``Agent``, as in the driver;
* ``noprov``                    — ``Agent(provenance=False)``: no PROV-O ``explain`` events;
* ``noprov-unvalidated``        — also events built without validation (the bench patches
  the loop's ``Emitter`` to fill the fields and skip pydantic-core; citewise does not ship
  this);
* ``noprov-unvalidated-nogc``   — also the cyclic garbage collector off during the round;
* ``bare``                      — the floor: a bare async-generator loop yielding plain
  tuples for the same task, so only asyncio, ``gather`` and the sleeps remain.

The variants interleave (A B C D E, A B C D E, …) so that load from the machine's other
users falls on all of them alike; medians are reported with the range.

    python bench/peers/ceiling.py run [--rounds 7 --runs 1000] [--out bench/results/ceiling.json]

Run it with the project's virtual environment (citewise installed); ``one VARIANT RUNS``
is the single measurement the driver spawns.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VARIANTS = ("citewise", "noprov", "noprov-unvalidated", "noprov-unvalidated-nogc", "bare")
GOAL_RUNS_PER_S = 1500


def _unvalidated_events() -> None:
    """Makes the loop's ``Emitter`` build events without validating them (bench only)."""
    from citewise._construct import trusted
    from citewise.agent import emitter as emitter_module
    from citewise.agent.emitter import Emitter

    # Per event class: the static defaults, and the fields whose default is a factory.
    defaults: dict[type, tuple[dict[str, Any], list[tuple[str, Any]]]] = {}

    def defaults_of(cls: Any) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
        out = defaults.get(cls)
        if out is None:
            static = {name: info.default for name, info in cls.model_fields.items()
                      if info.default_factory is None}
            factories = [(name, info.default_factory) for name, info in cls.model_fields.items()
                         if info.default_factory is not None]
            out = defaults[cls] = (static, factories)
        return out

    def call(self: Emitter, cls: Any, /, **fields: Any) -> Any:
        state = self._state
        fields["run_id"] = state.run_id
        fields["thread_id"] = state.thread_id
        fields["seq"] = state.next_seq()
        fields["ts"] = emitter_module._clock(emitter_module.UTC)
        static, factories = defaults_of(cls)
        values = {**static, **fields}
        for name, factory in factories:
            if name not in fields:
                values[name] = factory()
        return trusted(cls, values, set(fields))

    Emitter.__call__ = call  # type: ignore[method-assign]


def _bare_factory(sleep: bool) -> Any:
    import harness

    async def lookup(query: str) -> str:
        if not isinstance(query, str):
            raise TypeError("query is a string")
        if sleep:
            await asyncio.sleep(harness.SLEEP_S)
        return harness.PAYLOAD

    async def loop(n: int) -> AsyncIterator[tuple[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": harness.QUESTION}]
        while True:
            done = sum(1 for m in messages if m["role"] == "tool")
            if done < n:
                call = {"id": f"call_{done}", "name": "lookup", "arguments": {"query": "q"}}
                messages.append({"role": "assistant", "tool_calls": [call]})
                yield ("action", call)
                result = await lookup(**call["arguments"])
                messages.append({"role": "tool", "call_id": call["id"], "content": result})
                yield ("observation", result)
            else:
                yield ("answer", harness.ANSWER)
                return

    class Runtime:
        async def run(self, n: int) -> tuple[str, int]:
            calls, text = 0, ""
            async for kind, value in loop(n):
                if kind == "action":
                    calls += 1
                elif kind == "answer":
                    text = value
            return text, calls

        def stream(self, n: int) -> AsyncIterator[Any]:
            return loop(n)

    return Runtime()


def one(variant: str, runs: int) -> dict[str, Any]:
    """One concurrency round of ``variant`` in this (fresh) process."""
    sys.path.insert(0, str(HERE))
    import harness

    if variant == "bare":
        factory = _bare_factory
    else:
        if variant.startswith("noprov"):
            sys.argv[1:] = ["--provenance", "off"]
        import run_citewise

        factory = run_citewise.factory
        if "unvalidated" in variant:
            _unvalidated_events()
    gc_off = variant.endswith("nogc")

    async def round_() -> dict[str, Any]:
        rt = factory(True)
        if gc_off:
            # After the harness's warm-up collection, as a host switching it off would.
            real_collect = gc.collect

            def collect_then_disable(*a: Any) -> int:
                n = real_collect(*a)
                gc.disable()
                return n

            gc.collect = collect_then_disable  # type: ignore[assignment]
        out: dict[str, Any] = await harness._concurrency(rt, runs, variant)
        gc.enable()
        return out

    out = asyncio.run(round_())
    out["variant"] = variant
    return out


def run(args: argparse.Namespace) -> None:
    samples: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    load_start = os.getloadavg()
    for r in range(args.rounds):
        for v in VARIANTS:
            proc = subprocess.run([sys.executable, __file__, "one", v, str(args.runs)],
                                  capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"{v} failed:\n{proc.stderr[-2000:]}")
            samples[v].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(f"round {r + 1}/{args.rounds} done (load {os.getloadavg()[0]:.2f})",
              file=sys.stderr)
    summary = {}
    for v, xs in samples.items():
        rps = [x["runs_per_s"] for x in xs]
        summary[v] = {
            "runs_per_s_median": statistics.median(rps),
            "runs_per_s_min": min(rps),
            "runs_per_s_max": max(rps),
            "cpu_ms_per_run_median": statistics.median(x["cpu_s"] for x in xs) * 1000 / args.runs,
            "peak_rss_mb_max": max(x["peak_rss_mb"] for x in xs),
            "rounds_at_or_above_goal": sum(1 for x in rps if x >= GOAL_RUNS_PER_S),
        }
    doc = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "loadavg_start": load_start,
                    "loadavg_end": os.getloadavg()},
        "code": _git_rev(),
        "method": {"rounds": args.rounds, "concurrent_runs": args.runs,
                   "calls_per_run": 3, "tool_sleep_s": 0.05, "goal_runs_per_s": GOAL_RUNS_PER_S},
        "summary": summary,
        "raw": samples,
    }
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(table(doc))


def table(doc: dict[str, Any]) -> str:
    lines = ["| variant | runs/s, median (range) | CPU per run | rounds ≥ 1,500 runs/s |",
             "|---|---:|---:|---:|"]
    n = doc["method"]["rounds"]
    for v, s in doc["summary"].items():
        lines.append(
            f"| {v} | {s['runs_per_s_median']:,.0f} ({s['runs_per_s_min']:,.0f}–"
            f"{s['runs_per_s_max']:,.0f}) | {s['cpu_ms_per_run_median']:.2f} ms "
            f"| {s['rounds_at_or_above_goal']} of {n} |")
    return "\n".join(lines)


def _git_rev() -> str:
    proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="interleaved rounds of every variant")
    r.add_argument("--rounds", type=int, default=7)
    r.add_argument("--runs", type=int, default=1000)
    r.add_argument("--out", default=str(ROOT / "bench" / "results" / "ceiling.json"))
    o = sub.add_parser("one", help="one round of one variant (what `run` spawns)")
    o.add_argument("variant", choices=VARIANTS)
    o.add_argument("runs", type=int)
    args = p.parse_args()
    if args.cmd == "run":
        t0 = time.perf_counter()
        run(args)
        print(f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    else:
        print(json.dumps(one(args.variant, args.runs)))


if __name__ == "__main__":
    main()
