"""``citewise eval QUESTIONS.jsonl``: how well citewise answers *your* documents.

Why: a verified citation is verbatim, not necessarily relevant. With a few dozen labelled
questions (the sentence that answers each, or "unanswerable") a user can measure on their
own knowledge base what ``bench/answers.py`` measures on public manuals — the same
definitions, from :mod:`citewise.evaluation`. Stdout: a per-question table and the
metrics overall, per question kind and per split (or, with ``--json``, all of it as one
JSON object); labels that are not in the stored text are warned about on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from citewise.cli.clipping import clipped
from citewise.cli.common import add_data_dir, open_kb, progress_bar

__all__ = ["register", "render"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "eval", help="measure answers on labelled questions (JSONL) over the knowledge base")
    p.add_argument("questions", metavar="QUESTIONS.jsonl",
                   help='one JSON object a line: {"id", "question", "expected": [sentence, …] '
                   'or "unanswerable", "kind"?, "document"?, "split"?}')
    p.add_argument("--json", action="store_true",
                   help="print the metrics and every question's result as one JSON object")
    p.add_argument("--save", metavar="FILE", default=None,
                   help="also write the --json report to FILE (the table still printed): "
                   "one run for both")
    p.add_argument("--model", default=None, help="model string (default: extractive)")
    p.add_argument("--strict", action="store_true", help="answer with --strict")
    p.add_argument("--split", metavar="NAME", default=None,
                   help="only the questions whose split is NAME (e.g. tune, heldout)")
    p.add_argument("--kind", metavar="NAME", default=None,
                   help="only the questions of this kind")
    add_data_dir(p, tenant=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from citewise.errors import InvalidInput
    from citewise.evaluation import evaluate, load_questions, missing_labels, summarise

    if args.save:
        _writable(args.save)  # before the run, not after it
    questions = load_questions(args.questions)
    if args.split is not None:
        questions = [q for q in questions if q.split == args.split]
    if args.kind is not None:
        questions = [q for q in questions if q.kind == args.kind]
    if not questions:
        raise InvalidInput("no question matches --split/--kind", code="no_questions")
    model = args.model or os.environ.get("CITEWISE_MODEL") or "extractive"
    with open_kb(args, must_exist=True) as kb:
        absent: dict[str, str] = {}
        elsewhere: dict[str, list[tuple[str, str]]] = {}
        ambiguous: dict[str, list[str]] = {}
        missing = missing_labels(kb, questions, absent, elsewhere, ambiguous)
        for qid, sources in ambiguous.items():
            named = next(q.document for q in questions if q.id == qid)
            sys.stderr.write(f"warning: {qid}: its document {named!r} names {len(sources)} "
                             f"stored documents ({', '.join(sources[:3])}"
                             f"{', …' if len(sources) > 3 else ''}): document@1 counts a "
                             "citation of any of them; more of its path names one "
                             "[document_ambiguous]\n")
        for qid, document in absent.items():  # no broken label: no document to hold it
            del missing[qid]
            sys.stderr.write(f"warning: {qid}: no stored document is its document "
                             f"{document!r} (not ingested, its ingest failed, or the name "
                             "is misspelled) [document_not_stored]\n")
        for qid, sentences in missing.items():
            for s in sentences:
                shown = clipped(s, 100)
                # In no stored document at all: one in another document than the question
                # names is told apart below (it can match there).
                sys.stderr.write(f"warning: {qid}: expected sentence not in the stored text "
                                 f"of any document: “{shown}” [label_not_found]\n")
        for qid, moved in elsewhere.items():
            named = next(q.document for q in questions if q.id == qid)
            for s, source in moved:
                shown = clipped(s, 100)
                sys.stderr.write(f"warning: {qid}: expected sentence not in its document "
                                 f"{named!r} but in {source}: it matches a citation there, "
                                 f"and document@1 still asks for {named!r}: “{shown}” "
                                 "[label_in_other_document]\n")
        results = evaluate(kb, questions, model=model, strict=bool(args.strict),
                           progress=lambda d, t: progress_bar(d, t, "questions"))
    report: dict[str, Any] = {
        "model": model,
        "questions_file": args.questions,
        "summary": summarise(results),
        "labels_not_found": missing,
        "documents_not_stored": absent,
        "documents_ambiguous": ambiguous,
        "labels_in_other_documents": {q: [list(pair) for pair in m]
                                      for q, m in elsewhere.items()},
        "results": [r.to_dict() for r in results],
    }
    if args.save:
        _save(args.save, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        render(report, sys.stdout)
    return 0


def _writable(path: str) -> None:
    from citewise.errors import InvalidInput

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise InvalidInput(f"cannot write {path}: no writable folder for it",
                           code="unwritable_file", details={"path": path})


def _save(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all; a path that cannot be written is a
    usage error, said before the run's output."""
    from pathlib import Path

    from citewise.atomic import write_atomic
    from citewise.errors import InvalidInput

    try:
        write_atomic(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"cannot write {path}: {exc.strerror or exc}",
                           code="unwritable_file", details={"path": path}) from None


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _mark(value: bool | None) -> str:
    return "·" if value is None else ("yes" if value else "no")


