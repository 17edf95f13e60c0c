"""Side-by-side benchmark driver: citewise vs LangGraph, LangChain ``create_agent``, pydantic-ai.

    python bench/peers/driver.py setup            # one venv per runtime under bench/.venvs/
    python bench/peers/driver.py run [--rounds 5 --iters 100 --warmup 20 --runs 1000]

``setup`` makes one virtual environment per runtime with the pinned versions below and
installs citewise from this checkout (``pip install <repo>``) into its own. ``run``
reinstalls citewise (so the numbers are the working tree's), then runs every runtime's
script in its own fresh process, interleaved round by round (A B C D … A B C D …), so that
load from other users of the machine is spread over all of them alike. Samples of all
rounds are pooled; medians are reported, with ratios to in-memory citewise. Results go to
``bench/results/peers.json`` and a Markdown table to stdout (pasted into bench/README.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENVS = REPO / "bench" / ".venvs"
RESULTS = REPO / "bench" / "results"

# Pinned peer versions (what PyPI served when measured). The venv's full ``pip freeze`` is
# written next to the results so transitive versions are on record too.
PEERS: dict[str, list[str]] = {
    "langgraph": ["langgraph==1.2.24", "langchain-core==1.8.3"],
    "langchain": ["langchain==1.5.2", "langgraph==1.2.24", "langchain-core==1.8.3"],
    "pydantic_ai": ["pydantic-ai-slim==2.68.0"],
}

# name -> (venv, script, extra args, import statement for the import-time probe)
RUNTIMES: dict[str, tuple[str, str, list[str], str]] = {
    # The default Agent: PROV-O ``explain`` events after every step (provenance=True).
    "citewise": ("citewise", "run_citewise.py", [], "from citewise import Agent, tool"),
    # The same loop without the provenance hook: the work the peers also do, no more.
    "citewise-noprov": ("citewise", "run_citewise.py", ["--provenance", "off"],
                        "from citewise import Agent, tool"),
    "citewise+sqlite": ("citewise", "run_citewise.py", ["--store", "sqlite"],
                        "from citewise import Agent, tool; import citewise.store.sqlite"),
    "langgraph": ("langgraph", "run_langgraph.py", [],
                  "from langgraph.prebuilt import create_react_agent; "
                  "from langchain_core.tools import tool"),
    "langchain": ("langchain", "run_langchain.py", [],
                  "from langchain.agents import create_agent; from langchain_core.tools import tool"),
    "pydantic_ai": ("pydantic_ai", "run_pydantic_ai.py", [],
                    "from pydantic_ai import Agent; from pydantic_ai.models.function import FunctionModel"),
}
# Bare ``import citewise`` too: the package root is what the start-up goal is about.
IMPORT_EXTRA = {"citewise (bare)": ("citewise", "import citewise")}

_BOOKKEEPING = {"pip", "setuptools", "wheel", "_distutils_hack", "pkg_resources",
                "distutils-precedence.pth"}


def py(venv: str) -> Path:
    return VENVS / venv / "bin" / "python"


def sh(cmd: list[str | Path], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], check=True, text=True, **kw)


def install_citewise() -> None:
    sh([py("citewise"), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", REPO])


def setup(_: argparse.Namespace) -> None:
    VENVS.mkdir(parents=True, exist_ok=True)
    for venv in ["citewise", *PEERS]:
        if not py(venv).exists():
            sh([sys.executable, "-m", "venv", VENVS / venv])
        reqs = [str(REPO)] if venv == "citewise" else PEERS[venv]
        sh([py(venv), "-m", "pip", "install", "-q", *reqs])
        freeze = sh([py(venv), "-m", "pip", "freeze", "--exclude-editable"], capture_output=True)
        (RESULTS / f"peers-freeze-{venv}.txt").write_text(
            "\n".join(x for x in freeze.stdout.splitlines() if not x.startswith("citewise")) + "\n")
    print("venvs ready under", VENVS)


def site_packages_mb(venv: str) -> float:
    site = next((VENVS / venv / "lib").glob("python3*/site-packages"))
    total = 0
    for entry in site.iterdir():
        base = entry.name.split("-")[0]
        if base in _BOOKKEEPING or entry.name in _BOOKKEEPING or entry.name == "__pycache__":
            continue
        if entry.is_file():
            total += entry.stat().st_size
        else:
            total += sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
    return total / 1e6


def import_ms(venv: str, stmt: str, reps: int) -> list[float]:
    """Wall ms of ``python -c stmt`` minus ``python -c pass`` (same venv), interleaved."""
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        sh([py(venv), "-c", stmt])
        t1 = time.perf_counter()
        sh([py(venv), "-c", "pass"])
        t2 = time.perf_counter()
        out.append(((t1 - t0) - (t2 - t1)) * 1000)
    return out


def run_script(name: str, *args: str) -> dict[str, Any]:
    venv, script, extra, _ = RUNTIMES[name]
    proc = sh([py(venv), HERE / script, *args, *extra], capture_output=True,
              env={**os.environ, "PYTHONHASHSEED": "0"})
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def run(args: argparse.Namespace) -> None:
    # The code measured is the tree as installed now: edits made during the run do not count.
    code = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                          capture_output=True, text=True, check=False).stdout.strip()
    install_citewise()
    names = [n for n in RUNTIMES if not args.only or n in args.only]
    samples: dict[str, dict[str, Any]] = {
        n: {"wall_us": {"t1": [], "t10": [], "first_event": []}, "cpu_us": {"t1": [], "t10": []},
            "concurrency": [], "import_ms": [], "versions": {}} for n in names}
    imports_extra: dict[str, list[float]] = {k: [] for k in IMPORT_EXTRA}
    loads = [loadavg()]
    started = dt.datetime.now(dt.UTC)
    for r in range(args.rounds):
        for n in names:
            res = run_script(n, "steps", str(args.iters), str(args.warmup))
            s = samples[n]
            s["versions"] = res["versions"]
            for k in ("wall_us", "cpu_us"):
                for key, xs in res[k].items():
                    s[k][key] += xs
            if not args.skip_concurrency:
                s["concurrency"].append(run_script(n, "concurrency", str(args.runs)))
            s["import_ms"] += import_ms(RUNTIMES[n][0], RUNTIMES[n][3], args.import_reps)
            print(f"round {r + 1}/{args.rounds} {n}: done (load {loadavg()})", file=sys.stderr)
        for k, (venv, stmt) in IMPORT_EXTRA.items():
            if any(RUNTIMES[n][0] == venv for n in names):
                imports_extra[k] += import_ms(venv, stmt, args.import_reps)
        loads.append(loadavg())
    summary = summarise(samples, imports_extra)
    doc = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "citewise_code": code or "unknown",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": platform.platform(), "loadavg_1_5_15": loads},
        "method": {"rounds": args.rounds, "iters_per_round": args.iters, "warmup": args.warmup,
                   "concurrent_runs": args.runs, "import_reps_per_round": args.import_reps},
        "results": summary,
        "raw": {n: {"concurrency": s["concurrency"], "import_ms": s["import_ms"]}
                for n, s in samples.items()},
    }
    out = Path(args.out)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(table(doc))
    for line in goals(doc):
        print(f"- {line}")
    print(f"\nwrote {out}", file=sys.stderr)


def summarise(samples: dict[str, dict[str, Any]],
              imports_extra: dict[str, list[float]]) -> dict[str, Any]:
    res: dict[str, Any] = {}
    for n, s in samples.items():
        w, c = s["wall_us"], s["cpu_us"]
        t1, t10 = med(w["t1"]), med(w["t10"])
        conc = s["concurrency"]
        res[n] = {
            "versions": s["versions"],
            "samples": len(w["t1"]),
            "run_1_step_us": t1,
            "run_10_step_us": t10,
            "per_step_us": (t10 - t1) / 9,
            "per_step_cpu_us": (med(c["t10"]) - med(c["t1"])) / 9,
            "first_event_us": med(w["first_event"]),
            "concurrent_wall_s": med([x["wall_s"] for x in conc]),
            "concurrent_runs_per_s": med([x["runs_per_s"] for x in conc]),
            "concurrent_peak_rss_mb": max([x["peak_rss_mb"] for x in conc], default=float("nan")),
            "import_ms": med(s["import_ms"]),
            "site_packages_mb": site_packages_mb(RUNTIMES[n][0]),
        }
    for k, xs in imports_extra.items():
        res.setdefault("_imports", {})[k] = med(xs)
    base = res.get("citewise")
    if base:
        for n, r in res.items():
            if n.startswith("_"):
                continue
            r["ratio_to_citewise"] = {
                k: r[k] / base[k] for k in ("per_step_us", "run_1_step_us", "run_10_step_us",
                                            "first_event_us", "import_ms", "site_packages_mb")
                if base[k]
            }
            if base["concurrent_runs_per_s"] == base["concurrent_runs_per_s"]:
                r["ratio_to_citewise"]["concurrent_runs_per_s"] = (
                    base["concurrent_runs_per_s"] / r["concurrent_runs_per_s"])
    return res


def _ratio(v: float | None) -> str:
    if v is None or v != v:
        return ""
    return f" ({v:.0f}×)" if v >= 10 else f" ({v:.1f}×)"


def table(doc: dict[str, Any]) -> str:
    """Markdown: one row per runtime, peers' ratios to default citewise in parentheses."""
    res = doc["results"]
    lines = [
        "| runtime | 1-step run | 10-step run | **per step** | per step, CPU | first event "
        "| 1,000 concurrent (3 calls × 50 ms) | peak RSS | import | site-packages |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in res.items():
        if name.startswith("_"):
            continue
        q = {} if name.startswith("citewise") else r.get("ratio_to_citewise", {})
        lines.append(
            f"| {name} | {r['run_1_step_us']:,.0f} µs{_ratio(q.get('run_1_step_us'))} "
            f"| {r['run_10_step_us']:,.0f} µs{_ratio(q.get('run_10_step_us'))} "
            f"| **{r['per_step_us']:,.0f} µs**{_ratio(q.get('per_step_us'))} "
            f"| {r['per_step_cpu_us']:,.0f} µs "
            f"| {r['first_event_us']:,.0f} µs{_ratio(q.get('first_event_us'))} "
            f"| {r['concurrent_wall_s']:.2f} s, {r['concurrent_runs_per_s']:,.0f} runs/s"
            f"{_ratio(q.get('concurrent_runs_per_s'))} "
            f"| {r['concurrent_peak_rss_mb']:.0f} MB "
            f"| {r['import_ms']:,.0f} ms{_ratio(q.get('import_ms'))} "
            f"| {r['site_packages_mb']:,.0f} MB{_ratio(q.get('site_packages_mb'))} |")
    lines.append("")
    for name, r in res.items():
        if not name.startswith("_"):
            lines.append(f"- {name}: " + ", ".join(f"{k} {v}" for k, v in r["versions"].items()))
    for k, v in res.get("_imports", {}).items():
        lines.append(f"- `{k}` import: {v:.0f} ms")
    return "\n".join(lines)


def goals(doc: dict[str, Any]) -> list[str]:
    """The issue's goals, checked against these results (one line each)."""
    res = doc["results"]
    peers = [r for n, r in res.items() if not n.startswith(("citewise", "_"))]
    fastest = min(peers, key=lambda r: r["per_step_us"]) if peers else None
    out = []
    for name in ("citewise", "citewise-noprov"):
        r = res.get(name)
        if r is None:
            continue
        step = r["per_step_us"]
        line = f"{name}: per step {step:,.0f} µs (goal ≤ 150: {'met' if step <= 150 else 'NOT met'})"
        if fastest:
            ratio = fastest["per_step_us"] / step
            line += f", {ratio:.0f}× below the fastest peer (goal ≥ 10×: " \
                    f"{'met' if ratio >= 10 else 'NOT met'})"
        rps, rss = r["concurrent_runs_per_s"], r["concurrent_peak_rss_mb"]
        line += (f"; 1,000 concurrent runs {rps:,.0f} runs/s (goal ≥ 1,500: "
                 f"{'met' if rps >= 1500 else 'NOT met'}), peak RSS {rss:.0f} MB (goal ≤ 100: "
                 f"{'met' if rss <= 100 else 'NOT met'})")
        out.append(line)
    sq = res.get("citewise+sqlite")
    if sq:
        out.append(f"citewise+sqlite: per step {sq['per_step_us']:,.0f} µs "
                   f"(CPU {sq['per_step_cpu_us']:,.0f} µs), {sq['concurrent_runs_per_s']:,.0f} runs/s")
    bare = res.get("_imports", {}).get("citewise (bare)")
    if bare is not None:
        out.append(f"`import citewise`: {bare:.0f} ms (goal ≤ 200: {'met' if bare <= 200 else 'NOT met'})"
                   f"; `from citewise import Agent, tool`: {res['citewise']['import_ms']:,.0f} ms")
    return out


def readme(args: argparse.Namespace) -> None:
    """Print the results' table and goal lines; ``--write`` puts them in bench/README.md.

    With ``--write`` the text between the ``<!-- peers:results -->`` markers of the
    README's ``## Peers`` section is replaced; the prose around it is left alone.
    """
    doc = json.loads(Path(args.results).read_text())
    m = doc["machine"]
    loads = m["loadavg_1_5_15"]
    text = "\n".join([
        f"Run {doc['date']}, Python {m['python']}, {m['cpus']} CPUs ({m['platform']}); "
        f"{doc['method']['rounds']} interleaved rounds × {doc['method']['iters_per_round']} runs "
        f"of each size (after {doc['method']['warmup']} warm-up runs) per runtime; "
        f"1-minute load average {min(x[0] for x in loads):.1f}–{max(x[0] for x in loads):.1f} "
        f"during the run (the machine is shared); citewise code: {doc.get('citewise_code', '?')}. "
        "Peers' ratios to default citewise in parentheses.",
        "",
        table(doc),
        "",
        *[f"- {line}" for line in goals(doc)],
    ])
    if not args.write:
        print(text)
        return
    path = REPO / "bench" / "README.md"
    readme_text = path.read_text()
    start, end = "<!-- peers:results -->", "<!-- /peers:results -->"
    i, j = readme_text.index(start) + len(start), readme_text.index(end)
    path.write_text(readme_text[:i] + "\n" + text + "\n" + readme_text[j:])
    print(f"updated {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("setup").set_defaults(fn=setup)
    p = sub.add_parser("run")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=100, help="runs of each size per round")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--runs", type=int, default=1000, help="concurrent runs")
    p.add_argument("--import-reps", type=int, default=5)
    p.add_argument("--only", nargs="*", help="a subset of runtimes")
    p.add_argument("--skip-concurrency", action="store_true")
    p.add_argument("--out", default=str(RESULTS / "peers.json"))
    p.set_defaults(fn=run)
    r = sub.add_parser("readme")
    r.add_argument("--results", default=str(RESULTS / "peers.json"))
    r.add_argument("--write", action="store_true", help="update bench/README.md in place")
    r.set_defaults(fn=readme)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
