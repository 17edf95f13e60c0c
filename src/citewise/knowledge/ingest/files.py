"""Which files an ingest reads: paths given → files found, and documents whose file is gone.

The walk is where a user's folders meet the knowledge base — hidden files, symlinked
folders (each once, no loops), names that are not UTF-8, folders that cannot be read,
the knowledge base's own data directory — so each case is decided here, once, and
reported in the :class:`~.report.IngestReport` instead of stopping the ingest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from citewise.knowledge.ingest.report import IngestFailure, IngestReport
from citewise.knowledge.loaders import LoaderRegistry
from citewise.store.base import Store

__all__ = ["expand", "left_out_file", "left_out_folder", "missing_under", "shown", "source_for"]

# Folders that hold no documents of their own: installed dependencies and caches.
_NEVER = frozenset(("node_modules", "__pycache__"))
# A Sphinx HTML build (``searchindex.js``, ``objects.inv`` beside them): ``_sources`` holds
# every page again as its reStructuredText source (each answer found twice, cited as
# ``_sources/x.rst.txt``), ``_static`` the site's scripts and stylesheets.
_SPHINX_BUILD = frozenset(("_sources", "_static"))
_SPHINX_MARKS = ("objects.inv", "searchindex.js")


def left_out_file(parent: str | Path, name: str) -> bool:
    """Whether a folder walk leaves the file ``name`` out, said as such rather than as a
    file no loader reads: a Sphinx build's search index (``searchindex.js``: every term of
    every page, in one script) and its inventory (``objects.inv``)."""
    return name in ("searchindex.js", "objects.inv") and os.path.isfile(
        os.path.join(parent, "objects.inv"))


def left_out_folder(parent: str | Path, name: str) -> bool:
    """Whether a folder walk leaves the folder ``name`` under ``parent`` out: hidden
    folders, dependencies and caches, a Sphinx build's copies of its sources and its assets
    (the pages themselves are read). A file named in the call is read wherever it is."""
    if name.startswith(".") or name in _NEVER:
        return True
    return name in _SPHINX_BUILD and any(
        os.path.isfile(os.path.join(parent, mark)) for mark in _SPHINX_MARKS)


def source_for(path: str | Path) -> str:
    """The source string of a file path: absolute, normalized, symlinks kept as given."""
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


def shown(path: str | Path) -> str:
    """A path as printable text: non-UTF-8 bytes of a name are shown as backslash escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _unnamable(path: Path, report: IngestReport) -> bool:
    """A file whose name is not UTF-8 cannot be a source (stored as text, hashed into the
    document id): it fails alone instead of stopping the batch."""
    if shown(path) == str(path):
        return False
    report.failed.append(IngestFailure(shown(path), "unsupported_file_name",
                                       "the file name is not valid UTF-8; rename the file"))
    return True


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _walk(folder: Path, report: IngestReport, exclude: Iterable[Path] = ()) -> Iterator[Path]:
    """Files under ``folder``, sorted, skipping hidden files, what :func:`left_out_folder`
    and :func:`left_out_file` name, and the folders in ``exclude`` (a knowledge base's own
    data directory: its index files are no documents). Symlinked folders are followed, as
    symlinked files are, each folder once (a link back up the tree is no loop). A folder
    that cannot be read is a failure of the call, not silently nothing."""
    seen = {ident for ident in map(_identity, exclude) if ident is not None}

    def unreadable(err: OSError) -> None:
        where = shown(err.filename or folder)
        report.failed.append(IngestFailure(where, "unreadable_folder",
                                           f"cannot read folder: {err.strerror or err}"))

    for root, dirs, files in os.walk(folder, onerror=unreadable, followlinks=True):
        here = _identity(root)
        if here in seen:
            dirs[:] = []
            continue
        if here is not None:
            seen.add(here)
        left = [d for d in dirs if left_out_folder(root, d)]
        report.hidden += sum(1 for d in left if d.startswith("."))
        report.left_out.extend(shown(Path(root) / d) for d in left if not d.startswith("."))
        dirs[:] = sorted(d for d in dirs
                         if d not in left and _identity(Path(root) / d) not in seen)
        for name in sorted(files):
            if name.startswith("."):
                report.hidden += 1
            elif left_out_file(root, name):
                report.left_out.append(shown(Path(root) / name))
            else:
                yield Path(root) / name


def expand(
    paths: Iterable[str | Path], registry: LoaderRegistry, report: IngestReport,
    exclude: Iterable[Path] = (),
) -> list[Path]:
    files: dict[str, Path] = {}
    exclude = list(exclude)
    own = {ident for ident in map(_identity, exclude) if ident is not None}
    for given in paths:
        path = Path(source_for(given))
        if not path.exists():
            report.failed.append(
                IngestFailure(str(path), "path_not_found", f"no such file or folder: {given}")
            )
        elif own and any(_identity(p) in own for p in (path, *path.parents)):
            # Said, not "0 added": its files are the knowledge base itself.
            report.failed.append(IngestFailure(
                str(path), "data_directory",
                "this is the knowledge base's own data directory: its files are no documents"))
        elif path.is_dir():
            for f in _walk(path, report, exclude):
                if registry.for_path(f) is None:
                    report.skipped.append(shown(f))
                elif not _unnamable(f, report):
                    files.setdefault(str(f), f)
        elif path.is_file():
            if not _unnamable(path, report):
                files.setdefault(str(path), path)
        else:
            report.failed.append(
                IngestFailure(str(path), "unsupported_path", "not a regular file or folder")
            )
    # A file both met in a folder and given by name is reported once (for its own sake).
    report.skipped = [s for s in dict.fromkeys(report.skipped) if s not in files]
    return list(files.values())


def missing_under(
    store: Store, tenant: str, paths: Iterable[str | Path], *, page: int = 500
) -> list[tuple[str, str]]:
    """``(document_id, source)`` of ``tenant``'s documents whose file lies under one of
    the existing folders in ``paths`` but no longer exists (what ``prune`` deletes).

    A missing folder contributes nothing: it may be an unmounted drive, not a deletion.
    """
    folders = []
    for given in paths:
        path = source_for(given)
        if os.path.isdir(path):
            folders.append(path.rstrip(os.sep) + os.sep)
    if not folders:
        return []
    gone: list[tuple[str, str]] = []
    offset = 0
    while True:
        docs = store.list_documents(tenant, limit=page, offset=offset)
        for doc in docs:
            src = doc.source
            if "://" not in src and src.startswith(tuple(folders)) and _gone(src):
                gone.append((doc.id, src))
        if len(docs) < page:
            return gone
        offset += page


def _gone(path: str) -> bool:
    """Known not to exist (``os.path.lexists`` is also False behind an unreadable folder,
    and pruning on that deleted documents of files that were still there)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:  # permission denied, an I/O error: it may well exist
        return False
    return False
