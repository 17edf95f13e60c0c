"""A command's help pasted in a code block is a list of options, one to a line (Docker's
review, 2026-12-07). Docker's reference pages open with their command's usage in a fenced
block; the splitter reads its lines as one run, and asked how long ``docker stop`` waits,
citewise quoted "Options: --help Print usage -t, --time int Seconds to wait for stop
before killing it (default 10)"."""

from __future__ import annotations

from pathlib import Path

from _answers import ask_over

STOP = """\
---
title: "stop"
---

# stop

```markdown
Usage:  docker stop [OPTIONS] CONTAINER [CONTAINER...]

Stop one or more running containers

Options:
      --help       Print usage
  -t, --time int   Seconds to wait for stop before killing it (default 10)
      --cpu-percent int               Limit percentage of CPU available for execution
                                      by the container. Windows daemon only.
```

## Description

The main process inside the container will receive `SIGTERM`, and after a grace
period, `SIGKILL`.
"""


def test_each_line_of_a_commands_help_is_a_quote_of_its_own(tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"stop.md": STOP}, "How long does docker stop wait before it "
                      "kills the container when no time is given?")
    assert answer.citations, answer.text
    assert answer.citations[0].excerpt == (
        "-t, --time int   Seconds to wait for stop before killing it (default 10)")


def test_a_help_lines_wrapped_description_goes_on_and_other_code_is_not_cut() -> None:
    from citewise.sentences import option_starts

    text = STOP[STOP.index("```markdown"):STOP.index("## Description")]
    starts = option_starts(text, [(0, len(text), "code")])
    lines = {text[at:text.index("\n", at)] for at in starts}
    assert lines == {"Usage:  docker stop [OPTIONS] CONTAINER [CONTAINER...]", "Options:",
                     "      --help       Print usage",
                     "  -t, --time int   Seconds to wait for stop before killing it "
                     "(default 10)",
                     "      --cpu-percent int               Limit percentage of CPU "
                     "available for execution"}
    # One option line is no help: a shell session's flag is not cut from its command.
    shell = "$ docker stop my_container\n  --time 5    # the grace period\nexit\n"
    assert option_starts(shell, [(0, len(shell), "code")]) == set()
    # Nor is a table of numbers laid out in columns (Go's spec: "-5     3      -1").
    numbers = "x     y     x / y\n 5     3       1\n-5     3      -1\n-5    -3       1\n"
    assert option_starts(numbers, [(0, len(numbers), "code")]) == set()
    # Outside a code block nothing is cut.
    assert option_starts(text, [(0, len(text), "table")]) == set()
