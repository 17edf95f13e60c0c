"""Pick a model by one string (config, env ``CITEWISE_MODEL`` or ``--model``).

Syntax::

    SPEC   := MEMBER ( "|" MEMBER )*       several members = a FallbackModel, first preferred
    MEMBER := PROVIDER [ ":" REST ]        REST is handed to the provider's factory

Built-in providers (each an entry point in group ``citewise.models``)::

    extractive                          no LLM: answers from retrieved passages (default)
    scripted                            canned turns, for tests
    local | local:smollm2 | local:/path/model.gguf
                                        in-process llama.cpp (extra citewise[local])
    openai:gpt-4.1-mini                 api.openai.com, key from OPENAI_API_KEY
    openai-compat:http://127.0.0.1:11434/v1#qwen2.5
                                        any OpenAI-compatible server; "#MODEL" is the id the
                                        server knows (optional for llama.cpp servers)
    react:openai-compat:http://127.0.0.1:8080/v1#smollm2
                                        text-ReAct around any model without tool calling

e.g. ``openai:gpt-4.1-mini|openai-compat:http://127.0.0.1:11434/v1#qwen2.5|extractive``.
``|`` cannot appear unescaped in a URL, so it is a safe separator.

A third party registers a provider exactly like the built-ins, in its ``pyproject.toml``::

    [project.entry-points."citewise.models"]
    mycloud = "mypkg.models:create"      # create(rest: str, **options) -> Model

Keyword ``options`` of :func:`resolve_model` go to the factory (``api_key``, ``timeout``,
``max_retries``, ``temperature``, ``n_ctx``…); a factory that does not take ``**options``
gets only the ones it names, and any other option is a ``ConfigError``.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from citewise.errors import ConfigError
from citewise.models.base import Model
from citewise.models.guard import allow_model_requests, check_model_request

__all__ = [
    "DEFAULT_MODEL",
    "ENV_VAR",
    "GROUP",
    "allow_model_requests",
    "available_models",
    "check_model_request",
    "register_model",
    "resolve_model",
]

GROUP = "citewise.models"
ENV_VAR = "CITEWISE_MODEL"
DEFAULT_MODEL = "extractive"

Factory = Callable[..., Model]
_registered: dict[str, Factory] = {}


def register_model(name: str, factory: Factory) -> None:
    """Register a provider in this process (an app or a test; packages use entry points)."""
    _registered[name] = factory


def _entry_point_factories() -> dict[str, Callable[[], Factory]]:
    return {ep.name: ep.load for ep in entry_points(group=GROUP)}


def available_models() -> list[str]:
    """Provider names that resolve: entry points plus in-process registrations."""
    return sorted({*_entry_point_factories(), *_registered})


def _factory(provider: str, spec: str) -> Factory:
    if provider in _registered:
        return _registered[provider]
    loaders = _entry_point_factories()
    if provider not in loaders:
        raise ConfigError(
            f"unknown model {spec!r}: no provider {provider!r} "
            f"(available: {', '.join(available_models())})",
            code="unknown_model", details={"spec": spec, "provider": provider})
    try:
        return loaders[provider]()
    except ImportError as exc:
        raise ConfigError(f"model provider {provider!r} cannot be loaded: {exc}",
                          code="model_provider_unavailable",
                          details={"provider": provider}) from exc


def _call(factory: Factory, rest: str, options: dict[str, Any], spec: str) -> Model:
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return factory(rest, **options)
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        names = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise ConfigError(f"model {spec!r} takes no option(s) {', '.join(unknown)}",
                              code="unknown_model_option", details={"options": unknown})
    return factory(rest, **options)


def resolve_model(spec: str | None = None, **options: Any) -> Model:
    """The model named by ``spec`` (default: ``$CITEWISE_MODEL`` or ``extractive``)."""
    spec = (spec or os.environ.get(ENV_VAR) or DEFAULT_MODEL).strip()
    members = [m.strip() for m in spec.split("|")]
    if len(members) > 1:
        from citewise.models.fallback import FallbackModel

        if not all(members):
            raise ConfigError(f"empty member in model chain {spec!r}",
                              code="invalid_model_spec", details={"spec": spec})
        return FallbackModel([resolve_model(m, **options) for m in members])
    provider, _, rest = spec.partition(":")
    if not provider:
        raise ConfigError(f"invalid model spec {spec!r}", code="invalid_model_spec",
                          details={"spec": spec})
    return _call(_factory(provider, spec), rest, options, spec)
