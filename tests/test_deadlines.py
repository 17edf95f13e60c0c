"""Tool-call deadlines: one timer per loop, asyncio.timeout's behaviour."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from citewise.agent.deadlines import deadline, deadlines_of


async def _guarded(seconds: float, work: float) -> str:
    try:
        with deadline(seconds):
            await asyncio.sleep(work)
    except TimeoutError:
        return "timeout"
    return "done"


def test_a_block_past_its_deadline_raises_timeout() -> None:
    assert asyncio.run(_guarded(0.02, 10)) == "timeout"


def test_a_block_within_its_deadline_finishes_and_leaves_nothing_live() -> None:
    async def go() -> tuple[str, int]:
        out = await _guarded(5, 0.001)
        return out, len(deadlines_of(asyncio.get_running_loop()))

    assert asyncio.run(go()) == ("done", 0)


def test_an_earlier_deadline_added_later_still_fires_on_time() -> None:
    # The timer is armed for the 60 s block first; the 20 ms one must re-arm it.
    async def go() -> list[str]:
        long = asyncio.ensure_future(_guarded(60, 0.2))
        await asyncio.sleep(0)
        short = asyncio.ensure_future(_guarded(0.02, 10))
        return list(await asyncio.wait_for(asyncio.gather(long, short), timeout=5))

    assert asyncio.run(go()) == ["done", "timeout"]


def test_many_deadlines_only_the_due_ones_expire() -> None:
    async def go() -> list[str]:
        jobs = [_guarded(0.05 if i % 3 == 0 else 30, 0.3 if i % 3 == 0 else 0.1)
                for i in range(300)]
        return list(await asyncio.gather(*jobs))

    results = asyncio.run(go())
    assert results == ["timeout" if i % 3 == 0 else "done" for i in range(300)]


def test_a_cancel_from_elsewhere_stays_a_cancel() -> None:
    async def go() -> str:
        task = asyncio.ensure_future(_guarded(30, 10))
        await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        return "not cancelled"

    assert asyncio.run(go()) == "cancelled"


def test_a_swallowed_expiry_is_not_turned_into_timeout() -> None:
    # A block that catches the cancellation itself ends normally, as with asyncio.timeout.
    async def go() -> str:
        with deadline(0.01):
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                return "swallowed"
        return "unreachable"

    assert asyncio.run(go()) == "swallowed"


def test_outside_a_task_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="event loop"), deadline(1):
        pass


def test_a_closed_loop_is_not_kept_alive() -> None:
    loop = asyncio.new_event_loop()
    loop.run_until_complete(_guarded(5, 0))
    ref = weakref.ref(loop)
    loop.close()
    del loop
    asyncio.run(_guarded(5, 0))  # another loop becomes the remembered one
    gc.collect()
    assert ref() is None
