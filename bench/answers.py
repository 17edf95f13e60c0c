"""Do the answers quote the right sentence? Measured on manuals nobody on the team wrote.

Run by hand (not part of the test suite)::

    python bench/answers.py                  # all corpora; writes bench/results/answers.json
    python bench/answers.py --readme         # … and rewrites "## Answers" in bench/README.md
    python bench/answers.py --install        # apt-get install the corpora first (root)
    python bench/answers.py --corpus git --split tune      # one corpus, one split
    python bench/answers.py --kb-dir bench/.cache/answers  # keep the knowledge bases
    python bench/answers.py --render --readme  # the README section of the last results

Why: the labelled sets of ``bench/citations.py`` and ``bench/relevance.py`` were written by
the team, so their questions share words with their answers. Here the text is real
manuals installed from Debian — PostgreSQL 15's HTML manual (``postgresql-doc-15``),
git's HTML manual pages (``git-doc``) and the Bash Reference Manual (``bash-doc``, with
the Debian Reference's tutorial chapter, ``debian-reference-en``, as a look-alike), two
*fresh* corpora whose questions were written after the ranking was tuned and are held
out whole: Python 3.11's library reference (``python3.11-doc``, Sphinx HTML) and chapters
2–12 of the Debian Reference, and three *new* ones written a session later, split like the
first: SQLite's documentation (``sqlite3-doc``), Apache httpd's manual (``apache2-doc``)
and fifteen man pages (ssh, tmux, rsync, curl, tar, find, … as groff/mdoc sources), and
seven from new-user reviews (BorgBackup's Sphinx HTML, ``borgbackup-doc``; Node.js's API
reference in Markdown, ``nodejs-doc``; gnuplot's PDF manual, ``gnuplot-doc``; zsh's
Texinfo HTML, ``zsh-doc``; the Rust book's mdBook HTML, ``rust-doc``; MkDocs' own site,
``mkdocs-doc``; libopus's Doxygen reference, ``libopus-doc``), the whole Debian
Administrator's Handbook (``debian-handbook``, written blind), and two reviews of the
eighth session (Vim's help files, ``vim-runtime``; CMake's Sphinx manual, ``cmake-doc``)
— and the questions
(``bench/data/answers/<corpus>.jsonl``) are phrased as users ask them, each labelled with
the exact sentence(s) of the stored text that answer it, or "unanswerable".

Each corpus is a fixed list of pages (:data:`answer_corpora.CORPORA`) holding every labelled
answer and distractors around it, ingested into a knowledge base of its own (a fresh one in
a temporary folder unless ``--kb-dir``: a kept one is re-ingested incrementally, so it
measures answering changes, not loader or chunker changes — delete it for those). Before
any question is asked the bench checks its labels: every expected sentence must occur in
the corpus's stored text exactly once (whitespace-insensitively), one of them in the
question's ``document`` (a question whose label the installed manual no longer holds is
skipped and reported, with the package versions measured), and every
question's ``split`` must be the one its id hashes to (:func:`split_of`), so that nobody
moves a question between ``tune`` and ``heldout`` by hand. The metrics are those of
``citewise eval`` (:mod:`citewise.evaluation`, where the matching rule is defined).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from answer_corpora import CORPORA, GROUPS, Corpus, split_of

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "answers"
RESULTS = HERE / "results" / "answers.json"
README = HERE / "README.md"
SECTION = "## Answers"


class BenchError(SystemExit):
    """The bench cannot run: one line, exit status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(f"error: {message}")


def locate(corpus: Corpus, *, install: bool) -> list[Path]:
    """The corpus's page files; with ``install``, apt-get installs its packages first
    when pages are missing."""
    paths = [Path(corpus.root) / p for p in corpus.pages]
    missing = [p for p in paths if not p.is_file()]
    if missing and install:
        if shutil.which("apt-get") is None:
            raise BenchError("apt-get not found: install the corpora by hand (see "
                             "bench/README.md)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends",
                        *corpus.packages], check=True, env=env)
        missing = [p for p in paths if not p.is_file()]
    if missing:
        raise BenchError(f"corpus {corpus.name}: {len(missing)} page(s) missing, e.g. "
                         f"{missing[0]}; install it with `apt-get install "
                         f"{' '.join(corpus.packages)}` or run with --install")
    return paths


def load_labels(corpus: Corpus) -> list[Any]:
    from citewise.evaluation import load_questions

    questions = load_questions(DATA / f"{corpus.name}.jsonl")
    wrong = [q.id for q in questions
             if q.split != ("heldout" if corpus.fresh else split_of(q.id))]
    if wrong:
        rule = "heldout (a fresh corpus)" if corpus.fresh else "split_of(id)"
        raise BenchError(f"{corpus.name}: split is not {rule} for {', '.join(wrong)}")
    pages = {Path(p).name for p in corpus.pages}
    stray = [q.id for q in questions if q.document is not None and q.document not in pages]
    if stray:
        raise BenchError(f"{corpus.name}: document not in the corpus for {', '.join(stray)}")
    return questions


