"""The recorded runs every dialect test renders — built by the real loop, not by hand.

``completed()``: two tool steps (a knowledge search that fills the ledger, an order
lookup), thoughts, answer deltas, two verified citations, an ``uncited_claim`` warning and
explain triples (IRIs, typed and language-tagged literals). ``paused()``: a tool that needs
approval. ``failed()``: a model that runs out of turns. The tests here pin those
properties, so the dialect tests cannot pass on a run that lacks them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from citewise.agent.context import RunContext
from citewise.agent.emitter import Emitter
from citewise.agent.loop import run_agent
from citewise.agent.state import RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.answer import Answer
from citewise.events import ErrorEvent, Event, RunFinished, RunPaused
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import ToolCall
from citewise.models.scripted import ScriptedModel, answer, call, thought
from citewise.triples import Literal_, Triple, iri, lit

REFUNDS = "Refunds are issued within 14 days of the return. Store credit is instant."
SHIPPING = "Orders ship from Berlin. Delivery takes two days."


def policy_kb(root: Path) -> Path:
    """The data dir of a knowledge base under ``root`` holding the two policy pages."""
    from citewise.knowledge.base import KnowledgeBase

    (root / "kb").mkdir()
    (root / "kb" / "refunds.md").write_text(f"# Refunds\n\n{REFUNDS}\n", encoding="utf-8")
    (root / "kb" / "shipping.md").write_text(f"# Shipping\n\n{SHIPPING}\n", encoding="utf-8")
    with KnowledgeBase.open(root / "data") as kb:
        assert len(kb.ingest([root / "kb"]).added) == 2
    return root / "data"
BIG = 2**52  # chunk ids are 53-bit: bigger than int32, still exact in JSON
HITS = [
    Hit(chunk_id=BIG + 11, document_id="doc-refunds", source="kb/refunds.md", text=REFUNDS,
        start_char=0, end_char=len(REFUNDS), field_length=len(REFUNDS), score=2.5,
        title="Refunds", page=1, section="Policy"),
    Hit(chunk_id=BIG + 22, document_id="doc-shipping", source="kb/shipping.md", text=SHIPPING,
        start_char=0, end_char=len(SHIPPING), field_length=len(SHIPPING), score=1.25,
        title="Shipping"),
]
ANSWER_TEXT = ("Refunds are issued within **14 days** of the return [1]. Orders ship from "
               "Berlin [2]. Your order A-17 has shipped.")
PROV = "http://www.w3.org/ns/prov#"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@tool
def search_knowledge(ctx: RunContext, query: str) -> ToolResult:
    """Search the knowledge base.

    Args:
        query: What to look for.
    """
    entries = ctx.ledger.add(HITS)
    lines = [f"[{e.document_index}] {h.text}" for e, h in zip(entries, HITS, strict=True)]
    return ToolResult(text="\n".join(lines), data={"query": query, "hits": len(HITS)})


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look an order up.

    Args:
        order_id: The order number.
    """
    return {"order_id": order_id, "status": "shipped"}


