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

Besides the written labels, a sentence that two judges, apart, found to state a question's
answer counts as one of its labels (:mod:`judging`, ``data/answers/judged.jsonl``); the
results give the metrics on the written labels alone too (``--written-labels`` counts
those only).
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
from answers_report import markdown, write_readme
from judging import load_judged

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "answers"
RESULTS = HERE / "results" / "answers.json"


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
    stray = [q.id for q in questions
             if q.document is not None and page_of(corpus.pages, q.document) is None]
    if stray:
        raise BenchError(f"{corpus.name}: document not in the corpus for {', '.join(stray)}")
    return questions


def page_of(pages: tuple[str, ...], document: str) -> str | None:
    """The one page a question's ``document`` names: the page, or a trailing part of its
    path ("sort.html", or "cpp/algorithm/sort.html" where C's pages have the same names),
    as ``citewise eval`` reads it; the page of that very path first ("queues.html" beside
    Tornado's "guide/queues.html": the label is looked for there, though ``citewise eval``
    counts a citation of either page as the document's). None: no page, or more than one."""
    if document in pages:
        return document
    found = [p for p in pages if p.endswith("/" + document)]
    return found[0] if len(found) == 1 else None


def stored_pages(kb: Any, corpus: Corpus) -> dict[str, str]:
    """Each page's stored text."""
    texts: dict[str, str] = {}
    for page in corpus.pages:
        record = kb.find_document(Path(corpus.root) / page)
        if record is None:
            raise BenchError(f"{corpus.name}: {page} was not ingested")
        texts[page] = record.text
    return texts


def where_it_matches(texts: dict[str, str], corpus: Corpus, q: Any, sentence: str
                     ) -> tuple[int, int]:
    """Where ``sentence`` can match for ``q``: its occurrences in the question's own
    document, or else in the whole corpus; and those in its own document."""
    from citewise.evaluation import locate as find

    own = texts[str(page_of(corpus.pages, q.document))] if q.document else ""
    mine = len(find(own, sentence))
    return mine or sum(len(find(text, sentence)) for text in texts.values()), mine


def check_labels(kb: Any, corpus: Corpus, questions: list[Any],
                 texts: dict[str, str] | None = None) -> dict[str, str]:
    """Which questions' labels no longer hold, with why: every expected sentence must occur
    exactly once where it can match (so that a citation matches it in one place only: "The
    default is on." would match the wrong setting's sentence): once in the question's own
    ``document``, whose copies elsewhere match nothing (:mod:`citewise.evaluation`), or
    once in the corpus; and at least one must be in that document. Debian updates the
    manuals under the labels (apache2-doc 2.4.68 dropped a sentence of
    ``mod_ratelimit.html``), so a stale label skips its question, reported, rather than
    the corpus."""
    texts = stored_pages(kb, corpus) if texts is None else texts
    stale: dict[str, str] = {}
    for q in questions:
        problems = []
        counts = [where_it_matches(texts, corpus, q, sentence) for sentence in q.expected or ()]
        for sentence, (n, _) in zip(q.expected or (), counts, strict=True):
            if n != 1:
                problems.append(f"{'not found' if n == 0 else f'{n} times'}: "
                                f"{sentence[:80]!r}")
        if q.expected and q.document and not any(mine for _, mine in counts):
            problems.append(f"no expected sentence is in its document {q.document}")
        if problems:
            stale[q.id] = "; ".join(problems)
    return stale


