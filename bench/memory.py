"""Peak memory of a real ingest, as a user runs it (by hand, not part of the tests).

    python bench/memory.py                 # pgdoc and text50, 60 s of embedding each
    python bench/memory.py --embed-s 120 --corpora text50

For issue 23's bound (≤ 600 MB whatever the corpus): per corpus (``bench/ingest.py``'s —
Debian's PostgreSQL 15 HTML manual and the seeded 50 MiB text file), in a fresh data dir,

1. ``citewise ingest PATH --no-wait`` — time until searchable by keyword, peak RSS;
2. ``citewise ingest PATH`` in another fresh dir — reads, then embeds in the same process
   with the default embedder; stopped by SIGINT after ``--embed-s`` seconds of the whole
   command (the model's speed is not the subject here, the memory is: it is flat once
   the first batches ran) — peak RSS and chunks embedded.

RSS is the sum over the command's process tree, sampled every 0.1 s with psutil. Results:
``bench/results/memory.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ingest as corpora  # noqa: E402  (the corpora of the ingest benchmark)

RESULTS = HERE / "results" / "memory.json"
CITEWISE = str(Path(sys.executable).with_name("citewise"))


def _run(args: list[str], *, stop_after_s: float | None = None) -> dict[str, Any]:
    t0 = time.monotonic()
    proc = subprocess.Popen([CITEWISE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "CITEWISE_PROGRESS_EVERY_S": "5"})
    ps = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, sum(p.memory_info().rss for p in [ps, *ps.children(True)]))
        except psutil.Error:
            pass
        if stop_after_s is not None and time.monotonic() - t0 > stop_after_s:
            proc.send_signal(signal.SIGINT)
            stop_after_s = None
        time.sleep(0.1)
    out, err = proc.communicate()
    return {"rc": proc.returncode, "wall_s": round(time.monotonic() - t0, 1),
            "peak_rss_mib": round(peak / 2**20), "stdout": out[-400:], "stderr": err[-600:]}


def measure(name: str, embed_s: float) -> dict[str, Any]:
    path = corpora.corpus_path(name)
    root = Path(tempfile.mkdtemp(prefix="cw-mem-"))
    try:
        lexical = _run(["ingest", str(path), "--no-wait", "--data-dir", str(root / "a")])
        full = _run(["ingest", str(path), "--data-dir", str(root / "b")], stop_after_s=embed_s)
        found = re.findall(r"(\d+)/(\d+) chunks embedded", full["stderr"])
        return {"corpus": name, "no_wait": lexical, "embedding": full,
                "chunks_embedded": int(found[-1][0]) if found else None,
                "chunks": int(found[-1][1]) if found else None}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["pgdoc", "text50"])
    parser.add_argument("--embed-s", type=float, default=90.0)
    args = parser.parse_args()
    results = {"run_at": datetime.now(UTC).isoformat(timespec="seconds"),
               "machine": platform.platform(), "cpus": os.cpu_count(),
               "load_avg_start": os.getloadavg(), "runs": []}
    for name in args.corpora:
        print(f"{name} …", file=sys.stderr, flush=True)
        run = measure(name, args.embed_s)
        results["runs"].append(run)
        print(json.dumps({k: v for k, v in run.items()}, indent=1)[:1500], file=sys.stderr)
    results["load_avg_end"] = os.getloadavg()
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
