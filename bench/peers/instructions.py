"""Load-independent cross-check: CPU instructions per tool step, counted by valgrind.

    python bench/peers/instructions.py [--runs 10] [--out bench/results/peers-instructions.json]

Wall and CPU times on a shared machine move with other users' load; the number of
instructions a run executes does not. For each runtime this runs, under
``valgrind --tool=callgrind``, a fresh process doing K 1-call runs and one doing K
10-call runs of the same task as ``driver.py`` (after the same warm-up), and reports
(Ir(10) − Ir(1)) / 9K instructions per step (start-up, import and warm-up cancel in the
difference). Needs valgrind; slow (minutes per runtime), so run it when the machine is idle
enough — or at ``nice`` 19: the counts do not depend on load.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from driver import RESULTS, RUNTIMES, py  # noqa: E402

_CHILD = """
import asyncio, sys
sys.path.insert(0, {here!r})
script, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.argv = [script] + sys.argv[4:]
import importlib.util
spec = importlib.util.spec_from_file_location("bench_rt", script)
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
rt = mod.factory(False)
async def go():
    for _ in range(5):
        await rt.run(1); await rt.run(10)
    for _ in range(k):
        await rt.run(n)
asyncio.run(go())
"""


def instructions(name: str, n: int, k: int) -> int:
    venv, script, extra, _ = RUNTIMES[name]
    # The venv's python is a symlink to a real ELF interpreter: valgrind can run it as is
    # (and Python still finds the venv from the path it was started by).
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(py(venv)), "-c",
           _CHILD.format(here=str(HERE)), str(HERE / script), str(n), str(k), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"})
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if m is None:
        raise SystemExit(f"{name}: no instruction count in valgrind's output:\n{proc.stderr[-2000:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--out", default=str(RESULTS / "peers-instructions.json"))
    args = ap.parse_args()
    res: dict[str, Any] = {}
    for name in RUNTIMES:
        if args.only and name not in args.only:
            continue
        one, ten = instructions(name, 1, args.runs), instructions(name, 10, args.runs)
        res[name] = {"per_step": (ten - one) / (9 * args.runs), "ir_1": one, "ir_10": ten}
        print(f"{name}: {res[name]['per_step']:,.0f} instructions per step", file=sys.stderr)
    base = res.get("citewise", {}).get("per_step")
    for r in res.values():
        if base:
            r["ratio_to_citewise"] = r["per_step"] / base
    doc = {"runs_per_size": args.runs, "tool": "valgrind --tool=callgrind (Ir)", "results": res}
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
