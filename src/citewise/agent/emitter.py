"""Stamps events with the run's ids and the next ``seq``; nothing else."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

from citewise.agent.state import RunState
from citewise.events import Explain, Warning, _Event
from citewise.triples import Triple, Triples

__all__ = ["Emitter"]

E = TypeVar("E", bound=_Event)
_clock = datetime.now


class Emitter:
    """Creates events in order. ``seq`` lives in the state so a resumed run continues it."""

    __slots__ = ("_state",)

    def __init__(self, state: RunState) -> None:
        self._state = state

    def __call__(self, cls: type[E], /, **fields: Any) -> E:
        state = self._state
        fields["run_id"] = state.run_id
        fields["thread_id"] = state.thread_id
        fields["seq"] = state.next_seq()
        fields["ts"] = _clock(UTC)  # given, not the field's default factory: one call less
        # Validated exactly as ``cls(**fields)`` would (events define no __init__), without
        # BaseModel.__init__'s Python frame: this runs for every event of every run.
        event: E = cls.__pydantic_validator__.validate_python(fields)
        return event

    def warning(self, code: str, message: str, **details: Any) -> Warning:
        return self(Warning, code=code, message=message, details=details)

    def explain(self, explain_id: str, triples: Triples | list[Triple],
                graph: str = "urn:graph:retrieval") -> Explain:
        return self(Explain, explain_id=explain_id, graph=graph, triples=triples)
