"""The ``citewise`` command. Each subcommand lives in its own module with a ``register``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

# Subcommand modules, in help order. A module registers its parser and sets ``func``.
COMMANDS = (
    "citewise.cli.quickstart",
    "citewise.cli.ingest",
    "citewise.cli.docs",
    "citewise.cli.ask",
    "citewise.cli.search",
    "citewise.cli.eval",
    "citewise.cli.explain",
    "citewise.cli.resume",
    "citewise.cli.mcp",
    "citewise.cli.serve",
    "citewise.cli.worker",
    "citewise.cli.status",
    "citewise.cli.keys",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citewise",
        description="Ask your own documents; get answers with verified, character-exact citations.",
    )
    from citewise import __version__

    parser.add_argument("--version", action="version", version=f"citewise {__version__}")
    from citewise.cli.common import add_data_dir

    # Also before the command (`citewise --data-dir D ask …`), as people write global
    # options; given after it as well, the command's own wins (argparse sets it last).
    add_data_dir(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point. Errors become one line on stderr and a non-zero exit, never a traceback."""
    from citewise.errors import CitewiseError, UsageError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except CitewiseError as exc:
        sys.stderr.write(f"error: {exc.message} [{exc.code}]\n")
        return 2 if isinstance(exc, UsageError) else 1
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("CITEWISE_DEBUG"):
            raise
        if _database_down(exc):  # it went away mid-command (at open it is a ConfigError)
            reason = (str(getattr(exc, "orig", exc)).strip().splitlines() or ["unknown"])[0]
            sys.stderr.write(f"error: the database is not reachable: {reason} "
                             "[database_unavailable]\n")
            return 1
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc} "
                         "(set CITEWISE_DEBUG=1 for a traceback)\n")
        return 70


def _database_down(exc: BaseException) -> bool:
    if "sqlalchemy" not in sys.modules:
        return False  # no database was used
    from citewise.store._sql import database_down

    return database_down(exc)


if __name__ == "__main__":
    sys.exit(main())
