"""Sizes as people read them in messages: ``64 MiB``, not ``67108864 bytes``.

Why a module: every limit the service enforces (an upload, a file, an archive's unpacked
size) is reported in an error message a person reads; the exact numbers stay in the
error's ``details`` for programs.
"""

from __future__ import annotations

__all__ = ["size_text"]

_UNITS = ("KiB", "MiB", "GiB", "TiB")


def size_text(n: int) -> str:
    """``n`` bytes in the largest binary unit that keeps it at least 1 (one decimal unless
    whole): ``900 bytes``, ``1 KiB``, ``1.5 MiB``, ``64 MiB``."""
    if n < 1024:
        return f"{n} byte" if n == 1 else f"{n} bytes"
    value, step = n / 1024, 0
    while value >= 1024 and step < len(_UNITS) - 1:
        value, step = value / 1024, step + 1
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} {_UNITS[step]}"
