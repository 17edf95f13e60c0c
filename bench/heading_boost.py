"""Choosing the heading boost (issue #27, "Document routing"): one table of B vs quality.

    python bench/heading_boost.py                         # B in 0, 0.5, 1, 2, 4
    python bench/heading_boost.py --boosts 0 1 --kb-dir /tmp/answers-kb
    python bench/heading_boost.py --parts relevance      # relevance only (no Debian manuals)
    python bench/heading_boost.py --parts relevance --postgres --out /tmp/heading-boost-pg.json
                                  # relevance on the PostgreSQL knowledge base (a pgserver)

Both lexical backends score a chunk's heading (document title + section path,
``knowledge/index/headings.py``) as a field of its own, its BM25 multiplied by the boost B;
B = 0 is the field off (the ranking before issue #27). For each B this runs, in one
process and back to back (``headings.HEADING_BOOST`` set between runs; the indexes are
built once, the boost applies at query time):

* ``bench/relevance.py``'s two layouts (``pages``, ``passages``): nDCG@10 and recall@5
  of lexical search and of the default hybrid (``rsf 1:1``), which must not drop;
* retrieval alone on those tune questions that name a page: the top lexical / hybrid
  hit's document, and the page's reciprocal rank in the top 10 (routing before the model);
* ``bench/answers.py`` on the **tune** split only (never heldout: the boost is chosen
  here), per corpus document@1 — does the first citation come from the document the
  question is about — and evidence@1. Its knowledge bases are kept in ``--kb-dir``
  (built on the first B, reused after).

Writes ``bench/results/heading-boost.json`` (``--out``) with the load average before and
after each run (a shared 2-core machine: latencies are not compared here, only ranks).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import answers  # noqa: E402
import relevance  # noqa: E402

RESULTS = HERE / "results" / "heading-boost.json"
BOOSTS = [0.0, 0.5, 1.0, 2.0, 4.0]
PARTS = ("relevance", "answers", "routing")


def _code() -> str:
    """A digest of the source the answers depend on beyond the indexes (the model and the
    grounding): a row whose digest differs from the others' ran other code."""
    digest = hashlib.sha256()
    src = HERE.parent / "src" / "citewise"
    for f in sorted([*(src / "models").rglob("*.py"), *(src / "grounding").rglob("*.py")]):
        digest.update(f.read_bytes())
    return digest.hexdigest()[:12]


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


@contextmanager
def _server(wanted: bool) -> Iterator[str | None]:
    """A throwaway pgserver's URL when ``wanted`` (as ``bench/postgres_search.py``)."""
    if not wanted:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="cw-pgserver-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgserver.postgres_server import get_server

        server = get_server(root / "data", cleanup_mode="delete")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def _relevance(candidates: int, server_url: str | None) -> dict[str, Any]:
    passages, questions = relevance.load()
    out: dict[str, Any] = {}
    for layout in relevance.LAYOUTS:
        run = relevance.run_layout(layout, passages, questions, candidates, server_url)
        default = f"{run['shipped_default']} 1:1"
        out[layout] = {
            name: {m: round(run["summary"][key][m], 4) for m in ("ndcg@10", "recall@5", "mrr")}
            for name, key in (("lexical", "lexical"), ("hybrid", default))
        }
    return out


def _answers(kb_dir: Path, model: str) -> dict[str, Any]:
    run = answers.run(sorted(answers.CORPORA), install=False, kb_dir=kb_dir, split="tune",
                      model=model)
    out = {}
    for name, corpus in run["corpora"].items():
        tune = corpus["summary"]["by_split"]["tune"]
        out[name] = {k: tune[k] for k in ("document_at_1", "evidence_at_1", "with_document",
                                           "answerable")}
    every = run["overall"]["by_split"]["tune"]
    out["all"] = {k: every[k] for k in ("document_at_1", "evidence_at_1", "with_document",
                                        "answerable")}
    return out


def _routing(kb_dir: Path) -> dict[str, Any]:
    """Retrieval alone on the answers' tune questions that name a page: is the top hit's
    document that page (lexical and hybrid search), and the reciprocal rank of the page's
    first chunk in the top 10 — routing before the model chooses its quote."""
    from citewise import KnowledgeBase

    out: dict[str, Any] = {}
    totals: dict[str, list[float]] = {}
    for name in sorted(answers.CORPORA):
        corpus = answers.CORPORA[name]
        asked = [q for q in answers.load_labels(corpus) if q.split == "tune" and q.document]
        scores: dict[str, list[float]] = {}
        with KnowledgeBase.open(kb_dir / name) as kb:
            for q in asked:
                for mode in ("lexical", "hybrid"):
                    docs = [Path(h.source).name for h in kb.search(q.question, k=10, mode=mode)]
                    rank = docs.index(q.document) + 1 if q.document in docs else None
                    scores.setdefault(f"{mode}_document_at_1", []).append(float(rank == 1))
                    scores.setdefault(f"{mode}_document_mrr@10", []).append(1 / rank if rank else 0.0)
        out[name] = {k: round(sum(v) / len(v), 4) for k, v in scores.items()}
        out[name]["questions"] = len(asked)
        for k, v in scores.items():
            totals.setdefault(k, []).extend(v)
    out["all"] = {k: round(sum(v) / len(v), 4) for k, v in totals.items()}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boosts", type=float, nargs="+", default=BOOSTS)
    ap.add_argument("--kb-dir", type=Path, default=Path("/tmp/answers-kb"))
    ap.add_argument("--model", default="extractive")
    ap.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    ap.add_argument("--postgres", action="store_true",
                    help="relevance on the PostgreSQL knowledge base of a throwaway pgserver")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()

    from citewise.knowledge.index import headings
    from citewise.knowledge.retrieve.retriever import CANDIDATES

    shipped = headings.HEADING_BOOST
    rows = []
    with _server(args.postgres) as server_url:
        for boost in args.boosts:
            headings.HEADING_BOOST = boost
            row: dict[str, Any] = {"boost": boost, "load_before": _load(), "code": _code()}
            if "relevance" in args.parts:
                print(f"B = {boost}: relevance …", file=sys.stderr, flush=True)
                row["relevance"] = _relevance(CANDIDATES, server_url)
            if "answers" in args.parts:
                print(f"B = {boost}: answers (tune) …", file=sys.stderr, flush=True)
                row["answers_tune"] = _answers(args.kb_dir, args.model)
            if "routing" in args.parts:  # the knowledge bases the answers part builds
                row["routing_tune"] = _routing(args.kb_dir)
            row["load_after"] = _load()
            if _code() != row["code"]:
                row["code"] += " (changed during the row)"
            rows.append(row)
            print(json.dumps(row), flush=True)
    headings.HEADING_BOOST = shipped
    doc = {
        "benchmark": "heading-boost",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "shipped_default": shipped,
        "backend": "postgres" if args.postgres else "embedded",
        "model": args.model,
        "split": "tune",
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    for r in rows:
        cells = [f"B={r['boost']:g}"]
        rel = r.get("relevance", {})
        cells += [f"{lay} lex {rel[lay]['lexical']['ndcg@10']:.3f} hyb {rel[lay]['hybrid']['ndcg@10']:.3f}"
                  for lay in rel]
        if "answers_tune" in r:
            cells += [f"{c} doc@1 {v['document_at_1']}" for c, v in r["answers_tune"].items()]
        if "routing_tune" in r:
            cells += [f"{c} search doc@1 lex {v['lexical_document_at_1']} hyb "
                      f"{v['hybrid_document_at_1']}" for c, v in r["routing_tune"].items()]
        print(" | ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
