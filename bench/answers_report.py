"""The README section of ``bench/answers.py``'s results: its tables, its note on how the
numbers were measured, and the first run's baseline kept as written.

Apart from the run (``bench/answers.py``) because ``--render`` rewrites the section from a
results file without running anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from answer_corpora import CORPORA, GROUPS
from readme_sections import replace_section

README = Path(__file__).resolve().parent / "README.md"
SECTION = "## Answers"


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
             "to sentence boundaries (not past a list item or a table's row the loader "
             "marked), and it matches an expected sentence when it covers at least half of "
             "it (whitespace-insensitive, Markdown read as rendered); an answer abstains "
             "when it cites "
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
    if "overall_written" in result:
        lines += ["", _judged(result)]
    stale = [f"{n} {qid}" for n, c in result["corpora"].items()
             for qid in c.get("stale_labels", {})]
    if stale:
        lines += ["", f"Skipped, their labels no longer in the installed manuals: "
                  f"{', '.join(stale)} (`stale_labels` in the results)."]
    lines += ["", f"Ingest: {_ingested(result['corpora'])}.", "", BASELINE, ""]
    return "\n".join(lines)


def _judged(result: dict[str, Any]) -> str:
    """How much of the table the judged labels (``bench/judging.py``) account for."""
    def both(s: dict[str, Any]) -> str:
        return f"{_pct(s['evidence_at_1'])} / {_pct(s['evidence_any'])}"

    if not result["judged_labels"]:
        return "Labels: the written ones only (`--written-labels`)."
    written = result["overall_written"]
    splits = "; ".join(f"{split} {both(s)}" for split, s in written["by_split"].items())
    return (f"Labels: the written ones and, for {result['judged_labels']} questions, "
            "sentences that two judges, apart and blind to which sentence citewise quoted, "
            "found to state the answer (`bench/judging.py`, "
            "`bench/data/answers/judged.jsonl`). On the written labels alone evidence@1 / "
            f"evidence@any are {both(written['all'])} ({splits}).")


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
    replace_section(readme, SECTION, section)
