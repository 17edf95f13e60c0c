"""Ingest at real scale: time to searchable, time to embedded, pipeline vs raw model, peak RSS.

    python bench/ingest.py                        # both corpora, minilm + static-minilm, 300-chunk samples
    python bench/ingest.py --corpus pgdoc --embedder minilm --embedder minilm-128 --max-chunks 500
    python bench/ingest.py --max-chunks 0         # everything, for every embedder (hours with MiniLM)
    python bench/ingest.py --no-save              # print, leave bench/results/ingest.json alone
    python bench/ingest.py --readme               # also rewrite the "## Ingest" section of bench/README.md
    python bench/ingest.py --end-to-end minilm    # each corpus whole, as `citewise ingest` runs it

Corpora:

* ``pgdoc`` — Debian's PostgreSQL 15 HTML manual (``apt-get install postgresql-doc-15``,
  ~1,170 pages under ``/usr/share/doc/postgresql-doc-15/html``), ingested as a folder.
* ``text50`` — one 50 MiB plain-text file of English-like prose, generated deterministically
  (seed 0; words drawn Zipf-like from the vocabulary of ``bench/data``), kept in
  ``bench/.cache/ingest/``.

Every measurement runs in a fresh child process, so peak RSS (``os.wait4``'s rusage of
that child) is the measurement's own:

1. *lexical* — the whole corpus through ``KnowledgeBase.open(dense=False).ingest``: the
   time to lexically searchable (a search then finds hits), chunks, peak RSS.
2. per embedder, *pipeline* — ``KnowledgeBase.open(embedder=…).ingest`` (today's code:
   the ingest returns once every chunk is embedded) on a sample of the corpus: the first
   pages of a seeded shuffle of the manual until ``--max-chunks`` chunks, or the first
   ``--max-chunks`` × 680 characters of the text file. ``--max-chunks 0`` takes it all
   (``--full`` names embedders that always take it all; the static one by default).
   The embedder is loaded before the clock starts (its load time is reported apart).
3. per embedder, *raw* — the same chunk texts (read back from that knowledge base) through
   the model alone, in another child: for the ONNX models the tokenizer and the
   onnxruntime session with the same threads, texts sorted by token count in batches of 32,
   mean pooling; for the static model its lookup. Raw runs once before and once after the
   pipeline, and also times ``embedder.embed(all texts)`` in one call; the ratio is the
   pipeline's chunks/s over the mean of the two raw runs (the issue's goal: ≥ 90 %).

4. ``--end-to-end NAME`` — the whole corpus as ``citewise ingest`` runs it, in one child:
   ``ingest(wait=False)`` (time to lexically searchable: the documents are stored and a
   search finds them), then ``embedding_only()`` + ``embed_pending()`` (this process's
   worker drains the store's queue: time to fully embedded), with the time spent inside the
   model's ``embed`` calls and the child's peak RSS over the whole run. No raw-model run
   beside it (that would double an hour-long run); the ratio is the sampled ``--ratio``.

The machine is shared: the load average is recorded at the start and end of every child
(and every minute of an end-to-end run). In the sampled runs, time to fully embedded is
*projected* (time to searchable + chunks ÷ the pipeline's chunks/s); ``--end-to-end``
measures it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "ingest.json"
README = HERE / "README.md"
CACHE = HERE / ".cache" / "ingest"
PGDOC = Path("/usr/share/doc/postgresql-doc-15/html")
TEXT_BYTES = 50 * 1024 * 1024
CHUNK_STRIDE = 800 - 120  # the default chunk size minus overlap: characters per new chunk
BATCH = 32
END_MARK = "<!-- end of the generated ingest tables -->"


# -- corpora ------------------------------------------------------------------------------


def _vocabulary() -> list[str]:
    """Distinct lower-case words of the CC0 texts in ``bench/data``, in first-seen order."""
    seen: dict[str, None] = {}
    for path in sorted((HERE / "data").rglob("*")):
        if path.suffix in {".txt", ".md", ".jsonl"} and path.is_file():
            for w in re.findall(r"[A-Za-z][a-z]{1,14}", path.read_text(encoding="utf-8")):
                seen.setdefault(w.lower(), None)
    return list(seen)


def text_corpus() -> Path:
    """The seeded 50 MiB text file (made once; the same bytes on every machine)."""
    out = CACHE / "text-50mib-seed0.txt"
    if out.is_file() and out.stat().st_size == TEXT_BYTES:
        return out
    CACHE.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    vocab = _vocabulary()
    rng.shuffle(vocab)
    weights = [1.0 / (i + 1) ** 1.07 for i in range(len(vocab))]
    cum: list[float] = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    parts: list[str] = []
    size = 0
    while size < TEXT_BYTES:
        sentences = []
        for _ in range(rng.randint(3, 8)):
            words = rng.choices(vocab, cum_weights=cum, k=rng.randint(6, 24))
            sentences.append(" ".join(words).capitalize() + rng.choice(".....?!"))
        para = " ".join(sentences) + "\n\n"
        parts.append(para)
        size += len(para.encode())
    data = "".join(parts).encode()[:TEXT_BYTES]
    data = data[: data.rfind(b"\n\n") + 2].ljust(TEXT_BYTES, b"\n")
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    return out


def corpus_path(name: str) -> Path:
    if name == "pgdoc":
        if not PGDOC.is_dir():
            sys.exit(f"{PGDOC} is missing: apt-get install -y postgresql-doc-15")
        return PGDOC
    return text_corpus()


def sample(name: str, path: Path, per_doc: dict[str, int], max_chunks: int, workdir: Path
           ) -> tuple[Path, dict[str, Any]]:
    """The input a sampled pipeline run ingests, and what it is."""
    if max_chunks <= 0:
        return path, {"whole_corpus": True}
    if name == "pgdoc":
        files = sorted(per_doc)
        random.Random(0).shuffle(files)
        picked: list[str] = []
        total = 0
        for f in files:
            if total >= max_chunks:
                break
            picked.append(f)
            total += per_doc[f]
        out = workdir / "sample-pgdoc"
        out.mkdir()
        for f in picked:
            shutil.copy2(f, out / Path(f).name)
        return out, {"whole_corpus": False, "files": len(picked), "expected_chunks": total,
                     "how": "first pages of a seeded shuffle (seed 0) until max_chunks"}
    text = path.read_text(encoding="utf-8")
    cut = text.find("\n\n", max_chunks * CHUNK_STRIDE)
    cut = len(text) if cut < 0 else cut + 2
    out = workdir / "sample-text50.txt"
    out.write_text(text[:cut], encoding="utf-8")
    return out, {"whole_corpus": cut >= len(text), "characters": cut,
                 "how": "the file's first max_chunks x 680 characters, to a paragraph end"}


# -- children -----------------------------------------------------------------------------


def run_child(job: dict[str, Any]) -> dict[str, Any]:
    """Run ``job`` in a fresh interpreter; its result plus its own peak RSS and CPU."""
    with tempfile.TemporaryDirectory() as tmp:
        spec, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        spec.write_text(json.dumps(job))
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        proc = subprocess.Popen([sys.executable, __file__, "--child", str(spec), str(out)], env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"child {job['kind']} failed with exit status {proc.returncode}")
        result: dict[str, Any] = json.loads(out.read_text())
    result["peak_rss_mb"] = round(usage.ru_maxrss / 1024, 1)
    result["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 2)
    return result


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def child_lexical(job: dict[str, Any]) -> dict[str, Any]:
    from citewise.knowledge.base import KnowledgeBase

    with tempfile.TemporaryDirectory() as tmp:
        load0 = _load()
        t0 = time.perf_counter()
        with KnowledgeBase.open(Path(tmp) / "kb", dense=False) as kb:
            t_open = time.perf_counter() - t0
            report = kb.ingest([job["path"]])
            t_ingest = time.perf_counter() - t0
            hits = kb.search(job["query"], k=5)
            t_search = time.perf_counter() - t0
            per_doc = {d.source: 0 for d in _all_documents(kb)}
            for d in _all_documents(kb):
                per_doc[d.source] = len(kb.store.get_document_chunks(kb.tenant, d.id))
            chunks = kb.store.count_chunks()
        return {
            "kind": "lexical", "load_start": load0, "load_end": _load(),
            "documents": len(report.added), "failed": len(report.failed),
            "skipped": len(report.skipped), "chunks": chunks, "open_s": round(t_open, 3),
            "time_to_searchable_s": round(t_ingest, 2), "first_search_hits": len(hits),
            "first_search_s": round(t_search - t_ingest, 4),
            "chunks_per_s": round(chunks / max(t_ingest - t_open, 1e-9), 1),
            "per_document_chunks": per_doc,
        }


def _all_documents(kb: Any) -> list[Any]:
    out: list[Any] = []
    while True:
        page = kb.list_documents(limit=500, offset=len(out))
        out.extend(page)
        if len(page) < 500:
            return out


def child_pipeline(job: dict[str, Any]) -> dict[str, Any]:
    from citewise.knowledge.base import KnowledgeBase

    load0 = _load()
    embedder, load_s = _loaded(job)
    timed = _Timed(embedder)
    ticks: list[tuple[float, int]] = []

    def progress(done: int, total: int) -> None:
        ticks.append((time.perf_counter(), done))

    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(Path(tmp) / "kb", embedder=timed) as kb:
        t1 = time.perf_counter()
        report = kb.ingest([job["path"]], embed_progress=progress)
        t2 = time.perf_counter()
        assert report.ok, report.failed
        n = kb.store.count_chunks()
    embed_s = (ticks[-1][0] - ticks[0][0]) if len(ticks) >= 2 else None
    return {
        "kind": "pipeline", "embedder": job["embedder"], "vectors_name": embedder.name,
        "dim": embedder.dim, "load_start": load0, "load_end": _load(),
        "model_load_s": round(load_s, 2), "chunks": n, "documents": len(report.added),
        "ingest_s": round(t2 - t1, 2), "chunks_per_s": round(n / (t2 - t1), 2),
        "before_first_embedding_s": round(ticks[0][0] - t1, 2) if ticks else None,
        "embedding_stage_s": round(embed_s, 2) if embed_s else None,
        "embedding_stage_chunks_per_s": round(n / embed_s, 2) if embed_s else None,
        "inside_embed_calls_s": round(timed.seconds, 2), "embed_calls": timed.calls,
        "outside_embed_calls_s": round(t2 - t1 - timed.seconds, 2),
    }


def child_e2e(job: dict[str, Any]) -> dict[str, Any]:
    """The whole corpus as ``citewise ingest`` runs it: stored and lexically searchable
    (``ingest(wait=False)``), then embedded by this process's worker from the queue
    (``embedding_only`` + ``embed_pending``): both times, the time inside the model's
    ``embed`` calls, and the child's peak RSS."""
    from citewise.knowledge.base import KnowledgeBase

    load0 = _load()
    embedder, load_s = _loaded(job)
    timed = _Timed(embedder)
    loads: list[list[float]] = []
    last = [time.perf_counter()]

    def progress(done: int, total: int) -> None:
        if time.perf_counter() - last[0] >= 60:
            last[0] = time.perf_counter()
            loads.append(_load())
            print(f"    {done:,}/{total:,} embedded, load {loads[-1]}", flush=True)

    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(Path(tmp) / "kb", embedder=timed) as kb:
        t1 = time.perf_counter()
        report = kb.ingest([job["path"]], wait=False)
        t2 = time.perf_counter()
        assert report.ok, report.failed
        hits = kb.search(job["query"], k=5)
        n = kb.store.count_chunks()
        kb.embedding_only()
        stats = kb.embed_pending(progress=progress)
        t3 = time.perf_counter()
    return {
        "kind": "e2e", "embedder": job["embedder"], "vectors_name": embedder.name,
        "load_start": load0, "load_end": _load(), "loads_every_minute": loads,
        "model_load_s": round(load_s, 2), "documents": len(report.added), "chunks": n,
        "embedded": stats.embedded, "time_to_searchable_s": round(t2 - t1, 2),
        "first_search_hits": len(hits), "embedding_s": round(t3 - t2, 1),
        "time_to_fully_embedded_s": round(t3 - t1, 1),
        "embedding_chunks_per_s": round(stats.embedded / max(t3 - t2, 1e-9), 2),
        "inside_embed_calls_s": round(timed.seconds, 1), "embed_calls": timed.calls,
        "outside_embed_share_while_embedding": round(1 - timed.seconds / max(t3 - t2, 1e-9), 3),
    }


