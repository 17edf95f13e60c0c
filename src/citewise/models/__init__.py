"""Models behind one contract (:mod:`citewise.models.base`): scripted, extractive, real LLMs.

Pick one by string with :func:`resolve_model` (syntax in :mod:`citewise.models.registry`):
``extractive`` (default), ``local``, ``openai:gpt-4.1-mini``,
``openai-compat:http://127.0.0.1:11434/v1#qwen2.5``, ``react:…`` (text-ReAct around a model
without tool calling), ``a|b`` (a fallback chain).

Layout: ``openai_wire`` (chat-completions JSON ↔ our parts) · ``openai_provider`` (HTTP,
retries, timeouts) · ``openai_chat`` (the two together) · ``react_text`` / ``react_parse``
(text protocol) · ``local`` / ``local_steps`` / ``json_stream`` (in-process llama.cpp,
grammar-constrained) · ``fallback`` · ``pricing`` · ``guard`` · ``failures``.
"""

from citewise.models.fallback import FallbackModel
from citewise.models.registry import allow_model_requests, resolve_model

__all__ = ["FallbackModel", "allow_model_requests", "resolve_model"]
