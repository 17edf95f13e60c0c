"""Prompt-injection patterns in the user's question and in what tools bring back.

Retrieved passages and tool results are data, never instructions: the system prompt says
so and :func:`~citewise.agent.prompts.wrap_untrusted` fences them. This guardrail adds the
check: text that *tries* to instruct the model (override its instructions, change its role,
extract its prompt, escape the ``<untrusted>`` fence, smuggle chat-template markup) is
reported where it was found — the question, or the tool call and the document it came from.

The patterns are phrase heuristics: they catch the common, literal attacks and say which
pattern matched; they are not a proof of safety. Add your own with ``extra_patterns``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citewise.guardrails.base import Guardrail

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.agent.tools import ToolResult
    from citewise.events import Event
    from citewise.models.base import ToolCall

__all__ = ["PATTERNS", "InjectionFinding", "PromptInjectionGuardrail", "create", "find_injections"]

_GAP = r"[^.\n]{0,40}?"
#: Pattern id → regex (case-insensitive). Ids are stable: they appear in ``details``.
PATTERNS: dict[str, str] = {
    "ignore_instructions":
        rf"\b(?:ignore|disregard|forget|override|bypass)\b{_GAP}\b(?:all|any|the|your|previous|"
        rf"prior|above|earlier|preceding|system|developer)\b{_GAP}"
        r"\b(?:instructions?|prompts?|rules|directions|guidelines|guardrails)\b",
    "new_instructions": r"\b(?:new|updated|real|actual|override)\s+(?:system\s+)?instructions?\s*:",
    "role_override":
        r"\byou\s+are\s+(?:now|no\s+longer)\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must)\b"
        r"|\bpretend\s+(?:to\s+be|you\s+are)\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered"
        r"|jailbroken|different)\b",
    "prompt_exfiltration":
        rf"\b(?:reveal|print|show|repeat|output|leak|disclose)\b{_GAP}\b(?:system|hidden|initial|"
        r"original|developer)\s+(?:prompt|instructions|message)\b",
    "data_exfiltration":
        rf"\b(?:send|forward|email|post|upload|exfiltrate)\b{_GAP}\b(?:conversation|chat\s+history"
        rf"|credentials|passwords?|api\s+keys?|secrets?|tokens?)\b{_GAP}\bto\b",
    "chat_markup": r"<\|(?:im_start|im_end|system|endoftext|eot_id)\|>|\[/?INST\]|<<\s*/?SYS\s*>>"
                   r"|^\s*#{2,}\s*(?:system|instruction)s?\b",
    "fence_escape": r"</\s*untrusted\s*>|<\s*/?\s*(?:system|instructions)\s*>",
    "jailbreak": r"\bdo\s+anything\s+now\b|\bDAN\s+mode\b|\bdeveloper\s+mode\s+enabled\b",
}
_OPEN, _CLOSE = "<untrusted>\n", "\n</untrusted>"


@dataclass(frozen=True, slots=True)
class InjectionFinding:
    """One pattern matched in one text."""

    pattern: str
    start: int
    end: int
    excerpt: str


def compile_patterns(extra: Mapping[str, str] | None = None) -> dict[str, re.Pattern[str]]:
    table = {**PATTERNS, **(extra or {})}
    return {k: re.compile(v, re.IGNORECASE | re.MULTILINE) for k, v in table.items()}


_DEFAULT = compile_patterns()


def find_injections(text: str, patterns: Mapping[str, re.Pattern[str]] | None = None
                    ) -> list[InjectionFinding]:
    """Every pattern that matches ``text`` (first match each), in text order.

    The fence ``wrap_untrusted`` puts around retrieved text is not itself a finding; a
    closing tag *inside* it is.
    """
    if text.startswith(_OPEN) and text.endswith(_CLOSE):
        text = text[len(_OPEN):-len(_CLOSE)]
    out: list[InjectionFinding] = []
    for pid, rx in (patterns or _DEFAULT).items():
        m = rx.search(text)
        if m is not None:
            a, b = m.span()
            lo, hi = max(0, a - 30), min(len(text), b + 30)
            excerpt = " ".join(text[lo:hi].split())
            out.append(InjectionFinding(pid, a, b, excerpt[:160]))
    return sorted(out, key=lambda f: f.start)


class PromptInjectionGuardrail(Guardrail):
    """Checks the question (``on_start``) and every tool result (``on_tool_result``)."""

    name = "prompt_injection"

    def __init__(self, mode: str = "warn", *, check_question: bool = True,
                 check_tools: bool = True, extra_patterns: Mapping[str, str] | None = None
                 ) -> None:
        super().__init__(mode)
        self.check_question = check_question
        self.check_tools = check_tools
        self.patterns = compile_patterns(extra_patterns) if extra_patterns else _DEFAULT

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        # On resume the question was checked when the run started.
        if not self.check_question or state.pending_calls or state.step > 0:
            return []
        found = find_injections(state.question, self.patterns)
        if not found:
            return []
        return [self.flag(state, emit, "prompt_injection",
                          "the question contains prompt-injection patterns",
                          where="question", **_summary(found))]

    def on_tool_result(self, state: RunState, call: ToolCall, result: ToolResult,
                       duration_ms: float, emit: Emitter) -> Sequence[Event]:
        if not self.check_tools:
            return []
        events: list[Event] = []
        for origin, text in _pieces(result):
            found = find_injections(text, self.patterns)
            if found:
                where = origin.get("source") or call.name
                events.append(self.flag(
                    state, emit, "prompt_injection",
                    f"the result of {call.name} ({where}) contains prompt-injection patterns; "
                    "it is treated as data, not as instructions",
                    where="tool_result", tool=call.name, call_id=call.id, **origin,
                    **_summary(found)))
        return events


def _summary(found: list[InjectionFinding]) -> dict[str, Any]:
    return {"patterns": [f.pattern for f in found], "excerpt": found[0].excerpt}


def _pieces(result: ToolResult) -> Iterator[tuple[dict[str, Any], str]]:
    """The result per retrieved passage when it lists them (to name the document), else
    the whole text."""
    data = result.data
    rows = data.get("results") if isinstance(data, dict) else None
    if isinstance(rows, list) and rows and all(isinstance(r, dict) and "text" in r for r in rows):
        for r in rows:
            origin = {k: r[k] for k in ("document_index", "source", "chunk_id") if k in r}
            yield origin, str(r["text"])
        return
    yield {}, result.text


def create(mode: str = "warn", **options: Any) -> PromptInjectionGuardrail:
    """Entry point ``prompt_injection``."""
    return PromptInjectionGuardrail(mode, **options)
