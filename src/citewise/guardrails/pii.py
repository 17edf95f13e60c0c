"""Personal data in the answer: emails, phone numbers, payment cards, IBANs.

Detection is conservative where numbers are ambiguous: a payment card must pass the Luhn
check (13–19 digits), an IBAN the ISO 13616 mod-97 check, and a phone number needs an
international ``+`` prefix or the grouping of a written phone number (10–13 digits in
groups, or an area code in parentheses) — so dates, amounts and ids stay untouched.

Modes: ``warn`` (the answer streams as usual; a warning lists what was found, by kind and
offset — never the values), ``redact`` (the answer is held back, each value is replaced
by ``[REDACTED:KIND]``, claim offsets are shifted to match) and ``block``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citewise.guardrails.base import Guardrail

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.answer import Answer
    from citewise.events import Event

__all__ = ["KINDS", "PIIGuardrail", "PIIMatch", "create", "find_pii", "iban_valid",
           "luhn_valid", "redact"]

KINDS = ("email", "phone", "card", "iban")

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_PHONE = re.compile(
    r"(?<![\w+.])(?:\+\d{7,14}\d|(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{2,5}"
    r"(?:[ .-]\d{2,8}){1,5})(?![\w]|[.-]\d)")
_DATE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}")


@dataclass(frozen=True, slots=True)
class PIIMatch:
    """One value found: its kind and its span in the text (code points, end exclusive)."""

    kind: str
    start: int
    end: int


def luhn_valid(digits: str) -> bool:
    """The Luhn (mod 10) check of a payment card number."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """The ISO 13616 mod-97 check (spaces ignored)."""
    s = iban.replace(" ", "").upper()
    if not (15 <= len(s) <= 34) or not s.isalnum():
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _phone_ok(s: str) -> bool:
    digits = sum(c.isdigit() for c in s)
    if _DATE.fullmatch(s):
        return False
    if s.startswith("+"):
        return 8 <= digits <= 15
    return 10 <= digits <= 13 or ("(" in s and 7 <= digits <= 13)


def find_pii(text: str, kinds: Iterable[str] = KINDS) -> list[PIIMatch]:
    """Non-overlapping matches in text order (IBANs and cards win over phone numbers)."""
    wanted = set(kinds)
    found: list[PIIMatch] = []

    def add(kind: str, rx: re.Pattern[str], ok: Callable[[str], bool]) -> None:
        if kind not in wanted:
            return
        for m in rx.finditer(text):
            a, b = m.span()
            if ok(m.group(0)) and not any(a < f.end and f.start < b for f in found):
                found.append(PIIMatch(kind, a, b))

    add("email", _EMAIL, lambda s: True)
    add("iban", _IBAN, iban_valid)
    add("card", _CARD, lambda s: luhn_valid(re.sub(r"[ -]", "", s)))
    add("phone", _PHONE, _phone_ok)
    return sorted(found, key=lambda f: f.start)


def redact(text: str, matches: Sequence[PIIMatch]) -> tuple[str, list[tuple[int, int, int]]]:
    """``text`` with each match replaced by ``[REDACTED:KIND]``; also the edits made, as
    ``(start, end, new_length)`` in original offsets, for shifting other offsets."""
    out: list[str] = []
    edits: list[tuple[int, int, int]] = []
    pos = 0
    for m in sorted(matches, key=lambda m: m.start):
        label = f"[REDACTED:{m.kind.upper()}]"
        out += [text[pos:m.start], label]
        edits.append((m.start, m.end, len(label)))
        pos = m.end
    out.append(text[pos:])
    return "".join(out), edits


def shift(pos: int, edits: Sequence[tuple[int, int, int]]) -> int:
    """Where original offset ``pos`` lands after ``edits`` (inside an edit: its end)."""
    delta = 0
    for a, b, n in edits:
        if pos >= b:
            delta += n - (b - a)
        elif pos > a:
            return a + delta + n
    return pos + delta


class PIIGuardrail(Guardrail):
    """Checks the answer (``on_answer``), its plain text and its structured value."""

    name = "pii"
    modes = ("warn", "redact", "block")

    def __init__(self, mode: str = "warn", *, kinds: Sequence[str] = KINDS) -> None:
        super().__init__(mode)
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown:
            from citewise.errors import ConfigError

            raise ConfigError(f"unknown PII kind(s): {', '.join(unknown)}",
                              code="invalid_guardrail_option", details={"kinds": unknown})
        self.kinds = tuple(kinds)

    @property
    def buffers_answer(self) -> bool:
        return self.mode != "warn"

    @property
    def scrub(self) -> Callable[[str], str] | None:
        """The model's reasoning is model output like the answer: in ``redact`` and
        ``block`` mode it is redacted before it is streamed, traced or stored (a block is
        for an answer that would carry the values; a thought is redacted, not fatal)."""
        if self.mode == "warn":
            return None
        return lambda text: redact(text, find_pii(text, self.kinds))[0]

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        found = find_pii(answer.text, self.kinds)
        structured = _strings(answer.structured)
        in_structured = [m for s in structured for m in find_pii(s, self.kinds)]
        if not found and not in_structured:
            return []
        counts: dict[str, int] = {}
        for m in [*found, *in_structured]:
            counts[m.kind] = counts.get(m.kind, 0) + 1
        spans = [[m.start, m.end, m.kind] for m in found]
        what = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        if self.mode == "warn":
            return [self.flag(state, emit, "pii_detected",
                              f"the answer contains personal data ({what})",
                              kinds=counts, spans=spans)]
        # Also out of the run state: the model's message is stored with the run.
        self._scrub_transcript(state)
        if self.mode == "block":  # raises; the held-back answer never goes out
            self.flag(state, emit, "pii_detected", f"the answer contains personal data ({what})",
                      kinds=counts, spans=spans)
        self._redact(answer, found)
        return [self.flag(state, emit, "pii_redacted",
                          f"personal data was redacted from the answer ({what})",
                          kinds=counts, spans=spans)]

    def _redact(self, answer: Answer, found: list[PIIMatch]) -> None:
        from citewise.grounding.assemble import plain_text

        answer.text, edits = redact(answer.text, found)
        answer.text_plain = plain_text(answer.text)
        for c in answer.claims:
            if c.start_char is not None:
                c.start_char = shift(c.start_char, edits)
            if c.end_char is not None:
                c.end_char = shift(c.end_char, edits)
            c.text = redact(c.text, find_pii(c.text, self.kinds))[0]
        answer.structured = _map_strings(
            answer.structured, lambda s: redact(s, find_pii(s, self.kinds))[0])

    def _scrub_transcript(self, state: RunState) -> None:
        """The values out of what the run keeps and has not sent yet: the model's message
        (stored with the run) and the issues (verification quotes claims in them)."""
        from citewise.models.base import AssistantMessage

        def clean(s: str) -> str:
            return redact(s, find_pii(s, self.kinds))[0]

        for m in reversed(state.messages):
            if isinstance(m, AssistantMessage):
                m.content = clean(m.content)
                break
        for issue in state.issues:
            issue.message = clean(issue.message)
            issue.details = _map_strings(issue.details, clean)


def _strings(value: Any) -> list[str]:
    out: list[str] = []

    def collect(s: str) -> str:
        out.append(s)
        return s

    _map_strings(value, collect)
    return out


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    return value


def create(mode: str = "warn", **options: Any) -> PIIGuardrail:
    """Entry point ``pii``."""
    return PIIGuardrail(mode, **options)
