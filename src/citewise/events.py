"""Run events: a discriminated union on ``kind``, streamed while a run happens.

Every event carries ``run_id``, ``thread_id``, ``seq`` (monotonic per run, from 1) and a
UTC timestamp. Thoughts and answers stream as deltas sharing a ``message_id``; the last
delta of a message has ``end_of_message`` true (seed 000's end-of-message). Exactly one
terminal event ends every run — ``run_finished``, ``run_paused`` or ``error`` — and only
it has ``end_of_dialog`` true (seed 000's end-of-dialog).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from citewise.answer import Answer, CitationOccurrence
from citewise.triples import Triples

__all__ = [
    "TERMINAL_KINDS",
    "Action",
    "AnswerDelta",
    "Citation",
    "ErrorEvent",
    "Event",
    "Explain",
    "Interrupt",
    "Observation",
    "RunFinished",
    "RunPaused",
    "RunStarted",
    "Thought",
    "Warning",
    "event_adapter",
    "event_json",
    "now",
]


def now() -> datetime:
    return datetime.now(UTC)


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(description="The run this event belongs to.")
    thread_id: str = Field(description="The thread of the run.")
    seq: int = Field(default=0, ge=0, description="Position in the run, monotonic from 1.")
    ts: datetime = Field(default_factory=now, description="When the event was emitted (UTC).")

    @property
    def is_terminal(self) -> bool:
        return False


class RunStarted(_Event):
    """The run began (or resumed)."""

    kind: Literal["run_started"] = "run_started"
    question: str = Field(description="The question of the run.")
    model: str = Field(default="", description="The model serving the run.")
    resumed: bool = Field(default=False, description="True when this continues a paused run.")


class Thought(_Event):
    """A delta of the model's reasoning."""

    kind: Literal["thought"] = "thought"
    message_id: str = Field(description="Groups the deltas of one thought.")
    step: int = Field(default=0, ge=0, description="Zero-based step.")
    text: str = Field(default="", description="The delta text.")
    end_of_message: bool = Field(default=False, description="Last delta of this thought.")


class Action(_Event):
    """A tool call about to run, with validated arguments."""

    kind: Literal["action"] = "action"
    call_id: str = Field(description="Identifies the call; the observation repeats it.")
    step: int = Field(default=0, ge=0, description="Zero-based step.")
    tool: str = Field(description="Tool name.")
    input: dict[str, Any] = Field(default_factory=dict, description="Arguments of the call.")


class Observation(_Event):
    """A tool's result (or its error), as the model will see it."""

    kind: Literal["observation"] = "observation"
    call_id: str = Field(description="The call this answers.")
    step: int = Field(default=0, ge=0, description="Zero-based step.")
    tool: str = Field(description="Tool name.")
    text: str = Field(default="", description="The observation text given to the model.")
    is_error: bool = Field(default=False, description="The call failed; `text` says why.")
    duration_ms: float = Field(default=0.0, ge=0, description="Wall time of the call.")


class AnswerDelta(_Event):
    """A delta of the final answer text."""

    kind: Literal["answer_delta"] = "answer_delta"
    message_id: str = Field(description="Groups the deltas of the answer.")
    text: str = Field(default="", description="The delta text.")
    end_of_message: bool = Field(default=False, description="Last delta of the answer.")


class Citation(_Event):
    """A verified citation of the answer."""

    kind: Literal["citation"] = "citation"
    citation: CitationOccurrence = Field(description="The occurrence, as in the Answer.")
    source: str = Field(default="", description="Source of the cited document.")


class Explain(_Event):
    """Provenance of a step as RDF triples (seed 000's explain events)."""

    kind: Literal["explain"] = "explain"
    explain_id: str = Field(description="IRI of the node this event explains.")
    graph: str = Field(default="urn:graph:retrieval", description="Named graph of the triples.")
    triples: Triples = Field(default_factory=Triples, description="The triples, inline.")


class Warning(_Event):
    """Something the user should know; the run goes on."""

    kind: Literal["warning"] = "warning"
    code: str = Field(description="Stable code.")
    message: str = Field(description="Human-readable message.")
    details: dict[str, Any] = Field(default_factory=dict, description="Structured details.")


class Interrupt(BaseModel):
    """A pending tool call waiting for a human decision."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="Interrupt id, used to resume.")
    call_id: str = Field(description="The tool call it holds back.")
    tool: str = Field(description="Tool name.")
    input: dict[str, Any] = Field(default_factory=dict, description="Proposed arguments.")
    reason: str = Field(default="", description="Why approval is needed.")
    response_schema: dict[str, Any] = Field(
        default_factory=dict, description="JSON Schema of an acceptable decision."
    )
    expires_at: datetime | None = Field(default=None, description="After this, resume is refused.")


class _Terminal(_Event):
    end_of_dialog: Literal[True] = Field(default=True, description="The run is over.")

    @property
    def is_terminal(self) -> bool:
        return True


class ErrorEvent(_Terminal):
    """The run failed (terminal)."""

    kind: Literal["error"] = "error"
    code: str = Field(description="Stable code (e.g. `max_steps_exceeded`).")
    message: str = Field(description="Human-readable message.")
    details: dict[str, Any] = Field(default_factory=dict, description="Structured details.")
    answer: Answer | None = Field(default=None, description="What the run had, with `error` set.")


class RunPaused(_Terminal):
    """The run waits for human decisions (terminal for this stream)."""

    kind: Literal["run_paused"] = "run_paused"
    interrupts: list[Interrupt] = Field(description="One per pending call.")
    answer: Answer | None = Field(default=None, description="Partial answer, status `paused`.")


class RunFinished(_Terminal):
    """The run completed with an answer (terminal)."""

    kind: Literal["run_finished"] = "run_finished"
    answer: Answer = Field(description="The final, verified answer.")


Event = Annotated[
    RunStarted
    | Thought
    | Action
    | Observation
    | AnswerDelta
    | Citation
    | Explain
    | Warning
    | ErrorEvent
    | RunPaused
    | RunFinished,
    Field(discriminator="kind"),
]

TERMINAL_KINDS = frozenset({"error", "run_paused", "run_finished"})

event_adapter: TypeAdapter[Event] = TypeAdapter(Event)


_EXCEPT_TRIPLES = {"triples"}
# The splice below relies on it: the triples are the last member of an explain's JSON.
assert list(Explain.model_fields)[-1] == "triples"
_last_json: tuple[object, str] = (None, "")


def event_json(event: Event) -> str:
    """``event.model_dump_json()``, the event's native JSON.

    An explain event's triples are written from their rows (:meth:`Triples.to_json`). The
    last event written is remembered (by identity, so a stale answer is impossible): the
    service writes each event twice in a row, to the durable log and then to its streams.
    """
    global _last_json
    last, text = _last_json
    if last is event:
        return text
    if isinstance(event, Explain):
        head = event.model_dump_json(exclude=_EXCEPT_TRIPLES)
        text = head[:-1] + ',"triples":' + event.triples.to_json() + "}"
    else:
        text = event.model_dump_json()
    _last_json = (event, text)
    return text
