"""The three error families, kept apart on purpose.

* :class:`ToolSignal` — raised *by a tool* to steer the loop (ask the model to retry,
  ask a human for approval). Never reaches the caller.
* :class:`RunFailure` — a run could not finish (model broke, budget spent, cancelled).
  Surfaces as the run's terminal ``error`` event with a stable ``code``.
* :class:`UsageError` — the caller asked for something invalid (empty question, unknown
  thread, unreadable file). Raised before anything is written.

Every error carries a stable, machine-readable ``code``; messages are for humans and may
change, codes may not.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ApprovalRequired",
    "BudgetExceeded",
    "CitewiseError",
    "ConfigError",
    "EmptyQuestion",
    "IngestError",
    "InvalidInput",
    "MaxStepsExceeded",
    "ModelError",
    "ModelRetry",
    "NotFound",
    "RunCancelled",
    "RunFailure",
    "ToolSignal",
    "Unavailable",
    "UsageError",
]


class CitewiseError(Exception):
    """Base of every error citewise raises on purpose."""

    code: str = "citewise_error"

    def __init__(
        self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details: dict[str, Any] = dict(details or {})

    def to_dict(self) -> dict[str, Any]:
        """The one error shape used everywhere: ``{"code", "message", "details"}``."""
        return {"code": self.code, "message": self.message, "details": self.details}


# -- signals a tool raises --------------------------------------------------------------


class ToolSignal(CitewiseError):
    """Raised inside a tool to steer the agent loop; never escapes a run."""

    code = "tool_signal"


class ModelRetry(ToolSignal):
    """The tool rejects its input; the message goes back to the model, which may retry."""

    code = "tool_retry"


class ApprovalRequired(ToolSignal):
    """The tool call must be approved by a human before it runs."""

    code = "approval_required"


# -- run failures -----------------------------------------------------------------------


class RunFailure(CitewiseError):
    """The run cannot go on; it ends with one terminal ``error`` event carrying ``code``."""

    code = "run_failed"


class MaxStepsExceeded(RunFailure):
    code = "max_steps_exceeded"


class ModelError(RunFailure):
    code = "model_error"


class BudgetExceeded(RunFailure):
    code = "budget_exceeded"


class RunCancelled(RunFailure):
    code = "run_cancelled"


class Unavailable(CitewiseError):
    """The service cannot do this now (a resource is busy); the same request may succeed
    later. Nothing was changed."""

    code = "unavailable"


# -- caller misuse ----------------------------------------------------------------------


class UsageError(CitewiseError):
    """The caller's request is invalid; nothing was changed."""

    code = "invalid_request"


class InvalidInput(UsageError):
    code = "invalid_input"


class EmptyQuestion(UsageError):
    code = "empty_question"


class NotFound(UsageError):
    code = "not_found"


class ConfigError(UsageError):
    code = "config_error"


class IngestError(UsageError):
    """One file could not be ingested (codes: ``path_not_found``, ``binary_file``, …)."""

    code = "ingest_error"
