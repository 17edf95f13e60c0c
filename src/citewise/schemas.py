"""JSON Schemas of the value model, as committed under ``schemas/``.

``python -m citewise.schemas DIR`` rewrites them; a test fails when the committed files
drift from the code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["all_schemas", "write_schemas"]


def all_schemas() -> dict[str, dict[str, Any]]:
    """File name → JSON Schema, for every public value type."""
    from pydantic import TypeAdapter

    from citewise.agent.state import Decision, RunSettings
    from citewise.answer import Answer
    from citewise.events import Event, Interrupt
    from citewise.triples import Triple

    return {
        "answer.schema.json": Answer.model_json_schema(),
        "event.schema.json": TypeAdapter(Event).json_schema(),
        "interrupt.schema.json": Interrupt.model_json_schema(),
        "decision.schema.json": Decision.model_json_schema(),
        "run-settings.schema.json": RunSettings.model_json_schema(),
        "triple.schema.json": Triple.model_json_schema(),
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in all_schemas().items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_schemas(Path(sys.argv[1] if len(sys.argv) > 1 else "schemas")):
        print(p)
