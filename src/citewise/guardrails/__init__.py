"""Guardrails: checks of what goes into a run and what comes out, each in ``warn``,
``block`` (or, where it can rewrite, ``redact``) mode. See :mod:`.base` and :mod:`.registry`."""

from __future__ import annotations

from citewise.guardrails.base import MODES, Guardrail, GuardrailBlocked
from citewise.guardrails.registry import (
    GROUP,
    GuardrailSpec,
    available_guardrails,
    create_guardrail,
    load_guardrails,
)

__all__ = [
    "GROUP",
    "MODES",
    "Guardrail",
    "GuardrailBlocked",
    "GuardrailSpec",
    "available_guardrails",
    "create_guardrail",
    "load_guardrails",
]
