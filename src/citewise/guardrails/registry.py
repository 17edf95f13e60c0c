"""Finding and configuring guardrails: the ``citewise.guardrails`` entry-point group.

A plugin registers a factory ``create(mode="warn", **options) -> Guardrail`` (any object
with the :class:`~citewise.agent.hooks.RunHook` methods) under a name; citewise's own
(``prompt_injection``, ``pii``, ``grounding``) are registered the same way in its
``pyproject.toml``. Configure them per agent::

    Agent(kb, guardrails={"prompt_injection": "block", "pii": {"mode": "redact"}})
    Agent(kb, guardrails=["prompt_injection", "pii:redact", "grounding:warn"])
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any

from citewise.agent.hooks import RunHook
from citewise.errors import ConfigError

__all__ = ["GROUP", "GuardrailSpec", "available_guardrails", "create_guardrail",
           "load_guardrails"]

GROUP = "citewise.guardrails"
#: ``{name: mode | {"mode": …, option: …}}`` or ``["name", "name:mode", hook, …]``.
GuardrailSpec = Mapping[str, "str | Mapping[str, Any]"] | Sequence["str | RunHook"]

# Used only when the package metadata lacks the entry points (a stale editable install).
_BUILTINS = {
    "prompt_injection": "citewise.guardrails.injection:create",
    "pii": "citewise.guardrails.pii:create",
    "grounding": "citewise.guardrails.grounding:create",
}


def available_guardrails() -> list[str]:
    """Names of every registered guardrail."""
    return sorted({ep.name for ep in entry_points(group=GROUP)} | set(_BUILTINS))


def create_guardrail(name: str, mode: str = "warn", **options: Any) -> RunHook:
    """One guardrail by registry name."""
    factory: Any = None
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            factory = ep.load()
            break
    if factory is None and name in _BUILTINS:
        module, _, attr = _BUILTINS[name].partition(":")
        factory = getattr(importlib.import_module(module), attr)
    if factory is None:
        raise ConfigError(f"unknown guardrail {name!r} (available: "
                          f"{', '.join(available_guardrails())})", code="unknown_guardrail",
                          details={"guardrail": name})
    try:
        hook = factory(mode, **options)
    except TypeError as exc:
        raise ConfigError(f"guardrail {name!r}: {exc}", code="invalid_guardrail_option",
                          details={"guardrail": name}) from None
    if not all(callable(getattr(hook, m, None)) for m in ("on_start", "on_tool_result",
                                                          "on_answer")):
        raise ConfigError(f"guardrail {name!r} did not build a RunHook",
                          code="invalid_guardrail", details={"guardrail": name})
    result: RunHook = hook
    return result


def load_guardrails(spec: GuardrailSpec) -> list[RunHook]:
    """The guardrails ``spec`` names, in order (see the module docstring for the forms)."""
    out: list[RunHook] = []
    if isinstance(spec, Mapping):
        for name, conf in spec.items():
            if isinstance(conf, str):
                out.append(create_guardrail(name, conf))
            elif isinstance(conf, Mapping):
                options = dict(conf)
                mode = options.pop("mode", "warn")
                out.append(create_guardrail(name, str(mode), **options))
            else:
                raise ConfigError(f"guardrail {name!r}: give a mode or a mapping of options",
                                  code="invalid_guardrail_option", details={"guardrail": name})
        return out
    for item in spec:
        if isinstance(item, str):
            name, _, mode = item.partition(":")
            out.append(create_guardrail(name, mode or "warn"))
        else:
            out.append(item)
    return out