def _loaded(job: dict[str, Any]) -> tuple[Any, float]:
    """The job's embedder, its model loaded (one call), and the seconds that took."""
    from citewise.knowledge.index.embedders.registry import get_embedder

    t0 = time.perf_counter()
    embedder = get_embedder(job["embedder"], models_dir=job["models_dir"], threads=job["threads"])
    embedder.embed(["load the model"])
    return embedder, time.perf_counter() - t0


class _Timed:
    """The embedder, with the time spent inside its ``embed`` calls counted."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.seconds = 0.0
        self.calls = 0

    def embed(self, texts: Any) -> Any:
        t = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t
            self.calls += 1


def child_raw(job: dict[str, Any]) -> dict[str, Any]:
    """The model alone on the sample's chunk texts, then ``embedder.embed`` on all of them."""
    from citewise.knowledge.index.embedders.registry import get_embedder

    texts = _chunk_texts(job["path"])
    embedder = get_embedder(job["embedder"], models_dir=job["models_dir"], threads=job["threads"])
    raw = _raw_runner(embedder, job["threads"])
    embedder.embed(["load the model"])
    load0 = _load()
    t = time.perf_counter()
    run = raw(texts)
    raw_s = time.perf_counter() - t
    if hasattr(embedder, "_session"):
        t = time.perf_counter()
        embedder.embed(texts)
        embed_call = time.perf_counter() - t
    else:  # the static model's raw run is its embed call
        embed_call = raw_s
    n = len(texts)
    return {
        "kind": "raw", "embedder": job["embedder"], "chunks": n, "load_start": load0,
        "load_end": _load(), "raw_s": [round(raw_s, 2)], "raw_chunks_per_s": round(n / raw_s, 2),
        "tokenize_s": run["tokenize_s"], "model_only_s": run["model_s"],
        "tokens_mean": run["tokens_mean"], "truncated_share": run["truncated"],
        "embed_call_s": round(embed_call, 2), "embed_call_chunks_per_s": round(n / embed_call, 2),
    }


