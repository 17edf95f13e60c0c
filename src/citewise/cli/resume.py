"""``citewise resume RUN_ID --approve ID | --reject ID[:MSG] | --edit ID='{json}' |
--result ID='{json}'`` and ``citewise cancel RUN_ID``.

Resume continues a paused run from the store of ``--data-dir``, with the knowledge base's
search tool. Approve and edit need the tool that paused the run, so they work here only for
tools this command has; reject and result work for any tool (the host ran it). Exit codes:
0 finished, 3 paused again, 1 failed or cancelled, 2 refused (nothing was changed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from citewise.cli.common import StepPrinter, add_data_dir, open_kb, print_answer

__all__ = ["parse_decisions", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("resume", help="continue a paused run with decisions on its interrupts")
    p.add_argument("run_id", metavar="RUN_ID")
    p.add_argument("--approve", action="append", default=[], metavar="INTERRUPT_ID",
                   help="run the held-back call as proposed")
    p.add_argument("--reject", action="append", default=[], metavar="INTERRUPT_ID[:MESSAGE]",
                   help="do not run it; the model is told MESSAGE")
    p.add_argument("--edit", action="append", default=[], metavar="INTERRUPT_ID=JSON",
                   help="run it with these arguments instead")
    p.add_argument("--result", action="append", default=[], metavar="INTERRUPT_ID=JSON",
                   help="the result of a call executed elsewhere")
    p.add_argument("--model", default=None, help="model string (default: extractive)")
    p.add_argument("--json", action="store_true", help="print the final Answer as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print the steps")
    add_data_dir(p, tenant=True)
    p.set_defaults(func=run)

    c = sub.add_parser("cancel", help="cancel a paused or running run")
    c.add_argument("run_id", metavar="RUN_ID")
    add_data_dir(c, tenant=True)
    c.set_defaults(func=run_cancel)


def _split(value: str, sep: str, flag: str) -> tuple[str, str | None]:
    iid, found, rest = value.partition(sep)
    if not iid.strip():
        from citewise.errors import InvalidInput

        raise InvalidInput(f"{flag}: missing interrupt id in {value!r}", code="invalid_decision")
    return iid.strip(), rest if found else None


def _json(value: str | None, flag: str, iid: str) -> Any:
    from citewise.errors import InvalidInput

    if value is None:
        raise InvalidInput(f"{flag} {iid}: give INTERRUPT_ID=JSON", code="invalid_decision")
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{flag} {iid}: not JSON: {exc.msg}", code="invalid_decision") from None


def parse_decisions(args: argparse.Namespace) -> list[Any]:
    """The ``Decision`` s the flags describe (``InvalidInput`` on a malformed one)."""
    from citewise.agent.state import Decision
    from citewise.errors import InvalidInput

    out: list[Decision] = []
    for iid in args.approve:
        out.append(Decision(interrupt_id=_split(iid, "=", "--approve")[0], action="approve"))
    for value in args.reject:
        iid, message = _split(value, ":", "--reject")
        out.append(Decision(interrupt_id=iid, action="reject", message=message or None))
    for value in args.edit:
        iid, raw = _split(value, "=", "--edit")
        new_input = _json(raw, "--edit", iid)
        if not isinstance(new_input, dict):
            raise InvalidInput(f"--edit {iid}: the arguments must be a JSON object",
                               code="invalid_decision")
        out.append(Decision(interrupt_id=iid, action="edit", input=new_input))
    for value in args.result:
        iid, raw = _split(value, "=", "--result")
        out.append(Decision(interrupt_id=iid, action="result", result=_json(raw, "--result", iid)))
    if not out:
        raise InvalidInput("give at least one of --approve, --reject, --edit, --result",
                           code="missing_decision")
    return out


def run(args: argparse.Namespace) -> int:
    from citewise.agent.runner import Agent

    decisions = parse_decisions(args)
    with open_kb(args, must_exist=True) as kb:
        agent = Agent(kb, model=args.model or os.environ.get("CITEWISE_MODEL") or "extractive")
        printer = None if args.quiet else StepPrinter()

        async def go() -> Any:
            terminal = None
            async for event in agent.resume(args.run_id, decisions):
                if printer is not None:
                    printer(event)
                if event.is_terminal:
                    terminal = event
            return terminal

        terminal = asyncio.run(go())
        answer = terminal.answer
        if args.json and answer is not None:
            sys.stdout.write(answer.model_dump_json(indent=2) + "\n")
        elif terminal.kind == "run_finished":
            print_answer(answer, kb)
            sys.stderr.write(f"(thread {answer.thread_id}, run {answer.run_id})\n")
        if terminal.kind == "run_paused":
            for i in terminal.interrupts:
                sys.stderr.write(f"paused again: {i.tool} {json.dumps(i.input)} "
                                 f"(interrupt {i.id}): {i.reason}\n")
            return 3
        if terminal.kind == "error":
            if printer is None:
                sys.stderr.write(f"error: {terminal.message} [{terminal.code}]\n")
            return 1
        return 0


def run_cancel(args: argparse.Namespace) -> int:
    from citewise.agent.runner import Agent
    from citewise.errors import NotFound, UsageError

    with open_kb(args, must_exist=True) as kb:
        agent = Agent(kb)
        record = kb.store.get_run(agent.tenant, args.run_id)
        if record is None:
            raise NotFound(f"unknown run {args.run_id!r}", code="unknown_run")
        if not agent.cancel(args.run_id):
            raise UsageError(f"run {args.run_id} is {record.status}; nothing to cancel",
                             code="run_not_cancellable", details={"status": record.status})
        what = "cancelled" if record.status == "paused" else "asked to stop"
        sys.stderr.write(f"run {args.run_id} ({record.status}) {what}\n")
        return 0
