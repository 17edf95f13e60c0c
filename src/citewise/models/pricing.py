"""What a model call costs: a pricing table per model, per million input/output tokens.

The built-in table holds a few public list prices (standard tier, no caching or batch
discounts) with the date they were taken; prices change, so override them with a JSON or
TOML file — ``CITEWISE_PRICING_FILE=/path/prices.toml`` or :func:`load_pricing`::

    as_of = "2026-05-01"
    currency = "USD"
    [models."openai:gpt-4.1-mini"]
    input = 0.40      # per 1M input tokens
    output = 1.60     # per 1M output tokens
    [models."openai-compat:*"]   # glob patterns are allowed
    input = 0
    output = 0

Lookup of a model name such as ``openai:gpt-4.1-mini-2025-04-14``: the exact name, then
glob patterns, then the name without its provider prefix(es) (``react:``, ``openai:``,
``vendor/``), then without a trailing snapshot date. Unknown models cost ``None`` — never
a guessed number.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.answer import StepUsage, Usage
from citewise.errors import ConfigError

__all__ = [
    "BUILTIN_PRICES",
    "ENV_VAR",
    "Price",
    "PricingTable",
    "apply_cost",
    "default_table",
    "load_pricing",
    "price",
]

ENV_VAR = "CITEWISE_PRICING_FILE"
_DATE = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True, slots=True)
class Price:
    """List price in ``currency`` per 1,000,000 tokens."""

    input_per_m: float
    output_per_m: float


class PricingTable:
    """Prices by model name (exact names or glob patterns), with provenance."""

    def __init__(self, prices: Mapping[str, Price], *, as_of: str | None = None,
                 source: str | None = None, currency: str = "USD") -> None:
        self.prices = dict(prices)
        # Per-model-name answers: the glob scan costs ~20 µs and runs every step of every run.
        self._memo: dict[str, Price | None] = {}
        self.as_of = as_of
        self.source = source
        self.currency = currency

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str | None = None) -> PricingTable:
        models = data.get("models")
        if not isinstance(models, Mapping):
            raise ConfigError("a pricing file needs a 'models' table", code="invalid_pricing")
        prices: dict[str, Price] = {}
        for name, entry in models.items():
            try:
                prices[str(name)] = Price(float(entry["input"]), float(entry["output"]))
            except (KeyError, TypeError, ValueError):
                raise ConfigError(
                    f"pricing for {name!r} needs numeric 'input' and 'output' (per 1M tokens)",
                    code="invalid_pricing", details={"model": name}) from None
        return cls(prices, as_of=data.get("as_of"), source=data.get("source", source),
                   currency=str(data.get("currency", "USD")))

    def merged(self, override: PricingTable) -> PricingTable:
        """This table with ``override``'s entries on top."""
        return PricingTable({**self.prices, **override.prices},
                            as_of=override.as_of or self.as_of,
                            source=override.source or self.source,
                            currency=override.currency)

    def _candidates(self, name: str) -> Iterator[str]:
        yield name
        bare = name
        while ":" in bare and not bare.startswith(("http://", "https://")):
            bare = bare.split(":", 1)[1]
            yield bare
        if "#" in bare:  # openai-compat:URL#MODEL written in full
            bare = bare.rsplit("#", 1)[1]
            yield bare
        if "/" in bare:
            bare = bare.rsplit("/", 1)[1]
            yield bare
        undated = _DATE.sub("", bare)
        if undated != bare:
            yield undated

    def lookup(self, model: str) -> Price | None:
        if model not in self._memo:
            self._memo[model] = self._lookup(model)
        return self._memo[model]

    def _lookup(self, model: str) -> Price | None:
        for candidate in self._candidates(model):
            if candidate in self.prices:
                return self.prices[candidate]
            for pattern, p in self.prices.items():
                if any(c in pattern for c in "*?[") and fnmatch.fnmatchcase(candidate, pattern):
                    return p
        return None

    def price(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        p = self.lookup(model)
        if p is None:
            return None
        return round((input_tokens * p.input_per_m + output_tokens * p.output_per_m) / 1e6, 10)


# OpenAI standard-tier list prices (USD per 1M tokens), taken 2026-04-02 from
# https://openai.com/api/pricing as mirrored by public price trackers. Local in-process
# models cost nothing per token.
BUILTIN_PRICES = PricingTable(
    {
        "gpt-4.1": Price(2.00, 8.00),
        "gpt-4.1-mini": Price(0.40, 1.60),
        "gpt-4.1-nano": Price(0.10, 0.40),
        "gpt-4o": Price(2.50, 10.00),
        "gpt-4o-mini": Price(0.15, 0.60),
        "o4-mini": Price(1.10, 4.40),
        "gpt-5": Price(1.25, 10.00),
        "gpt-5-mini": Price(0.25, 2.00),
        "gpt-5-nano": Price(0.05, 0.40),
        "local:*": Price(0.0, 0.0),
        "extractive": Price(0.0, 0.0),
    },
    as_of="2026-04-02",
    source="https://openai.com/api/pricing (standard tier)",
)

_cache: dict[tuple[str, float], PricingTable] = {}


def load_pricing(path: str | os.PathLike[str]) -> PricingTable:
    """Read a JSON or TOML pricing file (see the module docstring for the format)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read pricing file {p}: {exc.strerror}",
                          code="invalid_pricing", details={"path": str(p)}) from None
    try:
        data = tomllib.loads(raw.decode()) if p.suffix == ".toml" else json.loads(raw)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"pricing file {p} is not valid {p.suffix[1:] or 'JSON'}: {exc}",
                          code="invalid_pricing", details={"path": str(p)}) from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"pricing file {p} must hold an object", code="invalid_pricing")
    return PricingTable.from_mapping(data, source=str(p))


def default_table() -> PricingTable:
    """The built-in prices, overridden by ``$CITEWISE_PRICING_FILE`` when set (re-read
    when the file changes)."""
    path = os.environ.get(ENV_VAR)
    if not path:
        return BUILTIN_PRICES
    try:
        mtime = Path(path).stat().st_mtime
    except OSError:
        mtime = -1.0
    key = (path, mtime)
    if key not in _cache:
        _cache.clear()
        _cache[key] = BUILTIN_PRICES.merged(load_pricing(path))
    return _cache[key]


def price(model_name: str, input_tokens: int, output_tokens: int, *,
          table: PricingTable | None = None) -> float | None:
    """Cost of one call in the table's currency, or None when the model is not priced."""
    return (table or default_table()).price(model_name, input_tokens, output_tokens)


def apply_cost(usage: Usage, step: StepUsage, *, table: PricingTable | None = None) -> None:
    """Price ``step`` (already appended to ``usage.steps``) and add it to ``usage.cost``.

    ``usage.cost`` stays None until some step is priced; then it is the sum over the
    priced steps (an unpriced step adds nothing — see each step's ``cost``).
    """
    t = table or default_table()
    cost = t.price(step.model, step.input_tokens, step.output_tokens)
    if cost is not None:
        step.cost = cost
        usage.cost = round((usage.cost or 0.0) + cost, 10)
        if usage.currency != t.currency:
            usage.currency = t.currency
