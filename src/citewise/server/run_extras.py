"""A run's seed-001 extras, set on its agent before it starts: the persona, audio, image.

Why here: the run manager builds one agent per run, and these are per-request switches
(``"persona"``, ``"audio"``, ``"image"`` in ``/v1/ask`` and ``/v1/runs``); refusals — an
unknown persona, a persona naming a tool this server lacks, ``audio`` without a speech
engine — come before anything is written. A run that asked for any keeps them in the
store's settings (``run_extras:<tenant>:<run>``), so its resumption answers the same way.
The server's personas (built-in, config file, API) are one
:class:`~citewise.personas.PersonaRegistry` per process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Query

from citewise.personas import PersonaRegistry, apply_persona
from citewise.store.base import run_extras_key

if TYPE_CHECKING:
    from citewise.agent.runner import Agent
    from citewise.server.run_options import RunOptions
    from citewise.server.services import Services

__all__ = ["Extras", "ExtrasQuery", "configure_agent", "configure_resumed", "dialect_for", "merged",
           "registry", "remember"]


def registry(services: Services) -> PersonaRegistry:
    """The process's personas (read once: the config file is read at the first use)."""
    found: PersonaRegistry | None = getattr(services, "_citewise_personas", None)
    if found is None:
        found = PersonaRegistry(services.store, data_dir=services.data_dir)
        services._citewise_personas = found  # type: ignore[attr-defined]
    return found


def configure_agent(services: Services, tenant: str, agent: Agent, options: RunOptions) -> None:
    """Apply ``options``' persona, audio and image to ``agent`` (raises before any write)."""
    if options.audio:
        from citewise.server.media import check_speech

        check_speech()
        agent.outputs.audio = True
    agent.outputs.image = options.image
    if options.persona is not None:
        apply_persona(agent, registry(services).get(options.persona, tenant), report=True)


@dataclass(frozen=True, slots=True)
class Extras:
    """The extras as query parameters (``?persona=&audio=&image=``)."""

    persona: str | None = None
    audio: bool = False
    image: bool = False


async def extras_query(
    persona: Annotated[str | None, Query(min_length=1, max_length=64, description=(
        "Answer as this persona (as the body's `persona`)."))] = None,
    audio: Annotated[bool, Query(description="Also speak the answer (as the body's `audio`).")
                     ] = False,
    image: Annotated[bool, Query(description=(
        "Also picture the first cited PDF passage (as the body's `image`)."))] = False,
) -> Extras:
    return Extras(persona, audio, image)


#: The route parameter: ``extras: ExtrasQuery``.
ExtrasQuery = Annotated[Extras, Depends(extras_query)]


def merged(body: Any, extras: Extras) -> Extras:
    """The body's extras, the query's where the body leaves them unset."""
    return Extras(getattr(body, "persona", None) or extras.persona,
                  bool(getattr(body, "audio", False)) or extras.audio,
                  bool(getattr(body, "image", False)) or extras.image)


def dialect_for(dialect: Any, persona: str | None) -> Any:
    """The AgentOS dialect stamps every chunk with the persona answering."""
    if persona is None or getattr(dialect, "name", None) != "agentos":
        return dialect
    from citewise.dialects.agentos import AgentOSDialect

    return AgentOSDialect(persona_id=persona)


def remember(services: Services, tenant: str, run_id: str, options: RunOptions) -> None:
    """Keep a run's extras for its resumption (a paused run resumes in a new agent, maybe on
    another replica). Blocking; only runs that asked for any are written."""
    if options.persona is None and not options.audio and not options.image:
        return
    services.store.set_setting(run_extras_key(tenant, run_id), json.dumps(
        {"persona": options.persona, "audio": options.audio, "image": options.image}))


def configure_resumed(services: Services, tenant: str, run_id: str, agent: Agent) -> None:
    """The extras the run started with, on the agent that resumes it. Blocking."""
    raw = services.store.get_setting(run_extras_key(tenant, run_id))
    if not raw:
        return
    from citewise.server.run_options import RunOptions

    kept = json.loads(raw)
    persona = kept.get("persona")
    agent.outputs.audio = bool(kept.get("audio"))  # the engine is checked when it is fetched
    agent.outputs.image = bool(kept.get("image"))
    if isinstance(persona, str):
        configure_agent(services, tenant, agent, RunOptions(persona=persona,
                                                            image=agent.outputs.image))