def _chunk_texts(path: str) -> list[str]:
    """The chunk texts the pipeline makes of ``path`` (a lexical-only ingest: same chunker)."""
    from citewise.knowledge.base import KnowledgeBase

    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(Path(tmp) / "kb", dense=False) as kb:
        kb.ingest([path])
        ids = sorted(kb.store.list_chunk_ids())
        return [c.text for i in range(0, len(ids), 2000) for c in kb.store.get_chunks(ids[i:i + 2000])]


def child_compare(job: dict[str, Any]) -> dict[str, Any]:
    """Every embedder on the same texts in one process, interleaved round by round, so the
    machine's load hits them alike: each one's median chunks/s and its speed next to the first."""
    from citewise.knowledge.index.embedders.registry import get_embedder

    texts = _chunk_texts(job["path"])
    embedders = {n: get_embedder(n, models_dir=job["models_dir"], threads=job["threads"])
                 for n in job["embedders"]}
    for e in embedders.values():
        e.embed(["load the model"])
    seconds: dict[str, list[float]] = {n: [] for n in embedders}
    loads = [_load()]
    for _ in range(job["rounds"]):
        for name, e in embedders.items():
            t = time.perf_counter()
            e.embed(texts)
            seconds[name].append(time.perf_counter() - t)
        loads.append(_load())
    first = statistics.median(seconds[job["embedders"][0]])
    return {
        "kind": "compare", "chunks": len(texts), "rounds": job["rounds"], "loads": loads,
        "embedders": {n: {"seconds": [round(x, 2) for x in s],
                          "median_chunks_per_s": round(len(texts) / statistics.median(s), 2),
                          "speed_vs_first": round(first / statistics.median(s), 2)}
                      for n, s in seconds.items()},
    }


