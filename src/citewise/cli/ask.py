"""``citewise ask "question"``: stream the steps to stderr, the answer to stdout."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from citewise.cli.common import StepPrinter, add_data_dir, add_embedder, open_kb, print_answer

__all__ = ["register", "run_question"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ask", help="ask a question over the knowledge base")
    p.add_argument("question")
    p.add_argument("--thread", metavar="ID", help="continue this thread")
    p.add_argument("--json", action="store_true", help="print the final Answer as JSON")
    p.add_argument("--model", default=None, help="model string (default: extractive)")
    p.add_argument("--output-schema", metavar="JSON_OR_FILE",
                   help="JSON Schema the answer must follow (inline JSON or a file path)")
    p.add_argument("--strict", action="store_true", help="remove unsupported sentences")
    p.add_argument("--persona", metavar="NAME", default=None,
                   help="answer as this persona (personas.toml in the data dir, or the API's)")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print the steps")
    # Wire formats (issue 7): see _ask_formatted below.
    p.add_argument("--format", metavar="NAME", default=None,
                   help="print the answer as this wire format's final JSON object (citewise, "
                   "trustgraph, agentos, agent-event, conversation, answer, ag-ui, openai, a2a, "
                   "ai-sdk)")
    p.add_argument("--stream", action="store_true",
                   help="print each stream object of --format (default citewise) as one JSON "
                   "line as it happens")
    add_data_dir(p, tenant=True)
    add_embedder(p)
    from citewise.client.cli import add_server_arguments  # --server URL / --api-key

    add_server_arguments(p)
    p.set_defaults(func=run)


def _schema(value: str | None) -> dict[str, Any] | None:
    from citewise.errors import InvalidInput

    if value is None:
        return None
    text = value
    if not value.lstrip().startswith("{"):
        path = Path(value)
        if not path.is_file():
            raise InvalidInput(f"--output-schema: no such file {value!r}", code="path_not_found")
        text = path.read_text(encoding="utf-8")
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--output-schema is not JSON: {exc.msg} at line {exc.lineno} "
                           f"column {exc.colno} (character {exc.pos})",
                           code="invalid_output_schema",
                           details={"line": exc.lineno, "column": exc.colno}) from None
    if not isinstance(schema, dict):
        raise InvalidInput("--output-schema must be a JSON object", code="invalid_output_schema")
    return schema


def run_question(args: argparse.Namespace, question: str) -> int:
    from citewise.agent.runner import Agent
    from citewise.agent.state import RunSettings
    from citewise.errors import EmptyQuestion
    from citewise.personas import use_cli_persona

    if not question.strip():
        raise EmptyQuestion("the question is empty")
    schema = _schema(getattr(args, "output_schema", None))
    if getattr(args, "format", None) or getattr(args, "stream", False):
        return _ask_formatted(args, question, schema)
    if getattr(args, "server", None):  # a running service answers (see citewise.client.cli)
        from citewise.client.cli import ask_remote

        return ask_remote(args, question, schema)
    with open_kb(args, must_exist=True) as kb:
        agent = Agent(kb, model=args.model or os.environ.get("CITEWISE_MODEL") or "extractive",
                      settings=RunSettings(strict=bool(getattr(args, "strict", False))))
        use_cli_persona(agent, getattr(args, "persona", None), kb.data_dir)
        # Validate before anything streams: a bad thread id writes nothing.
        agent.prepare(question, thread_id=args.thread, output_schema=schema)
        printer = None if args.quiet else StepPrinter()

        async def go() -> Any:
            terminal = None
            async for event in agent.stream(question, thread_id=args.thread,
                                            output_schema=schema):
                if printer is not None:
                    printer(event)
                if event.is_terminal:
                    terminal = event
            return terminal

        terminal = asyncio.run(go())
        answer = terminal.answer
        if args.json:
            sys.stdout.write(answer.model_dump_json(indent=2) + "\n")
        elif answer is not None and terminal.kind == "run_finished":
            print_answer(answer, kb)
            # The answer before the closing line: stdout and stderr may be one log.
            sys.stdout.flush()
            sys.stderr.write(f"(thread {answer.thread_id}, run {answer.run_id})\n")
        if terminal.kind == "error":
            if not args.json and printer is None:
                sys.stderr.write(f"error: {terminal.message} [{terminal.code}]\n")
            return 1
        return 0


def run(args: argparse.Namespace) -> int:
    return run_question(args, args.question)


# -- --format / --stream: the run in a wire format (issue 7) ---------------------------------


def _ask_formatted(args: argparse.Namespace, question: str,
                   schema: dict[str, Any] | None) -> int:
    """Stdout: the dialect's final object as JSON, or with ``--stream`` each stream object as
    one JSON line (JSONL) as it happens. Steps still go to stderr unless ``--quiet``; the
    exit status is 1 when the run failed. Works locally and with ``--server`` alike: a
    dialect is a pure serialiser over the run's events, wherever they come from."""
    from collections.abc import AsyncIterator

    from citewise.dialects import final_of, get_dialect
    from citewise.dialects.base import dumps
    from citewise.events import ErrorEvent, Event, RunFinished, RunPaused

    dialect = get_dialect(args.format)  # unknown_format before anything runs
    printer = None if args.quiet else StepPrinter()

    async def remote() -> AsyncIterator[Event]:
        import os

        from citewise.client.cli import ENV_API_KEY
        from citewise.client.client import Client

        options: dict[str, Any] = {"output_schema": schema} if schema is not None else {}
        if getattr(args, "strict", False):
            options["strict"] = True
        if getattr(args, "persona", None):
            options["persona"] = args.persona
        key = getattr(args, "api_key", None) or os.environ.get(ENV_API_KEY)
        async with Client(args.server, key) as client:
            async for event in client.stream(question, thread_id=args.thread, **options):
                yield event

    async def go(events: AsyncIterator[Event]) -> RunFinished | RunPaused | ErrorEvent | None:
        terminal = None
        encoder = dialect.encoder()
        async for event in events:
            if printer is not None:
                printer(event)
            if args.stream:
                for obj in encoder.feed(event):
                    sys.stdout.write(dumps(obj) + "\n")
                sys.stdout.flush()
            if isinstance(event, RunFinished | RunPaused | ErrorEvent):
                terminal = event
        return terminal

    if getattr(args, "server", None):
        terminal = asyncio.run(go(remote()))
    else:
        from citewise.agent.runner import Agent
        from citewise.agent.state import RunSettings
        from citewise.personas import use_cli_persona

        with open_kb(args, must_exist=True) as kb:
            agent = Agent(kb, model=args.model or os.environ.get("CITEWISE_MODEL") or "extractive",
                          settings=RunSettings(strict=bool(getattr(args, "strict", False))))
            use_cli_persona(agent, getattr(args, "persona", None), kb.data_dir)
            agent.prepare(question, thread_id=args.thread, output_schema=schema)
            terminal = asyncio.run(go(agent.stream(question, thread_id=args.thread,
                                                   output_schema=schema)))
    if terminal is None:
        return 1
    if not args.stream:
        sys.stdout.write(json.dumps(final_of(dialect, terminal), indent=2, ensure_ascii=False)
                         + "\n")
    return 1 if isinstance(terminal, ErrorEvent) else 0
