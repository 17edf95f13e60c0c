"""``OpenAIChatModel``: the chat-completions adapter driven through a provider.

Model strings (see :mod:`citewise.models.registry`)::

    openai:gpt-4.1-mini                              # api.openai.com, key from OPENAI_API_KEY
    openai-compat:http://127.0.0.1:11434/v1#qwen2.5  # Ollama
    openai-compat:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B-Instruct      # vLLM
    openai-compat:http://127.0.0.1:1234/v1#qwen2.5-7b-instruct           # LM Studio
    openai-compat:http://127.0.0.1:8080/v1#smollm2   # llama.cpp / llama-cpp-python server
    openai-compat:https://RES.openai.azure.com/openai/v1#DEPLOYMENT      # Azure (v1 API;
        pass headers={"api-key": KEY} — or api_key=… for an Entra bearer token)

Servers that do not report usage in the stream (llama-cpp-python's) get an estimate:
prompt ≈ characters / 4, completion ≈ streamed deltas (one token each on llama.cpp).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from citewise.errors import ConfigError
from citewise.models.base import ModelRequest, UsagePart
from citewise.models.openai_provider import OpenAIProvider
from citewise.models.openai_wire import ChatCompletionsAdapter, Part, ResponseFormat
from citewise.models.prompts import estimate_tokens

__all__ = ["OPENAI_BASE_URL", "OpenAIChatModel", "create_compat", "create_openai"]

OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIChatModel:
    """A :class:`~citewise.models.base.Model` over ``POST {base_url}/chat/completions``.

    Args:
        model: the model id the server knows (``gpt-4.1-mini``, ``qwen2.5``).
        provider: where and how to send requests.
        adapter: wire settings (temperature, stop, tool_choice, response_format…).
        stream: stream the answer (default); ``False`` asks for one JSON response, which
            gives exact usage on servers that do not report it in streams.
    """

    def __init__(self, model: str, *, provider: OpenAIProvider,
                 adapter: ChatCompletionsAdapter | None = None, stream: bool = True) -> None:
        self.model = model
        self.provider = provider
        self.adapter = adapter or ChatCompletionsAdapter()
        self.stream_responses = stream

    @property
    def name(self) -> str:
        return f"{self.provider.name}:{self.model}"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        body = self.adapter.encode(self.model, request, stream=self.stream_responses)
        if not self.stream_responses:
            data = await self.provider.post_json("/chat/completions", body)
            parts = self.adapter.decode_response(data)
            for part in parts:
                yield part
            if not any(isinstance(p, UsagePart) for p in parts):
                yield _estimate(body, sum(1 for p in parts if not isinstance(p, UsagePart)))
            return
        decoder = self.adapter.decoder()
        events = self.provider.post_stream("/chat/completions", body)
        try:
            async for chunk in events:
                for part in decoder.feed(chunk):
                    yield part
            for part in decoder.finish():
                yield part
        finally:
            await events.aclose()  # closes the HTTP response now, not at garbage collection
        if not decoder.saw_usage:
            yield _estimate(body, decoder.output_chunks)

    async def aclose(self) -> None:
        await self.provider.aclose()


def _estimate(body: dict[str, Any], output_chunks: int) -> UsagePart:
    prompt = json.dumps(body.get("messages", []), ensure_ascii=False)
    tools = json.dumps(body.get("tools", []), ensure_ascii=False) if body.get("tools") else ""
    return UsagePart(input_tokens=estimate_tokens(prompt + tools), output_tokens=output_chunks)


_ADAPTER_OPTIONS = {"temperature", "max_tokens", "stop", "tool_choice", "parallel_tool_calls",
                    "response_format", "include_usage", "extra_body"}
_PROVIDER_OPTIONS = {"connect_timeout", "read_timeout", "max_retries", "backoff",
                     "max_backoff", "max_retry_after", "client"}


def _build(model: str, base_url: str, name: str, api_key: str | None,
           headers: Mapping[str, str] | None, stream: bool, response_format: ResponseFormat,
           options: dict[str, Any]) -> OpenAIChatModel:
    if "timeout" in options:
        options["read_timeout"] = options.pop("timeout")
    unknown = set(options) - _ADAPTER_OPTIONS - _PROVIDER_OPTIONS
    if unknown:
        raise ConfigError(f"unknown option(s) for {name}: {', '.join(sorted(unknown))}",
                          code="unknown_model_option", details={"options": sorted(unknown)})
    provider = OpenAIProvider(
        base_url, api_key=api_key, headers=headers, name=name,
        **{k: v for k, v in options.items() if k in _PROVIDER_OPTIONS},
    )
    adapter_opts = {k: v for k, v in options.items() if k in _ADAPTER_OPTIONS}
    adapter_opts.setdefault("response_format", response_format)
    return OpenAIChatModel(model, provider=provider,
                           adapter=ChatCompletionsAdapter(**adapter_opts), stream=stream)


def create_openai(spec: str = "", *, api_key: str | None = None, base_url: str | None = None,
                  headers: Mapping[str, str] | None = None, stream: bool = True,
                  timeout: float | None = None, **options: Any) -> OpenAIChatModel:
    """Entry point ``openai:MODEL`` — api.openai.com, key from ``OPENAI_API_KEY``."""
    model = spec or "gpt-4.1-mini"
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        raise ConfigError("openai models need an API key: set OPENAI_API_KEY or pass api_key",
                          code="missing_api_key", details={"model": model})
    if timeout is not None:
        options["timeout"] = timeout
    return _build(model, base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL,
                  "openai", key, headers, stream, "json_schema", options)


def create_compat(spec: str = "", *, api_key: str | None = None,
                  headers: Mapping[str, str] | None = None, stream: bool = True,
                  timeout: float | None = None, **options: Any) -> OpenAIChatModel:
    """Entry point ``openai-compat:BASE_URL#MODEL`` — any OpenAI-compatible server.

    The key comes from ``api_key`` or ``CITEWISE_MODEL_API_KEY`` (local servers need none).
    Without ``#MODEL`` the model id ``default`` is sent (llama.cpp's servers ignore it).
    """
    base_url, _, model = spec.partition("#")
    if not base_url.startswith(("http://", "https://")):
        raise ConfigError(
            f"openai-compat needs a base URL: openai-compat:http://HOST:PORT/v1#MODEL, "
            f"got {spec!r}", code="invalid_model_spec", details={"spec": spec})
    if timeout is not None:
        options["timeout"] = timeout
    key = api_key or os.environ.get("CITEWISE_MODEL_API_KEY")
    return _build(model or "default", base_url, "openai-compat", key, headers, stream,
                  "none", options)
