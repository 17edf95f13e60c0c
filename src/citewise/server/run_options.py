"""Per-request run switches, as the API schema validated them.

Apart from the run manager that starts runs with them so that what reads them (the
formats layer, the routes, the persona/audio/image extras of :mod:`.run_extras`) does
not import the manager, nor the manager them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citewise.agent.tools import Tool

__all__ = ["RunOptions"]


@dataclass(slots=True)
class RunOptions:
    """Per-request run switches (validated by the API schema)."""

    strict: bool = False
    max_steps: int | None = None
    output_schema: dict[str, Any] | None = None
    #: Tools of this run only, beside the server's (an AG-UI client's front-end tools).
    tools: tuple[Tool, ...] = ()
    #: Seed 001's extras (citewise.server.run_extras): the persona answering, and whether
    #: the answer is also spoken / its first cited PDF passage pictured.
    persona: str | None = None
    audio: bool = False
    image: bool = False
