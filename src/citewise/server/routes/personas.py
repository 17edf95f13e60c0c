"""``/v1/personas``: the named agent definitions a run may answer as (seed 001's
``IPersonaDefinition``; see :mod:`citewise.personas`). Built-in and config-file personas
are listed and read here; a tenant's own are created, replaced and deleted here."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response
from pydantic import BaseModel, Field

from citewise.errors import InvalidInput
from citewise.personas import Persona
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.run_extras import registry

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["personas"], responses=ERRORS)

Name = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
                           description="Persona id.")]


class PersonaList(BaseModel):
    personas: list[Persona] = Field(description="Built-in, configured, then the tenant's own.")


@router.get("/personas", response_model=PersonaList, summary="List the personas")
async def list_personas(state: State, who: Caller) -> PersonaList:
    reg = registry(state.services)
    return PersonaList(personas=await asyncio.to_thread(reg.list, who.tenant))


@router.get("/personas/{name}", response_model=Persona, summary="One persona")
async def get_persona(name: Name, state: State, who: Caller) -> Persona:
    return await asyncio.to_thread(registry(state.services).get, name, who.tenant)


@router.put("/personas/{name}", response_model=Persona, summary="Create or replace a persona")
async def put_persona(name: Name, body: Persona, state: State, who: Caller) -> Persona:
    """The tenant's persona `name` (`persona_read_only` for a built-in or configured one)."""
    if body.id != name:
        raise InvalidInput("the body's id must be the path's", code="persona_id_mismatch",
                           details={"path": name, "body": body.id})
    reg = registry(state.services)
    if body.tools is not None:  # refused now, not at the first run that picks it
        known = {getattr(t, "name", getattr(t, "__name__", "")) for t in state.services.tools}
        known.add("search_knowledge")
        unknown = sorted(set(body.tools) - known)
        if unknown:
            raise InvalidInput(f"unknown tools: {', '.join(unknown)}", code="unknown_tool",
                               details={"tools": unknown})
    await asyncio.to_thread(reg.put, body, who.tenant)
    return body


@router.delete("/personas/{name}", status_code=204, response_class=Response,
               summary="Delete a persona")
async def delete_persona(name: Name, state: State, who: Caller) -> Response:
    await asyncio.to_thread(registry(state.services).delete, name, who.tenant)
    return Response(status_code=204)
