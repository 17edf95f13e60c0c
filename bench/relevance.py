"""Retrieval quality on a labelled set: recall@5 and nDCG@10 for lexical, dense and hybrid.

    python bench/relevance.py            # both layouts: print the table, write bench/results/relevance.json
    python bench/relevance.py --readme   # also rewrite the "## Relevance" section of bench/README.md
    python bench/relevance.py --layout pages   # one layout only (keeps the other's stored result)
    python bench/relevance.py --database-url postgresql://… --results bench/results/relevance-postgres.json
                                         # the PostgreSQL knowledge base (BM25 in SQL, pgvector)

The set (``bench/data/relevance``, CC0, see its README) is 137 short passages in topic
groups of look-alikes (three rail companies' policies, two heat pumps' and a dishwasher's
error codes, an API's error codes, a backup tool's options and exit codes, a config
reference with near-identical setting names, two staff directories with near-identical
names, …) and 200 questions, each labelled with its passage, the sentence(s) that answer
it and a kind (paraphrase, identifier, near-duplicate, keyword). Layouts:

* ``pages``: each topic group is one plain-text handbook page, ingested and chunked like
  any user document (800 chars, 120 overlap), next to the 30 documents of
  ``bench/data/citations`` as distractors.
* ``passages``: every passage is its own file and chunk (no distractors).

A retrieved chunk is relevant when it holds an answer sentence whole. Everything runs
through the real pipeline: loaders, chunking, SQLite, tantivy BM25 (``KnowledgeBase``),
the packaged MiniLM embedder and ``knowledge.retrieval.Retriever``: each retriever's top
``CANDIDATES`` (``--candidates``) are taken from ``Retriever`` once per question, every
fusion setting is applied to those same two lists with ``knowledge.hybrid.fuse`` (the
function ``Retriever`` calls), and ``Retriever(fusion=...)`` itself is checked to rank
exactly as the offline fusion.

Fusion is tuned honestly: for each method (``rrf``, ``rsf``, ``dbsf``, ``zscore``) its
weight (and RRF's k) is chosen by two-fold cross-validation — picked on the odd
questions by nDCG@10 and scored on the even ones, then the other way round — and the
untuned setting (weights 1:1, k = 60) is reported next to it. "all cross-validated"
also picks the method inside each fold. The default method is the one with the best
cross-validated nDCG@10 averaged over both layouts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data" / "relevance"
RESULTS = ROOT / "results" / "relevance.json"
README = ROOT / "README.md"

K_RECALL = 5
K_NDCG = 10
WEIGHTS = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]  # dense weight; lexical weight stays 1.0
RRF_KS = [10, 30, 60]
LAYOUTS = ("pages", "passages")
BOOTSTRAP = 2000
KINDS = ("paraphrase", "identifier", "near-duplicate", "keyword")


def load() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    passages = [json.loads(line) for line in (DATA / "passages.jsonl").read_text().splitlines() if line]
    questions = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines() if line]
    return passages, questions


def group_of(passage_id: str) -> str:
    return passage_id.split("-")[0]


def write_corpus(passages: list[dict[str, Any]], docs: Path, layout: str) -> dict[str, tuple[str, int, int]]:
    """Write the documents; returns each passage's ``(file stem, start, end)`` in its text."""
    spans: dict[str, tuple[str, int, int]] = {}
    if layout == "passages":
        for p in passages:
            block = f"{p['title']}\n\n{p['text']}"
            (docs / f"{p['id']}.txt").write_text(block + "\n", encoding="utf-8")
            spans[p["id"]] = (p["id"], 0, len(block))
        return spans
    pages: dict[str, list[str]] = {}
    for p in passages:
        page = pages.setdefault(group_of(p["id"]), [])
        start = sum(len(b) + 2 for b in page)
        block = f"{p['title']}\n\n{p['text']}"
        page.append(block)
        spans[p["id"]] = (group_of(p["id"]), start, start + len(block))
    for name, blocks in pages.items():
        (docs / f"{name}.txt").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    for f in sorted((ROOT / "data" / "citations" / "docs").glob("*.txt")):
        (docs / f"distractor-{f.name}").write_bytes(f.read_bytes())
    return spans