def child_ratio(job: dict[str, Any]) -> dict[str, Any]:
    """Raw model and pipeline on the same sample in one process, alternating round by round
    (raw first, then pipeline first, …): the ratio side by side, the load hitting both alike."""
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.index.embedders.registry import get_embedder

    texts = _chunk_texts(job["path"])
    embedder = get_embedder(job["embedder"], models_dir=job["models_dir"], threads=job["threads"])
    raw = _raw_runner(embedder, job["threads"])
    embedder.embed(["load the model"])
    timed = _Timed(embedder)
    raw_s: list[float] = []
    pipe_s: list[float] = []
    inside: list[float] = []
    loads = [_load()]

    def pipeline() -> None:
        with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(
                Path(tmp) / "kb", embedder=timed) as kb:
            before = timed.seconds
            t = time.perf_counter()
            kb.ingest([job["path"]])
            pipe_s.append(time.perf_counter() - t)
            inside.append(timed.seconds - before)
            assert kb.store.count_chunks() == len(texts)

    def model() -> None:
        t = time.perf_counter()
        raw(texts)
        raw_s.append(time.perf_counter() - t)

    for r in range(job["rounds"]):
        for step in (model, pipeline) if r % 2 == 0 else (pipeline, model):
            step()
        loads.append(_load())
    n = len(texts)
    return {
        "kind": "ratio", "embedder": job["embedder"], "chunks": n, "rounds": job["rounds"],
        "loads": loads, "raw_s": [round(x, 2) for x in raw_s],
        "pipeline_s": [round(x, 2) for x in pipe_s],
        "pipeline_inside_embed_s": [round(x, 2) for x in inside],
        "raw_chunks_per_s": round(n / statistics.median(raw_s), 2),
        "pipeline_chunks_per_s": round(n / statistics.median(pipe_s), 2),
        "pipeline_over_raw": round(statistics.median(raw_s) / statistics.median(pipe_s), 3),
        "pipeline_over_raw_per_round": [round(a / b, 3) for a, b in zip(raw_s, pipe_s, strict=True)],
        "outside_embed_share": round(1 - sum(inside) / sum(pipe_s), 3),
    }


