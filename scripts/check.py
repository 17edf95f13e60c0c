#!/usr/bin/env python3
"""Every check in one command: provision what the tests need (``scripts/provision.py``),
ruff, mypy --strict, the import contracts (``.importlinter``), then the whole pytest suite.

Usage: python scripts/check.py [--fast] [pytest args…]
  --fast   skip tests marked slow (real model servers, subprocess crash tests)
pytest runs last so its summary is the last line printed. Exits non-zero if any check fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def step(name: str, cmd: list[str]) -> int:
    print(f"== {name}: {' '.join(cmd)}", flush=True)
    return subprocess.call(cmd, cwd=ROOT)


def main(argv: list[str]) -> int:
    fast = "--fast" in argv
    extra = [a for a in argv if a != "--fast"]
    py = sys.executable
    failed: list[str] = []
    if step("provision", [py, str(ROOT / "scripts" / "provision.py")]) != 0:
        failed.append("provision")
    if step("ruff", [py, "-m", "ruff", "check", "src", "tests", "scripts", "bench"]) != 0:
        failed.append("ruff")
    if step("mypy", [py, "-m", "mypy"]) != 0:
        failed.append("mypy")
    lint_imports = str(Path(py).with_name("lint-imports"))
    if step("import contracts", [lint_imports, "--no-cache", "--config", str(ROOT / ".importlinter")]) != 0:
        failed.append("import contracts")
    pytest = [py, "-m", "pytest", "-W", "error", *(["-m", "not slow"] if fast else []), *extra]
    if step("pytest", pytest) != 0:
        failed.append("pytest")
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
