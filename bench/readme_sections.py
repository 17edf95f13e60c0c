"""One section of ``bench/README.md`` rewritten by the benchmark that owns it.

Shared by the benchmarks whose ``--readme`` replaces a ``## …`` section of their own
(``answers.py``, ``citations.py``): every other section stays as it is.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["replace_section"]


def replace_section(readme: Path, heading: str, section: str) -> None:
    """Replace the section that starts with the line ``heading`` (to the next ``## ``) by
    ``section``, or append it; a missing file starts as ``# Benchmarks``."""
    text = readme.read_text(encoding="utf-8") if readme.exists() else "# Benchmarks\n\n"
    start = text.find(heading + "\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + len(heading))
        end = len(text) if nxt < 0 else nxt + 1
        text = text[:start] + section + ("\n" if nxt >= 0 else "") + text[end:]
    readme.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
