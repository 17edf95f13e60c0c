"""Personas: named agent definitions (seed 001's ``IPersonaDefinition``).

Why: one service often answers as several agents — a terse support bot, a careful
compliance reader — that differ in instructions, model, tools, guardrails and what they
search, not in their knowledge base. A persona names such a definition; a run picks one
with ``"persona": "NAME"`` (``/v1/ask`` and ``/v1/runs`` bodies or query, CLI
``--persona NAME``), and its answer reports it (AgentOS ``personaId``,
``activePersonaDetails``). A plain run is the built-in persona ``citewise``: citewise's
own prompt, the configured model, every tool, no extra guardrails.

Where they come from, first match wins: the built-in ``citewise``; the config file —
``CITEWISE_PERSONAS_FILE``, else ``personas.toml`` / ``personas.json`` in the data
directory — holding ``[[personas]]`` tables (TOML) or ``{"personas": [...]}`` (JSON);
then a tenant's personas defined over the API (``PUT /v1/personas/{id}``, kept in the
store's settings). Built-in and file personas cannot be replaced over the API.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citewise.errors import ConfigError, InvalidInput, NotFound, UsageError

if TYPE_CHECKING:
    from citewise.agent.runner import Agent
    from citewise.store.base import Store

__all__ = ["BUILTIN", "ENV", "Persona", "PersonaRegistry", "Retrieval", "apply_persona",
           "use_cli_persona"]

ENV = "CITEWISE_PERSONAS_FILE"
_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class Retrieval(BaseModel):
    """What the persona's ``search_knowledge`` calls search."""

    model_config = ConfigDict(extra="forbid", strict=True)

    k: int | None = Field(default=None, ge=1, le=50,
                          description="Passages per search (overrides the model's choice).")
    filters: dict[str, Any] = Field(default_factory=dict, description=(
        "Metadata filters added to every search, e.g. `{\"collection\": \"handbook\"}`."))


