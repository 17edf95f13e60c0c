"""Grounding as a guardrail: an answer whose claims its citations do not support.

The loop already streams one ``warning`` per claim as the answer is verified
(``unsupported_claim``, ``uncited_claim``, ``citation_mismatch``…, all in ``Answer.issues``).
This guardrail adds the per-agent policy on top: in ``warn`` mode one summary warning
``ungrounded_answer`` (details: ``guardrail: grounding`` and the claim indices), in ``block``
mode the run fails with ``guardrail_blocked`` — and no ungrounded text goes out, because
in ``block`` mode the answer is held back until this check ran. Claims that strict mode
already removed are not counted; nor is the closing sentence after an ``ends_run`` tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from citewise.guardrails.base import Guardrail

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.answer import Answer
    from citewise.events import Event

__all__ = ["GroundingGuardrail", "create"]


class GroundingGuardrail(Guardrail):
    """Flags answers with more than ``max_unsupported`` unsupported (or uncited) claims."""

    name = "grounding"

    def __init__(self, mode: str = "warn", *, include_uncited: bool = False,
                 max_unsupported: int = 0) -> None:
        super().__init__(mode)
        self.include_uncited = include_uncited
        self.max_unsupported = max_unsupported

    @property
    def buffers_answer(self) -> bool:
        return self.mode == "block"

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        if answer.ended_by_tool:
            return []
        statuses = {"unsupported", "uncited"} if self.include_uncited else {"unsupported"}
        bad = [c for c in answer.claims if c.status in statuses and not c.removed]
        if len(bad) <= self.max_unsupported:
            return []
        return [self.flag(
            state, emit, "ungrounded_answer",
            f"{len(bad)} of {len(answer.claims)} claim(s) of the answer are not supported by "
            "the passages they cite", claim_indices=[c.index for c in bad],
            statuses=sorted({c.status for c in bad}))]


def create(mode: str = "warn", **options: Any) -> GroundingGuardrail:
    """Entry point ``grounding``."""
    return GroundingGuardrail(mode, **options)