def with_judged(texts: dict[str, str], corpus: Corpus, questions: list[Any],
                judged: dict[str, tuple[str, ...]]
                ) -> tuple[list[Any], dict[str, int], dict[str, int]]:
    """``questions`` with the sentences judged to answer them (:mod:`judging`) among their
    labels, each where it holds as a written label must (once where it can match; one
    that does not is left out, never its question); how many each gained, and how many
    each lost so."""
    from dataclasses import replace

    out, gained, dropped = [], {}, {}
    for q in questions:
        given = judged.get(q.id, ()) if q.expected else ()
        extra = tuple(s for s in given if where_it_matches(texts, corpus, q, s)[0] == 1)
        if len(extra) < len(given):
            dropped[q.id] = len(given) - len(extra)
        if extra:
            gained[q.id] = len(extra)
            q = replace(q, expected=(*q.expected, *extra))
        out.append(q)
    return out, gained, dropped


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
               model: str, check_only: bool = False,
               judged: dict[str, tuple[str, ...]] | None = None) -> dict[str, Any]:
    from citewise import KnowledgeBase
    from citewise.evaluation import StoredTexts, evaluate, score_answer, summarise

    paths = locate(corpus, install=install)
    questions = load_labels(corpus)
    with tempfile.TemporaryDirectory(prefix=f"citewise-answers-{corpus.name}-") as tmp:
        where = (kb_dir / corpus.name) if kb_dir is not None else Path(tmp) / "kb"
        t0 = time.perf_counter()
        with KnowledgeBase.open(where) as kb:
            report = kb.ingest(paths)
            # A kept knowledge base may have work queued by its opening (sentence vectors
            # of a base made before them): done here, not at the first questions' expense.
            kb.embed_pending()
            ingest_s = time.perf_counter() - t0
            chunks = kb.store.count_chunks(kb.tenant)
            if report.failed:
                raise BenchError(f"{corpus.name}: ingest failed: {report.summary()}")
            texts = stored_pages(kb, corpus)
            stale = check_labels(kb, corpus, questions, texts)
            for qid, why in stale.items():
                print(f"{corpus.name}: skipping {qid}, its label is stale ({why})",
                      file=sys.stderr, flush=True)
            if check_only:
                return {"title": corpus.title, "questions": len(questions), "stale": stale,
                        "chunks_written": report.chunks_written}
            asked = [q for q in questions if q.id not in stale
                     and (split is None or q.split == split)]
            # Scored twice: against the written and judged labels, and the written alone.
            written = {q.id: q for q in asked}
            asked, gained, dropped = with_judged(texts, corpus, asked, judged or {})
            for qid, n in dropped.items():
                print(f"{corpus.name}: {qid}: {n} judged sentence(s) left out, not once where "
                      "they can match (bench/judging.py check)", file=sys.stderr, flush=True)
            alone: list[Any] = []
            stored = StoredTexts(kb)  # each cited page read once for both scorings
            t1 = time.perf_counter()
            results = evaluate(kb, asked, model=model, texts=stored, on_answer=lambda q, answer,
                               ms: alone.append(score_answer(written[q.id], answer, stored, ms)))
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
        "judged_labels": gained,
        "judged_dropped": dropped,
        "summary": summarise(results),
        "summary_written": summarise(alone),
        "results": [r.to_dict() for r in results],
        # [id, evidence@1, evidence@any] against the written labels alone
        "results_written": [[r.id, r.evidence_at_1, r.evidence_any] for r in alone],
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
        model: str, judged: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    from dataclasses import replace

    from citewise.evaluation import QuestionResult, summarise

    load_before = os.getloadavg()
    commit = _commit()  # the code that runs: read before, not after, edits made meanwhile
    t0 = time.perf_counter()
    corpora = {}
    for name in names:
        print(f"{name}: ingesting and asking …", file=sys.stderr, flush=True)
        corpora[name] = run_corpus(CORPORA[name], install=install, kb_dir=kb_dir,
                                   split=split, model=model, judged=judged)
    every = [QuestionResult(**r) for c in corpora.values() for r in c["results"]]
    alone = {(n, qid): (at1, anywhere) for n, c in corpora.items()
             for qid, at1, anywhere in c["results_written"]}
    names_of = [n for n, c in corpora.items() for _ in c["results"]]
    written = [replace(r, evidence_at_1=alone[(n, r.id)][0], evidence_any=alone[(n, r.id)][1])
               for n, r in zip(names_of, every, strict=True)]
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
        "overall_written": summarise(written),  # the written labels alone, not the judged
        "judged_labels": sum(len(c["judged_labels"]) for c in corpora.values()),
        # Each set of corpora apart: what the ranking was tuned on, and what came later.
        "groups": {g: summarise(rs) for g, rs in groups.items() if rs},
        "corpora": corpora,
    }


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
    parser.add_argument("--written-labels", action="store_true",
                        help="count the written labels only, not the judged ones "
                        "(bench/judging.py, data/answers/judged.jsonl)")
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
                         model=args.model,
                         judged={} if args.written_labels else load_judged())
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
