"""Building pydantic models from values that are already of their declared types.

The hot path makes thousands of small value objects (RDF terms, model requests) from parts
that were validated when they entered the run or are built by typed code. ``model_construct``
skips validation but loops over the fields in Python; :func:`trusted` only sets what a
validated instance holds. Use it where every field is given and every value already has the
field's type — mypy checks the call sites; anything from outside is validated as usual.

With ``CITEWISE_CHECK_TRUSTED=1`` (the test suite sets it) every instance is also validated
and compared with what validation makes, so each call site is proven by the tests.
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["trusted"]

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
# BaseModel's own slot descriptors, called directly: ``object.__setattr__`` would look each
# name up along the class's MRO first (a quarter of an instance's cost).
_slots = vars(BaseModel)
_set_dict = _slots["__dict__"].__set__
_set_fields_set = _slots["__pydantic_fields_set__"].__set__
_set_extra = _slots["__pydantic_extra__"].__set__
_set_private = _slots["__pydantic_private__"].__set__
_CHECK = os.environ.get("CITEWISE_CHECK_TRUSTED") == "1"
# One "every field was given" set per class, shared by its trusted instances: a set per
# instance was an allocation and, while a run lives, one more object for the cyclic GC to
# walk at every collection. Sharing is safe because the set already names every field:
# pydantic only ever adds a field's name to it (``__setattr__``), and copies it first
# where it could change (``model_copy``).
_every_field: dict[type[BaseModel], set[str]] = {}


def trusted(cls: type[M], values: dict[str, Any], fields_set: set[str] | None = None,
            private: dict[str, Any] | None = None) -> M:
    """An instance of ``cls`` holding ``values`` (all of its fields), not validated again.

    ``fields_set`` is what ``model_fields_set`` reports (default: every key of ``values``,
    i.e. every field, as a set shared by the class's trusted instances), so
    ``exclude_unset`` dumps match those of a validated instance built the same way;
    ``private`` holds the values of the model's private attributes, if it has any.
    """
    m = _new(cls)
    _set_dict(m, values)
    if fields_set is None:
        fields_set = _every_field.get(cls)
        if fields_set is None or len(fields_set) != len(values):
            fields_set = _fields_of(cls, values)
    _set_fields_set(m, fields_set)
    _set_extra(m, None)
    _set_private(m, private)
    if _CHECK:
        _check(cls, m)
    return m


def _fields_of(cls: type[BaseModel], values: dict[str, Any]) -> set[str]:
    given = set(values)
    if given == cls.model_fields.keys():
        return _every_field.setdefault(cls, given)
    return given


def _check(cls: type[M], m: M) -> None:
    validated = cls.model_validate(dict(m.__dict__))
    if validated != m or validated.model_dump(mode="json") != m.model_dump(mode="json"):
        raise AssertionError(f"trusted {cls.__name__} differs from a validated one: {m!r}")
