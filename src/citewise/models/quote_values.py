"""Structured output from quotes: the values of a JSON schema that an answer of quotes can fill.

Apart from :mod:`.extractive` because it is about the schema, not the evidence: the
extractive model writes no words of its own, so it can fill a string (the answer), an
array of strings (one quote each), or an object whose one string property takes the
answer and whose numbers, dates and booleans are read from the quotes
(:func:`citewise.grounding.values.value_from_quotes`; the loop then cites each value in
``structured_citations``). Any other shape, or a required value no quote holds, is
:data:`UNFILLABLE`: the model says so (:data:`CANNOT_FILL`) and answers in prose rather
than invent a value.
"""

from __future__ import annotations

from typing import Any

from citewise.grounding.values import UNFILLED, value_from_quotes

__all__ = ["CANNOT_FILL", "UNFILLABLE", "fill"]

#: What :func:`fill` returns for a schema the quotes cannot fill.
UNFILLABLE = object()
#: The model's thought when it answers in prose instead.
CANNOT_FILL = ("This schema needs values that quotes cannot give (the extractive model fills "
               "a string, an array of strings, or an object's one string property and the "
               "numbers, dates and yes/no values its quotes state); answering in prose — "
               "choose a language model for this schema.")
_SCALARS = frozenset(("integer", "number", "boolean"))


def fill(schema: dict[str, Any], answer: str, quotes: list[str]) -> Any:
    """The answer as a value of ``schema``, for the shapes quotes can fill: a string (the
    answer), an array of strings (the quotes), or an object whose string property (one at
    most) takes the answer and whose numbers, dates and booleans are read from the quotes
    (:func:`~citewise.grounding.values.value_from_quotes`, which the loop then cites). A
    required value the quotes do not hold makes the schema unfillable; an optional one is
    read only when no string property carries the answer (an optional boolean never)."""
    kind = schema.get("type")
    if kind == "string":
        return answer
    if kind == "array" and isinstance(schema.get("items"), dict) and (
            schema["items"].get("type") == "string"):
        return quotes
    properties = schema.get("properties")
    if kind != "object" or not isinstance(properties, dict):
        return UNFILLABLE
    required = [k for k in schema.get("required") or [] if isinstance(k, str)]
    targets = required or list(properties)
    strings = [k for k in targets if _is_text(properties.get(k))]
    if len(strings) > 1 and (required or not any(_is_scalar(properties.get(k)) for k in targets)):
        return UNFILLABLE  # one answer cannot fill two texts
    value: dict[str, Any] = {}
    if len(strings) == 1:
        value[strings[0]] = answer
    for key in targets:
        sub = properties.get(key)
        if key in value or key in strings:
            continue
        # An optional value only where no string carries the answer, never a guessed boolean.
        if isinstance(sub, dict) and _is_scalar(sub) and (
                key in required or (not strings and sub.get("type") != "boolean")):
            found = value_from_quotes(sub, key, quotes)
            if found is not UNFILLED:
                value[key] = found
                continue
        if key in required:
            return UNFILLABLE
    return value or UNFILLABLE


def _is_text(sub: Any) -> bool:
    return isinstance(sub, dict) and sub.get("type") == "string" and sub.get("format") != "date"


def _is_scalar(sub: Any) -> bool:
    return isinstance(sub, dict) and (
        sub.get("type") in _SCALARS or (sub.get("type") == "string" and sub.get("format") == "date"))