def metrics(ranking: list[int], relevant: set[int]) -> dict[str, float]:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranking[:K_NDCG]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), K_NDCG)))
    first = next((i + 1 for i, d in enumerate(ranking) if d in relevant), None)
    return {
        # one labelled passage per question: found when any chunk holding it is in the top 5
        "recall@5": float(bool(relevant & set(ranking[:K_RECALL]))),
        "ndcg@10": dcg / ideal,
        "mrr": 1.0 / first if first else 0.0,
    }


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.fmean(r[key] for r in rows), 4) for key in rows[0]}




Setting = tuple[str, int, float]  # (fusion method, RRF k, dense weight; lexical weight 1)


def all_settings(methods: tuple[str, ...]) -> list[Setting]:
    out: list[Setting] = []
    for method in methods:
        for k in RRF_KS if method == "rrf" else [60]:
            out.extend((method, k, w) for w in WEIGHTS)
    return out


def setting_name(s: Setting) -> str:
    method, k, w = s
    return f"{method} k={k} w={w}" if method == "rrf" else f"{method} w={w}"


def first_rank(ranking: list[int], relevant: set[int]) -> int | None:
    return next((i + 1 for i, d in enumerate(ranking) if d in relevant), None)


def bootstrap_diff(a: list[float], b: list[float], seed: int = 0) -> dict[str, float]:
    """Mean of ``a - b`` over questions with a 95% paired bootstrap interval."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(statistics.fmean(rng.choices(diffs, k=n)) for _ in range(BOOTSTRAP))
    return {
        "diff": round(statistics.fmean(diffs), 4),
        "ci95_low": round(means[int(0.025 * BOOTSTRAP)], 4),
        "ci95_high": round(means[int(0.975 * BOOTSTRAP) - 1], 4),
        "better": sum(d > 1e-12 for d in diffs),
        "worse": sum(d < -1e-12 for d in diffs),
    }


@contextlib.contextmanager
def open_kb(tmp: str, server_url: str | None, embedder: Any = None) -> Iterator[Any]:
    """The embedded knowledge base in ``tmp``, or one in a fresh database on the PostgreSQL
    server ``server_url`` (dropped afterwards); ``embedder`` None = the packaged MiniLM."""
    from citewise.knowledge.base import KnowledgeBase

    if server_url is None:
        # dense on: every chunk embedded once
        with KnowledgeBase.open(Path(tmp) / "kb", embedder=embedder) as kb:
            yield kb
        return
    import uuid

    import psycopg
    import sqlalchemy as sa

    name = f"relevance_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        url = sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)
        with KnowledgeBase.open_postgres(url, embedder=embedder) as kb:
            yield kb
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def run_layout(
    layout: str, passages: list[dict[str, Any]], questions: list[dict[str, Any]], candidates: int,
    server_url: str | None = None, embedder_name: str | None = None,
) -> dict[str, Any]:
    from citewise.knowledge.retrieve.fusion import DEFAULT_FUSION, FUSION_METHODS, fuse, fuse_rows
    from citewise.knowledge.retrieve.retriever import Retriever

    embedder = None
    if embedder_name is not None:  # see citewise.knowledge.index.embedders.registry
        from citewise.knowledge.index.embedders.registry import get_embedder

        embedder = get_embedder(embedder_name, models_dir=ROOT / ".cache" / "ingest" / "models")
    with tempfile.TemporaryDirectory() as tmp, open_kb(tmp, server_url, embedder) as kb:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        spans = write_corpus(passages, docs, layout)
        t0 = time.perf_counter()
        report = kb.ingest([docs])
        assert report.ok, report.failed
        assert kb.dense is not None
        ingest_s = time.perf_counter() - t0
        chunks_of: dict[str, list[Any]] = {}
        for stem in {s[0] for s in spans.values()}:
            doc = kb.find_document(docs / f"{stem}.txt")
            assert doc is not None
            chunks_of[stem] = kb.store.get_document_chunks(kb.tenant, doc.id)

        def relevant_chunks(passage_id: str, answers: list[str]) -> set[int]:
            """Chunks holding a whole answer sentence of the labelled passage."""
            stem, a, b = spans[passage_id]
            text = (docs / f"{stem}.txt").read_text(encoding="utf-8")
            found: set[int] = set()
            for answer in answers:
                at = text.find(answer, a, b)
                assert at >= 0, (passage_id, answer)
                found.update(
                    c.id for c in chunks_of[stem] if c.start_char <= at and at + len(answer) <= c.end_char
                )
            return found

        labels = [relevant_chunks(q["relevant"][0], q["answers"]) for q in questions]
        assert all(labels), "every answer must lie inside one chunk"

        # Each retriever's candidates, once per question, from the real Retriever: these are
        # exactly the two lists a hybrid search with k <= candidates fuses.
        t1 = time.perf_counter()
        base = Retriever(kb.store, kb.index, kb.dense, candidates=candidates)
        lists: list[tuple[list[tuple[int, float]], list[tuple[int, float]]]] = []
        for q in questions:
            lex, den = (
                [(h.chunk_id, h.score) for h in base.retrieve(q["question"], k=candidates, mode=m,
                                                               evidence=False).hits]
                for m in ("lexical", "dense")
            )
            lists.append((lex, den))
        search_s = time.perf_counter() - t1

        rows: dict[str, list[dict[str, float]]] = {}
        ranks: dict[str, list[int | None]] = {}

        def record(name: str, rankings: list[list[int]]) -> None:
            rows[name] = [metrics(r, rel) for r, rel in zip(rankings, labels, strict=True)]
            ranks[name] = [first_rank(r, rel) for r, rel in zip(rankings, labels, strict=True)]

        record("lexical", [[cid for cid, _ in lex[:K_NDCG]] for lex, _ in lists])
        record("dense", [[cid for cid, _ in den[:K_NDCG]] for _, den in lists])
        settings = all_settings(FUSION_METHODS)
        grid = {
            s: [
                metrics([f.chunk_id for f in fuse(lex, den, method=s[0], k=s[1], dense_weight=s[2],  # type: ignore[arg-type]
                                                  limit=K_NDCG)], rel)
                for (lex, den), rel in zip(lists, labels, strict=True)
            ]
            for s in settings
        }

        # The offline fusion is what Retriever does: check it, per method, on every question.
        for method in FUSION_METHODS:
            retriever = Retriever(kb.store, kb.index, kb.dense, candidates=candidates, fusion=method)
            for q, (lex, den) in zip(questions, lists, strict=True):
                got = [h.chunk_id for h in retriever.retrieve(q["question"], k=K_NDCG, mode="hybrid",
                                                              evidence=False).hits]
                want = [f.chunk_id for f in fuse(lex, den, method=method, limit=K_NDCG)]
                assert got == want, (method, q["id"], got, want)

        # Cost of one fusion of the two candidate lists as a search runs it (``fuse_rows``
        # ranks every candidate; the Retriever turns only the hits it returns into ``Fused``):
        # the best of 15 interleaved rounds over every question, so other jobs on a shared
        # machine weigh less and hit every method alike.
        best_s = dict.fromkeys(FUSION_METHODS, math.inf)
        for _ in range(15):
            for method in FUSION_METHODS:
                t = time.perf_counter()
                for lex, den in lists:
                    fuse_rows(lex, den, method=method)
                best_s[method] = min(best_s[method], (time.perf_counter() - t) / len(lists))
        fuse_us = {method: round(v * 1e6, 1) for method, v in best_s.items()}

        folds = [list(range(0, len(questions), 2)), list(range(1, len(questions), 2))]

        def cross_validate(options: list[Setting]) -> tuple[list[dict[str, float]], list[Setting]]:
            """Pick on one half by nDCG@10 (ties: recall@5, then the setting closest to
            weights 1:1 and k = 60), score on the other half; both ways round."""
            out: list[dict[str, float] | None] = [None] * len(questions)
            picks: list[Setting] = []
            for tune, test in ((folds[0], folds[1]), (folds[1], folds[0])):
                def fit(s: Setting, tune: list[int] = tune) -> tuple[float, float, float]:
                    picked = [grid[s][i] for i in tune]
                    return (
                        round(statistics.fmean(r["ndcg@10"] for r in picked), 9),
                        round(statistics.fmean(r["recall@5"] for r in picked), 9),
                        -abs(math.log(s[2])) - abs(s[1] - 60) / 100,
                    )
                best = max(options, key=fit)
                picks.append(best)
                for i in test:
                    out[i] = grid[best][i]
            return [r for r in out if r is not None], picks

        fusion: dict[str, Any] = {}
        for method in FUSION_METHODS:
            untuned = (method, 60, 1.0)
            rows[f"{method} 1:1"] = grid[untuned]
            cv_rows, picks = cross_validate([s for s in settings if s[0] == method])
            rows[f"{method} cv"] = cv_rows
            fusion[method] = {
                "untuned (weights 1:1, k=60)": mean(grid[untuned]),
                "cross-validated": mean(cv_rows),
                "cv_picks": [setting_name(p) for p in picks],
                "grid": {setting_name(s): mean(grid[s]) for s in settings if s[0] == method},
            }
        all_rows, all_picks = cross_validate(settings)
        rows["all cv"] = all_rows
        best_all = max(settings, key=lambda s: statistics.fmean(r["ndcg@10"] for r in grid[s]))

        # ranks of the settings that matter, for the per-question table
        for method in FUSION_METHODS:
            ranks[f"{method} 1:1"] = [
                first_rank([f.chunk_id for f in fuse(lex, den, method=method, limit=K_NDCG)], rel)
                for (lex, den), rel in zip(lists, labels, strict=True)
            ]

        default = f"{DEFAULT_FUSION} 1:1"
        best_single = {
            metric: max(("lexical", "dense"), key=lambda n: statistics.fmean(r[metric] for r in rows[n]))
            for metric in ("recall@5", "ndcg@10")
        }
        versus: dict[str, Any] = {}
        for name in (default, f"{DEFAULT_FUSION} cv", "all cv"):
            versus[name] = {
                f"{metric} vs {other}": bootstrap_diff(
                    [r[metric] for r in rows[name]], [r[metric] for r in rows[other]]
                )
                for metric in ("recall@5", "ndcg@10")
                for other in ("lexical", "dense")
            }
        by_kind = {
            kind: {
                name: {**mean([r for r, q in zip(rows[name], questions, strict=True) if q["kind"] == kind]),
                       "questions": sum(q["kind"] == kind for q in questions)}
                for name in ("lexical", "dense", default, f"{DEFAULT_FUSION} cv", "all cv")
            }
            for kind in KINDS
        }
        misses = {
            name: [q["id"] for q, r in zip(questions, rows[name], strict=True) if r["recall@5"] < 1.0]
            for name in ("lexical", "dense", *(f"{m} 1:1" for m in FUSION_METHODS),
                         *(f"{m} cv" for m in FUSION_METHODS), "all cv")
        }
        per_question = {
            q["id"]: {"kind": q["kind"], **{name: ranks[name][i] for name in ranks}}
            for i, q in enumerate(questions)
        }
        n_chunks = kb.store.count_chunks()
        n_docs = len(list(docs.iterdir()))
        embedder = kb.dense.embedder.name
        kb.close()

    return {
        "run_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {platform.system()}",
        "set": {"passages": len(passages), "questions": len(questions), "licence": "CC0-1.0",
                "kinds": {k: sum(q["kind"] == k for q in questions) for k in KINDS}},
        "layout": layout,
        "documents": n_docs,
        "chunks": n_chunks,
        "embedder": embedder,
        "candidates_per_retriever": candidates,
        "shipped_default": DEFAULT_FUSION,
        "summary": {name: mean(r) for name, r in rows.items()},
        "fusion": fusion,
        "all_cv_picks": [setting_name(p) for p in all_picks],
        "best_on_all_questions (optimistic)": {"setting": setting_name(best_all), **mean(grid[best_all])},
        "best_single": best_single,
        "default_vs_single (paired bootstrap)": versus,
        "by_kind": by_kind,
        "questions_missed_at_5": misses,
        "first_relevant_rank": per_question,
        "fuse_us_per_call": fuse_us,
        "timing_s": {"ingest_and_embed": round(ingest_s, 2), "candidate_searches": round(search_s, 2)},
    }


def recommend(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The fusion method with the best cross-validated nDCG@10 averaged over the layouts
    (ties: recall@5)."""
    methods = list(next(iter(runs.values()))["fusion"])
    score = {
        m: (
            round(statistics.fmean(r["fusion"][m]["cross-validated"]["ndcg@10"] for r in runs.values()), 4),
            round(statistics.fmean(r["fusion"][m]["cross-validated"]["recall@5"] for r in runs.values()), 4),
        )
        for m in methods
    }
    best = max(methods, key=lambda m: score[m])
    return {
        "layouts": sorted(runs),
        "cv_ndcg@10_and_recall@5_mean_over_layouts": {m: list(v) for m, v in score.items()},
        "recommended": best,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readme", action="store_true", help="rewrite the Relevance section of bench/README.md")
    ap.add_argument("--layout", choices=[*LAYOUTS, "both"], default="both")
    ap.add_argument("--candidates", type=int, default=None,
                    help="candidates per retriever (default: what Retriever uses)")
    ap.add_argument("--results", type=Path, default=RESULTS, help="where the JSON goes")
    ap.add_argument("--database-url", default=None, metavar="SERVER_URL",
                    help="measure the PostgreSQL knowledge base instead (BM25 in SQL, pgvector): "
                    "a superuser URL of a server with pgvector; a database is made per layout")
    ap.add_argument("--embedder", default=None, metavar="NAME",
                    help="an embedder of citewise.knowledge.index.embedders.registry (default: the "
                    "packaged MiniLM); results then default to bench/results/relevance-NAME.json")
    args = ap.parse_args()
    if args.embedder and args.results == RESULTS:
        args.results = RESULTS.with_name(f"relevance-{args.embedder}.json")

    from citewise.knowledge.retrieve.retriever import CANDIDATES

    candidates = args.candidates or CANDIDATES
    passages, questions = load()
    results: Path = args.results
    previous = json.loads(results.read_text()) if results.exists() else {}
    runs = previous.get("layouts", {}) if isinstance(previous.get("layouts"), dict) else {}
    for layout in LAYOUTS if args.layout == "both" else (args.layout,):
        runs[layout] = run_layout(layout, passages, questions, candidates, args.database_url,
                                  args.embedder)
        runs[layout]["backend"] = "postgres" if args.database_url else "embedded"
    complete = all(layout in runs and "fusion" in runs[layout] for layout in LAYOUTS)
    choice = recommend(runs) if complete else None
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps({"default_choice": choice, "layouts": runs}, indent=2) + "\n")
    section = render(runs, choice)
    print(section)
    if choice and choice["recommended"] != runs["pages"]["shipped_default"]:
        print(f"note: the cross-validated choice is {choice['recommended']!r}, "
              f"DEFAULT_FUSION is {runs['pages']['shipped_default']!r}", file=sys.stderr)
    if args.readme:
        write_section(section)
    return 0


