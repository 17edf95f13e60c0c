"""``Agent``: the host around the loop — threads, the durable event log, resume.

The loop (:mod:`citewise.agent.loop`) is pure; this is where a run meets storage. Events
are yielded to the caller as the loop makes them and appended to the store's event log in
batches (always flushed before a terminal event is handed out, so a finished or paused run
is fully on disk when its caller sees the end).
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from citewise.agent.hooks import RunHook
from citewise.agent.loop import run_agent
from citewise.agent.prompts import SYSTEM_PROMPT
from citewise.agent.state import Decision, RunSettings, RunState, check_question_text
from citewise.agent.threads import ThreadHistory
from citewise.agent.tools import Tool, Toolset
from citewise.answer import Answer
from citewise.errors import EmptyQuestion, InvalidInput, UsageError
from citewise.events import Event
from citewise.grounding.verify import Verifier
from citewise.models.base import AssistantMessage, Message, Model, SystemMessage, UserMessage

if TYPE_CHECKING:
    from citewise.agent.cancel_watch import CancelWatch
    from citewise.agent.group_commit import GroupCommit
    from citewise.agent.interrupts import ApprovalPolicy
    from citewise.guardrails.registry import GuardrailSpec
    from citewise.knowledge.base import KnowledgeBase
    from citewise.store.base import Store

__all__ = ["MAX_QUESTION_CHARS", "Agent"]

MAX_QUESTION_CHARS = 8000
_FLUSH_EVERY = 64


def new_id(prefix: str) -> str:
    # 80 random bits, as the uuid4 hex prefix this replaced, without building a UUID.
    return f"{prefix}_{os.urandom(10).hex()}"


class Agent:
    """Ask questions over a knowledge base, streaming every step.

    ``model`` is a :class:`~citewise.models.base.Model` or a model string (``extractive``,
    ``openai-compat:URL#name``, …). Without a ``store`` nothing is persisted and threads
    live in memory.
    """

    def __init__(
        self,
        kb: KnowledgeBase | None = None,
        *,
        model: Model | str = "extractive",
        tools: Iterable[Tool | Callable[..., Any]] = (),
        store: Store | None = None,
        settings: RunSettings | None = None,
        hooks: Sequence[RunHook] = (),
        tenant: str | None = None,
        system_prompt: str = SYSTEM_PROMPT,
        approval_policy: ApprovalPolicy | None = None,
        guardrails: GuardrailSpec | None = None,
        event_batch: int = _FLUSH_EVERY,
        provenance: bool = True,
        cancel_poll_s: float | None = 0.2,
        verifier: Verifier | None = None,
    ) -> None:
        self.kb = kb
        self.model: Model = resolve(model) if isinstance(model, str) else model
        self.store: Store | None = store if store is not None else (kb.store if kb else None)
        self.tools = Toolset()
        if kb is not None:
            from citewise.agent.search_tool import make_search_tool

            self.tools.add(make_search_tool(kb))
        for t in tools:
            self.tools.add(t)
        self.settings = settings or RunSettings()
        self.hooks = list(hooks)
        if kb is not None:  # every search_knowledge call counted into query_details
            from citewise.agent.search_tool import SearchDetailsRecorder

            self.hooks.append(SearchDetailsRecorder())
        if guardrails:
            from citewise.guardrails.registry import load_guardrails

            self.hooks += load_guardrails(guardrails)
        if provenance:
            from citewise.grounding.provenance import ProvenanceRecorder

            self.hooks.append(ProvenanceRecorder())
        if self.store is not None:
            from citewise.grounding.feedback import FeedbackTokenHook, get_or_create_secret

            self.hooks.append(FeedbackTokenHook(get_or_create_secret(self.store)))
        from citewise.agent.outputs import RunOutputs

        #: UI commands, the thread's context, persona, audio/image (seed 001); last, so it
        #: sees the answer as every other hook left it.
        self.outputs = RunOutputs()
        self.hooks.append(self.outputs)
        if verifier is None and kb is not None:
            # The knowledge base's embedder, when it has one, also judges whether each
            # cited passage addresses the question (grounding.relevance).
            from citewise.models.sentence_similarity import relevance_embed

            embedder = getattr(getattr(kb, "dense", None), "embedder", None)
            verifier = Verifier(document_text=kb.document_text,
                                relevance_embed=relevance_embed(embedder))
        self.verifier = verifier
        self.approval_policy = approval_policy
        # Events per store write. A host that must send each event only once it is durable
        # (the HTTP service) uses 1 and group-commits on its side.
        self.event_batch = max(1, event_batch)
        # How often a run checks the store for a cancel from another process (the same
        # watcher renews the run's lease, see agent.lease); None turns it off, for a host
        # that does both for all its runs.
        self.cancel_poll_s = cancel_poll_s
        #: Whose threads and runs: ``tenant``, else the knowledge base's, else "default".
        if tenant is not None:
            from citewise.store.base import check_tenant

            tenant = check_tenant(tenant)
        self.tenant = tenant if tenant is not None else (
            kb.tenant if kb is not None else "default")
        self.system_prompt = system_prompt
        self._threads = ThreadHistory(self.store, self.tenant)
        self._cancels: dict[str, asyncio.Event] = {}
        self._watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, CancelWatch] = (
            weakref.WeakKeyDictionary())
        self._groups: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, GroupCommit] = (
            weakref.WeakKeyDictionary())

    # -- public API -------------------------------------------------------------------

    def stream(
        self,
        question: str,
        *,
        thread_id: str | None = None,
        run_id: str | None = None,
        settings: RunSettings | None = None,
        output_schema: dict[str, Any] | None = None,
    ) -> AsyncIterator[Event]:
        """Run the agent on ``question``; yields every event, the terminal one last.

        Nothing happens until the first event is asked for (a bad argument raises then)."""
        # The run's own generator, not one wrapped in another: every event of every step
        # would pass through the extra layer.
        return self._drive(partial(
            self.prepare, question, thread_id=thread_id, run_id=run_id, settings=settings,
            output_schema=output_schema))

    async def ask_async(self, question: str, **kwargs: Any) -> Answer:
        """Run to the end and return the Answer (``status`` says if it paused or failed)."""
        answer: Answer | None = None
        async for event in self.stream(question, **kwargs):
            if event.kind in ("run_finished", "run_paused", "error"):
                answer = getattr(event, "answer", None)
        assert answer is not None, "every run ends with a terminal event carrying an answer"
        return answer

    def ask(self, question: str, **kwargs: Any) -> Answer:
        """Synchronous :meth:`ask_async` (not from inside a running event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ask_async(question, **kwargs))
        raise UsageError("Agent.ask() cannot run inside an event loop; use await ask_async()",
                         code="sync_in_async")

    async def stream_as(self, question: str, *, format: str,
                        **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        """:meth:`stream` in a wire format (``trustgraph``, ``ag-ui``, ``openai``, … see
        :mod:`citewise.dialects`): each object as soon as its event happens. An unknown
        ``format`` raises ``InvalidInput`` (``unknown_format``) before the run starts."""
        from citewise.dialects import get_dialect

        encoder = get_dialect(format).encoder()
        # Read the run to its end (the terminal event is its last) so the agent's own
        # clean-up runs; a done encoder maps nothing more.
        async for event in self.stream(question, **kwargs):
            for obj in encoder.feed(event):
                yield obj

    async def respond(self, question: str, *, format: str, **kwargs: Any) -> dict[str, Any]:
        """Run to the end; the final (non-streaming) response in wire format ``format``.
        An unknown ``format`` raises ``InvalidInput`` (``unknown_format``) before the run."""
        from citewise.dialects import final_of, get_dialect
        from citewise.events import ErrorEvent, RunFinished, RunPaused

        dialect = get_dialect(format)
        terminal: RunFinished | RunPaused | ErrorEvent | None = None
        async for event in self.stream(question, **kwargs):
            if isinstance(event, RunFinished | RunPaused | ErrorEvent):
                terminal = event
        assert terminal is not None, "every run ends with a terminal event"
        return final_of(dialect, terminal)

    def resume(
        self, run_id: str, decisions: Sequence[Decision], *, settings: RunSettings | None = None
    ) -> AsyncIterator[Event]:
        """Continue a paused run with one decision per interrupt.

        Refused before anything is written (``unknown_run``, ``run_not_paused``,
        ``run_already_resumed``, ``unknown_interrupt``, ``interrupt_expired``,
        ``invalid_decision``, ``missing_decision``, …); a concurrent second resume loses the
        atomic paused → running move with ``run_already_resumed``.
        """
        from citewise.agent.interrupts import load_for_resume

        def load() -> tuple[RunState, RunSettings]:
            state = load_for_resume(self.store, self.tenant, run_id, decisions, self.tools)
            return state, settings or self.settings

        return self._drive(load, resuming=True)

    def cancel(self, run_id: str) -> bool:
        """Cancel a run; it ends with one terminal ``error`` event, code ``run_cancelled``.

        A run of this process stops at its next check; a paused run is cancelled at once in
        the store; a run another process drives is asked to stop through the store. False
        when there is nothing to cancel (unknown run, or it already ended).
        """
        flag = self._cancels.get(run_id)
        if flag is not None:
            flag.set()
            return True
        if self.store is None:
            return False
        from citewise.agent.cancels import cancel_run

        return cancel_run(self.store, self.tenant, run_id)

    # -- internals --------------------------------------------------------------------

    def prepare(
        self,
        question: str,
        *,
        thread_id: str | None = None,
        run_id: str | None = None,
        settings: RunSettings | None = None,
        output_schema: dict[str, Any] | None = None,
    ) -> tuple[RunState, RunSettings]:
        """Validate the request and build the run's initial state. Writes nothing."""
        if not isinstance(question, str) or not question.strip():
            raise EmptyQuestion("the question is empty")
        if len(question) > MAX_QUESTION_CHARS:
            raise InvalidInput(f"the question is longer than {MAX_QUESTION_CHARS} characters",
                               code="question_too_long", details={"max": MAX_QUESTION_CHARS})
        check_question_text(question)
        run_settings = settings or self.settings
        if output_schema is not None:
            from citewise.agent.structured import check_schema

            check_schema(output_schema)
            run_settings = run_settings.model_copy(update={"output_schema": output_schema})
        history: list[tuple[str, str]] = []
        subject: str | Callable[[], str] = ""
        if thread_id is not None:
            history, subject = self._threads.get(thread_id)
        messages: list[Message] = [SystemMessage(content=self.system_prompt)]
        for q, a in history:
            messages += [UserMessage(content=q), AssistantMessage(content=a)]
        messages.append(UserMessage(content=question))
        state = RunState(
            run_id=run_id or new_id("run"),
            thread_id=thread_id or new_id("thread"),
            question=question,
            model=self.model.name,
            tenant=self.tenant,
            messages=messages,
        )
        if self.kb is not None:  # the question's analysis (seed 003's Query)
            from citewise.agent.search_tool import analyze_question

            state.query, state.query_details = analyze_question(question)
            if history:  # a follow-up searches with its thread's subject (agent.followups)
                from citewise.agent.followups import rewrite

                follow = rewrite(question, history, subject)
                if follow is not None:
                    state.query_details = state.query_details.model_copy(update={
                        "rewritten_query": follow.rewritten,
                        "carried_terms": list(follow.carried)})
        return state, run_settings

    async def _drive(self, start: Callable[[], tuple[RunState, RunSettings]],
                     resuming: bool = False) -> AsyncIterator[Event]:
        from citewise.agent.persist import RunRecorder

        state, settings = start()  # on the first event asked for, as a generator would
        del start  # not kept alive (with what it holds) for as long as the run lasts
        store = self.store
        recorder = None
        if store is not None:
            recorder = RunRecorder(store, state, flush_every=self.event_batch,
                                   group=self._group_commit(store))
            await recorder.begin(resuming=resuming)
        cancel = self._cancels.setdefault(state.run_id, asyncio.Event())
        watch = None
        if store is not None and self.cancel_poll_s is not None:
            # A cancel asked for by another process arrives through the store, and the
            # run's lease is kept there: one watch for all runs of this agent and loop.
            watch = self._watch(store, self.cancel_poll_s)
            watch.watch(state.tenant, state.run_id, cancel)
        try:
            async for event in run_agent(state, model=self.model, tools=self.tools,
                                         settings=settings, deps=self.kb, hooks=self.hooks,
                                         cancel=cancel, approval_policy=self.approval_policy,
                                         verifier=self.verifier):
                if event.is_terminal:  # before it is stored: the thread's context (seed 001)
                    self.outputs.on_terminal(state, getattr(event, "answer", None))
                if recorder is not None:
                    recorder.add(event)
                    if event.is_terminal:
                        await recorder.finish(event)
                if event.is_terminal:
                    self._remember(state, event)
                yield event
        finally:
            if watch is not None:
                watch.unwatch(state.tenant, state.run_id)
            if recorder is not None:
                recorder.flush()
            self._cancels.pop(state.run_id, None)

    def _watch(self, store: Store, interval: float) -> CancelWatch:
        """This agent's cancel watch on the running event loop."""
        from citewise.agent.cancel_watch import CancelWatch

        return _on_loop(self._watches, lambda: CancelWatch(store, interval))

    def _group_commit(self, store: Store) -> GroupCommit:
        """This agent's group commit on the running event loop."""
        from citewise.agent.group_commit import GroupCommit

        return _on_loop(self._groups, lambda: GroupCommit(store))

    def _remember(self, state: RunState, event: Event) -> None:
        if event.kind == "run_finished":
            self._threads.remember(state.thread_id, state.question, event.answer)


_T = TypeVar("_T")


def _on_loop(held: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _T],
             make: Callable[[], _T]) -> _T:
    """The running event loop's entry of ``held``, made on first use. One loop's tasks and
    futures cannot serve another, and an agent may be used from successive ``asyncio.run``
    calls; the map is weakly keyed, so an ended loop takes its entry with it."""
    loop = asyncio.get_running_loop()
    value = held.get(loop)
    if value is None:
        value = held[loop] = make()
    return value


def resolve(spec: str) -> Model:
    """A model from its string (see :mod:`citewise.models.registry`)."""
    try:
        from citewise.models.registry import resolve_model
    except ImportError:  # the registry module lands with the providers; entry points suffice
        return _from_entry_point(spec)
    return resolve_model(spec)


def _from_entry_point(spec: str) -> Model:
    from importlib.metadata import entry_points

    name, _, rest = spec.partition(":")
    for ep in entry_points(group="citewise.models"):
        if ep.name == name:
            model: Model = ep.load()(rest)
            return model
    raise InvalidInput(f"unknown model {spec!r}", code="unknown_model")