def check_labels(kb: Any, corpus: Corpus, questions: list[Any]) -> dict[str, str]:
    """Which questions' labels no longer hold, with why: every expected sentence must occur
    exactly once where it can match (so that a citation matches it in one place only: "The
    default is on." would match the wrong setting's sentence): once in the question's own
    ``document``, whose copies elsewhere match nothing (:mod:`citewise.evaluation`), or
    once in the corpus; and at least one must be in that document. Debian updates the
    manuals under the labels (apache2-doc 2.4.68 dropped a sentence of
    ``mod_ratelimit.html``), so a stale label skips its question, reported, rather than
    the corpus."""
    from citewise.evaluation import locate as find

    texts: dict[str, str] = {}
    for page in corpus.pages:
        record = kb.find_document(Path(corpus.root) / page)
        if record is None:
            raise BenchError(f"{corpus.name}: {page} was not ingested")
        texts[Path(page).name] = record.text
    stale: dict[str, str] = {}
    for q in questions:
        problems = []
        for sentence in q.expected or ():
            n = len(find(texts[q.document], sentence)) or sum(
                len(find(text, sentence)) for text in texts.values())
            if n != 1:
                problems.append(f"{'not found' if n == 0 else f'{n} times'}: "
                                f"{sentence[:80]!r}")
        if q.expected and not any(find(texts[q.document], s) for s in q.expected):
            problems.append(f"no expected sentence is in its document {q.document}")
        if problems:
            stale[q.id] = "; ".join(problems)
    return stale


