"""What one ingest call did, file by file: the report every front end prints.

Apart from the pipeline so that the folder walk (:mod:`.files`), the pipeline and the
callers (CLI, server, ``KnowledgeBase``) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["IngestFailure", "IngestReport"]


@dataclass(frozen=True, slots=True)
class IngestFailure:
    """One file that was not ingested, and why (``code`` is stable)."""

    path: str
    code: str
    message: str


@dataclass(slots=True)
class IngestReport:
    """What one ``ingest`` call did, file by file (sources are absolute paths)."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[IngestFailure] = field(default_factory=list)
    #: Files met while walking a folder that no loader reads (given files fail instead).
    skipped: list[str] = field(default_factory=list)
    #: Documents deleted because their file no longer exists (``prune``) or was emptied.
    removed: list[str] = field(default_factory=list)
    chunks_written: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed

    def summary(self) -> str:
        parts = [
            f"{len(self.added)} added",
            f"{len(self.updated)} updated",
            f"{len(self.unchanged)} unchanged",
            f"{len(self.failed)} failed",
        ]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.removed:
            parts.append(f"{len(self.removed)} removed")
        return ", ".join(parts) + f" ({self.chunks_written} chunks written)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": list(self.added),
            "updated": list(self.updated),
            "unchanged": list(self.unchanged),
            "failed": [{"path": f.path, "code": f.code, "message": f.message} for f in self.failed],
            "skipped": list(self.skipped),
            "removed": list(self.removed),
            "chunks_written": self.chunks_written,
        }
