"""The run manager: every run is a background task; clients only ever tail its log.

* A run executes as an asyncio task owned by the manager, never by a request: a client
  that disconnects changes nothing, and any number of clients may attach to one run.
* Each event is queued on the :class:`~citewise.server.writer.LogWriter` (after the
  agent's own store writes) and becomes visible to readers only when the writer reports
  it committed. Readers of a run of this process get it from memory through an in-process
  wake-up; readers of a run driven by another process sharing the database poll the log.
  Either way a reader continues from a ``seq``, so a reconnect with ``Last-Event-ID``
  gets every later event exactly once, and a finished run replays in full.
* Cancelling: the agent's cooperative flag first; a run that does not stop within
  ``cancel_grace_s`` (a tool stuck in a long call) has its task cancelled and the manager
  writes the terminal ``run_cancelled`` event itself. Paused runs and runs of other
  processes are cancelled through the store (``agent.interrupts.cancel_run``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, cast

from citewise.agent.state import check_question_text
from citewise.errors import EmptyQuestion, InvalidInput, NotFound, UsageError
from citewise.events import ErrorEvent, Event, event_json
from citewise.server.config import ServerConfig
from citewise.server.limits import RunSlots
from citewise.server.live import Frame, LiveRun, flatten
from citewise.server.remote_cancels import RemoteCancels
from citewise.server.run_options import RunOptions
from citewise.server.runstore import RunStore
from citewise.server.services import Services
from citewise.server.tail import tail
from citewise.server.thread_guard import ThreadGuard
from citewise.server.writer import Append, Call, LogWriter, Publish
from citewise.store.base import CANCEL_PREFIX

if TYPE_CHECKING:
    from citewise.agent.runner import Agent
    from citewise.agent.state import Decision, RunSettings
    from citewise.agent.tools import Tool
    from citewise.store.base import RunRecord, Store, ThreadRecord, TurnRecord

__all__ = ["CANCEL_PREFIX", "Frame", "LiveRun", "RunManager", "RunOptions"]

log = logging.getLogger("citewise.server")



class RunManager:
    """Starts, resumes, cancels and tails runs for one process."""

    def __init__(self, services: Services, writer: LogWriter, config: ServerConfig) -> None:
        self.services = services
        self.writer = writer
        self.config = config
        self.live: dict[str, LiveRun] = {}
        self.slots = RunSlots(config.max_concurrent_runs)
        self.threads = ThreadGuard()
        self.remote_cancels = RemoteCancels(self)
        self.stats = {"started": 0, "max_live": 0}

    @property
    def store(self) -> Store:
        return self.services.store

    def get_live(self, tenant: str, run_id: str) -> LiveRun | None:
        live = self.live.get(run_id)
        return live if live is not None and live.tenant == tenant else None

    def active(self, tenant: str | None = None) -> list[LiveRun]:
        return [r for r in self.live.values()
                if not r.done and (tenant is None or r.tenant == tenant)]

    # -- starting --------------------------------------------------------------------------

    def _check_question(self, question: str) -> None:
        if not question.strip():
            raise EmptyQuestion("the question is empty")
        limit = self.config.max_question_chars
        if len(question) > limit:
            raise InvalidInput(f"the question is longer than {limit} characters",
                               code="question_too_long", details={"max": limit})
        check_question_text(question)

    def _settings(self, options: RunOptions) -> RunSettings:
        from citewise.agent.state import RunSettings

        steps = min(options.max_steps or self.config.max_steps, self.config.max_steps)
        return RunSettings(max_steps=steps, strict=options.strict)

    def _agent(self, tenant: str, run_store: RunStore, settings: RunSettings,
               tools: Sequence[Tool] = ()) -> Agent:
        return self.services.agent(tenant, cast("Store", run_store), settings, tools)

    def _run_store(self, tenant: str, thread: ThreadRecord | None = None,
                   turns: Sequence[TurnRecord] | None = None) -> RunStore:
        return RunStore(self.store, self.writer, tenant, thread=thread, turns=turns,
                        settings=self._setting)

    async def start(self, tenant: str, question: str, *, thread_id: str | None = None,
                    options: RunOptions | None = None) -> LiveRun:
        """Validate, then start the run in the background; returns at once."""
        options = options or RunOptions()
        self._check_question(question)
        settings = self._settings(options)
        self.slots.acquire(tenant)
        try:
            # A delete of the thread must not slip in before the run is live (it would
            # write the thread back): the thread is claimed until then.
            with self.threads.starting(tenant, thread_id) if thread_id else nullcontext():
                live = await self._start(tenant, question, thread_id, options, settings)
        except BaseException:
            self.slots.release(tenant)
            raise
        return live

    async def _start(self, tenant: str, question: str, thread_id: str | None,
                     options: RunOptions, settings: RunSettings) -> LiveRun:
        from citewise.agent.runner import new_id

        run_id = new_id("run")
        if thread_id is not None:
            thread, turns = await asyncio.to_thread(_load_thread, self.store, tenant, thread_id)
            if thread is None:
                raise NotFound(f"unknown thread {thread_id!r}", code="unknown_thread",
                               details={"thread_id": thread_id})
            run_store = self._run_store(tenant, thread, turns)
            new_thread = False
        else:
            from citewise.store.base import ThreadRecord

            thread_id = new_id("thread")
            now = datetime.now(UTC)
            # Known to this run's store view now, written only once the request is valid.
            run_store = self._run_store(tenant, ThreadRecord(
                id=thread_id, tenant=tenant, title=question[:80], created_at=now,
                updated_at=now), [])
            new_thread = True
        agent = self._agent(tenant, run_store, settings, options.tools)
        from citewise.server.run_extras import configure_agent

        configure_agent(self.services, tenant, agent, options)
        # Validate before anything is written: a bad schema or thread writes nothing.
        agent.prepare(question, thread_id=thread_id, run_id=run_id,
                      output_schema=options.output_schema)
        from citewise.server.run_extras import remember

        await asyncio.to_thread(remember, self.services, tenant, run_id, options)
        if new_thread:
            run_store.create_thread(tenant, thread_id, title=question[:80])
        live = LiveRun(tenant, run_id, thread_id, question, agent, first_seq=1)
        stream = agent.stream(question, thread_id=thread_id, run_id=run_id,
                              settings=settings, output_schema=options.output_schema)
        self._launch(live, stream, None)
        return live

    async def resume(self, tenant: str, run_id: str, decisions: Sequence[Decision],
                     options: RunOptions | None = None) -> LiveRun:
        """Continue a paused run (refusals are raised before anything is written)."""
        live = self.get_live(tenant, run_id)
        if live is not None and not live.done:
            raise UsageError(f"run {run_id} is running, not paused", code="run_not_paused",
                             details={"status": "running"})
        settings = self._settings(options or RunOptions())
        self.slots.acquire(tenant)
        try:
            agent = self._agent(tenant, self._run_store(tenant), settings)
            from citewise.server.run_extras import configure_resumed

            await asyncio.to_thread(configure_resumed, self.services, tenant, run_id, agent)
            stream = agent.resume(run_id, decisions, settings=settings)
            first = await stream.__anext__()
            # The resumed run is the same run: its start and question are the record's
            # (the continuation's first event carries neither).
            record = await self.record(tenant, run_id)
            live = LiveRun(tenant, run_id, first.thread_id,
                           record.question if record is not None else "", agent,
                           first_seq=first.seq)
            if record is not None:
                live.created_at = record.created_at
            self._launch(live, stream, first)
        except BaseException:
            self.slots.release(tenant)
            raise
        return live

    def _launch(self, live: LiveRun, stream: AsyncIterator[Event], first: Event | None) -> None:
        self.live[live.run_id] = live
        self.stats["started"] += 1
        self.stats["max_live"] = max(self.stats["max_live"], len(self.active()))
        live.task = asyncio.create_task(self._drive(live, stream, first),
                                        name=f"citewise-run-{live.run_id}")
        self.remote_cancels.watch()

    async def _drive(self, live: LiveRun, stream: AsyncIterator[Event],
                     first: Event | None) -> None:
        try:
            if first is not None:
                self._emit(live, first)
            async for event in stream:
                self._emit(live, event)
                if event.kind == "action" and not await self.writer.barrier(live.run_id):
                    # A tool runs only once its call is durable — and so known to be this
                    # process's to make: a run lost while this process stalled (its lease
                    # taken over by another replica) has its action refused, and the
                    # failed publish has stopped it (LiveRun.deliver). See store._run_fence.
                    return
                if self.writer.backlog > self.config.max_write_backlog:
                    await self.writer.barrier()  # back-pressure: let the writer catch up
        except asyncio.CancelledError:
            self._stop(live, live.stop_code or "run_interrupted")
        except Exception:
            log.exception("run %s crashed outside the agent loop", live.run_id)
            self._stop(live, "internal_error")
        finally:
            self.slots.release(live.tenant)
            self.writer.submit(Publish(live.run_id, partial(self._finished, live)))

    def _emit(self, live: LiveRun, event: Event) -> None:
        live.last_seq = event.seq
        if event.is_terminal:
            live.produced_terminal = True
        frame = Frame(event.seq, event.kind, event_json(event))
        self.writer.submit(Publish(live.run_id, partial(live.deliver, frame, event)))

    def _stop(self, live: LiveRun, code: str) -> None:
        """End a run whose task was stopped before the agent emitted its terminal event."""
        if live.produced_terminal:
            return
        from citewise.answer import Answer, ErrorInfo
        from citewise.store.base import EventRecord, JSONText

        cancelled = code == "run_cancelled"
        message = ("the run was cancelled" if cancelled
                   else "the run was stopped before it finished")
        answer = Answer(run_id=live.run_id, thread_id=live.thread_id, question=live.question,
                        status="cancelled" if cancelled else "failed",
                        error=ErrorInfo(code=code, message=message))
        event = ErrorEvent(run_id=live.run_id, thread_id=live.thread_id, seq=live.last_seq + 1,
                           code=code, message=message, answer=answer)
        record = EventRecord(run_id=live.run_id, seq=event.seq, kind=event.kind,
                             data=JSONText(event_json(event)))
        # Fenced like the agent's own writes: a run another process took over gets nothing.
        owner: str | None = getattr(live.agent.store, "owner", None)
        self.writer.submit(Append(live.tenant, [record],
                                  {live.run_id: owner} if owner is not None else None))
        self.writer.submit(Call("transition_run",
                                (live.tenant, live.run_id, ("running",),
                                 "cancelled" if cancelled else "failed"), live.run_id,
                                {"owner": owner}))
        self._emit(live, event)

    def _finished(self, live: LiveRun, ok: bool) -> None:
        if not live.done:
            live.end(None)
        loop = asyncio.get_running_loop()
        loop.call_later(self.config.retain_s, self._drop, live)

    def forget_thread(self, tenant: str, thread_id: str) -> None:
        """Drop the in-memory events of a deleted thread's finished runs."""
        for live in list(self.live.values()):
            if live.tenant == tenant and live.thread_id == thread_id and live.done:
                self._drop(live)

    def _drop(self, live: LiveRun) -> None:
        if self.live.get(live.run_id) is live:
            del self.live[live.run_id]
            self.writer.forget(live.run_id)

    # -- cancelling ------------------------------------------------------------------------

    async def cancel(self, tenant: str, run_id: str) -> str:
        """Cancel a running or paused run; returns its status afterwards."""
        live = self.get_live(tenant, run_id)
        if live is not None and not live.done and live.task is not None:
            if not live.produced_terminal:
                started = live.last_seq >= live.first_seq  # the agent's flag exists
                if started and live.agent.cancel(run_id):
                    try:
                        await asyncio.wait_for(asyncio.shield(live.finished),
                                               self.config.cancel_grace_s)
                    except TimeoutError:
                        pass
                if not live.done and not live.produced_terminal:
                    live.stop_code = "run_cancelled"
                    live.task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(live.finished), 30.0)
            except TimeoutError:
                return "running"
            return live.status
        record = await asyncio.to_thread(self.store.get_run, tenant, run_id)
        if record is None:
            raise NotFound(f"unknown run {run_id!r}", code="unknown_run",
                           details={"run_id": run_id})
        if record.status in ("completed", "failed", "cancelled"):
            raise UsageError(f"run {run_id} already ended ({record.status})", code="run_finished",
                             details={"status": record.status})
        from citewise.agent.cancels import cancel_run

        if live is not None:  # a paused run of ours: its log continues in the store now
            self._drop(live)
        await asyncio.to_thread(cancel_run, self.store, tenant, run_id)
        if record.status == "paused":
            after = await asyncio.to_thread(self.store.get_run, tenant, run_id)
            return after.status if after is not None else "cancelled"
        # Driven by another process: wait (a while) for it to honour the request.
        deadline = time.monotonic() + self.config.cancel_grace_s + 4 * self.config.poll_interval_s
        while time.monotonic() < deadline:
            await asyncio.sleep(self.config.poll_interval_s)
            after = await asyncio.to_thread(self.store.get_run, tenant, run_id)
            if after is not None and after.status == "paused":  # before it saw the request
                await asyncio.to_thread(cancel_run, self.store, tenant, run_id)
                after = await asyncio.to_thread(self.store.get_run, tenant, run_id)
            if after is not None and after.status != "running":
                return after.status
        return "cancelling"

    def _setting(self, key: str) -> str | None:
        """Settings an agent reads, from memory: the feedback secret."""
        return self.services.cached_setting(key)

    # -- reading ---------------------------------------------------------------------------

    async def record(self, tenant: str, run_id: str) -> RunRecord | None:
        return await asyncio.to_thread(self.store.get_run, tenant, run_id)

    async def open_tail(self, tenant: str, run_id: str,
                        after: int = 0) -> AsyncIterator[Frame | None]:
        """The run's events after ``after``, live; ``None`` items mean "send a heartbeat".

        Raises ``NotFound`` (before anything is streamed) for an unknown run, or a run of
        another tenant.
        """
        return flatten(await self.open_batches(tenant, run_id, after))

    async def open_batches(self, tenant: str, run_id: str,
                           after: int = 0) -> AsyncIterator[list[Frame] | None]:
        """Like :meth:`open_tail`, but every frame available at once comes as one list
        (one socket write for the events one writer tick made durable)."""
        live = self.get_live(tenant, run_id)
        # A run that ended here is looked up too: another replica may have deleted it since.
        if (live is None or live.done) and await self.record(tenant, run_id) is None:
            raise NotFound(f"unknown run {run_id!r}", code="unknown_run",
                           details={"run_id": run_id})
        return tail(self, tenant, run_id, max(0, after))

    # -- lifetime --------------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Stop every run of this process (each ends with a terminal event), then flush."""
        runs = [r for r in self.live.values() if r.task is not None and not r.task.done()]
        for live in runs:
            live.stop_code = live.stop_code or "run_interrupted"
            assert live.task is not None
            live.task.cancel()
        for live in runs:
            assert live.task is not None
            try:
                await live.task
            except BaseException:
                pass  # the task logged its own failure
        await self.remote_cancels.close()
        await self.writer.barrier()


def _load_thread(store: Store, tenant: str,
                 thread_id: str) -> tuple[ThreadRecord | None, list[TurnRecord]]:
    thread = store.get_thread(tenant, thread_id)
    return thread, (store.list_turns(tenant, thread_id) if thread is not None else [])
