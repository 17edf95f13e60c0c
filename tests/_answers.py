"""Ask a question over a few documents written for the test, as a user would: each file
in a fresh embedded knowledge base (lexical search only, no vectors), the default model."""

from __future__ import annotations

from pathlib import Path

from citewise import Agent, KnowledgeBase
from citewise.answer import Answer

__all__ = ["ask_over", "kb_over"]


def ask_over(tmp_path: Path, files: dict[str, str], question: str) -> Answer:
    """``question`` answered over ``files`` (name → text), written to ``tmp_path/docs``."""
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        return Agent(kb).ask(question)


def kb_over(root: Path, files: dict[str, str]) -> KnowledgeBase:
    """A knowledge base in ``root/kb`` (its embedder as configured) over ``files`` (name →
    text), written to ``root/docs``; every file ingested. The caller closes it."""
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    base = KnowledgeBase.open(root / "kb")
    assert not base.ingest([docs]).failed
    return base