def _f(x: float) -> str:
    return f"{x:.3f}"


def _cells(m: dict[str, float]) -> str:
    return f"{_f(m['recall@5'])} | {_f(m['ndcg@10'])} | {_f(m['mrr'])}"


def render(runs: dict[str, dict[str, Any]], choice: dict[str, Any] | None) -> str:
    r = runs.get("pages") or next(iter(runs.values()))
    default = r["shipped_default"]
    lines = [
        "## Relevance",
        "",
        f"`python bench/relevance.py --readme` — `bench/data/relevance` (original text, CC0): "
        f"{r['set']['questions']} questions over {r['set']['passages']} short passages in topic groups "
        "of look-alikes (three rail companies' policies, two heat pumps' and a dishwasher's error codes, "
        "an API's paired error codes, a backup tool's options and exit codes, a config reference with "
        "near-identical setting names, two staff directories with near-identical names, two employers' "
        "HR rules and a town's tenancy rules, release notes, everyday science …). Questions by kind: "
        + ", ".join(f"{n} {k}" for k, n in r["set"]["kinds"].items())
        + ". Real pipeline: loaders → chunking → SQLite → tantivy BM25 / "
        f"`{r['embedder']}` vectors → `Retriever`, top {r['candidates_per_retriever']} of each retriever "
        f"fused. Run {r['run_at']} (Python {r['python']}, {r['machine']}); raw results, per-question "
        "ranks and every grid point in `bench/results/relevance.json`.",
        "",
        "Fusion methods (`knowledge/hybrid.py`, `Retriever(fusion=...)`, `KnowledgeBase.open(fusion=...)`): "
        "`rrf` reciprocal rank fusion; `rsf` relative score fusion (min-max per retriever, weighted "
        "mean — Weaviate's default); `dbsf` distribution-based score fusion (mean ± 3 sd per retriever — "
        "Qdrant's); `zscore` (weighted mean of z-scores). *1:1* = equal weights, k = 60, untuned; "
        "*cv* = the dense weight (and RRF's k) picked by two-fold cross-validation (odd questions → even, "
        "even → odd, by nDCG@10); *all cv* also picks the method inside each fold.",
    ]
    for layout in LAYOUTS:
        run = runs.get(layout)
        if run is None or "fusion" not in run:
            continue
        where = (
            f"{run['documents']} documents → {run['chunks']} chunks: one plain-text handbook page per topic "
            "group, chunked as ingested (800 chars / 120 overlap), plus the 30 documents of "
            "`bench/data/citations` as distractors"
            if layout == "pages"
            else f"every passage its own file and chunk ({run['chunks']} chunks, no distractors)"
        )
        s = run["summary"]
        lines += [
            "",
            f"### Layout `{layout}` — {where}",
            "",
            "| retrieval | recall@5 | nDCG@10 | MRR |",
            "|---|---:|---:|---:|",
        ]
        for name in ("lexical", "dense"):
            lines.append(f"| {name} | {_cells(s[name])} |")
        for method, f in run["fusion"].items():
            mark = " **(default)**" if method == default else ""
            u, c = f["untuned (weights 1:1, k=60)"], f["cross-validated"]
            lines.append(f"| hybrid {method} 1:1{mark} | {_cells(u)} |")
            lines.append(
                f"| hybrid {method} cv ({'; '.join(f['cv_picks'])}) | {_f(c['recall@5'])} | "
                f"{_f(c['ndcg@10'])} | {_f(c['mrr'])} |"
            )
        a = s["all cv"]
        lines.append(
            f"| hybrid all cv ({'; '.join(run['all_cv_picks'])}) | {_f(a['recall@5'])} | {_f(a['ndcg@10'])} "
            f"| {_f(a['mrr'])} |"
        )
        vs = run["default_vs_single (paired bootstrap)"]
        parts = []
        for name, label in (
            (f"{default} 1:1", f"default ({default} 1:1)"), (f"{default} cv", f"{default} cv")
        ):
            cells = []
            for metric in ("recall@5", "ndcg@10"):
                for other in ("lexical", "dense"):
                    d = vs[name][f"{metric} vs {other}"]
                    cells.append(
                        f"{metric} vs {other} {d['diff']:+.3f} [{d['ci95_low']:+.3f}, {d['ci95_high']:+.3f}] "
                        f"({d['better']} better / {d['worse']} worse)"
                    )
            parts.append(f"{label}: " + "; ".join(cells))
        lines += [
            "",
            "Hybrid minus each single retriever, mean over questions [95% paired bootstrap "
            "interval]: " + ". ".join(parts) + ".",
        ]
        verdict = []
        d = s[f"{default} 1:1"]
        for metric in ("recall@5", "ndcg@10"):
            single = run["best_single"][metric]
            best = s[single][metric]
            word = "beats" if d[metric] > best else "ties" if d[metric] == best else "loses to"
            paired = vs[f"{default} 1:1"][f"{metric} vs {single}"]
            verdict.append(
                f"{metric} {_f(d[metric])} {word} {single} ({_f(best)}; better on {paired['better']} "
                f"questions, worse on {paired['worse']})"
            )
        lines += ["", f"Default hybrid ({default} 1:1): " + "; ".join(verdict) + "."]
        bk = run["by_kind"]
        lines += [
            "",
            "| kind (questions) | lexical R@5 / nDCG@10 | dense | " + f"{default} 1:1 | {default} cv |",
            "|---|---|---|---|---|",
        ]
        for kind, cols in bk.items():
            n = cols["lexical"]["questions"]
            cells = [f"{_f(cols[c]['recall@5'])} / {_f(cols[c]['ndcg@10'])}"
                     for c in ("lexical", "dense", f"{default} 1:1", f"{default} cv")]
            lines.append(f"| {kind} ({n}) | " + " | ".join(cells) + " |")
        m = run["questions_missed_at_5"]
        lines += [
            "",
            "Missed at 5 — "
            + "; ".join(f"{name}: {', '.join(m[name]) or 'none'}"
                        for name in ("lexical", "dense", f"{default} 1:1", f"{default} cv", "all cv"))
            + f". One question moves recall@5 by {1 / run['set']['questions']:.3f}. "
            f"Fusing two {run['candidates_per_retriever']}-candidate lists as a search does "
            "(`fuse_rows`: every candidate ranked, `Fused` objects made only for the hits "
            "returned) costs (µs per call, best of 15 interleaved rounds, pure Python, on "
            "this shared 2-core box): "
            + ", ".join(f"{k} {v}" for k, v in run["fuse_us_per_call"].items()) + ".",
        ]
    if choice is not None:
        sc = choice["cv_ndcg@10_and_recall@5_mean_over_layouts"]
        lines += [
            "",
            "Default: the method with the best cross-validated nDCG@10 averaged over both layouts "
            "(recall@5 breaks ties) — "
            + ", ".join(f"{m} {v[0]:.4f} / {v[1]:.4f}" for m, v in sc.items())
            + f" → `{choice['recommended']}`; shipped default: `{default}`, weights 1:1 (untuned).",
        ]
        ranked = sorted(sc, key=lambda m: sc[m], reverse=True)
        gap = sc[ranked[0]][0] - sc[ranked[1]][0]
        if gap < 0.005:
            lines[-1] += (
                f" The runner-up `{ranked[1]}` is {gap:.4f} behind — less than one question's nDCG "
                "changing — so the two are a tie on this set."
            )
        if "rrf" in sc and ranked[0] != "rrf":
            lines[-1] += f" RRF is {sc[ranked[0]][0] - sc['rrf'][0]:.3f} behind the winner."
    return "\n".join(lines) + "\n"
def write_section(section: str) -> None:
    text = README.read_text() if README.exists() else "# Benchmarks\n"
    pattern = re.compile(r"^## Relevance\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    README.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    sys.exit(main())