@tool(requires_approval=True)
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an order (needs a human's approval).

    Args:
        order_id: The order number.
        amount: Amount in EUR.
    """
    return f"refunded {amount} for {order_id}"


class ExplainHook:
    """Emits provenance the way the grounding hook does: inline explain events."""

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        run = f"urn:citewise:run:{state.run_id}"
        return [emit.explain(run, [
            Triple(s=iri(run), p=iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                   o=iri(PROV + "Activity"), g="urn:graph:retrieval"),
            Triple(s=iri(run), p=iri(RDFS_LABEL),
                   o=Literal_(v=state.question, lang="en"), g="urn:graph:retrieval"),
        ])]

    def on_tool_result(self, state: RunState, call: ToolCall, result: ToolResult,
                       duration_ms: float, emit: Emitter) -> Sequence[Event]:
        node = f"urn:citewise:run:{state.run_id}:tool:{call.id}"
        return [emit.explain(node, [
            Triple(s=iri(node), p=iri(PROV + "used"), o=lit(call.name), g="urn:graph:retrieval"),
            Triple(s=iri(node), p=iri("urn:citewise:resultSize"),
                   o=lit(len(result.text), dt=XSD + "integer")),
        ])]

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        node = f"urn:citewise:run:{state.run_id}:answer"
        return [emit.explain(node, [
            Triple(s=iri(node), p=iri(PROV + "wasDerivedFrom"),
                   o=iri(f"urn:citewise:chunk:{c}"), g="urn:graph:retrieval")
            for c in answer.context_chunk_ids
        ])]


def _run(run_id: str, question: str, turns: list[Any], tools: Toolset) -> list[Event]:
    state = RunState(run_id=run_id, thread_id=f"thr_{run_id}", question=question)
    model = ScriptedModel(turns, name="scripted-1")

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model, tools=tools,
                                           hooks=[ExplainHook()])]

    return asyncio.run(go())


@cache
def completed() -> tuple[Event, ...]:
    return tuple(_run("run_done", "How fast are refunds, and where is my order A-17?", [
        [thought("I should search the refund policy."),
         call("search_knowledge", query="refund policy")],
        [thought("Now the order."), call("lookup_order", order_id="A-17")],
        [answer(ANSWER_TEXT[:40]), answer(ANSWER_TEXT[40:])],
    ], Toolset([search_knowledge, lookup_order])))


@cache
def paused() -> tuple[Event, ...]:
    return tuple(_run("run_wait", "Refund order A-17", [
        [thought("Search first."), call("search_knowledge", query="refund")],
        [thought("Refund it."), call("issue_refund", order_id="A-17", amount=19.5)],
    ], Toolset([search_knowledge, issue_refund])))


@cache
def failed() -> tuple[Event, ...]:
    # One tool step, then the scripted model has no turn left: the run fails (model_error).
    return tuple(_run("run_fail", "Where is A-17?", [
        [thought("Look it up."), call("lookup_order", order_id="A-17")],
    ], Toolset([lookup_order])))


RUNS = {"completed": completed, "paused": paused, "failed": failed}


def final_answer() -> Answer:
    last = completed()[-1]
    assert isinstance(last, RunFinished)
    return last.answer


# -- the recording has what every dialect must render ---------------------------------------


def test_completed_run_has_tools_citations_warning_and_explain() -> None:
    events = completed()
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_started"
    assert kinds[-1] == "run_finished"
    assert kinds.count("action") == 2
    assert kinds.count("observation") == 2
    assert kinds.count("thought") >= 4  # two thoughts, each deltas + end_of_message
    assert kinds.count("answer_delta") >= 2
    assert kinds.count("citation") == 2
    assert kinds.count("explain") >= 3
    assert [e.code for e in events if e.kind == "warning"] == ["uncited_claim"]
    ans = final_answer()
    assert ans.status == "completed"
    assert [c.document_index for c in ans.citations] == [1, 2]
    assert ans.context_chunk_ids == [BIG + 11, BIG + 22]
    assert ans.text == ANSWER_TEXT
    assert ans.usage.total_tokens > 0
    assert ans.issues and ans.issues[0].code == "uncited_claim"
    triples = [t for e in events if e.kind == "explain" for t in e.triples]
    assert any(isinstance(t.o, Literal_) and t.o.lang == "en" for t in triples)
    assert any(isinstance(t.o, Literal_) and t.o.dt for t in triples)


def test_paused_and_failed_runs_end_as_expected() -> None:
    last = paused()[-1]
    assert isinstance(last, RunPaused)
    assert [i.tool for i in last.interrupts] == ["issue_refund"]
    err = failed()[-1]
    assert isinstance(err, ErrorEvent)
    assert err.code == "model_error"
    assert err.answer is not None and err.answer.status == "failed"