def _versions(packages: tuple[str, ...]) -> dict[str, str]:
    """The installed version of each Debian package a corpus comes from (labels are checked
    against what is installed, so a result says which text it measured)."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n",
                              *packages], capture_output=True, text=True, check=False)
    except OSError:
        return {}
    return dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)


def run_corpus(corpus: Corpus, *, install: bool, kb_dir: Path | None, split: str | None,
               model: str, check_only: bool = False) -> dict[str, Any]:
    from citewise import KnowledgeBase
    from citewise.evaluation import evaluate, summarise

    paths = locate(corpus, install=install)
    questions = load_labels(corpus)
    with tempfile.TemporaryDirectory(prefix=f"citewise-answers-{corpus.name}-") as tmp:
        where = (kb_dir / corpus.name) if kb_dir is not None else Path(tmp) / "kb"
        t0 = time.perf_counter()
        with KnowledgeBase.open(where) as kb:
            report = kb.ingest(paths)
            ingest_s = time.perf_counter() - t0
            chunks = kb.store.count_chunks(kb.tenant)
            if report.failed:
                raise BenchError(f"{corpus.name}: ingest failed: {report.summary()}")
            stale = check_labels(kb, corpus, questions)
            for qid, why in stale.items():
                print(f"{corpus.name}: skipping {qid}, its label is stale ({why})",
                      file=sys.stderr, flush=True)
            if check_only:
                return {"title": corpus.title, "questions": len(questions), "stale": stale,
                        "chunks_written": report.chunks_written}
            asked = [q for q in questions if q.id not in stale
                     and (split is None or q.split == split)]
            t1 = time.perf_counter()
            results = evaluate(kb, asked, model=model)
            ask_s = time.perf_counter() - t1
    return {
        "title": corpus.title,
        "packages": list(corpus.packages),
        "versions": _versions(corpus.packages),
        "stale_labels": stale,
        "pages": len(corpus.pages),
        "ingest": {"added": len(report.added), "unchanged": len(report.unchanged),
                   "chunks_written": report.chunks_written, "chunks": chunks,
                   "seconds": round(ingest_s, 1)},
        "ask_seconds": round(ask_s, 1),
        "summary": summarise(results),
        "results": [r.to_dict() for r in results],
    }


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain",
                                "--untracked-files=no", "--", "../src"],
                               capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() + (" + uncommitted changes in src/" if dirty.stdout else "")


def run(names: list[str], *, install: bool, kb_dir: Path | None, split: str | None,
        model: str) -> dict[str, Any]:
    from citewise.evaluation import QuestionResult, summarise

    load_before = os.getloadavg()
    commit = _commit()  # the code that runs: read before, not after, edits made meanwhile
    t0 = time.perf_counter()
    corpora = {}
    for name in names:
        print(f"{name}: ingesting and asking …", file=sys.stderr, flush=True)
        corpora[name] = run_corpus(CORPORA[name], install=install, kb_dir=kb_dir,
                                   split=split, model=model)
    every = [QuestionResult(**r) for c in corpora.values() for r in c["results"]]
    groups = {g: [QuestionResult(**r) for n, c in corpora.items() if CORPORA[n].group == g
                  for r in c["results"]] for g in GROUPS}
    return {
        "benchmark": "answers",
        "model": model,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "load_before": [round(x, 2) for x in load_before],
                    "load_after": [round(x, 2) for x in os.getloadavg()]},
        "split": split,
        "seconds": round(time.perf_counter() - t0, 1),
        "overall": summarise(every),
        # Each set of corpora apart: what the ranking was tuned on, and what came later.
        "groups": {g: summarise(rs) for g, rs in groups.items() if rs},
        "corpora": corpora,
    }


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f} %"


def _row(name: str, m: dict[str, Any]) -> str:
    return (f"| {name} | {m['answerable']} + {m['unanswerable']} | {_pct(m['evidence_at_1'])} "
            f"| {_pct(m['evidence_any'])} | {_pct(m['document_at_1'])} "
            f"| {_pct(m['abstention_precision'])} / {_pct(m['abstention_recall'])} "
            f"| {_pct(m['false_abstention'])} | {m['latency_ms_p50']} / {m['latency_ms_p99']} |")


_HEAD = ("| {} | questions (answerable + not) | evidence@1 | evidence@any | document@1 "
         "| abstention P / R | false abstention | p50 / p99 ms |\n|---|---:|---:|---:|---:|---:|---:|---:|")


def _packages() -> list[str]:
    """Every corpus's Debian packages, in order, once each."""
    return list(dict.fromkeys(p for c in CORPORA.values() for p in c.packages))


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [SECTION, "",
             f"`python bench/answers.py --readme` — the `{result['model']}` model over "
             "real manuals installed from Debian, each a fixed subset of pages ingested into "
             "a knowledge base of its own (the page lists are in `bench/answer_corpora.py`; "
             f"`apt-get install {' '.join(_packages())}`, or "
             "`--install`). Questions and "
             "labels: "
             "`bench/data/answers/<corpus>.jsonl`, "
             "phrased as users ask, each labelled with the exact sentence(s) of the stored "
             "text that answer it (checked present exactly once before the run) or "
             "`unanswerable`. `split` (`tune` / `heldout`) is fixed by a hash of the id, except "
             "on `python` and `debref`, which are *fresh*: held out whole. Every set after "
             "the first was written by people who did not see citewise's answers, after the "
             "ranking had been tuned. Metrics as `citewise eval` "
             "(`citewise/evaluation.py`): a citation's sentence is its stored text widened "
             "to sentence boundaries, and it matches an expected sentence when it covers at "
             "least half of it (whitespace-insensitive); an answer abstains when it cites "
             "nothing or carries `no_answer_in_sources`; latency is one warm `Agent.ask`. "
             f"Run {result['date']} on {result['commit']}, {m['cpus']} CPUs shared, load "
             f"average {m['load_before'][0]} before / {m['load_after'][0]} after, Python "
             f"{m['python']}, {result['seconds']} s in all; raw results in "
             "`bench/results/answers.json`.", "", _HEAD.format("corpus / split")]
    for name, c in result["corpora"].items():
        lines.append(_row(f"{name} (all)", c["summary"]["all"]))
        for split, s in c["summary"]["by_split"].items():
            lines.append(_row(f"{name} {split}", s))
    lines.append(_row("**all corpora**", result["overall"]["all"]))
    for g, summary in result.get("groups", {}).items():
        lines.append(_row(f"**{GROUPS.get(g, g)}**", summary["all"]))
        for split, s in summary["by_split"].items():
            lines.append(_row(f"{g} {split}", s))
    for split, s in result["overall"]["by_split"].items():
        lines.append(_row(f"all {split}", s))
    lines += ["", _HEAD.format("question kind (all corpora)")]
    for kind, s in result["overall"]["by_kind"].items():
        lines.append(_row(kind, s))
    if result.get("groups", {}).get("new"):
        lines += ["", _HEAD.format("question kind (new corpora)")]
        for kind, s in result["groups"]["new"]["by_kind"].items():
            lines.append(_row(kind, s))
    stale = [f"{n} {qid}" for n, c in result["corpora"].items()
             for qid in c.get("stale_labels", {})]
    if stale:
        lines += ["", f"Skipped, their labels no longer in the installed manuals: "
                  f"{', '.join(stale)} (`stale_labels` in the results)."]
    lines += ["", f"Ingest: {_ingested(result['corpora'])}.", "", BASELINE, ""]
    return "\n".join(lines)


