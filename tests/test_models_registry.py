"""Model selection by string, entry points, the request guard, structured-output parsing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib.metadata import entry_points
from typing import Any

import pytest

from citewise.agent.structured import check_structured
from citewise.errors import ConfigError, ModelError
from citewise.models.base import ModelRequest, TextDelta, UserMessage
from citewise.models.failures import ModelUnavailable
from citewise.models.fallback import FallbackModel
from citewise.models.guard import check_model_request, model_requests_policy
from citewise.models.openai_chat import OpenAIChatModel
from citewise.models.registry import (
    allow_model_requests,
    available_models,
    register_model,
    resolve_model,
)
from citewise.models.scripted import ScriptedModel


def test_builtin_providers_are_entry_points() -> None:
    names = {ep.name for ep in entry_points(group="citewise.models")}
    assert {"extractive", "scripted", "local", "openai", "openai-compat", "react"} <= names
    assert set(available_models()) >= names


def test_default_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_model().name == resolve_model("extractive").name
    monkeypatch.setenv("CITEWISE_MODEL", "scripted")
    assert isinstance(resolve_model(), ScriptedModel)


def test_openai_needs_a_key_and_uses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as err:
        resolve_model("openai:gpt-4.1-mini")
    assert err.value.code == "missing_api_key"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    m = resolve_model("openai:gpt-4.1-mini", timeout=5, temperature=0.2)
    assert isinstance(m, OpenAIChatModel)
    assert m.name == "openai:gpt-4.1-mini"
    assert m.provider.base_url == "https://api.openai.com/v1"
    assert m.provider.timeout.read == 5 and m.adapter.temperature == 0.2
    assert m.adapter.response_format == "json_schema"


def test_openai_compat_syntax() -> None:
    m = resolve_model("openai-compat:http://127.0.0.1:11434/v1/#qwen2.5", api_key="k",
                      headers={"api-key": "azure"})
    assert isinstance(m, OpenAIChatModel)
    assert (m.provider.base_url, m.model) == ("http://127.0.0.1:11434/v1", "qwen2.5")
    assert resolve_model("openai-compat:http://h:1/v1").model == "default"  # type: ignore[attr-defined]
    for bad in ("openai-compat:", "openai-compat:127.0.0.1:80#m"):
        with pytest.raises(ConfigError) as err:
            resolve_model(bad)
        assert err.value.code == "invalid_model_spec"


@pytest.mark.parametrize(("spec", "options", "code"), [
    ("nope", {}, "unknown_model"),
    ("local:llama-70b", {}, "unknown_model"),
    ("scripted", {"temperature": 1}, "unknown_model_option"),
    ("openai-compat:http://h/v1#m", {"colour": "red"}, "unknown_model_option"),
    ("scripted|", {}, "invalid_model_spec"),
    (":x", {}, "invalid_model_spec"),
])
def test_bad_specs_are_config_errors(spec: str, options: dict[str, Any], code: str) -> None:
    with pytest.raises(ConfigError) as err:
        resolve_model(spec, **options)
    assert err.value.code == code


def test_chain_and_in_process_registration() -> None:
    register_model("fixed", lambda rest: ScriptedModel([rest or "hi"], name=f"fixed:{rest}"))
    chain = resolve_model("fixed:a | fixed:b")
    assert isinstance(chain, FallbackModel)
    assert [m.name for m in chain.models] == ["fixed:a", "fixed:b"]
    assert "fixed" in available_models()


class _Down:
    name = "down"

    async def stream(self, request: ModelRequest) -> AsyncIterator[TextDelta]:
        raise ModelUnavailable("down")
        yield TextDelta(text="")  # pragma: no cover - makes this an async generator


class _Unparseable(_Down):
    async def stream(self, request: ModelRequest) -> AsyncIterator[TextDelta]:
        raise ModelError("bad output", code="model_output_unparseable")
        yield TextDelta(text="")  # pragma: no cover


def test_fallback_skips_retryable_failures_only() -> None:
    req = ModelRequest(messages=[UserMessage(content="q")])

    async def go(model: Any) -> list[Any]:
        return [p async for p in model.stream(req)]

    chain = FallbackModel([_Down(), ScriptedModel(["ok"], name="backup")])
    parts = asyncio.run(go(chain))
    assert parts[0] == TextDelta(text="ok") and chain.name == "backup"
    with pytest.raises(ModelError) as err:  # not retryable: the chain stops there
        asyncio.run(go(FallbackModel([_Unparseable(), ScriptedModel(["ok"])])))
    assert err.value.code == "model_output_unparseable"
    with pytest.raises(ConfigError):
        FallbackModel([])


def test_guard_policy_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_ALLOW_MODEL_REQUESTS", "0")
    assert model_requests_policy() is False
    with allow_model_requests(["127.0.0.1"]):
        check_model_request("http://127.0.0.1:8080/v1/chat/completions")
        with pytest.raises(ModelError):
            check_model_request("https://api.openai.com/v1/chat/completions")
        with allow_model_requests(True):
            check_model_request("https://api.openai.com/v1")
        assert model_requests_policy() == frozenset({"127.0.0.1"})
    assert model_requests_policy() is False  # restored on exit
    monkeypatch.setenv("CITEWISE_ALLOW_MODEL_REQUESTS", "localhost, 127.0.0.1")
    check_model_request("http://localhost:1/v1")
    monkeypatch.setenv("CITEWISE_ALLOW_MODEL_REQUESTS", "yes")
    check_model_request("https://api.openai.com/v1")


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1}', {"a": 1}),
    ('Here it is: {"a": 1} as cited [1]', {"a": 1}),
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('noise {"a": {"b": "[2]"}} trailing } brace', {"a": {"b": "[2]"}}),
])
def test_structured_answers_are_found_inside_prose(text: str, value: Any) -> None:
    assert check_structured(text, {"type": "object"}) == (value, None)


def test_structured_reports_why() -> None:
    value, why = check_structured('{"a": "x"}', {"type": "object", "properties": {
        "a": {"type": "integer"}}})
    assert value is None and why is not None and "at a" in why
    assert check_structured("no json here", {"type": "object"})[1] is not None
