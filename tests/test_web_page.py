"""The web page in a real Chromium against a real server on loopback with a real
knowledge base: ask → streamed steps → answer; every citation's highlighted span equals
the stored text at its offsets (read from the DOM, compared with the API); next/previous;
a dropped connection reconnects with Last-Event-ID and loses and repeats nothing; Stop;
a paused run approved (and one edited) in the page finishes; feedback is recorded; the
"how" panel and its provenance download; threads (follow-up, rename, delete)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from _web import CuttingProxy, ask, ready, screenshot, serve_with
from citewise.client.sse import SSEDecoder

pytestmark = pytest.mark.slow

FILLER = "".join(f"Section {i} talks about tents, stoves and trail maps in some detail.\n\n"
                 for i in range(40))
HANDBOOK = ("# Outfitter handbook\n\n🎉🏕️ Welcome to the shop! 🎒\n\n" + FILLER
            + "## Refunds\n\nRefunds are issued within 14 days of receiving the item. "
            "Refunds for opened stoves take 30 days because each stove is inspected.\n\n"
            "## Membership\n\nMembership costs 25 EUR per year.\n")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_with(tmp_path_factory.mktemp("web"), {"handbook.md": HANDBOOK})


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def finished_run(page: Any, http: httpx.Client) -> dict[str, Any]:
    """The RunInfo of the page's last turn, once its answer is shown."""
    page.wait_for_selector(".turn:last-of-type .answer[aria-busy=false]")
    run_id = page.evaluate("document.querySelector('.turn:last-of-type').dataset.runId")
    info: dict[str, Any] = http.get(f"/v1/runs/{run_id}").json()
    return info


def events_of(http: httpx.Client, run_id: str) -> list[dict[str, Any]]:
    decoder = SSEDecoder()
    with http.stream("GET", f"/v1/runs/{run_id}/events") as r:
        return [json.loads(f.data) for chunk in r.iter_bytes() for f in decoder.feed(chunk)]


def test_ask_stream_answer_and_every_citation_is_exact(base: str, http: httpx.Client,
                                                        page_of: Any) -> None:
    page, _ = page_of(base, viewport={"width": 1280, "height": 800})
    ready(page)
    ask(page, "How many days do refunds take?")
    info = finished_run(page, http)
    answer = info["answer"]
    # Two quotes of the one document: each is highlighted in turn, the other marked too.
    assert info["status"] == "completed" and len(answer["citations"]) == 2
    assert {c["document_index"] for c in answer["citations"]} == {1}
    # The steps streamed in: a thought, the search call with its input, its observation.
    kinds = page.eval_on_selector_all(".timeline .step", "els => els.map(e => e.dataset.kind)")
    assert kinds[:3] == ["thought", "action", "observation"]
    assert not page.eval_on_selector(".turn .steps", "d => d.open")  # collapsed after the answer
    page.click(".turn .steps > summary")
    assert "search_knowledge" in page.inner_text(".step-action")
    assert "chars" in page.inner_text(".step-observation summary")
    assert " ms" in page.inner_text(".step-observation summary")
    shown = page.inner_text(".turn .answer")
    assert shown.replace("\n", "").startswith(answer["text_plain"][:20])
    markers = page.locator(".turn .answer button.cite")
    assert markers.count() == len(answer["citations"])
    doc_id = answer["search_documents"][0]["document"]["id"]
    text = http.get(f"/v1/documents/{doc_id}", params={"text": "true"}).json()["text"]
    markers.first.hover()
    card = page.locator("#cite-card")
    assert card.is_visible()
    assert answer["citations"][0]["excerpt"] in card.inner_text()
    markers.first.click()
    for i, c in enumerate(answer["citations"]):
        if i:
            page.click("#viewer-next")
        page.wait_for_function("n => document.querySelector('#viewer-position').textContent"
                               ".startsWith(`Citation ${n} `)", arg=i + 1)
        mark = page.locator("#viewer-text mark.cite-active")
        page.wait_for_function("t => document.querySelector('#viewer-text mark.cite-active')"
                               "?.textContent === t", arg=text[c["start_char"]:c["end_char"]])
        assert mark.count() == 1
        box, viewport = mark.bounding_box(), page.viewport_size
        assert box is not None and viewport is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]  # in view
        other = answer["citations"][1 - i]
        assert page.locator("#viewer-text mark.cite-other").all_text_contents() == [
            text[other["start_char"]:other["end_char"]]]
        if i == 0:
            screenshot(page, "answer-citation.png")
    page.click("#viewer-prev")
    page.wait_for_function("n => document.querySelector('#viewer-position').textContent"
                           ".startsWith(`Citation ${n} `)", arg=len(answer["citations"]) - 1 or 1)
    page.keyboard.press("Escape")
    assert page.locator("#viewer").is_hidden()


