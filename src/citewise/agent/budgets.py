"""The limits a run checks before each model turn: cancel, steps, tokens, cost, time."""

from __future__ import annotations

import asyncio
import time

from citewise.agent.state import RunSettings, RunState
from citewise.errors import BudgetExceeded, MaxStepsExceeded, RunCancelled

__all__ = ["check_budgets"]


def check_budgets(state: RunState, settings: RunSettings, cancel: asyncio.Event | None,
                  started: float, closing: bool = False) -> None:
    """Raise the run failure of the first limit reached (``closing``: the model's last
    turn after a tool ended the run, which the step limit does not stop)."""
    if cancel is not None and cancel.is_set():
        raise RunCancelled("the run was cancelled")
    if state.step >= settings.max_steps and not closing:  # a tool already ended the run
        raise MaxStepsExceeded(
            f"the run reached its limit of {settings.max_steps} steps without an answer",
            details={"max_steps": settings.max_steps},
        )
    if settings.max_tokens is not None and state.usage.total_tokens >= settings.max_tokens:
        raise BudgetExceeded(f"token budget of {settings.max_tokens} spent",
                             code="token_budget_exceeded",
                             details={"max_tokens": settings.max_tokens})
    if settings.max_cost is not None and (state.usage.cost or 0.0) >= settings.max_cost:
        raise BudgetExceeded(f"cost budget of {settings.max_cost} spent",
                             code="cost_budget_exceeded", details={"max_cost": settings.max_cost})
    if settings.max_seconds is not None and time.perf_counter() - started >= settings.max_seconds:
        raise BudgetExceeded(f"time budget of {settings.max_seconds}s spent",
                             code="time_budget_exceeded",
                             details={"max_seconds": settings.max_seconds})
