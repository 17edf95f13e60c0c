"""``citewise quickstart``: ingest the bundled sample corpus and answer a sample question."""

from __future__ import annotations

import argparse
import sys
from importlib.resources import as_file, files

from citewise.cli.common import add_data_dir, data_dir

__all__ = ["SAMPLE_QUESTION", "register"]

SAMPLE_QUESTION = "How long does a refund take once the returned item arrives?"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("quickstart", help="ingest the sample corpus and answer a sample question")
    p.add_argument("--question", default=SAMPLE_QUESTION, help="ask this instead")
    add_data_dir(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from citewise.cli.ask import run_question
    from citewise.cli.ingest import progress
    from citewise.knowledge.base import KnowledgeBase

    target = data_dir(args) / "quickstart"
    sys.stderr.write(f"citewise quickstart — knowledge base in {target}\n")
    with as_file(files("citewise") / "samples" / "handbook") as corpus:
        with KnowledgeBase.open(target) as kb:
            report = kb.ingest([corpus], progress=progress)
        sys.stderr.write(report.summary() + "\n")
    sys.stderr.write(f"\nQuestion: {args.question}\n\n")
    ns = argparse.Namespace(data_dir=str(target), thread=None, json=False, model=None,
                            output_schema=None, strict=False, quiet=False)
    code = run_question(ns, args.question)
    sys.stderr.write(
        f"\nNext: citewise ingest YOUR_FOLDER --data-dir {target.parent}\n"
        f'      citewise ask "your question" --data-dir {target.parent}\n'
    )
    return code