def render(report: dict[str, Any], out: TextIO) -> None:
    """The plain-text report: per question, then the metrics by group."""
    from citewise.evaluation import WEAK_ISSUE

    rows = [("id", "kind", "split", "ev@1", "ev@any", "doc@1", "abstained", "ms",
             "first cited sentence")]
    for r in report["results"]:
        first = r["first_sentence"] or "(no citation)"
        if r["abstained"] and r["first_sentence"]:
            # A declined answer may still quote its closest passage; it counts as no answer
            # (an FRR review read "ev@1 no" beside the right sentence as a scoring bug).
            first = f"(declined) {first}"
        elif WEAK_ISSUE in r["issues"]:  # answered, flagged: the reader sees why
            first = f"(weak) {first}"
        first = clipped(first, 70)
        rows.append((r["id"], r["kind"] or "", r["split"] or "", _mark(r["evidence_at_1"]),
                     _mark(r["evidence_any"]), _mark(r["document_at_1"]),
                     "yes" if r["abstained"] else "no", f"{r['latency_ms']:.0f}", first))
    _table(rows, out)
    summary = report["summary"]
    groups = [("all", summary["all"])]
    groups += [(f"kind {k}", v) for k, v in summary["by_kind"].items()]
    groups += [(f"split {k}", v) for k, v in summary["by_split"].items()]
    out.write("\n")
    head = ("group", "questions", "evidence@1", "evidence@any", "document@1",
            "abstention P / R", "false abstention", "p50 / p99 ms")
    lines = [head]
    for name, m in groups:
        lines.append((name, f"{m['answerable']} + {m['unanswerable']} unanswerable",
                      _pct(m["evidence_at_1"]), _pct(m["evidence_any"]),
                      _pct(m["document_at_1"]),
                      f"{_pct(m['abstention_precision'])} / {_pct(m['abstention_recall'])}",
                      _pct(m["false_abstention"]),
                      f"{m['latency_ms_p50']} / {m['latency_ms_p99']}"))
    _table(lines, out)
    m = summary["all"]
    if m.get("weak_flagged"):
        out.write(f"\n{m['weak_flagged']} answer(s) flagged weak_evidence: "
                  f"{_pct(m['weak_wrong'])} of them wrong, against {_pct(m['unflagged_wrong'])}"
                  " of the answers not flagged.\n")
    if report["labels_not_found"]:
        out.write(f"\n{len(report['labels_not_found'])} question(s) have an expected sentence "
                  "that is not in the stored text (see the warnings): they cannot match.\n")
    if report.get("documents_not_stored"):
        # Their labels still match wherever they are stored; only document@1 cannot
        # (Docker's review, 2026-12-07: "they cannot match" over a row that did).
        out.write(f"\n{len(report['documents_not_stored'])} question(s) name a document that "
                  "is not stored (see the warnings): their document@1 cannot be yes; their "
                  "expected sentences match in any stored document.\n")


def _table(rows: Sequence[tuple[str, ...]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(row, widths, strict=True)]
        out.write("  ".join(cells).rstrip() + "\n")
        if n == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")