def _ingested(corpora: dict[str, dict[str, Any]]) -> str:
    """Each corpus's ingest; those a kept knowledge base (``--kb-dir``) already had, apart."""
    fresh, kept = [], []
    for name, corpus in corpora.items():
        ingest = corpus["ingest"]
        size = f"{corpus['pages']} pages, {ingest.get('chunks', ingest['chunks_written'])} chunks"
        if ingest["chunks_written"] == 0 and ingest.get("unchanged"):
            kept.append(f"{name} {size}")
        else:
            fresh.append(f"{name} {size} in {ingest['seconds']} s")
    parts = [", ".join(fresh)] if fresh else []
    if kept:
        parts.append("kept from an earlier run (`--kb-dir`): " + ", ".join(kept))
    return "; ".join(parts)


# What the first run said, kept as written (a later run's table above replaces only numbers).
BASELINE = (
    "*Baseline* (2026-12-01, 62ca66d plus the uncommitted work of that day, the default "
    "`extractive` model): evidence@1 39.1 % (heldout 42.9 %), evidence@any 51.5 %, "
    "document@1 83.4 %, 2 of 30 unanswerable questions abstained (two general-knowledge "
    "questions answered with no citation at all), no answerable one did; p50 / p99 100 / 274 ms "
    "under a load average of 9–11. Of the 103 answerable questions whose first citation "
    "missed, 77 cite the right page: the sentence quoted shares the question's names but "
    "not what is asked — the parameter's description instead of its `The default is …` "
    "sentence (default questions are the worst kind, 16.3 %), a neighbouring option of the "
    "same command, a synopsis or table row, a navigation line (`Prev | Up | Home | Next`). "
    "The other 26 cite another page, often a look-alike (`routine-vacuuming.html` for a "
    "`VACUUM` question, `git-maintenance.html` for a `git gc` one). These are failure classes "
    "1, 2 and 3 of issue #27; abstention (class 4 of its build list) does not exist yet, "
    "so recall is near zero by construction."
)


def write_readme(section: str, readme: Path = README) -> None:
    """Replace this benchmark's section of ``readme`` (other sections stay as they are)."""
    text = readme.read_text(encoding="utf-8")
    start = text.find(SECTION + "\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + len(SECTION))
        end = len(text) if nxt < 0 else nxt + 1
        text = text[:start] + section + ("\n" if nxt >= 0 else "") + text[end:]
    readme.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA),
                        help="only this corpus (repeatable; default: all)")
    parser.add_argument("--split", choices=("tune", "heldout"), default=None)
    parser.add_argument("--model", default="extractive")
    parser.add_argument("--install", action="store_true",
                        help="apt-get install missing corpora (needs root)")
    parser.add_argument("--kb-dir", type=Path, default=None,
                        help="keep each corpus's knowledge base under DIR/<corpus>")
    parser.add_argument("--check-labels", action="store_true",
                        help="ingest and check the labels only; ask nothing")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--capture", type=Path, default=None,
                        help="write every ranking of the extractive model to FILE (JSON "
                        "lines, bench/capture.py) for bench/rerank_offline.py")
    parser.add_argument("--no-save", action="store_true", help="write no results file")
    parser.add_argument("--readme", action="store_true",
                        help="rewrite the '## Answers' section of bench/README.md")
    parser.add_argument("--render", action="store_true",
                        help="run nothing: print (and with --readme write) the section of "
                        "the results already in --out")
    args = parser.parse_args(argv)
    if args.render:
        section = markdown(json.loads(args.out.read_text(encoding="utf-8")))
        if args.readme:
            write_readme(section)
        print(section)
        return 0
    names = args.corpus or list(CORPORA)
    if args.check_labels:
        for name in names:
            c = run_corpus(CORPORA[name], install=args.install, kb_dir=args.kb_dir,
                           split=None, model=args.model, check_only=True)
            print(f"{name}: {c['questions']} questions, {len(c['stale'])} stale label(s)"
                  f"{' (' + ', '.join(c['stale']) + ')' if c['stale'] else ''}, "
                  f"{c['chunks_written']} chunks written")
        return 0
    from contextlib import nullcontext

    from capture import capturing

    try:
        with capturing(args.capture) if args.capture else nullcontext():
            result = run(names, install=args.install, kb_dir=args.kb_dir, split=args.split,
                         model=args.model)
    except Exception as exc:
        from citewise.errors import CitewiseError

        if isinstance(exc, CitewiseError):
            raise BenchError(f"{exc.message} [{exc.code}]") from None
        raise
    if not args.no_save:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    if args.readme:
        write_readme(markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
