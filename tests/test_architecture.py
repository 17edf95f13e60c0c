"""The layering of the package, checked: no import cycles, and the import contracts hold.

Cycles are counted between modules, lazy imports inside functions included (a lazy import
that dodges a cycle is still one) and ``TYPE_CHECKING`` blocks excluded. The contracts
(``.importlinter``) are run by ``scripts/check.py``; here they are also shown to bite: a
copy of the package with one bad import added must fail them, or they prove nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def cycles(package: str) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
    adj = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(adj):
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(adj.get(child, []))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _copy_package(tmp_path: Path) -> Path:
    dest = tmp_path / "src"
    shutil.copytree(SRC / "citewise", dest / "citewise",
                    ignore=shutil.ignore_patterns("__pycache__", "samples", "_data"))
    return dest


def _in_subprocess(src: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=src.parent, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(src), "PATH": ""},
                          check=False)


def test_no_import_cycles_in_the_package() -> None:
    assert cycles("citewise") == []


def test_the_cycle_count_sees_a_lazy_import(tmp_path: Path) -> None:
    src = _copy_package(tmp_path)
    hits = src / "citewise" / "knowledge" / "retrieve" / "hits.py"
    hits.write_text(hits.read_text() + "\n\ndef _late() -> None:\n"
                    "    from citewise.knowledge.retrieve import retriever  # noqa: F401\n")
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); "
            "from test_architecture import cycles; print(cycles('citewise'))")
    done = _in_subprocess(src, code)
    assert done.returncode == 0, done.stderr
    assert "citewise.knowledge.retrieve.hits" in done.stdout
    assert "citewise.knowledge.retrieve.retriever" in done.stdout


def _lint(src: Path) -> subprocess.CompletedProcess[str]:
    argv = ["lint-imports", "--no-cache", "--config", str(ROOT / ".importlinter")]
    return _in_subprocess(src, "import sys; from importlinter.cli import lint_imports_command; "
                          f"sys.argv = {argv!r}; lint_imports_command()")


@pytest.mark.slow
def test_the_import_contracts_hold_and_bite(tmp_path: Path) -> None:
    src = _copy_package(tmp_path)
    clean = _lint(src)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    # One deliberate bad import: the knowledge base reaching up into the server.
    hits = src / "citewise" / "knowledge" / "retrieve" / "hits.py"
    hits.write_text(hits.read_text() + "\nimport citewise.server.app  # noqa: E402,F401\n")
    broken = _lint(src)
    assert broken.returncode != 0
    assert "the knowledge base knows no agent, model, server or CLI BROKEN" in broken.stdout
    assert "citewise.knowledge.retrieve.hits -> citewise.server.app" in broken.stdout
