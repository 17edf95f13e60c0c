"""Shared CLI plumbing: where data lives, opening the knowledge base, printing a run."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citewise.events import Event

if TYPE_CHECKING:
    from citewise.answer import Answer
    from citewise.knowledge.base import KnowledgeBase

__all__ = ["StepPrinter", "add_data_dir", "data_dir", "open_kb", "print_answer"]

_PASSAGE = re.compile(r"^\[\d+\] ", re.MULTILINE)
ENV_DATA_DIR = "CITEWISE_DATA_DIR"
DB_NAME = "citewise.db"


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help=f"where citewise keeps its SQLite file and indexes (env {ENV_DATA_DIR}; "
        "default: the user data directory)",
    )


def data_dir(args: argparse.Namespace) -> Path:
    given = getattr(args, "data_dir", None) or os.environ.get(ENV_DATA_DIR)
    if given:
        return Path(given).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("citewise", appauthor=False))


def open_kb(args: argparse.Namespace, *, must_exist: bool = False) -> KnowledgeBase:
    """Open (or, unless ``must_exist``, create) the knowledge base of ``--data-dir``."""
    from citewise.errors import NotFound
    from citewise.knowledge.base import KnowledgeBase

    path = data_dir(args)
    if must_exist and not (path / DB_NAME).exists():
        raise NotFound(f"no knowledge base in {path}; run `citewise ingest PATH` first",
                       code="no_knowledge_base")
    return KnowledgeBase.open(path)


class StepPrinter:
    """Prints the agent's steps as they happen (to stderr, so stdout stays the answer)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self._in_thought = False

    def __call__(self, event: Event) -> None:
        w = self.out.write
        if event.kind == "thought":
            if not self._in_thought and event.text:
                w("· thought: ")
                self._in_thought = True
            w(event.text)
            if event.end_of_message and self._in_thought:
                w("\n")
                self._in_thought = False
        elif event.kind == "action":
            import json

            w(f"→ {event.tool} {json.dumps(event.input, ensure_ascii=False)}\n")
        elif event.kind == "observation":
            first = event.text.strip().splitlines()[0] if event.text.strip() else ""
            passages = len(_PASSAGE.findall(event.text))
            summary = f"{passages} passage(s)" if passages else first
            mark = "✗" if event.is_error else "←"
            w(f"{mark} {summary[:120]} ({event.duration_ms:.1f} ms)\n")
        elif event.kind == "warning":
            w(f"! warning [{event.code}]: {event.message}\n")
        elif event.kind == "error":
            w(f"✗ error [{event.code}]: {event.message}\n")
        elif event.kind == "run_paused":
            for i in event.interrupts:
                w(f"‖ paused: {i.tool} needs approval (interrupt {i.id})\n")
        self.out.flush()


def print_answer(answer: Answer, kb: KnowledgeBase | None, out: TextIO | None = None) -> None:
    """The answer, then its sources: quote and file:line for every citation."""
    from citewise.text import line_of

    out = out or sys.stdout
    out.write(answer.text.strip() + "\n")
    if not answer.citations:
        return
    out.write("\nSources:\n")
    for c in answer.citations:
        doc = answer.search_documents[c.document_index - 1]
        line = None
        if kb is not None and c.start_char is not None:
            text = kb.document_text(str(doc.document.get("id")))
            if text is not None:
                line = line_of(text, c.start_char)
        where = f"{doc.source}:{line}" if line else doc.source
        quote = c.excerpt if len(c.excerpt) <= 160 else c.excerpt[:157] + "…"
        out.write(f"[{c.document_index}] {where}\n    “{quote}”\n")
