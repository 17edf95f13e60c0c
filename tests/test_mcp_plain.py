"""``citewise mcp`` on a plain install (issue 26, item 4): ``mcp`` is a core requirement of
the installed distribution — not an extra — and the installed ``citewise`` console script
serves MCP over stdio to clients nobody here wrote: the ``mcp`` Python SDK's client, and the
MCP Inspector's CLI (``@modelcontextprotocol/inspector --cli``, npm), each listing the tools
and calling ``ask`` on the bundled sample handbook."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tomllib
from importlib.metadata import requires
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from packaging.requirements import Requirement

from _node_clients import NODE, node_module
from citewise import KnowledgeBase

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "src" / "citewise" / "samples" / "handbook"
QUESTION = "How long does a refund take once the returned item arrives?"
#: The console script pip installed beside this interpreter (what `pip install citewise` puts
#: on PATH), not `python -m`: the entry point itself is under test.
CITEWISE = Path(sys.executable).with_name("citewise")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcp_plain") / "data"
    with KnowledgeBase.open(folder) as kb:
        assert not kb.ingest([SAMPLES]).failed
    return folder


def _core(name: str) -> list[Requirement]:
    """The installed citewise's requirements on ``name`` that hold without any extra."""
    found = [Requirement(line) for line in requires("citewise") or []]
    return [r for r in found if r.name == name
            and (r.marker is None or r.marker.evaluate({"extra": ""}))]


@pytest.mark.parametrize("name", ["mcp", "websockets"])
def test_core_requirements_of_the_installed_distribution(name: str) -> None:
    # `pip install citewise` brings them: the MCP server, and uvicorn's websocket support
    # for TrustGraph's /api/v1/socket — in what is installed, and in what would be built.
    assert _core(name), f"{name} is not a core requirement of the installed citewise"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert name in {Requirement(r).name for r in project["dependencies"]}


def _check_answer(answer: dict[str, Any]) -> None:
    assert answer["status"] == "completed" and "5 business days" in answer["answer"]
    assert answer["citations"] and answer["run_id"].startswith("run_")


def test_console_script_serves_the_python_sdk(data: Path) -> None:
    assert CITEWISE.is_file(), CITEWISE
    params = StdioServerParameters(command=str(CITEWISE), args=["mcp", "--data-dir", str(data)])

    async def go() -> tuple[set[str], dict[str, Any]]:
        async with Client(params, read_timeout_seconds=60) as client:
            listed = await client.list_tools()
            result = await client.call_tool("ask", {"question": QUESTION})
        assert not result.is_error
        return {t.name for t in listed.tools}, dict(result.structured_content or {})

    names, answer = asyncio.run(go())
    assert names == {"ask", "resume", "search"}
    _check_answer(answer)


def _inspector(data: Path, tmp_path: Path, *method: str) -> dict[str, Any]:
    launcher = node_module("@modelcontextprotocol/inspector") / "clients" / "launcher" / \
        "build" / "index.js"
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "catalog.json"),
           "HOME": str(tmp_path)}  # the Inspector keeps its state under HOME
    done = subprocess.run(
        [NODE, str(launcher), "--cli", str(CITEWISE), "mcp", "--data-dir", str(data),
         *method], capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def test_inspector_cli_lists_tools_and_calls_ask(data: Path, tmp_path: Path) -> None:
    listed = _inspector(data, tmp_path, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert set(tools) == {"ask", "resume", "search"}
    assert tools["ask"]["inputSchema"]["required"] == ["question"]
    called = _inspector(data, tmp_path, "--method", "tools/call", "--tool-name", "ask",
                        "--tool-arg", f"question={QUESTION}")
    assert called["isError"] is False
    _check_answer(called["structuredContent"])
    assert json.loads(called["content"][0]["text"]) == called["structuredContent"]


def test_a_venv_with_no_extras_serves_mcp(data: Path, tmp_path: Path) -> None:
    # What a user gets from `pip install citewise`: a fresh venv, the project installed
    # without any extra (dependencies from the package index, most from pip's cache).
    venv = tmp_path / "plain"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", str(ROOT)],
                         capture_output=True, text=True, timeout=900, check=False)
    assert pip.returncode == 0, pip.stderr[-2000:]
    extras = subprocess.run([str(venv / "bin" / "python"), "-c",
                             "import importlib.util as u; print(u.find_spec('llama_cpp'),"
                             " u.find_spec('pytest'))"],
                            capture_output=True, text=True, timeout=60, check=True)
    assert extras.stdout.split() == ["None", "None"]  # no test or local-model extra here
    params = StdioServerParameters(command=str(venv / "bin" / "citewise"),
                                   args=["mcp", "--data-dir", str(data)])

    async def go() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=120) as client:
            result = await client.call_tool("ask", {"question": QUESTION})
        assert not result.is_error
        return dict(result.structured_content or {})

    _check_answer(asyncio.run(go()))
