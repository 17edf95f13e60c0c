"""Pricing: the built-in table, name normalisation, override files, per-step cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.answer import StepUsage, Usage
from citewise.errors import ConfigError
from citewise.models.pricing import (
    BUILTIN_PRICES,
    Price,
    PricingTable,
    apply_cost,
    default_table,
    load_pricing,
    price,
)


@pytest.mark.parametrize("name", [
    "gpt-4.1-mini", "openai:gpt-4.1-mini", "openai:gpt-4.1-mini-2025-04-14",
    "react:openai:gpt-4.1-mini", "openai-compat:openai/gpt-4.1-mini",
    "openai-compat:http://proxy:4000/v1#gpt-4.1-mini",
])
def test_names_normalise_to_the_list_price(name: str) -> None:
    # 1M input at 0.40 + 1M output at 1.60
    assert price(name, 1_000_000, 1_000_000, table=BUILTIN_PRICES) == pytest.approx(2.0)


def test_unknown_models_are_unpriced_and_local_is_free() -> None:
    assert price("openai-compat:qwen2.5", 10, 10, table=BUILTIN_PRICES) is None
    assert price("scripted", 10, 10, table=BUILTIN_PRICES) is None
    assert price("local:smollm2", 10_000, 10_000, table=BUILTIN_PRICES) == 0.0
    assert BUILTIN_PRICES.as_of and BUILTIN_PRICES.source


def test_apply_cost_per_step_and_total() -> None:
    table = PricingTable({"m": Price(1.0, 2.0)})
    usage = Usage()
    for step, model in enumerate(["m", "unpriced", "m"]):
        s = StepUsage(step=step, model=model, input_tokens=1000, output_tokens=500)
        usage.steps.append(s)
        apply_cost(usage, s, table=table)
    assert [s.cost for s in usage.steps] == [0.002, None, 0.002]
    assert usage.cost == pytest.approx(0.004)
    empty = Usage()
    s = StepUsage(step=0, model="unpriced", input_tokens=1)
    apply_cost(empty, s, table=table)
    assert empty.cost is None


def test_override_file_toml_and_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "prices.toml"
    toml.write_text('as_of = "2030-01-01"\ncurrency = "EUR"\n'
                    '[models."gpt-4.1-mini"]\ninput = 1\noutput = 1\n'
                    '[models."openai-compat:*"]\ninput = 0\noutput = 0\n')
    monkeypatch.setenv("CITEWISE_PRICING_FILE", str(toml))
    table = default_table()
    assert table.as_of == "2030-01-01" and table.currency == "EUR"
    assert price("openai:gpt-4.1-mini", 1_000_000, 0) == pytest.approx(1.0)
    assert price("openai-compat:qwen2.5", 5, 5) == 0.0
    assert price("gpt-4o", 1_000_000, 0) == pytest.approx(2.5)  # built-ins still there
    js = tmp_path / "prices.json"
    js.write_text(json.dumps({"models": {"x": {"input": 3, "output": 4}}}))
    assert load_pricing(js).price("x", 1_000_000, 1_000_000) == pytest.approx(7.0)


@pytest.mark.parametrize("content", ['{"models": {"x": {"input": "cheap"}}}', "[1]", "{nope",
                                     '{"no_models": 1}'])
def test_bad_pricing_files_are_config_errors(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "p.json"
    bad.write_text(content)
    with pytest.raises(ConfigError) as err:
        load_pricing(bad)
    assert err.value.code == "invalid_pricing"
    with pytest.raises(ConfigError):
        load_pricing(tmp_path / "missing.json")