def test_how_panel_and_provenance_download(base: str, http: httpx.Client, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    ask(page, "What does membership cost?")
    answer = finished_run(page, http)["answer"]
    page.click(".turn .how > summary")
    how = page.locator(".turn .how")
    rows = how.locator("table").first.locator("tbody tr")
    assert rows.count() == len(answer["reasoning_trace"])
    assert answer["query"]["reformulated_query"] in how.inner_text()
    assert "total" in how.locator("table").nth(1).inner_text()
    with page.expect_download() as download:
        how.get_by_role("button", name="Download Turtle").click()
    path = download.value.path()
    assert path is not None
    expected = http.get(f"/v1/runs/{answer['run_id']}/provenance", params={"format": "turtle"})
    assert Path(path).read_text(encoding="utf-8") == expected.text


def test_feedback_on_the_answer_and_a_citation_is_recorded(base: str, http: httpx.Client,
                                                           page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    ask(page, "How long do refunds take?")
    run_id = finished_run(page, http)["run_id"]
    page.select_option("select[aria-label='Rate this answer']", "3")
    page.fill("input[aria-label='Rate this answer: comment (optional)']", "spot on")
    page.locator(".answer-rating").get_by_role("button", name="Send").click()
    page.wait_for_selector(".answer-rating .rated:has-text('Recorded')")
    source = page.locator(".source").first
    source.locator("select").select_option("1")
    source.get_by_role("button", name="Send").click()
    source.locator(".rated:has-text('Recorded')").wait_for()
    ratings = http.get("/v1/feedback", params={"run_id": run_id}).json()["feedback"]
    assert sorted((r["rating"], r["document_index"], r["comment"]) for r in ratings) == [
        (1, 1, None), (3, None, "spot on")]


def test_reconnect_mid_stream_loses_and_repeats_nothing(base: str, http: httpx.Client,
                                                        page_of: Any) -> None:
    proxy = CuttingProxy(base)
    try:
        page, console = page_of(proxy.url)
        # What the streaming answer paragraph showed last, before the final render.
        page.add_init_script("""new MutationObserver(() => {
            const p = document.querySelector('.answer p.streaming');
            if (p) window.__streamed = p.textContent;
          }).observe(document, {subtree: true, childList: true, characterData: true});""")
        ready(page)
        ask(page, "slow question with a plan")
        page.wait_for_selector(".step-thought")
        assert page.eval_on_selector(".turn .steps", "d => d.open")  # visible while streaming
        assert proxy.cut() >= 1  # mid-thought
        page.wait_for_selector(".answer p.streaming")
        assert proxy.cut() >= 1  # mid-answer
        page.wait_for_function("() => document.querySelector('.answer p.streaming')"
                               ".textContent.includes('Chunk 3')"
                               " && !document.querySelector('.run-status').textContent")
        assert page.eval_on_selector(".turn .steps", "d => d.open")
        screenshot(page, "steps-timeline.png")
        info = finished_run(page, http)
        events = events_of(http, info["run_id"])
        assert len(proxy.last_event_ids) >= 2 and proxy.last_event_ids == sorted(proxy.last_event_ids)
        thoughts = "".join(e["text"] for e in events if e["kind"] == "thought"
                           and e["step"] == 0)
        assert page.text_content(".step-thought .text >> nth=0") == thoughts
        deltas = "".join(e["text"] for e in events if e["kind"] == "answer_delta")
        assert page.evaluate("window.__streamed") == deltas
        seqs = page.eval_on_selector_all(".timeline .step", "els => els.map(e => +e.dataset.seq)")
        assert len(seqs) == len(set(seqs))
        step_kinds = {"thought", "action", "observation", "warning"}
        firsts: dict[Any, int] = {}
        for e in events:
            if e["kind"] in step_kinds:
                firsts.setdefault(e.get("message_id") or e["seq"], e["seq"])
        assert seqs == sorted(firsts.values())
        # The two cuts are the only errors: Chromium logs each broken stream.
        assert console.errors == ["Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING"] * 2
        console.errors.clear()
    finally:
        proxy.close()


def test_stop_cancels_the_run(base: str, http: httpx.Client, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    ask(page, "slow question to stop")
    page.wait_for_selector(".step-thought")
    page.click("#stop")
    page.wait_for_selector(".turn .error[role=alert]")
    assert "run_cancelled" in page.inner_text(".turn .error")
    run_id = page.evaluate("document.querySelector('.turn').dataset.runId")
    assert http.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
    assert page.is_enabled("#ask") and page.is_disabled("#stop")


@pytest.mark.parametrize("how", ["approve", "edit", "reject"])
def test_paused_run_decided_in_the_page_finishes(base: str, http: httpx.Client, page_of: Any,
                                                 how: str) -> None:
    page, _ = page_of(base, viewport={"width": 1100, "height": 760})
    ready(page)
    ask(page, "approve the refund please")
    box = page.locator(".interrupt")
    box.wait_for()
    assert "refund" in box.locator("legend").inner_text()
    assert json.loads(box.locator("textarea").input_value()) == {"order": "A-17"}
    if how == "approve":
        screenshot(page, "paused-run.png")
        box.get_by_role("button", name="Approve").click()
        expected = "refunded A-17"
    elif how == "reject":
        box.get_by_label("Reason to reject refund").fill("ask the manager first")
        box.get_by_role("button", name="Reject").click()
        expected = "ask the manager first"
    else:
        box.get_by_role("button", name="Edit arguments").click()
        box.locator("textarea").fill('{"order": "B-99"}')
        box.get_by_role("button", name="Send edited arguments").click()
        expected = "refunded B-99"
    info = finished_run(page, http)
    assert info["status"] == "completed"
    assert "The refund of A-17 is done." in page.inner_text(".turn .answer")
    page.click(".turn .steps > summary")
    observation = page.locator(".step-observation").last
    observation.locator("summary").click()
    shown = observation.locator("pre").inner_text()
    assert shown == expected if how != "reject" else expected in shown
    seqs = page.eval_on_selector_all(".timeline .step", "els => els.map(e => +e.dataset.seq)")
    assert seqs == sorted(set(seqs))  # the resumed stream went on after the pause, once


def test_threads_follow_up_rename_delete(base: str, http: httpx.Client, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    ask(page, "What does membership cost?")
    first = finished_run(page, http)
    ask(page, "And how long do refunds take?")
    second = finished_run(page, http)
    assert second["thread_id"] == first["thread_id"]  # a follow-up in the same thread
    thread_id = first["thread_id"]
    row = page.locator(f"#threads li[data-id='{thread_id}']")
    row.wait_for()
    ids = page.eval_on_selector_all("#threads li", "els => els.map(e => e.dataset.id)")
    api_ids = [t["id"] for t in http.get("/v1/threads").json()["threads"]]
    assert ids == api_ids and ids[0] == thread_id  # newest first
    page.click("#new-thread")
    assert page.locator(".turn").count() == 0
    row.locator(".thread-open").click()
    page.wait_for_function("() => document.querySelectorAll('.turn').length === 2")
    assert page.locator(".turn .question").all_inner_texts() == [
        "What does membership cost?", "And how long do refunds take?"]
    assert page.locator(".turn button.cite").count() >= 2  # stored answers keep citations
    row.get_by_role("button", name="Rename thread").click()
    page.fill("#threads input", "Shop questions")
    page.press("#threads input", "Enter")
    page.wait_for_selector(f"#threads li[data-id='{thread_id}'] .thread-open:has-text('Shop questions')")
    assert http.get(f"/v1/threads/{thread_id}").json()["title"] == "Shop questions"
    delete = page.locator(f"#threads li[data-id='{thread_id}']").get_by_role(
        "button", name="Delete thread")
    delete.click()
    page.get_by_role("button", name="Confirm: delete thread").click()
    page.wait_for_selector(f"#threads li[data-id='{thread_id}']", state="detached")
    assert http.get(f"/v1/threads/{thread_id}").status_code == 404
