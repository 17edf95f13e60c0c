"""``citewise ask --server URL``: the same command, answered by a running service."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

__all__ = ["ENV_API_KEY", "ENV_SERVER", "add_server_arguments", "ask_remote"]

ENV_SERVER = "CITEWISE_SERVER"
ENV_API_KEY = "CITEWISE_API_KEY"


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", metavar="URL", default=os.environ.get(ENV_SERVER),
                        help=f"ask a running citewise service instead (env {ENV_SERVER})")
    parser.add_argument("--api-key", metavar="KEY", default=None,
                        help=f"API key for --server (env {ENV_API_KEY})")


def ask_remote(args: argparse.Namespace, question: str,
               output_schema: dict[str, Any] | None = None) -> int:
    """Stream the run from ``args.server``; prints like the local ``ask``."""
    from citewise.cli.common import StepPrinter, print_answer
    from citewise.client.client import Client

    key = getattr(args, "api_key", None) or os.environ.get(ENV_API_KEY)
    printer = None if getattr(args, "quiet", False) else StepPrinter()
    options: dict[str, Any] = {}
    if getattr(args, "strict", False):
        options["strict"] = True
    if output_schema is not None:
        options["output_schema"] = output_schema
    if getattr(args, "persona", None):
        options["persona"] = args.persona

    async def go() -> Any:
        terminal = None
        async with Client(args.server, key) as client:
            async for event in client.stream(question, thread_id=getattr(args, "thread", None),
                                             **options):
                if printer is not None:
                    printer(event)
                if event.is_terminal:
                    terminal = event
        return terminal

    terminal = asyncio.run(go())
    answer = getattr(terminal, "answer", None)
    if getattr(args, "json", False) and answer is not None:
        sys.stdout.write(answer.model_dump_json(indent=2) + "\n")
    elif answer is not None and terminal.kind == "run_finished":
        print_answer(answer, None)
        sys.stderr.write(f"(thread {answer.thread_id}, run {answer.run_id})\n")
    if terminal is None or terminal.kind == "error":
        if printer is None and terminal is not None:
            sys.stderr.write(f"error: {terminal.message} [{terminal.code}]\n")
        return 1
    return 0
