"""``citewise quickstart``: ingest the bundled sample corpus and answer a sample question."""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from typing import TYPE_CHECKING

from citewise.cli.common import add_data_dir, data_dir

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.ingest.report import IngestReport

__all__ = ["SAMPLE_QUESTION", "SAMPLE_SOURCE", "register"]

SAMPLE_QUESTION = "How long does a refund take once the returned item arrives?"
#: What the sample documents are stored (and cited) as: the same for every installation.
SAMPLE_SOURCE = "samples/handbook/{name}"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("quickstart", help="ingest the sample corpus and answer a sample question")
    p.add_argument("--question", default=SAMPLE_QUESTION, help="ask this instead")
    add_data_dir(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from citewise.cli.ask import run_question
    from citewise.knowledge.base import KnowledgeBase

    target = data_dir(args) / "quickstart"
    sys.stderr.write(f"citewise quickstart — knowledge base in {target}\n")
    with KnowledgeBase.open(target) as kb:
        report = ingest_samples(kb)
    sys.stderr.write(report.summary() + "\n")
    sys.stderr.write(f"\nQuestion: {args.question}\n\n")
    # Embedded, whatever $CITEWISE_DATABASE_URL says: the samples were ingested here.
    ns = argparse.Namespace(data_dir=str(target), database_url=None, thread=None, json=False,
                            model=None, output_schema=None, strict=False, quiet=False)
    code = run_question(ns, args.question)
    # Two places, said apart: the sample's knowledge base, and the data folder a user's
    # own documents go to (serving the sample's folder after ingesting there showed only
    # the sample).
    sys.stderr.write(
        f"\nThe sample on the web page: citewise serve --data-dir {target}"
        "   # the web page: http://127.0.0.1:8080/\n"
        f"Your own documents:  citewise ingest YOUR_FOLDER --data-dir {target.parent}\n"
        f'                     citewise ask "your question" --data-dir {target.parent}\n'
        f"                     citewise serve --data-dir {target.parent}\n"
    )
    return code


def ingest_samples(kb: KnowledgeBase) -> IngestReport:
    """The bundled handbook, stored under :data:`SAMPLE_SOURCE` names rather than the
    path of this installation: a quickstart from another virtual environment finds them
    unchanged instead of adding copies, and citations do not name a site-packages path.
    Copies that earlier versions stored under an installation's path are removed."""
    from citewise.knowledge.ingest.report import IngestReport

    report = IngestReport()
    names: set[str] = set()
    for item in sorted(files("citewise").joinpath("samples", "handbook").iterdir(),
                       key=lambda t: t.name):
        if not item.is_file():
            continue
        names.add(item.name)
        one = kb.ingest_bytes(item.name, item.read_bytes(),
                              source=SAMPLE_SOURCE.format(name=item.name))
        report.added += one.added
        report.updated += one.updated
        report.unchanged += one.unchanged
        report.failed += one.failed
        report.chunks_written += one.chunks_written
    stable = {SAMPLE_SOURCE.format(name=n) for n in names}
    for doc in kb.list_documents(limit=10_000):
        folder, _, name = doc.source.replace("\\", "/").rpartition("/")
        old_copy = folder.endswith("samples/handbook") and name in names
        if old_copy and doc.source not in stable and kb.delete_document(doc.id):
            report.removed.append(doc.source)
    return report
