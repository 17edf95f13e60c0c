"""Structured output: the final answer as JSON that validates against a caller's schema.

The model's text is parsed leniently (a fenced ```json block or the outermost object),
validated with ``jsonschema``; on failure the loop re-prompts with the validator's message.
Citation markers may appear inside string values and are grounded like any other text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from citewise.errors import InvalidInput

__all__ = ["check_schema", "check_structured", "repair_prompt"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def check_schema(schema: dict[str, Any]) -> None:
    """Refuse an invalid JSON Schema up front (caller misuse, code ``invalid_output_schema``)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise InvalidInput(f"output_schema is not a valid JSON Schema: {exc.message}",
                           code="invalid_output_schema") from None


def _extract(text: str) -> str:
    m = _FENCE.search(text)
    if m:
        return m.group(1).strip()
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return text.strip()
    end = max(text.rfind("}"), text.rfind("]"))
    return text[start : end + 1] if end > start else text[start:]


def check_structured(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` holds JSON valid for ``schema``, else ``(None, why)``."""
    from jsonschema import Draft202012Validator

    try:
        value = json.loads(_extract(text))
    except json.JSONDecodeError as exc:
        return None, f"the answer is not valid JSON ({exc.msg} at position {exc.pos})"
    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        return None, f"the JSON does not match the schema at {where}: {errors[0].message}"
    return value, None


def repair_prompt(why: str, schema: dict[str, Any]) -> str:
    return (
        f"Your final answer was rejected: {why}. Reply with only a JSON value that validates "
        f"against this JSON Schema, keeping citation markers like [1] inside strings:\n"
        + json.dumps(schema)
    )
