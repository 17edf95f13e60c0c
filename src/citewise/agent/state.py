"""Everything a run needs to continue: serializable, so a paused run survives a restart."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citewise.answer import Issue, Query, QueryDetails, ToolCallRecord, TraceEntry, Usage
from citewise.events import Interrupt, now
from citewise.grounding.ledger import EvidenceLedger
from citewise.models.base import Message, ToolCall

__all__ = ["Decision", "RunSettings", "RunState", "check_question_text"]


def check_question_text(question: str) -> None:
    """Refuse a question holding U+0000: no backend can keep it in every column (PostgreSQL
    stores no NUL in text or JSON), so it is refused before a run starts, on every one."""
    if "\x00" in question:
        from citewise.errors import InvalidInput

        raise InvalidInput("the question contains the NUL character (U+0000)",
                           code="unsupported_character")


class Decision(BaseModel):
    """A human's answer to one interrupt."""

    model_config = ConfigDict(extra="forbid")
    interrupt_id: str = Field(description="The interrupt this decides.")
    action: Literal["approve", "reject", "edit", "result"] = Field(description="What to do.")
    message: str | None = Field(default=None, description="For reject: what the model is told.")
    input: dict[str, Any] | None = Field(default=None, description="For edit: the new arguments.")
    result: Any = Field(default=None, description="For result: the externally executed output.")


class RunSettings(BaseModel):
    """Per-run limits and switches."""

    model_config = ConfigDict(extra="forbid")
    max_steps: int = Field(default=8, ge=1, description="Model calls before the run fails.")
    tool_timeout: float | None = Field(
        default=None, gt=0, description="Seconds per tool call; None = each tool's own timeout."
    )
    strict: bool = Field(default=False, description="Remove unsupported sentences from the answer.")
    debug: bool = Field(default=False, description="Keep the exact model transcript.")
    output_schema: dict[str, Any] | None = Field(default=None, description="JSON Schema of answer.")
    max_repairs: int = Field(default=2, ge=0, description="Re-prompts for schema-invalid JSON.")
    interrupt_ttl_s: float = Field(default=86400.0, gt=0, description="Interrupt lifetime.")
    max_tokens: int | None = Field(default=None, ge=1, description="Token budget of the run.")
    max_cost: float | None = Field(default=None, ge=0, description="Cost budget of the run.")
    max_seconds: float | None = Field(default=None, gt=0, description="Wall-time budget.")
    buffer_answer: bool = Field(
        default=False,
        description="Hold the answer back and send it once, after verification and the "
        "guardrails (a redacting guardrail turns this on by itself).",
    )


class RunState(BaseModel):
    """The run's memory between steps (and between a pause and its resume)."""

    run_id: str
    thread_id: str
    question: str
    model: str = ""
    tenant: str = "default"
    status: Literal["running", "paused", "completed", "failed", "cancelled"] = "running"
    messages: list[Message] = Field(default_factory=list)
    step: int = 0
    seq: int = 0
    ledger: EvidenceLedger = Field(default_factory=EvidenceLedger.empty)
    usage: Usage = Field(default_factory=Usage)
    trace: list[TraceEntry] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)
    query: Query | None = None
    query_details: QueryDetails | None = None
    pending_calls: list[ToolCall] = Field(default_factory=list)
    interrupts: list[Interrupt] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    resolved_interrupts: list[str] = Field(
        default_factory=list, description="Ids of every interrupt already answered (a second "
        "resume with them is refused as `run_already_resumed`).")
    debug_requests: list[dict[str, Any]] = Field(default_factory=list)
    started_at: datetime = Field(default_factory=now)

    def next_seq(self) -> int:
        """The next event's ``seq`` (counted here, so a resumed run continues it)."""
        # Straight into the field: this runs once per event, and pydantic's __setattr__
        # (no validate_assignment here) would only do the same more slowly.
        seq: int = self.__dict__["seq"] + 1
        self.__dict__["seq"] = seq
        self.__pydantic_fields_set__.add("seq")
        return seq

    def next_step(self) -> int:
        """Moves the run to its next step (straight into the field, as :meth:`next_seq`)."""
        step: int = self.__dict__["step"] + 1
        self.__dict__["step"] = step
        self.__pydantic_fields_set__.add("step")
        return step
