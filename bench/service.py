"""Service benchmark: N concurrent streaming runs against one ``citewise serve`` process.

    python bench/service.py                      # 1,000 streams, results to bench/results
    python bench/service.py --streams 200 --readme

The server runs in a subprocess (one uvicorn worker, SQLite in a temp dir, no auth) with a
scripted model that sleeps ``--step-delay`` seconds before each of its ``--steps`` turns
(a thought and a tool call each, then the answer) — an agent waiting on its LLM. The
client opens ``--streams`` ``POST /v1/runs`` SSE streams, ramped at ``--ramp`` per second,
and reads every event with a minimal asyncio HTTP/1.1 client (so the client's own cost
stays small next to the server's on the same 2-core box). Measured:

* streams held at once (client side, and the server's own count of live runs);
* time to first event: request sent → first SSE event parsed (p50 / p90 / p99 / max);
* events per second delivered over the whole run window;
* lost events: every stream must carry seq 1..n with no gap, no repeat, the terminal
  event last, and n must equal the run's ``last_seq`` stored on the server (GET /v1/runs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "service.json"
README = ROOT / "bench" / "README.md"

GOAL_STREAMS = 1000
GOAL_P99_MS = 100.0


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# -- the server process --------------------------------------------------------------------


def serve(args: argparse.Namespace) -> int:
    """Run the app with the sleeping scripted model until SIGINT; print stats as JSON."""
    from collections.abc import AsyncGenerator

    import uvicorn

    from citewise.agent.tools import tool
    from citewise.models.base import AssistantMessage, ModelRequest, UserMessage
    from citewise.models.scripted import Part, call, thought
    from citewise.server import ServerConfig, create_app
    from citewise.server.testing import PacedModel

    _raise_fd_limit()
    steps, delay = args.steps, args.step_delay

    @tool
    async def tick(i: int) -> str:
        """Report progress.

        Args:
            i: the step number
        """
        return f"step {i} done"

    class BenchModel:
        """Stateless scripted agent: turn k (counted in the run's messages) is a thought
        and a tool call, the last one the answer; it sleeps before each turn, except for
        the warm-up questions."""

        name = "scripted"

        async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
            last = max(i for i, m in enumerate(request.messages) if isinstance(m, UserMessage))
            turn = sum(1 for m in request.messages[last:] if isinstance(m, AssistantMessage))
            warm = str(getattr(request.messages[last], "content", "")).startswith("warm-up")
            parts: Any = ([thought(f"Step {turn}: checking."), call("tick", i=turn)]
                          if turn < steps else "All checks passed.")
            async for part in PacedModel([parts], delay=0.0 if warm else delay).stream(request):
                yield part

    config = ServerConfig(data_dir=Path(args.data_dir), port=args.port, rate_limit_per_s=0,
                          max_concurrent_runs=100_000, retain_s=5.0, gc_freeze=True)
    app = create_app(config, model=BenchModel(), tools=[tick])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port,
                                           log_level="warning", backlog=4096,
                                           timeout_keep_alive=30))
    t0 = time.process_time()
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT that stopped it
        pass
    state = app.state.citewise
    stats = {"manager": dict(state.manager.stats),
             "writer": {k: v for k, v in vars(state.manager.writer.stats).items()
                        if k != "failed_runs"},
             "server_cpu_s": round(time.process_time() - t0, 2)}
    Path(args.stats).write_text(json.dumps(stats))
    return 0


# -- the load ------------------------------------------------------------------------------


@dataclass
class Stream:
    index: int
    started: float = 0.0
    first: float | None = None
    ended: float | None = None
    run_id: str = ""
    seqs: list[int] = field(default_factory=list)
    terminal: str | None = None
    error: str | None = None


class Load:
    def __init__(self, port: int, n: int, ramp: float) -> None:
        self.port = port
        self.n = n
        self.ramp = ramp
        self.streams = [Stream(i) for i in range(n)]
        self.open_now = 0
        self.max_open = 0

    async def run(self) -> None:
        tasks = []
        t0 = time.perf_counter()
        for s in self.streams:
            wait = t0 + s.index / self.ramp - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            tasks.append(asyncio.create_task(self.one(s)))
        await asyncio.gather(*tasks)

    async def one(self, s: Stream) -> None:
        from citewise.client.sse import SSEDecoder

        body = json.dumps({"question": f"benchmark question {s.index}"}).encode()
        request = (b"POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   b"Content-Type: application/json\r\nAccept: text/event-stream\r\n"
                   b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)) + body
        writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
            s.started = time.perf_counter()
            writer.write(request)
            status = await reader.readline()
            if b" 200 " not in status:
                s.error = status.decode(errors="replace").strip()
                return
            chunked = False
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "x-run-id":
                    s.run_id = value.strip()
                elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                    chunked = True
            self.open_now += 1
            self.max_open = max(self.max_open, self.open_now)
            decoder = SSEDecoder()
            try:
                while s.terminal is None:
                    if chunked:
                        size = int((await reader.readline()).split(b";")[0], 16)
                        if size == 0:
                            break
                        data = (await reader.readexactly(size + 2))[:-2]
                    else:
                        data = await reader.read(65536)
                        if not data:
                            break
                    for event in decoder.feed(data):
                        if s.first is None:
                            s.first = time.perf_counter()
                        head = json.loads(event.data)
                        s.seqs.append(head["seq"])
                        if head["kind"] in ("run_finished", "run_paused", "error"):
                            s.terminal = head["kind"]
                            s.ended = time.perf_counter()
            finally:
                self.open_now -= 1
        except Exception as exc:  # recorded, counted as a failed stream
            s.error = f"{type(exc).__name__}: {exc}"
        finally:
            if writer is not None:
                writer.close()


async def _server_last_seqs(port: int, run_ids: list[str]) -> dict[str, int]:
    import httpx

    out: dict[str, int] = {}
    limit = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        async def one(run_id: str) -> None:
            async with limit:
                r = await http.get(f"/v1/runs/{run_id}")
                out[run_id] = int(r.json()["last_seq"]) if r.status_code == 200 else -1

        await asyncio.gather(*(one(r) for r in run_ids))
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    _raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="citewise-bench-") as tmp:
        stats_path = Path(tmp) / "stats.json"
        port = args.port
        script = os.environ.get("CITEWISE_BENCH_SERVER", __file__)  # a wrapper, to profile
        cmd = [sys.executable, script, "serve", "--port", str(port), "--data-dir",
               str(Path(tmp) / "data"), "--steps", str(args.steps), "--step-delay",
               str(args.step_delay), "--stats", str(stats_path)]
        server = subprocess.Popen(cmd, cwd=ROOT)
        try:
            _wait_ready(port)
            _warm_up(port)
            load = Load(port, args.streams, args.ramp)
            t0 = time.perf_counter()
            asyncio.run(load.run())
            wall = time.perf_counter() - t0
            ids = [s.run_id for s in load.streams if s.run_id]
            stored = asyncio.run(_server_last_seqs(port, ids))
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
        server_stats = json.loads(stats_path.read_text()) if stats_path.exists() else {}
    streams = load.streams
    firsts = [(s.first - s.started) * 1000 for s in streams if s.first is not None]
    events = sum(len(s.seqs) for s in streams)
    lost = duplicated = incomplete = 0
    for s in streams:
        expected = stored.get(s.run_id, -1)
        if s.error or s.terminal is None:
            incomplete += 1
        unique = set(s.seqs)
        duplicated += len(s.seqs) - len(unique)
        top = max(expected, max(unique, default=0))
        lost += top - len(unique)
    first_start = min(s.started for s in streams if s.started)
    last_end = max((s.ended or 0.0) for s in streams)
    window = max(1e-9, last_end - first_start)
    run_durations = [s.ended - s.started for s in streams if s.ended is not None]
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": f"{platform.system()} {platform.machine()}",
                    "load_average": [round(x, 2) for x in os.getloadavg()]},
        "params": {"streams": args.streams, "ramp_per_s": args.ramp, "steps": args.steps,
                   "step_delay_s": args.step_delay, "workers": 1, "store": "SQLite (WAL)"},
        "results": {
            "streams_completed": sum(1 for s in streams if s.terminal == "run_finished"),
            "streams_failed": sum(1 for s in streams if s.error),
            "max_streams_held_client": load.max_open,
            "max_live_runs_server": server_stats.get("manager", {}).get("max_live"),
            "ttfe_ms": {"p50": round(statistics.median(firsts), 2) if firsts else None,
                        "p90": round(_pct(firsts, 90), 2), "p99": round(_pct(firsts, 99), 2),
                        "max": round(max(firsts), 2) if firsts else None},
            "run_duration_s": {"p50": round(statistics.median(run_durations), 2)
                               if run_durations else None,
                               "max": round(max(run_durations), 2) if run_durations else None},
            "events_total": events,
            "events_per_s": round(events / window, 1),
            "window_s": round(window, 2),
            "wall_s": round(wall, 2),
            "lost_events": lost,
            "duplicated_events": duplicated,
            "incomplete_streams": incomplete,
            "errors": sorted({s.error for s in streams if s.error})[:5],
            "server": server_stats,
        },
    }


def _warm_up(port: int, runs: int = 20) -> None:
    """A few quick runs first: the first requests load code paths and caches, and the
    measurement is of a server in its steady state."""
    import httpx

    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        for i in range(runs):
            r = http.post("/v1/runs", json={"question": f"warm-up {i}", "stream": False})
            r.raise_for_status()
    time.sleep(2.0)


def _wait_ready(port: int, timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the benchmark server did not become ready")


def readme_section(result: dict[str, Any]) -> str:
    p, r, m = result["params"], result["results"], result["machine"]
    t = r["ttfe_ms"]
    met = (r["max_streams_held_client"] >= GOAL_STREAMS and t["p99"] <= GOAL_P99_MS
           and r["lost_events"] == 0)
    return f"""## Service

`python bench/service.py --readme` — {p["streams"]:,} concurrent `POST /v1/runs` SSE streams \
against one `citewise serve` process (1 uvicorn worker, SQLite WAL, no auth), opened at \
{p["ramp_per_s"]:g}/s. Each run is a scripted agent that sleeps {p["step_delay_s"]:g} s \
before each of its {p["steps"] + 1} model turns ({p["steps"]} × thought + tool call, then \
the answer), so every stream stays open ~{r["run_duration_s"]["p50"]} s and all of them \
overlap. Client: a minimal asyncio HTTP/1.1 reader on the same box. Every event is in \
SQLite before it is sent (group commit, see `src/citewise/server/writer.py`). Machine: \
{m["platform"]}, {m["cpus"]} CPUs (load average {", ".join(map(str, m["load_average"]))} \
after the run, shared with other work), Python {m["python"]}; run {result["date"]}. Raw \
numbers: `bench/results/service.json`.

| metric | value | goal |
|---|---:|---:|
| streams held at once (client / server live runs) | {r["max_streams_held_client"]:,} / \
{r["max_live_runs_server"]} | ≥ {GOAL_STREAMS:,} |
| time to first event p50 / p90 / p99 / max (ms) | {t["p50"]} / {t["p90"]} / {t["p99"]} / \
{t["max"]} | p99 ≤ {GOAL_P99_MS:g} |
| events delivered / s (whole window) | {r["events_per_s"]:,} ({r["events_total"]:,} in \
{r["window_s"]} s) | |
| lost / duplicated events | {r["lost_events"]} / {r["duplicated_events"]} | 0 / 0 |
| streams completed / failed | {r["streams_completed"]:,} / {r["streams_failed"]} | all / 0 |
| server CPU over the run (s) | {r["server"].get("server_cpu_s")} | |
| log writer: events, transactions, largest batch | \
{r["server"].get("writer", {}).get("events")}, \
{r["server"].get("writer", {}).get("transactions")}, \
{r["server"].get("writer", {}).get("max_batch")} | |

Goal {"met" if met else "not met"} on this run.

What limits it is CPU, not the log or the connections: a run costs the server ~35-40 ms of \
CPU here (the agent loop with its provenance triples, the store records of the run, ~30 SSE \
writes and their HTTP framing; ~90 ms before session 8, when every run also derived its \
tools' JSON schemas and ran a cancel watch of its own, waking every 0.2 s while it waited), \
so the arrival rate × that cost must stay well under the share of the 2 cores the server \
gets. An earlier run on the same box at twice the arrival rate (10/s, 125 s runs) while other \
work kept the load average at 5-6 held the 1,000 streams with no lost event but gave a \
first event p50 / p99 of 55 / 782 ms; at 20/s the server saturates (p50 0.3 s). Full \
collections of the cyclic GC are the other tail: `citewise serve` freezes the start-up heap \
and collects the young generation less often (`ServerConfig.gc_freeze`).
"""


def update_readme(section: str) -> None:
    text = README.read_text(encoding="utf-8") if README.exists() else "# Benchmarks\n"
    start = text.find("## Service")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end != -1 else "")
        if end != -1 and not section.endswith("\n\n"):
            text = text.replace(section, section + "\n", 1)
    README.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode")
    s = sub.add_parser("serve", help=argparse.SUPPRESS)
    for p in (parser, s):
        p.add_argument("--port", type=int, default=8765)
        p.add_argument("--steps", type=int, default=5, help="tool-calling turns per run")
        p.add_argument("--step-delay", type=float, default=2.0,
                       help="seconds the model sleeps before each turn")
    s.add_argument("--data-dir", required=True)
    s.add_argument("--stats", required=True)
    parser.add_argument("--streams", type=int, default=GOAL_STREAMS)
    parser.add_argument("--ramp", type=float, default=250.0, help="new streams per second")
    parser.add_argument("--readme", action="store_true", help="update bench/README.md")
    parser.add_argument("--no-save", action="store_true", help="do not write the results")
    parser.add_argument("--readme-only", action="store_true",
                        help="rewrite the README section from the saved results")
    args = parser.parse_args(argv)
    if args.mode == "serve":
        return serve(args)
    if args.readme_only:
        update_readme(readme_section(json.loads(RESULTS.read_text(encoding="utf-8"))))
        return 0
    result = measure(args)
    print(json.dumps(result, indent=2))
    if not args.no_save:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.readme:
        update_readme(readme_section(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
