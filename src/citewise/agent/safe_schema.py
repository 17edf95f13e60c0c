"""Validating against a schema a user sent (``output_schema``): linear-time, bounded.

Why: ``jsonschema`` matches ``pattern`` and ``patternProperties`` with Python's ``re``, a
backtracking engine that holds the GIL while it matches. ``{"pattern": "^(a+)+$"}`` over
an answer quoting 25 ``a``s and a ``!`` ran for 13 s, each more character doubling it, and
the run validated its answer on the server's event loop: every tenant's requests, and
the process's lease renewals, froze with it (issue 25). Here:

* every regex of a user schema is compiled and matched by RE2 (``google-re2``), whose
  matching time is linear in the input. A pattern RE2 cannot take — a backreference, a
  lookaround: features without a linear-time guarantee — is refused when the request is
  checked (``invalid_output_schema``), before anything is written; so is
  ``patternProperties`` in a schema that also uses ``unevaluatedProperties``, a pair
  ``jsonschema`` evaluates with ``re`` inside code a keyword cannot replace;
* every keyword checks a deadline (:func:`bounded`), so a schema whose combinators
  explode (``anyOf`` nested over a recursive ``$ref``) stops after its budget instead of
  running on; and the loop validates in a worker thread, never on the event loop;
* a schema is at most ``MAX_SCHEMA_CHARS`` long: checking one is linear but not cheap
  (a 1 MB schema took 7 s, on the event loop of the request that sent it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]  # (google-re2: no type information)
from jsonschema import Draft202012Validator, ValidationError, validators

from citewise.errors import InvalidInput

__all__ = ["MAX_SCHEMA_CHARS", "VALIDATION_S", "ValidationTimeout", "bounded", "check_patterns",
           "check_size", "safe_validator"]

#: How long validating one answer against a user's schema may take, all candidates together.
VALIDATION_S = 2.0
#: The longest output schema accepted, as compact JSON (checking it takes ~0.1 s).
MAX_SCHEMA_CHARS = 32 * 1024

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is the caller's error, not a log line
_local = threading.local()

Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterator[ValidationError]]


class ValidationTimeout(Exception):
    """Validation ran past the deadline :func:`bounded` set for this thread."""


@lru_cache(maxsize=512)
def _regex(pattern: str) -> Any:
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise InvalidInput(
            f"output_schema pattern {pattern!r} cannot be matched in linear time ({reason}); "
            "backreferences and lookarounds are not supported", code="invalid_output_schema",
            details={"pattern": pattern, "reason": reason}) from None


def _search(pattern: str, text: str) -> bool:
    return _regex(pattern).search(text) is not None


def check_size(schema: dict[str, Any]) -> None:
    """Refuse (``invalid_output_schema``, reason ``too_large``) a schema longer than
    ``MAX_SCHEMA_CHARS`` as compact JSON."""
    import json

    size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False))
    if size > MAX_SCHEMA_CHARS:
        raise InvalidInput(f"output_schema is longer than {MAX_SCHEMA_CHARS} characters",
                           code="invalid_output_schema",
                           details={"reason": "too_large", "max_chars": MAX_SCHEMA_CHARS,
                                    "chars": size})


def check_patterns(subschemas: Iterable[dict[str, Any]]) -> None:
    """Refuse (``invalid_output_schema``) what :func:`safe_validator` could not match
    safely: a pattern RE2 cannot compile, ``patternProperties`` with
    ``unevaluatedProperties``."""
    pattern_properties = unevaluated = False
    for sub in subschemas:
        if isinstance(sub.get("pattern"), str):
            _regex(sub["pattern"])
        props = sub.get("patternProperties")
        if isinstance(props, dict):
            pattern_properties = pattern_properties or bool(props)
            for key in props:
                _regex(key)
        unevaluated = unevaluated or "unevaluatedProperties" in sub
    if pattern_properties and unevaluated:
        raise InvalidInput("output_schema uses patternProperties together with "
                           "unevaluatedProperties, which citewise cannot evaluate in linear "
                           "time", code="invalid_output_schema",
                           details={"reason": "pattern_properties_with_unevaluated"})


@contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Validation in this thread raises :class:`ValidationTimeout` after ``seconds``."""
    before = getattr(_local, "until", None)
    _local.until = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.until = before


def _checked(keyword: Keyword) -> Keyword:
    def run(validator: Any, value: Any, instance: Any, schema: dict[str, Any]
            ) -> Iterator[ValidationError]:
        until: float | None = getattr(_local, "until", None)
        if until is not None and time.monotonic() > until:
            raise ValidationTimeout
        yield from keyword(validator, value, instance, schema)
    return run


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
             ) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any,
                        schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [k for k in instance
              if k not in known and not any(_search(p, k) for p in patterns)]
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif not additional and extras:
        names = ", ".join(repr(k) for k in sorted(extras))
        if patterns:
            yield ValidationError(f"{names} do(es) not match any of the regexes: "
                                  + ", ".join(repr(p) for p in sorted(patterns)))
        else:
            yield ValidationError(f"Additional properties are not allowed ({names} unexpected)")


_OWN: dict[str, Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}

_SafeValidator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {name: _checked(_OWN.get(name) or fn)
     for name, fn in Draft202012Validator.VALIDATORS.items()},
)


def safe_validator(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator for ``schema`` with RE2 regexes and deadline checks
    (``schema`` has passed :func:`citewise.agent.structured.check_schema`)."""
    return _SafeValidator(schema)
