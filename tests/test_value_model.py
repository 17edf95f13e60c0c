"""The value model: committed JSON Schemas match the code, every field is documented,
the public surface is what ``__all__`` says."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import citewise
from citewise.answer import Answer
from citewise.events import TERMINAL_KINDS, event_adapter
from citewise.schemas import all_schemas, render

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(all_schemas()))
def test_committed_schema_matches_code(name: str) -> None:
    committed = (ROOT / "schemas" / name).read_text(encoding="utf-8")
    assert committed == render(all_schemas()[name]), (
        f"schemas/{name} is stale: run `python -m citewise.schemas schemas`")


def _undocumented(schema: dict[str, Any]) -> list[str]:
    missing = []
    for def_name, definition in {"(root)": schema, **schema.get("$defs", {})}.items():
        for prop, spec in definition.get("properties", {}).items():
            if prop in {"kind", "role", "t"}:
                continue  # discriminators document themselves through their constant
            if "description" not in spec:
                missing.append(f"{def_name}.{prop}")
    return missing


@pytest.mark.parametrize("name", ["answer.schema.json", "event.schema.json"])
def test_every_field_is_documented(name: str) -> None:
    assert _undocumented(all_schemas()[name]) == []


def test_events_discriminate_on_kind() -> None:
    kinds = {"run_started", "thought", "action", "observation", "answer_delta", "citation",
             "explain", "warning", "error", "run_paused", "run_finished"}
    schema = all_schemas()["event.schema.json"]
    assert set(schema["discriminator"]["mapping"]) == kinds
    assert kinds >= TERMINAL_KINDS
    ev = event_adapter.validate_python({"kind": "warning", "run_id": "r", "thread_id": "t",
                                        "seq": 3, "code": "x", "message": "m"})
    assert ev.kind == "warning"
    assert not ev.is_terminal
    done = event_adapter.validate_python({"kind": "run_finished", "run_id": "r",
                                          "thread_id": "t", "seq": 4,
                                          "answer": {"run_id": "r", "thread_id": "t"}})
    assert done.is_terminal
    assert json.loads(done.model_dump_json())["end_of_dialog"] is True


def test_answer_round_trips() -> None:
    answer = Answer(run_id="r", thread_id="t", text="x [1]")
    assert Answer.model_validate_json(answer.model_dump_json()) == answer


def _modules() -> list[str]:
    names = ["citewise"]
    for info in pkgutil.walk_packages(citewise.__path__, "citewise."):
        names.append(info.name)
    return names


@pytest.mark.parametrize("module", _modules())
def test_dunder_all_names_exist(module: str) -> None:
    if module.endswith("__main__"):
        pytest.skip("running __main__ would execute the CLI")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:  # an optional extra (llama_cpp, mcp, …) is not installed
        pytest.skip(f"optional dependency missing: {exc}")
    exported = getattr(mod, "__all__", None)
    if exported is None:
        return
    for name in exported:
        assert hasattr(mod, name), f"{module}.__all__ names missing {name!r}"
    assert all(isinstance(getattr(mod, n), object) for n in exported)


def test_import_is_light() -> None:
    code = ("import sys, citewise; heavy = {'tantivy', 'sqlalchemy', 'onnxruntime', 'numpy', "
            "'llama_cpp', 'uvicorn', 'starlette', 'fastapi', 'rdflib', 'httpx'}; "
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_models_in_answer_forbid_unknown_fields() -> None:
    with pytest.raises(ValueError, match="extra"):
        Answer.model_validate({"run_id": "r", "thread_id": "t", "bogus": 1})
    assert issubclass(Answer, BaseModel)
