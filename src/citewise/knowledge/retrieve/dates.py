"""Date expressions in questions: found as text, resolved against "now" at request time.

``find_date_expression`` returns the expression as written ("last year", "since March
2024", "in Q2"); the Query caches that string, never absolute dates, so a cached analysis
of "last month" still means last month when it is reused next year.
``resolve_date_expression`` turns it into a half-open ``[start, end)`` datetime range in
``now``'s time zone (``end`` is exclusive; "open until now" ends at ``now``).

English expressions, plus ISO dates (``2024-03-05``) in any language:

* ``today``, ``yesterday``; ``this|last|past|previous week|month|year|quarter``
* ``last|past N days|weeks|months|years``
* ``in|during 2023``, ``in March``, ``in March 2024``, ``in Q2``, ``in Q2 2023``
* ``since|after|from|before|until X`` where X is a year, month (+ year), quarter or ISO date
* ``between X and Y``, ``from X to Y``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

__all__ = ["DateRange", "find_date_expression", "resolve_date_expression"]

DateRange = tuple[datetime, datetime]

_MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MONTH = rf"(?:{_MONTH_NAMES})\.?"
_YEAR = r"(?:1[89]\d\d|2\d\d\d)"
_QUARTER = r"q[1-4]"
_ISO = r"\d{4}-\d{2}-\d{2}"
# A point in time: ISO date | quarter [year] | month [year] | year
_POINT = rf"(?:{_ISO}|{_QUARTER}(?:\s+{_YEAR})?|{_MONTH}(?:\s+{_YEAR})?|{_YEAR})"
# The same without a bare year: "for 2000 users" is no date, "for March 2024" is.
_NAMED_POINT = rf"(?:{_ISO}|{_QUARTER}(?:\s+{_YEAR})?|{_MONTH}(?:\s+{_YEAR})?)"
_UNIT = r"(?:day|week|month|year|quarter)s?"

_PATTERNS = [
    rf"\bbetween\s+{_POINT}\s+and\s+{_POINT}\b",
    rf"\bfrom\s+{_POINT}\s+(?:to|until|till)\s+{_POINT}\b",
    rf"\b(?:since|after|from|starting|before|until|till|prior\s+to)\s+{_POINT}\b",
    rf"\b(?:in\s+the\s+)?(?:last|past|previous)\s+\d{{1,4}}\s+{_UNIT}\b",
    r"\b(?:this|last|past|previous|current)\s+(?:day|week|month|year|quarter)\b",
    r"\b(?:today|yesterday)\b",
    rf"\b(?:in|during)\s+{_POINT}\b",
    rf"\b(?:for|on|of)\s+{_NAMED_POINT}\b",
    rf"\b{_QUARTER}\s+{_YEAR}\b",
    rf"\b{_ISO}\b",
]
_FIND = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def find_date_expression(text: str) -> tuple[str, int, int] | None:
    """The first date expression in ``text``: ``(expression, start, end)``, or None.

    A bare month name ("may") only counts after a preposition, so "May I ask" is no date.
    """
    for m in _FIND.finditer(text):
        expr = m.group(0)
        if _span(expr, date(2000, 6, 15))[0] is not None:  # parses (any "now" would do)
            return expr, m.start(), m.end()
    return None


@dataclass(frozen=True, slots=True)
class _Span:
    start: date
    end: date  # exclusive


def _add_months(d: date, months: int) -> date:
    total = d.year * 12 + (d.month - 1) + months
    return date(total // 12, total % 12 + 1, 1)


def _point(text: str, today: date) -> _Span | None:
    """The calendar span a point expression names (a month/quarter without a year is the
    latest one that has started by ``today``)."""
    t = " ".join(text.lower().replace(".", " ").split())
    if re.fullmatch(_ISO, t):
        try:
            d = date.fromisoformat(t)
        except ValueError:
            return None
        return _Span(d, d + timedelta(days=1))
    m = re.fullmatch(rf"q([1-4])(?:\s+({_YEAR}))?", t)
    if m:
        q = int(m.group(1))
        year = int(m.group(2)) if m.group(2) else today.year
        start = date(year, 3 * q - 2, 1)
        if not m.group(2) and start > today:
            start = date(year - 1, 3 * q - 2, 1)
        return _Span(start, _add_months(start, 3))
    m = re.fullmatch(rf"({_MONTH_NAMES})(?:\s+({_YEAR}))?", t)
    if m and m.group(1) in _MONTHS:
        month = _MONTHS[m.group(1)]
        year = int(m.group(2)) if m.group(2) else today.year
        start = date(year, month, 1)
        if not m.group(2) and start > today:
            start = date(year - 1, month, 1)
        return _Span(start, _add_months(start, 1))
    if re.fullmatch(_YEAR, t):
        return _Span(date(int(t), 1, 1), date(int(t) + 1, 1, 1))
    return None


def _relative(unit: str, n: int, today: date, *, rolling: bool) -> _Span:
    """``last N units`` (rolling: today and the N-unit stretch before it) or the previous
    calendar unit."""
    unit = unit.rstrip("s")
    if rolling:
        end = today + timedelta(days=1)
        if unit == "day":
            return _Span(end - timedelta(days=n), end)
        if unit == "week":
            return _Span(end - timedelta(weeks=n), end)
        months = {"month": 1, "quarter": 3, "year": 12}[unit] * n
        first = _add_months(today.replace(day=1), -months)
        return _Span(first.replace(day=min(today.day, _month_len(first))), end)
    this = _calendar(unit, today)
    if unit == "day":
        return _Span(this.start - timedelta(days=1), this.start)
    if unit == "week":
        return _Span(this.start - timedelta(weeks=1), this.start)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    return _Span(_add_months(this.start, -months), this.start)


def _calendar(unit: str, today: date) -> _Span:
    """The current calendar unit containing ``today`` (weeks start on Monday)."""
    if unit == "day":
        return _Span(today, today + timedelta(days=1))
    if unit == "week":
        start = today - timedelta(days=today.weekday())
        return _Span(start, start + timedelta(weeks=1))
    if unit == "month":
        start = today.replace(day=1)
        return _Span(start, _add_months(start, 1))
    if unit == "quarter":
        start = date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
        return _Span(start, _add_months(start, 3))
    return _Span(date(today.year, 1, 1), date(today.year + 1, 1, 1))


def _month_len(first: date) -> int:
    return (_add_months(first, 1) - first).days


def _span(expr: str, today: date) -> tuple[_Span | None, bool]:
    """``(span, open_ended)``: open-ended spans ("since X") end at now, not at ``end``."""
    e = " ".join(expr.lower().split())
    if e == "today":
        return _calendar("day", today), False
    if e == "yesterday":
        return _relative("day", 1, today, rolling=False), False
    m = re.fullmatch(rf"(?:in the )?(?:last|past|previous) (\d+) ({_UNIT})", e)
    if m:
        n = int(m.group(1))
        return (_relative(m.group(2), n, today, rolling=True) if n > 0 else None), True
    m = re.fullmatch(r"(this|current|last|past|previous) (day|week|month|year|quarter)", e)
    if m:
        if m.group(1) in ("this", "current"):
            return _calendar(m.group(2), today), False
        return _relative(m.group(2), 1, today, rolling=False), False
    m = re.fullmatch(rf"(?:between|from) ({_POINT}) (?:and|to|until|till) ({_POINT})", e)
    if m:
        a, b = _point(m.group(1), today), _point(m.group(2), today)
        if a is None or b is None or b.end <= a.start:
            return None, False
        return _Span(a.start, b.end), False
    m = re.fullmatch(rf"(since|after|from|starting|before|until|till|prior to) ({_POINT})", e)
    if m:
        p = _point(m.group(2), today)
        if p is None:
            return None, False
        word = m.group(1)
        if word in ("since", "from", "starting"):
            return _Span(p.start, today + timedelta(days=1)), True
        if word == "after":
            return _Span(p.end, today + timedelta(days=1)), True
        if word in ("until", "till"):
            return _Span(date(1, 1, 1), p.end), False
        return _Span(date(1, 1, 1), p.start), False  # before / prior to
    m = re.fullmatch(rf"(?:in|during|for|on|of) ({_POINT})", e)
    if m:
        return _point(m.group(1), today), False
    return _point(e, today), False  # "Q2 2023", an ISO date


def resolve_date_expression(expression: str, now: datetime) -> DateRange | None:
    """``[start, end)`` for ``expression`` relative to ``now``, in ``now``'s time zone.

    "since …", "after …" and "last N days" end at ``now``; "before …" starts at the
    earliest datetime.
    """
    span, open_ended = _span(expression, now.date())
    if span is None:
        return None
    tz: tzinfo | None = now.tzinfo
    start = datetime(span.start.year, span.start.month, span.start.day, tzinfo=tz)
    end = now if open_ended else datetime(span.end.year, span.end.month, span.end.day, tzinfo=tz)
    if end <= start:
        return None
    return start, end
