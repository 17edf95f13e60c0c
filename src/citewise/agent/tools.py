"""Tools: plain Python functions, sync or async, registered with :func:`tool`.

The JSON Schema of the arguments is derived from the type hints, the descriptions from
the docstring's ``Args:`` section; arguments are validated before every call. A first
parameter annotated :class:`RunContext` is filled in by the loop and hidden from the model.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from citewise.agent.context import RunContext
from citewise.errors import InvalidInput, UsageError
from citewise.models.base import ToolSpec

__all__ = ["Tool", "ToolResult", "Toolset", "as_result", "to_json", "tool"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns: ``text`` for the model, ``data`` as structured JSON."""

    text: str
    data: Any = None


@dataclass(slots=True)
class Tool:
    """A registered tool."""

    name: str
    description: str
    function: Callable[..., Any]
    arguments: type[BaseModel]
    takes_ctx: bool
    is_async: bool
    requires_approval: bool = False
    ends_run: bool = False
    timeout: float = 30.0
    #: The host runs this tool, not citewise: every call pauses the run and is answered
    #: with a ``result`` (or ``reject``) decision on resume (seed 001's external tools).
    external: bool = False
    #: When set (tools from MCP servers, :meth:`from_json_schema`), arguments are described
    #: and validated by this JSON Schema instead of the pydantic ``arguments`` model.
    json_schema: dict[str, Any] | None = None
    #: The JSON Schema derived from ``arguments`` (with the class it came from): deriving it
    #: costs ~1 ms, and a server builds a new Toolset (so asks again) for every run.
    _derived: tuple[type[BaseModel], dict[str, Any]] | None = field(
        default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_json_schema(
        cls,
        name: str,
        description: str,
        schema: dict[str, Any],
        function: Callable[..., Any] | None = None,
        *,
        takes_ctx: bool = False,
        requires_approval: bool = False,
        ends_run: bool = False,
        external: bool = False,
        timeout: float = 30.0,
    ) -> Tool:
        """A tool whose arguments are given as a JSON Schema (checked here, up front).

        ``function`` is called with the validated arguments as keywords (after the
        :class:`RunContext` when ``takes_ctx``). Without a function the tool is ``external``.
        """
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        schema = dict(schema or {"type": "object"})
        schema.setdefault("type", "object")
        try:
            validator_for(schema).check_schema(schema)
        except SchemaError as exc:
            raise UsageError(f"tool {name}: invalid JSON Schema: {exc.message}",
                             code="invalid_tool_schema") from None

        def _external(**_: Any) -> Any:
            raise UsageError(f"{name} is executed by the host, not by citewise",
                             code="external_tool")

        fn = function or _external
        return cls(
            name=name, description=description, function=fn,
            arguments=create_model(f"{name}_arguments", __config__=ConfigDict(extra="allow")),
            takes_ctx=takes_ctx, is_async=inspect.iscoroutinefunction(fn),
            requires_approval=requires_approval, ends_run=ends_run,
            external=external or function is None, timeout=timeout, json_schema=schema,
        )

    def spec(self) -> ToolSpec:
        if self.json_schema is not None:
            return ToolSpec(name=self.name, description=self.description,
                            parameters=dict(self.json_schema))
        derived = self._derived
        if derived is None or derived[0] is not self.arguments:
            schema = self.arguments.model_json_schema()
            schema.pop("title", None)
            derived = self._derived = (self.arguments, schema)
        # A copy per spec: one model adapter changing its spec must not change every later
        # run's (a Toolset still shares its specs between the steps of its agent's runs).
        return ToolSpec(name=self.name, description=self.description,
                        parameters=copy.deepcopy(derived[1]))

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validated arguments, or :class:`InvalidInput` saying what is wrong."""
        if self.json_schema is not None:
            return self._validate_json(arguments)
        try:
            model = self.arguments.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
            )
            raise InvalidInput(
                f"invalid arguments for {self.name}: {problems}",
                code="invalid_tool_arguments",
                details={"tool": self.name},
            ) from None
        # The fields, in declaration order (extra="forbid": nothing else is in __dict__);
        # cheaper than iterating ``model_fields``, a deprecation-checking descriptor.
        return dict(model.__dict__)

    def _validate_json(self, arguments: dict[str, Any]) -> dict[str, Any]:
        from jsonschema.validators import validator_for

        assert self.json_schema is not None
        validator = validator_for(self.json_schema)(self.json_schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if errors:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
                for e in errors
            )
            raise InvalidInput(f"invalid arguments for {self.name}: {problems}",
                               code="invalid_tool_arguments", details={"tool": self.name})
        return dict(arguments)

    async def call(self, ctx: RunContext, arguments: dict[str, Any]) -> ToolResult:
        """Call with validated arguments (sync functions run inline: see the loop)."""
        args = (ctx,) if self.takes_ctx else ()
        if self.is_async:
            return as_result(await self.function(*args, **arguments))
        return as_result(self.function(*args, **arguments))

    def call_sync(self, ctx: RunContext, arguments: dict[str, Any]) -> ToolResult:
        """Call a sync tool (the loop runs this in a worker thread)."""
        return as_result(self.function(*((ctx,) if self.takes_ctx else ()), **arguments))


def as_result(value: Any) -> ToolResult:
    """A tool's return value as a :class:`ToolResult` (JSON text for structured values)."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(text=value)
    return ToolResult(text=to_json(value), data=value)


def to_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


_ARG_LINE = re.compile(r"^\s{2,}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Summary and per-argument descriptions from a Google-style docstring."""
    doc = inspect.cleandoc(doc or "")
    summary_lines: list[str] = []
    params: dict[str, str] = {}
    section = "summary"
    current: str | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.lower() in {"args:", "arguments:", "parameters:"}:
            section = "args"
            continue
        if stripped.endswith(":") and stripped[:-1].lower() in {"returns", "raises", "yields"}:
            section = "other"
            continue
        if section == "summary":
            summary_lines.append(line)
        elif section == "args":
            m = _ARG_LINE.match("  " + line if not line.startswith(" ") else line)
            if m and (line.startswith("    ") or not line.startswith("      ")):
                current = m.group(1)
                params[current] = m.group(2).strip()
            elif current and stripped:
                params[current] += " " + stripped
    return "\n".join(summary_lines).strip(), params


def _build(
    fn: Callable[..., Any],
    name: str | None,
    description: str | None,
    requires_approval: bool,
    ends_run: bool,
    timeout: float,
    external: bool = False,
) -> Tool:
    sig = inspect.signature(fn)
    hints = get_type_hints(fn)
    summary, arg_docs = _parse_docstring(fn.__doc__ or "")
    params = list(sig.parameters.values())
    takes_ctx = bool(params) and hints.get(params[0].name) is RunContext
    if takes_ctx:
        params = params[1:]
    fields: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise UsageError(f"tool {fn.__name__}: *args/**kwargs are not supported")
        annotation = hints.get(p.name, Any)
        default = ... if p.default is p.empty else p.default
        fields[p.name] = (annotation, Field(default=default, description=arg_docs.get(p.name)))
    tool_name = name or fn.__name__
    model: type[BaseModel] = create_model(
        f"{tool_name}_arguments",
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )
    return Tool(
        name=tool_name,
        description=description or summary,
        function=fn,
        arguments=model,
        takes_ctx=takes_ctx,
        is_async=inspect.iscoroutinefunction(fn),
        requires_approval=requires_approval,
        ends_run=ends_run,
        timeout=timeout,
        external=external,
    )


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    ends_run: bool = False,
    timeout: float = 30.0,
    external: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    ends_run: bool = False,
    timeout: float = 30.0,
    external: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a :class:`Tool` (use bare or with options).

    ``external=True`` declares a tool the host executes: its signature gives the schema,
    its body is never called; each call pauses the run for a ``result`` decision.
    """
    if fn is not None:
        return _build(fn, name, description, requires_approval, ends_run, timeout)

    def decorate(f: Callable[..., Any]) -> Tool:
        return _build(f, name, description, requires_approval, ends_run, timeout, external)

    return decorate


class Toolset:
    """The tools of an agent, by name."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._specs: list[ToolSpec] | None = None
        for t in tools:
            self.add(t)

    def add(self, t: Tool | Callable[..., Any]) -> Tool:
        built = t if isinstance(t, Tool) else tool(t)
        if built.name in self._tools:
            raise UsageError(f"duplicate tool name {built.name!r}", code="duplicate_tool")
        self._tools[built.name] = built
        self._specs = None
        return built

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def specs(self) -> list[ToolSpec]:
        # Built once: deriving a JSON Schema costs ~1 ms, and the loop asks every step.
        # A fresh list each call; the specs themselves are shared, so treat them read-only.
        if self._specs is None:
            self._specs = [t.spec() for t in self._tools.values()]
        return list(self._specs)

    def __iter__(self) -> Any:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools
