"""One citewise replica for ``test_chaos``, as its own process (to be stopped and killed).

``python tests/_chaos_replica.py CONFIG_JSON MARKS_FILE``: a real uvicorn server over
``create_app`` with the config given (a ``ServerConfig`` as JSON), the default extractive
model — except for questions that start with ``long``, which a scripted model answers
after many slow steps, each calling the ``mark`` tool. ``mark`` appends a line
``time run_id step`` to MARKS_FILE when it starts: what the test reads to tell whether a
tool ran after its run was lost.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncGenerator

import uvicorn

from _models import question_and_turn
from citewise import RunContext
from citewise.models.base import Model, ModelRequest
from citewise.models.scripted import Part, ScriptedModel, call
from citewise.server import ServerConfig, create_app

#: Steps of a ``long`` run, and the model's think time before each.
STEPS = 40
THINK_S = 0.15

MARKS = sys.argv[2] if len(sys.argv) > 2 else os.devnull


async def mark(ctx: RunContext, step: int) -> str:
    """Mark a step of the run.

    Args:
        step: The step's number.
    """
    line = f"{time.time():.3f} {ctx.run_id} {step}\n"
    await asyncio.to_thread(_append, line)
    return f"step {step} marked"


def _append(line: str) -> None:
    with open(MARKS, "a", encoding="utf-8") as f:
        f.write(line)


class ChaosModel:
    """``long …`` questions: STEPS slow tool calls, then an answer; others: extractive."""

    name = "chaos"

    def __init__(self, fallback: Model) -> None:
        self.fallback = fallback

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        question, done = question_and_turn(request)
        if not question.startswith("long"):
            async for part in self.fallback.stream(request):
                yield part
            return
        await asyncio.sleep(THINK_S)
        turn = call("mark", step=done) if done < STEPS else "All steps are marked."
        async for part in ScriptedModel([turn]).stream(request):
            yield part


def main() -> None:
    from citewise.agent.runner import resolve

    config = ServerConfig.model_validate_json(sys.argv[1])
    model = ChaosModel(resolve("extractive"))
    app = create_app(config, model=model, tools=[mark])
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning")


if __name__ == "__main__":
    main()
