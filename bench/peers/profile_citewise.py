"""Where citewise's remaining microseconds go: profiles of the benchmark's own task.

    python bench/peers/profile_citewise.py [--out bench/results/profile.txt]

Runs 10-step runs of ``run_citewise.py``'s task (in-memory; with and without the provenance
hook) under pyinstrument (sampling, so the proportions are not distorted by a tracer's
per-call cost; install it with ``pip install pyinstrument``) when it is importable, and
always under cProfile (deterministic call counts: what is called how often per step).
pyinstrument folds frames from site-packages, so run it against the source tree
(``PYTHONPATH=src``) to see citewise's own frames.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _runtime(provenance: bool) -> Any:
    import run_citewise

    run_citewise.PROVENANCE = provenance
    return run_citewise.factory(False)


async def _runs(rt: Any, n: int, k: int) -> None:
    for _ in range(k):
        await rt.run(n)


def profile(provenance: bool, runs: int) -> str:
    rt = _runtime(provenance)
    asyncio.run(_runs(rt, 10, 50))  # warm-up
    label = "default Agent (provenance on)" if provenance else "Agent(provenance=False)"
    out = [f"## {label}: {runs} runs of 10 tool steps, in-memory\n"]
    try:
        from pyinstrument import Profiler  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        out.append("(pyinstrument not installed: sampling profile skipped)\n")
    else:
        p = Profiler(interval=0.0002, async_mode="disabled")
        p.start()
        asyncio.run(_runs(rt, 10, runs))
        p.stop()
        out.append("### pyinstrument (sampling; seconds of wall time, library frames folded)\n")
        out.append(p.output_text(unicode=False, color=False, show_all=False))
    prof = cProfile.Profile()
    prof.enable()
    asyncio.run(_runs(rt, 10, runs))
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime").print_stats(30)
    out.append(f"### cProfile, top 30 by own time (call counts are for {runs} runs = "
               f"{runs * 10} steps; the tracer inflates the times of small calls)\n")
    out.append(buf.getvalue())
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(HERE.parent / "results" / "profile.txt"))
    ap.add_argument("--runs", type=int, default=300)
    args = ap.parse_args()
    sys.argv = sys.argv[:1]
    text = profile(False, args.runs) + "\n\n" + profile(True, args.runs)
    Path(args.out).write_text(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
