"""A file written whole or not at all: written beside its place, flushed, then renamed.

Why a module: a reader of the file (a vector index opening its shards after a crash, a
script reading ``citewise eval --save``'s report) must find the old file or the new one,
never half of one. Both writers had their own copy of the same few lines; the vector
files' was private to the index layer, which the CLI should not reach into.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

__all__ = ["fsync_dir", "write_atomic"]


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` write a temporary file beside ``path``, flush it to disk and rename
    it over ``path``. If anything fails, ``path`` is as it was, the temporary file is
    removed and the error is raised."""
    # A name of its own per writer: two processes saving at once must not move each
    # other's half-written file into place (nor find it gone when they do). The ".tmp"
    # ending lets a later writer tell a crashed one's leftovers.
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the platform allows)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
