"""What a tool sees of the run it is called in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citewise.answer import Query
    from citewise.grounding.ledger import EvidenceLedger

__all__ = ["RunContext"]


@dataclass
class RunContext:
    """Passed as the first argument to tools that declare it (``ctx: RunContext``).

    ``deps`` is whatever the host gave the agent (a knowledge base, an HTTP client…);
    ``ledger`` records every retrieved document so citation markers can be resolved;
    ``query`` is the analysis of the run's question (its inline filters, keywords…), if any.
    """

    run_id: str
    thread_id: str
    ledger: EvidenceLedger
    deps: Any = None
    step: int = 0
    tenant: str = "default"
    query: Query | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: Words a follow-up question carries from its thread's earlier turns: each search
    #: that has none of them gets them appended (:mod:`citewise.agent.followups`).
    carried_terms: tuple[str, ...] = ()
