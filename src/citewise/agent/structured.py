"""Structured output: the final answer as JSON that validates against a caller's schema.

The model's text is parsed leniently (a fenced ```json block, the whole text, or a JSON
value inside prose — the first that validates wins),
validated with ``jsonschema``; on failure the loop re-prompts with the validator's message.
Citation markers may appear inside string values and are grounded like any other text.

The schema is the caller's and the text quotes documents: validation is untrusted work, so
it goes through :mod:`citewise.agent.safe_schema` (RE2 regexes, a deadline), and the loop
runs it in a worker thread.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from citewise.agent.safe_schema import (
    VALIDATION_S,
    ValidationTimeout,
    bounded,
    check_patterns,
    check_size,
    safe_validator,
)
from citewise.answer import Answer, Issue
from citewise.errors import InvalidInput, RunFailure

if TYPE_CHECKING:
    from referencing import Resource

__all__ = ["check_schema", "check_structured", "repair_prompt", "verified_structured"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_MAX_STARTS = 64  # bound the scan on long prose answers


def check_schema(schema: dict[str, Any]) -> None:
    """Refuse an invalid JSON Schema up front (caller misuse, code ``invalid_output_schema``)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    check_size(schema)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise InvalidInput(f"output_schema is not a valid JSON Schema: {exc.message}",
                           code="invalid_output_schema") from None
    from referencing.jsonschema import DRAFT202012

    check_patterns(_subschemas(DRAFT202012.create_resource(schema)))
    ref = _unresolvable_ref(schema)
    if ref is not None:
        raise InvalidInput(f"output_schema refers to {ref!r}, which it does not contain "
                           "(citewise never fetches schemas)", code="invalid_output_schema",
                           details={"ref": ref})


def _unresolvable_ref(schema: dict[str, Any]) -> str | None:
    """The first ``$ref`` / ``$dynamicRef`` that cannot be resolved inside ``schema`` (or
    the JSON Schema specifications jsonschema knows offline): one that points nowhere
    would otherwise fail the run only when validation reaches it. Only subschemas are
    read (a ``$ref`` key inside ``const`` or ``examples`` is data), and relative
    references under a nested ``$id`` are left to validation (their base differs)."""
    import jsonschema_specifications  # type: ignore[import-untyped]  # (jsonschema's own)
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    specifications: Registry[Any] = jsonschema_specifications.REGISTRY
    root = DRAFT202012.create_resource(schema)
    base = root.id() or ""
    resolver = specifications.with_resource(base, root).crawl().resolver(base_uri=base)
    subschemas = list(_subschemas(root))
    nested_ids = any("$id" in sub for sub in subschemas[1:])
    for sub in subschemas:
        for key in ("$ref", "$dynamicRef"):
            ref = sub.get(key)
            if not isinstance(ref, str):
                continue
            absolute = "://" in ref or ref.startswith("urn:")
            if not absolute and (nested_ids or not ref.startswith("#")):
                continue
            try:
                resolver.lookup(ref)
            except Unresolvable:
                return ref
    return None


def _subschemas(resource: Resource[Any]) -> Iterator[dict[str, Any]]:
    if isinstance(resource.contents, dict):
        yield resource.contents
    for sub in resource.subresources():
        yield from _subschemas(sub)


def _candidates(text: str) -> list[tuple[Any, int]]:
    """JSON values found in ``text`` with their source length, most likely first: a fenced
    block, the whole text, then each value that starts at a ``{`` or ``[`` (so prose or
    citation markers like ``[1]`` around the JSON do not hide it)."""
    found: list[tuple[Any, int]] = []
    chunks = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text.strip()]
    for chunk in chunks:
        try:
            found.append((json.loads(chunk), len(chunk)))
        except json.JSONDecodeError:
            pass
    decoder = json.JSONDecoder()
    starts = [i for i, ch in enumerate(text) if ch in "{["][:_MAX_STARTS]
    for i in starts:
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            continue
        found.append((value, end - i))
    return found


def check_structured(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` holds JSON valid for ``schema``, else ``(None, why)``.

    The first candidate that validates wins; when none does, the reason given is the
    validator's message for the largest JSON value found (the one the model most likely
    meant as its answer). Validation that takes longer than ``VALIDATION_S`` in all ends
    the run (``structured_output_invalid``, reason ``validation_timeout``).
    """
    try:
        with bounded(VALIDATION_S):
            return _check(text, schema)
    except ValidationTimeout:
        raise RunFailure(f"validating the answer against output_schema took longer than "
                         f"{VALIDATION_S:g} s", code="structured_output_invalid",
                         details={"reason": "validation_timeout"}) from None


def _check(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    validator = safe_validator(schema)
    candidates = _candidates(text)
    if not candidates:
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            return None, f"the answer is not valid JSON ({exc.msg} at position {exc.pos})"
        return None, "the answer is not valid JSON"
    for value, _ in candidates:
        if validator.is_valid(value):
            return value, None
    value = max(candidates, key=lambda c: c[1])[0]
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    where = "/".join(str(p) for p in errors[0].path) or "(root)"
    return None, f"the JSON does not match the schema at {where}: {errors[0].message}"


def verified_structured(answer: Answer, raw: Any, schema: dict[str, Any] | None,
                        *issue_lists: list[Issue]) -> Any:
    """The structured value of ``answer`` once verification has rewritten its text (a
    marker renumbered or dropped inside a string): parsed again from that text, so
    ``structured`` is what ``text`` says. Should the rewritten text no longer validate, the
    model's own value stays, with a warning added to each of ``issue_lists``."""
    assert schema is not None
    value, why = check_structured(answer.text, schema)
    if why is None:
        return value
    issue = Issue(code="structured_output_unverified",
                  message=f"structured keeps the model's citation markers: the verified text "
                          f"no longer matches the schema ({why})", details={"reason": why})
    for issues in issue_lists:
        issues.append(issue)
    return raw


def repair_prompt(why: str, schema: dict[str, Any]) -> str:
    return (
        f"Your final answer was rejected: {why}. Reply with only a JSON value that validates "
        f"against this JSON Schema, keeping citation markers like [1] inside strings:\n"
        + json.dumps(schema)
    )
