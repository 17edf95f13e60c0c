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
    #: Of ``updated``, the files whose bytes are unchanged, read again because the loader
    #: of their kind changed (a new citewise) or the chunk size did: said in the summary,
    #: or a user sees files "updated" that nobody touched (GIMP's review, 2026-12-06).
    reread: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[IngestFailure] = field(default_factory=list)
    #: Files met while walking a folder that no loader reads (given files fail instead).
    skipped: list[str] = field(default_factory=list)
    #: Why each of ``skipped`` was skipped (see :meth:`skip_reason`); hidden files and
    #: folders are not read either, and only counted (``hidden``).
    skip_reasons: dict[str, str] = field(default_factory=dict)
    hidden: int = 0
    #: Folders a walk did not enter though not hidden, and files it did not read though a
    #: loader could (``ingest.files.left_out_folder`` / ``left_out_file``: ``node_modules``,
    #: a Sphinx build's ``_sources``, ``_static`` and ``searchindex.js``).
    left_out: list[str] = field(default_factory=list)
    #: Documents deleted because their file no longer exists (``prune``) or was emptied.
    removed: list[str] = field(default_factory=list)
    #: ``(old source, new source)`` of files moved since they were ingested: the document
    #: under the old path, a file that no longer exists, was deleted (:mod:`.moves`).
    moved: list[tuple[str, str]] = field(default_factory=list)
    chunks_written: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed

    def skip_reason(self, path: str) -> str:
        """Why ``path`` was skipped, e.g. ``"no loader for .png files"``."""
        return self.skip_reasons.get(path) or _no_loader(path)

    def skipped_by_reason(self) -> dict[str, int]:
        """How many files were skipped for each reason, most frequent first."""
        counts: dict[str, int] = {}
        for path in self.skipped:
            reason = self.skip_reason(path)
            counts[reason] = counts.get(reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def summary(self) -> str:
        parts = [
            f"{len(self.added)} added",
            f"{len(self.updated)} updated" + (
                f" ({len(self.reread)} of them unchanged files re-read by a newer reader "
                "or chunk size)" if self.reread else ""),
            f"{len(self.unchanged)} unchanged",
            f"{len(self.failed)} failed",
        ]
        if self.skipped:
            why = "; ".join(f"{n} {reason}" for n, reason in
                            ((n, r) for r, n in self.skipped_by_reason().items()))
            parts.append(f"{len(self.skipped)} skipped ({why})")
        if self.hidden:
            parts.append(f"{self.hidden} hidden not read")
        if self.left_out:
            n = len(self.left_out)
            # A build's output, a site's stylesheets and scripts, installed dependencies.
            parts.append(f"{n} generated, asset or dependency path{'' if n == 1 else 's'} "
                         f"not read ({', '.join(_tail(p) for p in self.left_out[:3])}"
                         f"{', …' if n > 3 else ''})")
        if self.removed:
            parts.append(f"{len(self.removed)} removed")
        if self.moved:
            parts.append(f"{len(self.moved)} moved (the document under the old path "
                         "removed)")
        n = self.chunks_written
        return ", ".join(parts) + f" ({n} chunk{'' if n == 1 else 's'} written)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": list(self.added),
            "updated": list(self.updated),
            "reread": list(self.reread),
            "unchanged": list(self.unchanged),
            "failed": [{"path": f.path, "code": f.code, "message": f.message} for f in self.failed],
            "skipped": list(self.skipped),
            "skip_reasons": {p: self.skip_reason(p) for p in self.skipped},
            "hidden": self.hidden,
            "left_out": list(self.left_out),
            "removed": list(self.removed),
            "moved": [{"from": a, "to": b} for a, b in self.moved],
            "chunks_written": self.chunks_written,
        }


def _tail(path: str) -> str:
    return "/".join(path.rstrip("/").rsplit("/", 2)[-2:])


def _no_loader(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    inside = ""
    if name.lower().endswith(".gz") and len(name) > 3:  # .gz is read: what is inside is not
        name, inside = name[:-3], " (inside .gz)"
    ext = name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""
    what = f".{ext} files" if ext else "files without an extension"
    return f"no loader for {what}{inside}"
