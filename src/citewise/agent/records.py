"""What a step leaves in the run's state beside its messages: trace entries and usage."""

from __future__ import annotations

from typing import Any, Literal

from citewise._construct import trusted
from citewise.agent.state import RunState
from citewise.agent.tools import ToolResult
from citewise.answer import StepUsage, TraceEntry
from citewise.models.pricing import PricingTable, apply_cost

__all__ = ["account", "summary", "trace_entry"]

_TOKENS = ("input_tokens", "output_tokens", "total_tokens")


def trace_entry(step: int, kind: Literal["thought", "tool", "answer"], *,
                thought: str | None = None, tool: str | None = None,
                tool_input: dict[str, Any] | None = None, observation: str | None = None,
                duration_ms: float = 0.0, input_tokens: int = 0, output_tokens: int = 0,
                ) -> TraceEntry:
    """One entry of the reasoning trace (seed 001's ``reasoning_trace``)."""
    return trusted(TraceEntry, {
        "step": step, "type": kind, "thought": thought, "tool": tool, "tool_input": tool_input,
        "observation": observation, "duration_ms": duration_ms, "input_tokens": input_tokens,
        "output_tokens": output_tokens})


def account(state: RunState, model: str, in_tok: int, out_tok: int,
            prices: PricingTable) -> None:
    """Add a model turn's tokens, and their cost when ``prices`` know the model."""
    usage = state.usage
    step = trusted(StepUsage, {"step": state.step, "model": model, "input_tokens": in_tok,
                               "output_tokens": out_tok, "cost": None})
    usage.steps.append(step)
    apply_cost(usage, step, table=prices)
    if in_tok or out_tok:
        # Straight into the fields, as RunState.next_seq: pydantic's __setattr__ (Usage has
        # no validate_assignment) does the same, three times per step, more slowly.
        fields = usage.__dict__
        fields["input_tokens"] += in_tok
        fields["output_tokens"] += out_tok
        fields["total_tokens"] += in_tok + out_tok
        usage.__pydantic_fields_set__.update(_TOKENS)


def summary(result: ToolResult, text: str) -> str:
    """A short trace summary of an observation (search results are counted, not quoted)."""
    data = result.data
    if isinstance(data, dict) and isinstance(data.get("results"), list) and data["results"]:
        hits = data["results"]  # none found: the text says why ("… matched the filters …")
        docs = {r.get("document_index") for r in hits if isinstance(r, dict)}
        # What the search says before its passages ("No document contains: bcrypt") stays.
        said = " ".join(text.split("<untrusted>", 1)[0].split()) if "<untrusted>" in text else ""
        return f"{said[:200]} {len(hits)} passage(s) from {len(docs)} document(s)".lstrip()
    return text.removeprefix("<untrusted>\n")[:200]
