"""The ReAct loop: an async generator of events. No HTTP, storage or printing in here.

thought → action (tool call) → observation → … → answer. The loop mutates the
:class:`RunState` it is given, so the caller can persist it (a paused run resumes from it).
Whatever happens — a tool raising, an unknown tool, the model failing, a budget spent —
the stream ends with exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Sequence
from functools import partial
from typing import Any

from citewise._construct import trusted
from citewise.agent.budgets import check_budgets
from citewise.agent.context import RunContext
from citewise.agent.deadlines import deadline
from citewise.agent.emitter import Emitter
from citewise.agent.hooks import RunHook, scrubber
from citewise.agent.interrupts import (
    CLOSING_PROMPT,
    ApprovalPolicy,
    dynamic_interrupt,
    ended_by_tool,
    pause_event,
    plan_interrupts,
    set_approved,
)
from citewise.agent.records import account, summary, trace_entry
from citewise.agent.state import Decision, RunSettings, RunState
from citewise.agent.structured import check_structured, repair_prompt, verified_structured
from citewise.agent.tools import Tool, ToolResult, Toolset, as_result
from citewise.answer import ErrorInfo, ToolCallRecord
from citewise.errors import (
    ApprovalRequired,
    CitewiseError,
    InvalidInput,
    ModelError,
    ModelRetry,
    RunCancelled,
    RunFailure,
)
from citewise.events import (
    Action,
    AnswerDelta,
    Citation,
    ErrorEvent,
    Event,
    Observation,
    RunFinished,
    RunPaused,
    RunStarted,
    Thought,
)
from citewise.grounding.assemble import assemble_answer
from citewise.grounding.relevance import UNSUPPORTED_NOTE, noted, question_of
from citewise.grounding.values import link_values
from citewise.grounding.verify import Verifier
from citewise.grounding.weak_evidence import rate_evidence
from citewise.models.base import (
    AssistantMessage,
    EvidencePart,
    Model,
    ModelRequest,
    TextDelta,
    ToolCall,
    ToolCallPart,
    ToolMessage,
    UsagePart,
    UserMessage,
)
from citewise.models.pricing import default_table

__all__ = ["run_agent"]

_msg_ids = itertools.count(1)


class _Paused(Exception):
    """Internal: a tool asked for approval while its step ran; carries ``run_paused``."""

    def __init__(self, event: RunPaused) -> None:
        super().__init__("paused")
        self.event = event


async def run_agent(
    state: RunState,
    *,
    model: Model,
    tools: Toolset,
    settings: RunSettings | None = None,
    deps: Any = None,
    hooks: Sequence[RunHook] = (),
    cancel: asyncio.Event | None = None,
    approval_policy: ApprovalPolicy | None = None,
    verifier: Verifier | None = None,
) -> AsyncIterator[Event]:
    """Run (or resume) ``state`` to its end, yielding every event as it happens."""
    settings = settings or RunSettings()
    # Answer text is held back (sent once, after verification and hooks) when it may change.
    buffered = (settings.strict or settings.output_schema is not None or settings.buffer_answer
                or any(getattr(h, "buffers_answer", False) for h in hooks))
    scrub = scrubber(hooks)  # reasoning is held back and rewritten (see agent.hooks)
    emit = Emitter(state)
    resumed = bool(state.pending_calls) or state.step > 0
    state.status = "running"
    state.model = state.model or model.name
    yield emit(RunStarted, question=state.question, model=model.name, resumed=resumed)
    ctx = RunContext(
        run_id=state.run_id, thread_id=state.thread_id, ledger=state.ledger,
        deps=deps, step=state.step, tenant=state.tenant, query=state.query,
        carried_terms=tuple(state.query_details.carried_terms) if state.query_details else (),
    )
    started = time.perf_counter()
    prices = default_table()  # one price list for the whole run (read once, not per step)
    try:
        for hook in hooks:
            for ev in hook.on_start(state, emit):
                yield ev
        ended_by: str | None = None
        repairs = 0
        if state.pending_calls:
            try:
                async for ev in _execute(state, state.pending_calls, tools, ctx, settings, hooks,
                                         emit):
                    yield ev
            except _Paused as paused:
                yield paused.event
                return
            ended_by = ended_by_tool(state, tools)
            state.pending_calls = []
            state.interrupts = []
            state.decisions = []
            ctx.step = state.next_step()
        while True:
            closing = ended_by is not None
            check_budgets(state, settings, cancel, started, closing)
            messages = list(state.messages)
            if ended_by is not None:  # one closing sentence, no tools, not kept in the state
                messages.append(UserMessage(content=CLOSING_PROMPT.format(tool=ended_by)))
            # Built from already-validated parts (state messages, cached tool specs, the
            # settings' schema): re-validating every message each step cost O(history).
            request = trusted(ModelRequest, {
                "messages": messages,
                "tools": [] if closing else tools.specs(),
                "output_schema": settings.output_schema,
                "step": state.step,
            })
            if settings.debug:
                state.debug_requests.append(request.model_dump(mode="json"))
            text: list[str] = []
            thought: list[str] = []
            calls: list[ToolCall] = []
            t0 = time.perf_counter()
            thought_id = f"msg_{next(_msg_ids)}"
            answer_id = f"msg_{next(_msg_ids)}"
            in_tok = out_tok = 0
            estimate: EvidencePart | None = None  # the model's, for this turn
            thinking = answering = False  # a streamed reasoning / answer message is open
            parts = model.stream(request)
            try:
                async for part in parts:
                    if isinstance(part, TextDelta):
                        if part.channel == "thought":
                            thought.append(part.text)
                            # Reasoning after the answer started is kept (trace, history)
                            # but not streamed: it would interleave with the open answer.
                            if scrub is None and not answering:
                                thinking = True
                                yield emit(Thought, message_id=thought_id, step=state.step,
                                           text=part.text)
                        else:
                            text.append(part.text)
                            if not buffered:
                                if thinking:  # the reasoning ends where the answer starts
                                    thinking = False
                                    yield emit(Thought, message_id=thought_id, step=state.step,
                                               text="", end_of_message=True)
                                answering = True
                                yield emit(AnswerDelta, message_id=answer_id, text=part.text)
                    elif isinstance(part, ToolCallPart):
                        calls.append(part.call)
                    elif isinstance(part, UsagePart):
                        in_tok += part.input_tokens
                        out_tok += part.output_tokens
                    elif isinstance(part, EvidencePart):
                        estimate = part
                    if cancel is not None and cancel.is_set():
                        raise RunCancelled("the run was cancelled")
            except CitewiseError:
                raise
            except Exception as exc:  # a model adapter must not crash the run
                raise ModelError(f"model {model.name} failed: {exc}",
                                 details={"type": type(exc).__name__}) from exc
            finally:
                # Close the model's stream now (an HTTP response, a llama thread), not at GC.
                await parts.aclose()
            if thought and scrub is not None:
                thought = [scrub("".join(thought))]
                yield emit(Thought, message_id=thought_id, step=state.step, text=thought[0])
            if (thought and scrub is not None) or thinking:
                yield emit(Thought, message_id=thought_id, step=state.step, text="",
                           end_of_message=True)
            account(state, model.name, in_tok, out_tok, prices)
            duration = (time.perf_counter() - t0) * 1000
            if calls and not closing:
                # Text beside tool calls is reasoning, whatever channel it came on.
                beside = "".join(text)
                reasoning = "".join(thought) + (scrub(beside) if scrub and beside else beside)
                state.messages.append(trusted(AssistantMessage, {
                    "role": "assistant", "content": reasoning, "tool_calls": calls}))
                state.trace.append(trace_entry(state.step, "thought", thought=reasoning or None,
                                          duration_ms=duration, input_tokens=in_tok,
                                          output_tokens=out_tok))
                if cancel is not None and cancel.is_set():
                    # Asked after the model's last part: no tool runs, and no pause.
                    raise RunCancelled("the run was cancelled")
                interrupts = plan_interrupts(state, calls, tools, settings, approval_policy)
                if interrupts:
                    yield pause_event(state, emit, interrupts, calls)
                    return
                # The model turn's locals would live on in this frame while the tools
                # run: ~12 objects per run for the cyclic GC to walk, again and again,
                # when many runs wait on their tools at once.
                del request, messages, parts, part, text, thought, interrupts
                try:
                    async for ev in _execute(state, calls, tools, ctx, settings, hooks, emit):
                        yield ev
                except _Paused as paused:
                    yield paused.event
                    return
                ended_by = ended_by_tool(state, tools)
                ctx.step = state.next_step()
                continue
            final_text = "".join(text) or ("".join(thought) if not calls else "")
            state.messages.append(trusted(AssistantMessage, {
                "role": "assistant", "content": final_text, "tool_calls": []}, {"content"}))
            structured: Any = None
            if settings.output_schema is not None:
                # In a worker thread: the schema is the caller's and the text quotes
                # documents (agent.safe_schema bounds it; the event loop must not wait on it).
                structured, why = await asyncio.to_thread(check_structured, final_text,
                                                          settings.output_schema)
                if why is not None:
                    repairs += 1
                    if repairs > settings.max_repairs:
                        raise RunFailure(
                            f"no schema-valid answer after {settings.max_repairs} repairs: {why}",
                            code="structured_output_invalid", details={"reason": why},
                        )
                    yield emit.warning("structured_output_repair", why, attempt=repairs)
                    state.messages.append(UserMessage(
                        content=repair_prompt(why, settings.output_schema)))
                    state.next_step()
                    continue
            state.trace.append(trace_entry(state.step, "answer", thought="".join(thought) or None,
                                      duration_ms=duration, input_tokens=in_tok,
                                      output_tokens=out_tok))
            n_issues = len(state.issues)
            assemble = partial(
                assemble_answer, state, final_text, ended_by_tool=ended_by, verifier=verifier,
                settings=settings.model_copy(update={"strict": False}) if closing else settings)
            if verifier is not None and (verifier.embed or verifier.relevance_embed):
                # A model runs in verification: off the event loop, which other runs share.
                answer, findings = await asyncio.to_thread(assemble)
            else:
                answer, findings = assemble()
            if closing:  # the closing sentence after an ends_run tool asserts nothing to cite
                findings = [f for f in findings if f.code != "uncited_claim"]
                state.issues[n_issues:] = findings
            has_note = answer.text.endswith(UNSUPPORTED_NOTE)  # assembly's note, not an edit
            if structured is not None and answer.text != (
                    noted(final_text) if has_note else final_text):
                structured = await asyncio.to_thread(
                    verified_structured, answer, structured, settings.output_schema,
                    state.issues, findings)
            answer.structured = structured
            if structured is not None:  # every leaf value tied to the citations it rests on
                unbacked = link_values(answer, structured, state.ledger, question_of(state),
                                       verifier)
                state.issues.extend(unbacked)
                findings.extend(unbacked)
            # The model's estimate in the Answer, and its flag (a closing sentence after a
            # tool that ended the run answers nothing: none).
            weak = rate_evidence(answer, None if closing else estimate)
            state.issues.extend(weak)
            findings.extend(weak)
            if text and not buffered:  # what assembly added at the end streams too
                if has_note:
                    yield emit(AnswerDelta, message_id=answer_id,
                               text=noted(final_text)[len(final_text):])
                yield emit(AnswerDelta, message_id=answer_id, text="", end_of_message=True)
            for issue in findings if not buffered else ():  # streaming: say it at once
                yield emit.warning(issue.code, issue.message, **issue.details)
            for hook in hooks:  # before anything held back goes out: hooks may redact it
                for ev in hook.on_answer(state, answer, emit):
                    yield ev
            if buffered:
                for issue in findings:
                    yield emit.warning(issue.code, issue.message, **issue.details)
                yield emit(AnswerDelta, message_id=answer_id, text=answer.text, end_of_message=True)
            for cit in answer.citations:
                doc = state.ledger.document(cit.document_index)
                yield emit(Citation, citation=cit, source=doc.source if doc else "")
            answer.issues = list(state.issues)
            state.status = "completed"
            yield emit(RunFinished, answer=answer)
            return
    except RunFailure as exc:
        yield _fail(state, emit, exc.code, exc.message, exc.details,
                    cancelled=isinstance(exc, RunCancelled))
    except Exception as exc:  # the last line of defence: never a traceback, always a terminal
        yield _fail(state, emit, "internal_error", f"{type(exc).__name__}: {exc}", {})


def _fail(state: RunState, emit: Emitter, code: str, message: str,
          details: dict[str, Any], *, cancelled: bool = False) -> ErrorEvent:
    state.status = "cancelled" if cancelled else "failed"
    answer, _ = assemble_answer(state, "", settings=RunSettings(), ended_by_tool=None)
    answer.status = state.status
    answer.error = ErrorInfo(code=code, message=message, details=details)
    return emit(ErrorEvent, code=code, message=message, details=details, answer=answer)


async def _execute(
    state: RunState, calls: Sequence[ToolCall], tools: Toolset, ctx: RunContext,
    settings: RunSettings, hooks: Sequence[RunHook], emit: Emitter,
) -> AsyncIterator[Event]:
    decisions = {d.interrupt_id: d for d in state.decisions}
    by_call = {i.call_id: decisions.get(i.id) for i in state.interrupts}
    for i, call in enumerate(calls):
        t = tools.get(call.name)
        decision = by_call.get(call.id)
        arguments = call.arguments
        if decision is not None and decision.action == "edit" and decision.input is not None:
            arguments = decision.input
        yield emit(Action, call_id=call.id, step=state.step, tool=call.name, input=arguments)
        t0 = time.perf_counter()
        set_approved(ctx, decision)
        try:
            result, is_error = await _invoke(t, call, arguments, decision, ctx, settings)
        except ApprovalRequired as exc:  # pause here; this call and the rest run on resume
            assert t is not None
            interrupt = dynamic_interrupt(state, call, t, exc.message, settings)
            raise _Paused(pause_event(state, emit, [interrupt], calls[i:])) from None
        duration = (time.perf_counter() - t0) * 1000
        text = result.text
        for hook in hooks:
            for ev in hook.on_tool_result(state, call, result, duration, emit):
                yield ev
        yield emit(Observation, call_id=call.id, step=state.step, tool=call.name, text=text,
                   is_error=is_error, duration_ms=duration)
        # The records below hold values validated where they entered the run (the model's
        # call, the tool's result): built as they are, proven equal to validated ones in tests.
        state.messages.append(trusted(ToolMessage, {
            "role": "tool", "call_id": call.id, "name": call.name, "content": text,
            "is_error": is_error, "data": result.data}))
        state.tool_calls.append(trusted(ToolCallRecord, {
            "id": call.id, "name": call.name, "arguments": arguments, "is_error": is_error}))
        state.trace.append(trace_entry(state.step, "tool", tool=call.name, tool_input=arguments,
                                  observation=summary(result, text), duration_ms=duration))


async def _invoke(
    t: Tool | None, call: ToolCall, arguments: dict[str, Any], decision: Decision | None,
    ctx: RunContext, settings: RunSettings,
) -> tuple[ToolResult, bool]:
    if decision is not None and decision.action == "reject":
        why = decision.message or "no reason given"
        return ToolResult(text=f"The user rejected this call: {why}"), True
    if decision is not None and decision.action == "result":
        data = decision.result
        return as_result(data), False
    if t is None:
        return ToolResult(text=f"Error: unknown tool {call.name!r}."), True
    try:
        args = t.validate(arguments)
        if t.external:
            return ToolResult(text=f"Error: {t.name} runs at the host; no result was given."), True
        timeout = settings.tool_timeout or t.timeout
        with deadline(timeout):
            if t.is_async:
                return await t.call(ctx, args), False
            return await asyncio.to_thread(t.call_sync, ctx, args), False
    except InvalidInput as exc:
        return ToolResult(text=f"Error: {exc.message}"), True
    except ModelRetry as exc:
        return ToolResult(text=f"Error: {exc.message}"), True
    except TimeoutError:
        return ToolResult(text=f"Error: {t.name} timed out after {timeout:g}s"), True
    except ApprovalRequired as exc:
        if decision is None:
            raise
        return ToolResult(text=f"Error: {t.name} still requires approval: {exc.message}"), True
    except RunFailure:
        raise
    except Exception as exc:  # a tool's bug is the model's observation, not our crash
        return ToolResult(text=f"Error: {t.name} failed: {type(exc).__name__}: {exc}"), True
