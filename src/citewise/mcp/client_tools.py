"""Tools from MCP servers (stdio or streamable HTTP), as citewise :class:`Tool` s.

Each MCP tool keeps its JSON Schema (``Tool.from_json_schema``: the model sees it, the loop
validates arguments against it before every call). Results are external data, so their
text reaches the model inside ``<untrusted>`` (and the prompt-injection guardrail checks
it); structured content is kept as the observation's ``data``. A result with ``isError``
— or a server that fails or is gone — becomes an error observation the model can react
to, never a crashed run.

Two ways to hold the connection::

    async with MCPTools(MCPServerConfig(name="files", command="python", args=["srv.py"])) as m:
        agent = Agent(kb, tools=m.tools)          # one live session, reused by every call

    tools = await MCPTools(config).load()         # lists now; each call connects anew
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from citewise.agent.prompts import wrap_untrusted
from citewise.agent.tools import Tool, ToolResult
from citewise.errors import ConfigError, ModelRetry

__all__ = ["MCPServerConfig", "MCPTools", "mcp_tools"]

_NAME_OK = re.compile(r"[^A-Za-z0-9_-]")


class MCPServerConfig(BaseModel):
    """One MCP server an agent may use tools from (exactly one of ``command`` / ``url``)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="Short name of the server (logs, errors, optional prefix).")
    command: str | None = Field(default=None, description="stdio: the executable to start.")
    args: list[str] = Field(default_factory=list, description="stdio: its arguments.")
    env: dict[str, str] | None = Field(default=None, description="stdio: extra environment.")
    cwd: str | None = Field(default=None, description="stdio: working directory.")
    url: str | None = Field(default=None, description="Streamable HTTP endpoint, e.g. "
                            "http://127.0.0.1:8000/mcp.")
    tool_prefix: str = Field(default="", description="Prepended to every tool name (avoids "
                             "clashes between servers).")
    include: list[str] | None = Field(default=None, description="Only these tools (MCP names).")
    requires_approval: bool | list[str] = Field(
        default=False, description="True: every tool of this server pauses the run for "
        "approval; a list: these tools (MCP names).")
    approve_destructive: bool = Field(
        default=False, description="Tools annotated destructiveHint need approval.")
    ends_run: list[str] = Field(default_factory=list, description="Tools that end the run.")
    timeout: float = Field(default=30.0, gt=0, description="Seconds per call.")
    untrusted: bool = Field(default=True, description="Fence results as <untrusted> data.")

    @model_validator(mode="after")
    def _one_transport(self) -> MCPServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of `command` (stdio) or `url` (streamable HTTP)")
        return self


class MCPTools:
    """One MCP server's tools; ``async with`` keeps one session open for all calls."""

    def __init__(self, config: MCPServerConfig) -> None:
        self.config = config
        self.tools: list[Tool] = []
        self._client: Any = None
        self._stack: AsyncExitStack | None = None

    def _new_client(self) -> Any:
        try:
            from mcp import Client, StdioServerParameters
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ConfigError("MCP tools need the `mcp` package: pip install 'citewise[mcp]'",
                              code="mcp_not_installed") from exc
        c = self.config
        if c.url is not None:
            return Client(c.url, read_timeout_seconds=c.timeout)
        assert c.command is not None
        params = StdioServerParameters(command=c.command, args=list(c.args), env=c.env, cwd=c.cwd)
        return Client(params, read_timeout_seconds=c.timeout)

    async def __aenter__(self) -> MCPTools:
        stack = AsyncExitStack()
        try:
            self._client = await stack.enter_async_context(self._new_client())
            self.tools = await self._list(self._client)
        except BaseException:
            await stack.aclose()
            self._client = None
            raise
        self._stack = stack
        return self

    async def __aexit__(self, *exc: object) -> None:
        stack, self._stack = self._stack, None
        self._client = None
        if stack is not None:
            await stack.aclose()

    async def load(self) -> list[Tool]:
        """List the tools over a short connection; each later call connects on its own."""
        async with self._new_client() as client:
            self.tools = await self._list(client)
        return self.tools

    async def _list(self, client: Any) -> list[Tool]:
        c = self.config
        listed: list[Any] = []
        cursor: str | None = None
        for _ in range(100):  # a server that pages forever cannot hang us
            page = await client.list_tools(cursor=cursor)
            listed += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        out: list[Tool] = []
        for t in listed:
            if c.include is not None and t.name not in c.include:
                continue
            out.append(self._convert(t))
        return out

    def _convert(self, t: Any) -> Tool:
        c = self.config
        approval = (c.requires_approval is True
                    or (isinstance(c.requires_approval, list) and t.name in c.requires_approval)
                    or (c.approve_destructive and bool(getattr(t.annotations, "destructive_hint",
                                                               False))))
        remote = t.name

        async def call(**arguments: Any) -> ToolResult:
            return await self._call(remote, arguments)

        return Tool.from_json_schema(
            _NAME_OK.sub("_", c.tool_prefix + t.name)[:64],
            t.description or t.title or f"{t.name} (MCP server {c.name})",
            dict(t.input_schema or {"type": "object"}),
            call,
            requires_approval=approval,
            ends_run=t.name in c.ends_run,
            timeout=c.timeout,
        )

    async def _call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if self._client is not None:
            result = await self._client.call_tool(name, arguments)
        else:
            async with self._new_client() as client:
                result = await client.call_tool(name, arguments)
        text = _text(result.content)
        if result.is_error:
            # The model reads this as an error observation and may try again.
            raise ModelRetry(f"{name} (MCP server {self.config.name}) failed: "
                             f"{text or 'no details'}")
        data = result.structured_content
        if self.config.untrusted:
            text = wrap_untrusted(text)
        return ToolResult(text=text, data=data)


def _text(content: Sequence[Any]) -> str:
    parts: list[str] = []
    for block in content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource" and hasattr(block.resource, "text"):
            parts.append(block.resource.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {getattr(block, 'mime_type', 'binary')}]")
        elif kind == "resource_link":
            parts.append(f"[resource: {getattr(block, 'uri', '')}]")
    return "\n".join(parts)


@asynccontextmanager
async def mcp_tools(*configs: MCPServerConfig) -> AsyncIterator[list[Tool]]:
    """The tools of several MCP servers, their sessions open for the block."""
    async with AsyncExitStack() as stack:
        tools: list[Tool] = []
        for config in configs:
            tools += (await stack.enter_async_context(MCPTools(config))).tools
        yield tools
