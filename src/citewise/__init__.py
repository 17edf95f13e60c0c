"""citewise — a grounded agent answer service.

A question goes in; a ReAct agent searches your knowledge base, every step streams out,
and the answer comes back with citations that point at the exact characters of its
sources, checked by citewise itself.

The top-level names are imported lazily so that ``import citewise`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "citewise.agent.runner",
    "Answer": "citewise.answer",
    "Decision": "citewise.agent.state",
    "Event": "citewise.events",
    "KnowledgeBase": "citewise.knowledge.base",
    "RunContext": "citewise.agent.context",
    "RunSettings": "citewise.agent.state",
    "ScriptedModel": "citewise.models.scripted",
    "ToolResult": "citewise.agent.tools",
    "tool": "citewise.agent.tools",
}

__all__ = [
    "Agent",
    "Answer",
    "Decision",
    "Event",
    "KnowledgeBase",
    "RunContext",
    "RunSettings",
    "ScriptedModel",
    "ToolResult",
    "__version__",
    "tool",
]

if TYPE_CHECKING:
    from citewise.agent.context import RunContext
    from citewise.agent.runner import Agent
    from citewise.agent.state import Decision, RunSettings
    from citewise.agent.tools import ToolResult, tool
    from citewise.answer import Answer
    from citewise.events import Event
    from citewise.knowledge.base import KnowledgeBase
    from citewise.models.scripted import ScriptedModel


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'citewise' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