class Persona(BaseModel):
    """One named agent definition."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(pattern=_ID, description="The name runs pick it by.")
    name: str = Field(default="", max_length=200, description="Display name (default: id).")
    description: str = Field(default="", max_length=4000, description="What it is for.")
    version: str = Field(default="1", max_length=64, description="Version of the definition.")
    system_prompt: str | None = Field(default=None, max_length=100_000,
                                      description="Instructions (default: citewise's own).")
    model: str | None = Field(default=None, max_length=1000,
                              description="Model string (default: the server's model).")
    tools: list[str] | None = Field(default=None, max_length=200,
                                    description="Tool names it may call (default: all).")
    guardrails: dict[str, Any] | list[str] | None = Field(
        default=None, description="Guardrails, as `Agent(guardrails=…)` takes them.")
    retrieval: Retrieval | None = Field(default=None, description="Search settings.")
    language: str | None = Field(default=None, max_length=35,
                                 description="Its language (BCP 47), e.g. for speech.")

    def details(self) -> dict[str, Any]:
        """The definition as the answer reports it."""
        out = self.model_dump(mode="json", exclude_none=True)
        out["name"] = self.name or self.id
        return out


BUILTIN = Persona(id="citewise", name="citewise", description=(
    "citewise's own agent: grounded answers over your documents with verified citations."))


def _load_file(path: Path) -> list[Persona]:
    try:
        raw = path.read_bytes()
        if path.suffix == ".toml":
            import tomllib

            data: Any = tomllib.loads(raw.decode("utf-8"))
        else:
            data = json.loads(raw)
        items = data.get("personas", []) if isinstance(data, dict) else data
        return [Persona.model_validate(p) for p in items]
    except (OSError, ValueError, ValidationError) as e:  # tomllib/json errors are ValueErrors
        raise ConfigError(f"cannot read personas from {path}: {e}", code="invalid_personas",
                          details={"path": str(path)}) from None


class PersonaRegistry:
    """The personas one process knows: built-in, from the config file, from the API."""

    def __init__(self, store: Store | None = None, data_dir: Path | None = None,
                 file: Path | None = None) -> None:
        self.store = store
        if file is None and os.environ.get(ENV):
            file = Path(os.environ[ENV])
        if file is None and data_dir is not None:
            file = next((data_dir / n for n in ("personas.toml", "personas.json")
                         if (data_dir / n).is_file()), None)
        self.file = file
        self._fixed: dict[str, Persona] = {BUILTIN.id: BUILTIN}
        for p in _load_file(file) if file is not None else []:
            self._fixed.setdefault(p.id, p)

    def _key(self, tenant: str) -> str:
        return f"personas:{tenant}"

    def _stored(self, tenant: str) -> dict[str, Persona]:
        if self.store is None:
            return {}
        raw = self.store.get_setting(self._key(tenant))
        return {k: Persona.model_validate(v) for k, v in json.loads(raw).items()} if raw else {}

    def list(self, tenant: str = "default") -> list[Persona]:
        return [*self._fixed.values(),
                *(p for k, p in self._stored(tenant).items() if k not in self._fixed)]

    def get(self, name: str | None, tenant: str = "default") -> Persona:
        """The persona ``name`` (the built-in one for None); ``unknown_persona`` otherwise."""
        if name is None or name == BUILTIN.id:
            return BUILTIN
        found = self._fixed.get(name) or self._stored(tenant).get(name)
        if found is None:
            raise NotFound(f"unknown persona {name!r}", code="unknown_persona",
                           details={"persona": name,
                                    "known": [p.id for p in self.list(tenant)]})
        return found

    def put(self, persona: Persona, tenant: str = "default") -> None:
        if persona.id in self._fixed:
            raise UsageError(f"persona {persona.id!r} is defined by the server's configuration",
                             code="persona_read_only", details={"persona": persona.id})
        if self.store is None:
            raise UsageError("personas need a store", code="no_store")
        stored = self._stored(tenant)
        stored[persona.id] = persona
        self.store.set_setting(self._key(tenant), json.dumps(
            {k: p.model_dump(mode="json") for k, p in stored.items()}))

    def delete(self, name: str, tenant: str = "default") -> None:
        if name in self._fixed:
            raise UsageError(f"persona {name!r} is defined by the server's configuration",
                             code="persona_read_only", details={"persona": name})
        stored = self._stored(tenant)
        if stored.pop(name, None) is None:
            raise NotFound(f"unknown persona {name!r}", code="unknown_persona",
                           details={"persona": name})
        assert self.store is not None
        self.store.set_setting(self._key(tenant), json.dumps(
            {k: p.model_dump(mode="json") for k, p in stored.items()}))


def apply_persona(agent: Agent, persona: Persona, *, report: bool = True) -> None:
    """Make ``agent`` answer as ``persona`` (before its run starts). ``report``: the
    answer carries the definition (``Answer.persona``), as when a run asked for it."""
    from citewise.agent.tools import Toolset

    agent.outputs.persona_id = persona.id
    agent.outputs.persona = persona.details() if report else None
    if persona.language is not None:
        agent.outputs.language = persona.language
    if persona.id == BUILTIN.id:
        return
    if persona.system_prompt is not None:
        agent.system_prompt = persona.system_prompt
    if persona.model is not None:
        from citewise.agent.runner import resolve

        agent.model = resolve(persona.model)
    tools = list(agent.tools)
    if persona.tools is not None:
        unknown = sorted(set(persona.tools) - {t.name for t in tools})
        if unknown:
            raise InvalidInput(f"persona {persona.id!r} names tools this agent lacks: "
                               f"{', '.join(unknown)}", code="unknown_tool",
                               details={"persona": persona.id, "tools": unknown})
        tools = [t for t in tools if t.name in persona.tools]
    if persona.retrieval is not None:
        tools = [_scoped_search(t, persona.retrieval) if t.name == "search_knowledge" else t
                 for t in tools]
    agent.tools = Toolset(tools)
    if persona.guardrails:
        from citewise.guardrails.registry import load_guardrails

        at = agent.hooks.index(agent.outputs)  # guardrails before the outputs hook
        agent.hooks[at:at] = load_guardrails(persona.guardrails)


def _scoped_search(tool: Any, retrieval: Retrieval) -> Any:
    """``search_knowledge`` with the persona's filters always applied and its ``k``."""
    inner = tool.function

    @wraps(inner)
    def search(*args: Any, **kwargs: Any) -> Any:
        if retrieval.filters:
            kwargs["filters"] = {**(kwargs.get("filters") or {}), **retrieval.filters}
        if retrieval.k is not None:
            kwargs["k"] = retrieval.k
        return inner(*args, **kwargs)

    return replace(tool, function=search)


def use_cli_persona(agent: Agent, name: str | None, data_dir: Path | None) -> None:
    """``citewise ask --persona NAME``: the persona from the data directory's file (or
    ``CITEWISE_PERSONAS_FILE``) or the store (the ``default`` tenant's API personas)."""
    if name is None:
        return
    registry = PersonaRegistry(agent.store, data_dir=data_dir)
    apply_persona(agent, registry.get(name, agent.tenant), report=True)
