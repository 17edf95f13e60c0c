"""Checks shared by the loader tests: load a real file through the registry, and hold its
section spans to the contract (sorted, disjoint, inside the text, on a visible character)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citewise.knowledge.loaders import LoadedDocument, default_registry

__all__ = ["check_spans", "docx_append", "docx_built", "load", "section", "section_of"]


def load(path: Path) -> LoadedDocument:
    loader = default_registry().for_path(path)
    assert loader is not None, path.name
    doc = loader.load(path, path.read_bytes())
    check_spans(doc)
    return doc


def check_spans(doc: LoadedDocument) -> None:
    """Sorted, non-overlapping, inside the text, never starting on a blank."""
    prev = 0
    for start, end, name in doc.sections:
        assert prev <= start < end <= len(doc.text), (start, end, name)
        assert not doc.text[start].isspace(), name
        assert name
        prev = end


def section(doc: LoadedDocument, name: str) -> str:
    """``text[start:end]`` of the section so named."""
    spans = [(a, b) for a, b, n in doc.sections if n == name]
    assert spans, f"no section {name!r} in {[n for _, _, n in doc.sections]}"
    a, b = spans[0]
    return doc.text[a:b]


def section_of(doc: LoadedDocument, needle: str) -> str | None:
    at = doc.text.index(needle)
    return next((n for a, b, n in doc.sections if a <= at < b), None)


def docx_built(tmp_path: Path, build: Any, name: str = "doc.docx") -> LoadedDocument:
    """The DOCX loader's reading of a document ``build(document)`` makes with python-docx."""
    import docx

    from citewise.knowledge.loaders.docx import DocxLoader

    d = docx.Document()
    build(d)
    path = tmp_path / name
    d.save(str(path))
    return DocxLoader().load(path, path.read_bytes())


def docx_append(d: Any, element: Any) -> None:
    """``element`` (parsed XML) at the end of document ``d``'s body."""
    d.element.body.sectPr.addprevious(element)