def _raw_runner(embedder: Any, threads: int) -> Any:
    """The model without citewise: a fresh session and tokenizer for the ONNX models."""
    import numpy as np

    if not hasattr(embedder, "_session"):  # static: its lookup is the model
        def static(texts: list[str]) -> dict[str, float]:
            t = time.perf_counter()
            embedder.embed(texts)
            return {"tokenize_s": 0.0, "model_s": round(time.perf_counter() - t, 3),
                    "tokens_mean": 0.0, "truncated": 0.0}
        return static

    import onnxruntime as ort
    from tokenizers import Tokenizer

    embedder._load()
    model_path = embedder._model_path
    if model_path is None:
        from citewise.knowledge.index.embedders.minilm import _default_model_path
        model_path = _default_model_path()
    tok = Tokenizer.from_file(str(embedder._tokenizer_path))
    tok.no_padding()
    tok.enable_truncation(max_length=embedder.max_tokens)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}
    output = next(o.name for o in session.get_outputs() if len(o.shape) == 3)

    def run(texts: list[str]) -> dict[str, float]:
        t = time.perf_counter()
        enc = [e.ids for e in tok.encode_batch(texts)]
        t_tok = time.perf_counter() - t
        order = sorted(range(len(enc)), key=lambda i: len(enc[i]))
        t = time.perf_counter()
        for b in range(0, len(order), BATCH):
            rows = [enc[i] for i in order[b:b + BATCH]]
            width = max(map(len, rows))
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, row in enumerate(rows):
                ids[r, :len(row)] = row
                mask[r, :len(row)] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run([output], feeds)[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / m.sum(axis=1)
            pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        lengths = [len(e) for e in enc]
        return {"tokenize_s": round(t_tok, 3), "model_s": round(time.perf_counter() - t, 3),
                "tokens_mean": round(statistics.fmean(lengths), 1),
                "truncated": round(sum(n >= embedder.max_tokens for n in lengths) / len(lengths), 3)}

    return run


# -- driver -------------------------------------------------------------------------------


def measure(corpus: str, embedders: list[str], max_chunks: int, full: set[str], threads: int,
            models_dir: Path, compare: int = 0, rounds: int = 3, compare_only: bool = False,
            ratio: int = 0) -> dict[str, Any]:
    path = corpus_path(corpus)
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    query = "vacuum" if corpus == "pgdoc" else path.read_text(encoding="utf-8")[:200].split()[3]
    mib = sum(f.stat().st_size for f in files) / 2**20
    print(f"[{corpus}] lexical: {path} ({len(files)} files, {mib:.1f} MiB)", flush=True)
    lexical = run_child({"kind": "lexical", "path": str(path), "query": query})
    per_doc = lexical.pop("per_document_chunks")
    print(f"[{corpus}]   {lexical['chunks']} chunks searchable in {lexical['time_to_searchable_s']} s, "
          f"peak RSS {lexical['peak_rss_mb']} MB, load {lexical['load_start']}", flush=True)
    out: dict[str, Any] = {
        "path": str(path), "files": len(files), "mib": round(mib, 1),
        "lexical": lexical, "embedders": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name in [] if compare_only else embedders:
            n = 0 if name in full else max_chunks
            work = Path(tmp) / name
            work.mkdir()
            source, how = sample(corpus, path, per_doc, n, work)
            job = {"embedder": name, "threads": threads, "models_dir": str(models_dir), "path": str(source)}
            print(f"[{corpus}] {name}: {how}", flush=True)
            before = run_child({**job, "kind": "raw"})
            pipe = run_child({**job, "kind": "pipeline"})
            after = run_child({**job, "kind": "raw"})
            assert before["chunks"] == pipe["chunks"] == after["chunks"], (before["chunks"], pipe["chunks"])
            raw_s = [*before["raw_s"], *after["raw_s"]]
            raw = {"chunks": pipe["chunks"], "raw_s": raw_s,
                   "raw_chunks_per_s": round(pipe["chunks"] / statistics.fmean(raw_s), 2),
                   "load_start": before["load_start"], "load_end": after["load_end"],
                   "before": before, "after": after}
            over = pipe["chunks_per_s"] / raw["raw_chunks_per_s"]
            entry: dict[str, Any] = {"sample": how, "pipeline": pipe, "raw": raw,
                                     "pipeline_over_raw": round(over, 3)}
            if pipe.get("embedding_stage_chunks_per_s"):
                entry["embedding_stage_over_raw"] = round(
                    pipe["embedding_stage_chunks_per_s"] / raw["raw_chunks_per_s"], 3)
            if how.get("whole_corpus"):
                entry["time_to_fully_embedded_s"] = {
                    "measured": round(pipe["model_load_s"] + pipe["ingest_s"], 1)}
            else:
                entry["time_to_fully_embedded_s"] = {"projected": round(
                    lexical["time_to_searchable_s"] + pipe["model_load_s"]
                    + lexical["chunks"] / pipe["chunks_per_s"], 1)}
            print(f"[{corpus}]   pipeline {pipe['chunks']} chunks at {pipe['chunks_per_s']}/s "
                  f"(peak RSS {pipe['peak_rss_mb']} MB), raw {raw['raw_chunks_per_s']}/s → {over:.0%}; "
                  f"fully embedded {entry['time_to_fully_embedded_s']}", flush=True)
            print(f"[{corpus}]   pipeline: {pipe['inside_embed_calls_s']} s inside {pipe['embed_calls']} "
                  f"embed calls, {pipe['outside_embed_calls_s']} s outside; raw runs {raw_s} s (RSS "
                  f"{before['peak_rss_mb']} MB), embedder.embed(all) {before['embed_call_s']} / "
                  f"{after['embed_call_s']} s; load {pipe['load_start']}", flush=True)
            out["embedders"][name] = entry
        if compare and len(embedders) > 1:
            (Path(tmp) / "compare").mkdir()
            source, how = sample(corpus, path, per_doc, compare, Path(tmp) / "compare")
            print(f"[{corpus}] compare {embedders} on one sample, interleaved: {how}", flush=True)
            out["compare"] = {"sample": how, **run_child({
                "kind": "compare", "path": str(source), "embedders": embedders, "rounds": rounds,
                "threads": threads, "models_dir": str(models_dir)})}
            print(f"[{corpus}]   {out['compare']['embedders']}", flush=True)
        if ratio:
            (Path(tmp) / "ratio").mkdir()
            source, how = sample(corpus, path, per_doc, ratio, Path(tmp) / "ratio")
            print(f"[{corpus}] ratio of {embedders[0]}, raw and pipeline alternating: {how}", flush=True)
            out["ratio"] = {"sample": how, **run_child({
                "kind": "ratio", "path": str(source), "embedder": embedders[0], "rounds": rounds,
                "threads": threads, "models_dir": str(models_dir)})}
            r = out["ratio"]
            print(f"[{corpus}]   raw {r['raw_s']} s, pipeline {r['pipeline_s']} s → "
                  f"{r['pipeline_over_raw']:.0%}; outside embed {r['outside_embed_share']:.1%}", flush=True)
    return out


def child_main(spec: Path, out: Path) -> int:
    job = json.loads(spec.read_text())
    kinds = {"lexical": child_lexical, "pipeline": child_pipeline, "raw": child_raw, "e2e": child_e2e,
             "compare": child_compare, "ratio": child_ratio}
    result = kinds[job["kind"]](job)
    out.write_text(json.dumps(result))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", choices=["pgdoc", "text50"])
    ap.add_argument("--embedder", action="append",
                    help="registry name (repeatable; default: minilm, static-minilm)")
    ap.add_argument("--max-chunks", type=int, default=300, help="sample size for the pipeline runs (0: all)")
    ap.add_argument("--full", action="append", help="embedders that always run on the whole corpus "
                    "(default: static-minilm)")
    ap.add_argument("--compare", type=int, default=150, metavar="N",
                    help="also time every embedder on one N-chunk sample, interleaved (0: skip)")
    ap.add_argument("--ratio", type=int, default=150, metavar="N",
                    help="also measure raw vs pipeline of the first embedder in one process, "
                    "alternating, on an N-chunk sample (0: skip)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --compare and --ratio")
    ap.add_argument("--compare-only", action="store_true",
                    help="only the lexical run, --compare and --ratio (added to the saved results)")
    ap.add_argument("--end-to-end", action="append", metavar="EMBEDDER",
                    help="only the whole corpus as `citewise ingest` runs it with EMBEDDER "
                    "(repeatable; added to the saved results)")
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads (shipped: 2)")
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--readme", action="store_true", help="rewrite the Ingest section of bench/README.md")
    ap.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child_main(*args.child)
    corpora = args.corpus or ["pgdoc", "text50"]
    embedders = args.embedder or ["minilm", "static-minilm"]
    full = set(args.full if args.full is not None else ["static-minilm"])
    models_dir = CACHE / "models"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    load0 = _load()
    if args.end_to_end:
        return end_to_end(corpora, args.end_to_end, args, models_dir, started)
    runs = {c: measure(c, embedders, args.max_chunks, full, args.threads, models_dir, args.compare,
                       args.rounds, args.compare_only, args.ratio) for c in corpora}
    result = {
        "run_at": started, "load_start": load0, "load_end": _load(),
        "commit": _commit(), "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "max_chunks": args.max_chunks, "threads": args.threads, "corpora": runs,
    }
    if not args.no_save:
        previous = json.loads(args.results.read_text()) if args.results.exists() else {}
        if args.compare_only and previous:
            for c, run in runs.items():
                for extra in ("compare", "ratio"):
                    if c in previous["corpora"] and extra in run:
                        previous["corpora"][c][extra] = {**run[extra], "run_at": started,
                                                         "load_start": load0}
            merged = previous
        else:
            kept = previous.get("corpora", {})
            for c, run in runs.items():  # end-to-end runs are measured apart: keep them
                if "end_to_end" in kept.get(c, {}):
                    run["end_to_end"] = kept[c]["end_to_end"]
            merged = {**previous, **result, "corpora": {**kept, **runs}}
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(merged, indent=2) + "\n")
        result = merged
    section = render(result)
    print(section)
    if args.readme:
        write_section(section)
    return 0


def end_to_end(corpora: list[str], embedders: list[str], args: argparse.Namespace,
               models_dir: Path, started: str) -> int:
    """``--end-to-end``: each corpus whole, per embedder, merged into the saved results."""
    previous = json.loads(args.results.read_text()) if args.results.exists() else {"corpora": {}}
    for corpus in corpora:
        path = corpus_path(corpus)
        query = "vacuum" if corpus == "pgdoc" else path.read_text(encoding="utf-8")[:200].split()[3]
        for name in embedders:
            print(f"[{corpus}] end to end with {name}: {path}, load {_load()}", flush=True)
            r = run_child({"kind": "e2e", "path": str(path), "query": query, "embedder": name,
                           "threads": args.threads, "models_dir": str(models_dir)})
            r.update(run_at=started, commit=_commit())
            print(f"[{corpus}]   searchable in {r['time_to_searchable_s']} s, fully embedded in "
                  f"{r['time_to_fully_embedded_s']} s ({r['embedding_chunks_per_s']} chunks/s; "
                  f"{r['outside_embed_share_while_embedding']:.1%} outside the model), peak RSS "
                  f"{r['peak_rss_mb']} MB, load {r['load_start']} → {r['load_end']}", flush=True)
            if not args.no_save:
                entry = previous["corpora"].setdefault(corpus, {})
                entry.setdefault("end_to_end", {})[name] = r
                args.results.write_text(json.dumps(previous, indent=2) + "\n")
    section = render(previous)
    print(section)
    if args.readme:
        write_section(section)
    return 0


def _commit() -> str:
    if os.environ.get("CITEWISE_BENCH_COMMIT"):  # measuring a snapshot of another tree
        return os.environ["CITEWISE_BENCH_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def render(result: dict[str, Any]) -> str:
    """The "## Ingest" section of bench/README.md: speed from ``result``, retrieval quality
    from ``bench/results/relevance-NAME.json`` (``python bench/relevance.py --embedder NAME``)."""
    lines = [
        "## Ingest",
        "",
        "`python bench/ingest.py` (see its docstring). Every measurement is a fresh child process; "
        "*pipeline* = `KnowledgeBase.ingest(wait=True)` (it returns when "
        "every chunk is embedded) on a sample of the corpus, the embedder loaded first; *raw* = the model "
        "alone on the same chunk texts (tokenizer + onnxruntime session, length-sorted batches of 32, "
        "mean pooling; for the static model its lookup), once in a child before the pipeline's and once "
        "after; *ratio* = pipeline chunks/s ÷ raw chunks/s. Time to fully embedded is measured when the "
        "sample is the whole corpus, else projected (time to searchable + chunks ÷ pipeline chunks/s). "
        f"Run {result['run_at']}, code {result['commit']}, {result['machine']}, Python "
        f"{result['python']}, onnxruntime intra-op threads {result['threads']}; load average "
        f"{result['load_start'][0]} at the start and {result['load_end'][0]} at the end (2 cores shared "
        "with other work: rates swing ±30 % between runs, which is why raw and pipeline run side by side). "
        "Raw numbers: `bench/results/ingest.json`.",
        "",
        "| corpus | embedder | time to lexically searchable | chunks measured | pipeline chunks/s "
        "| raw chunks/s | ratio | pipeline outside `embed` | time to fully embedded | peak RSS MB, "
        "lexical / pipeline | load avg |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for corpus, run in result["corpora"].items():
        lex = run["lexical"]
        where = f"{corpus} ({run['files']:,} files, {run['mib']} MiB, {lex['chunks']:,} chunks)"
        for name, e in run["embedders"].items():
            p, r = e["pipeline"], e["raw"]
            full = e["time_to_fully_embedded_s"]
            full_s = (f"{full['measured']:,.0f} s" if "measured" in full
                      else f"~{full['projected']:,.0f} s (projected)")
            outside = p["outside_embed_calls_s"] / max(p["ingest_s"], 1e-9)
            lines.append(
                f"| {where} | `{name}` | {lex['time_to_searchable_s']} s | {p['chunks']:,} "
                f"| {p['chunks_per_s']:,} | {r['raw_chunks_per_s']:,} | {e['pipeline_over_raw']:.0%} "
                f"| {outside:.0%} | {full_s} | {lex['peak_rss_mb']:,.0f} / {p['peak_rss_mb']:,.0f} "
                f"| {r['load_start'][0]}–{r['load_end'][0]} |"
            )
    e2e = [(c, n, r) for c, run in result["corpora"].items()
           for n, r in run.get("end_to_end", {}).items()]
    if e2e:
        lines += ["", "End to end on the whole corpus (`--end-to-end NAME`), as `citewise ingest` runs: "
                  "stored and lexically searchable first (`ingest(wait=False)`), then embedded from the "
                  "queue by the same process (`embedding_only` + `embed_pending`), one fresh child each; "
                  "peak RSS is that child's, for the whole run. *Outside the model* = embedding time not "
                  "spent inside the embedder's `embed` calls (queue, SQLite, vector files).", "",
                  "| corpus | embedder | chunks | time to lexically searchable | time to fully embedded "
                  "| chunks/s while embedding | outside the model | peak RSS MB | load avg start / end "
                  "| run at |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for corpus, name, r in e2e:
            lines.append(
                f"| {corpus} | `{name}` | {r['chunks']:,} | {r['time_to_searchable_s']} s "
                f"| {r['time_to_fully_embedded_s']:,.0f} s ({r['time_to_fully_embedded_s'] / 60:.1f} min) "
                f"| {r['embedding_chunks_per_s']:,} | {r['outside_embed_share_while_embedding']:.1%} "
                f"| {r['peak_rss_mb']:,.0f} | {r['load_start'][0]} / {r['load_end'][0]} "
                f"| {r['run_at'][:16]} |")
    ratios = [(c, run["ratio"]) for c, run in result["corpora"].items() if "ratio" in run]
    if ratios:
        lines += ["", "The ratio side by side in one process (`--ratio`): the model alone and the pipeline "
                  "on the same sample, alternating, each round a fresh knowledge base; *outside `embed`* = "
                  "the pipeline's time not spent inside the embedder's `embed` calls (chunking, SQLite, "
                  "tantivy, vectors), which the load cannot fake.", "",
                  "| corpus | embedder | chunks | raw s per round | pipeline s per round | ratio per round "
                  "| ratio of medians | outside `embed` | load avg |",
                  "|---|---|---:|---|---|---|---:|---:|---:|"]
        for corpus, r in ratios:
            lines.append(
                f"| {corpus} | `{r['embedder']}` | {r['chunks']} | {', '.join(map(str, r['raw_s']))} "
                f"| {', '.join(map(str, r['pipeline_s']))} "
                f"| {', '.join(f'{x:.0%}' for x in r['pipeline_over_raw_per_round'])} "
                f"| {r['pipeline_over_raw']:.0%} | {r['outside_embed_share']:.1%} "
                f"| {r['loads'][0][0]}–{r['loads'][-1][0]} |")
    speed = [(c, run["compare"]) for c, run in result["corpora"].items() if "compare" in run]
    if speed:
        lines += ["", "The same embedders on one sample in one process, interleaved round by round "
                  "(so the load hits them alike): median chunks/s, and speed next to the first.", "",
                  "| corpus | chunks | rounds | " + " | ".join(f"`{n}`" for n in speed[0][1]["embedders"])
                  + " | load avg |", "|---|---:|---:|" + "---:|" * len(speed[0][1]["embedders"]) + "---:|"]
        for corpus, c in speed:
            cells = [f"{v['median_chunks_per_s']:,} (×{v['speed_vs_first']})"
                     for v in c["embedders"].values()]
            lines.append(f"| {corpus} | {c['chunks']} | {c['rounds']} | " + " | ".join(cells)
                         + f" | {c['loads'][0][0]}–{c['loads'][-1][0]} |")
    quality = _quality(list(dict.fromkeys(n for run in result["corpora"].values() for n in run["embedders"])))
    if quality:
        lines += ["", "Retrieval quality of the same embedders (`python bench/relevance.py --embedder NAME`, "
                  "nDCG@10; hybrid = the default fusion, rsf 1:1):", "",
                  "| embedder | vectors | dim | dense, pages | hybrid, pages | dense, passages "
                  "| hybrid, passages |", "|---|---|---:|---:|---:|---:|---:|", *quality]
    return "\n".join(lines) + "\n"


def _quality(names: list[str]) -> list[str]:
    rows = []
    for name in names:
        path = RESULTS.with_name(f"relevance-{name}.json")
        if not path.exists():
            continue
        layouts = json.loads(path.read_text())["layouts"]
        cells = []
        for layout in ("pages", "passages"):
            s = layouts[layout]["summary"]
            cells += [f"{s['dense']['ndcg@10']:.3f}", f"{s['rsf 1:1']['ndcg@10']:.3f}"]
        dim = 256 if name.startswith("static") else 384
        rows.append(f"| `{name}` | `{layouts['pages']['embedder']}` | {dim} | " + " | ".join(cells) + " |")
    return rows


def write_section(section: str) -> None:
    """Replace the generated part of "## Ingest" (up to its end marker; the notes written
    after the marker stay), or append the section."""
    text = README.read_text()
    start = text.find("## Ingest\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section + "\n" + END_MARK + "\n"
    else:
        mark = text.find(END_MARK, start)
        end = mark if mark >= 0 else text.find("\n## ", start + 1)
        tail = text[end:] if end >= 0 else ""
        text = text[:start] + section + "\n" + ("" if mark >= 0 else END_MARK + "\n") + tail
    README.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
