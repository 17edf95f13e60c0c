"""How the page lays out what it shows, in a real Chromium against a real server: an
answer's markdown (the list the extractive model writes when a quote has no full stop,
`code`, **bold**) becomes lists and inline elements with every marker still its own
citation; the sources are not numbered twice; a thread's title is readable in the
sidebar; a quote the verifier found off the question is marked where it is shown, not
only in the warnings; on a phone, a new turn and the threads drawer stay below the sticky header
(which wraps to two rows there)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from _web import ask, ready, serve_with

pytestmark = pytest.mark.slow

GEAR = ("# Stove guide\n\n"
        "## Fuels\n\n"
        "- The Ember stove burns white gas and kerosene\n"
        "- The Flint stove burns butane canisters only\n"
        "- The Cinder stove burns dry wood and pine cones\n\n"
        "## Care\n\n"
        "Clean the jet of a stove after every trip. Store fuel away from the tent.\n")
RETURNS = ("# Returns\n\nA parcel returned within 30 days is refunded in full. "
           "Refunds are paid to the card used at checkout.\n")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_with(tmp_path_factory.mktemp("web-render"),
                          {"stoves.md": GEAR, "returns.md": RETURNS})


def last_answer(page: Any, base: str) -> dict[str, Any]:
    """The last turn's answer, as the server stored it, once the page shows it."""
    page.wait_for_selector(".turn:last-of-type .answer[aria-busy=false]")
    run_id = page.evaluate("document.querySelector('.turn:last-of-type').dataset.runId")
    answer: dict[str, Any] = httpx.get(f"{base}/v1/runs/{run_id}", timeout=60).json()["answer"]
    return answer


def asked(page_of: Any, base: str, question: str) -> tuple[Any, dict[str, Any]]:
    """A desktop-sized page that asked ``question``, and the answer it shows."""
    page, _ = page_of(base, viewport={"width": 1280, "height": 800})
    ready(page)
    ask(page, question)
    return page, last_answer(page, base)


def test_a_list_answer_is_a_list_and_its_markers_still_open_their_quotes(
        base: str, page_of: Any) -> None:
    page, answer = asked(page_of, base, "Which fuel does the Flint stove burn, and the Cinder stove?")
    with httpx.Client(base_url=base, timeout=60) as http:
        items = [line for line in answer["text"].split("\n") if line.startswith("- ")]
        assert items, answer["text"]  # quotes without a full stop: written as a list
        shown = page.locator(".turn:last-of-type .answer ul > li")
        assert shown.count() == len(items)
        texts = shown.all_inner_texts()
        assert not any(t.startswith("-") for t in texts), texts
        for i in range(shown.count()):
            assert shown.nth(i).locator("button.cite").count() == 1
        # The sources carry their marker as a label: no list number beside it.
        sources = page.locator(".turn:last-of-type .sources-list")
        assert sources.evaluate("el => [el.tagName, getComputedStyle(el).listStyleType]") \
            == ["UL", "none"]
        # Every marker in a list item still opens exactly its own quote.
        for c in answer["citations"]:
            page.click(f".turn:last-of-type button.cite[data-citation='{c['citation_index']}']")
            page.wait_for_selector("#cited-span")
            doc = answer["search_documents"][c["document_index"] - 1]["document"]
            text = http.get(f"/v1/documents/{doc['id']}", params={"text": "true"}).json()["text"]
            page.wait_for_function(
                "t => document.querySelector('#cited-span')?.textContent === t",
                arg=text[c["start_char"]:c["end_char"]])


# An answer as the server sends it, for the renderer alone: code, bold, an ordered list,
# a marker with no citation (left as text), and markers counted in order through all of it.
RENDER = """async () => {
  const { renderAnswerText } = await import('/web/answer.js');
  const doc = { source: 'a.md', document: { id: 'd1', title: 'A' }, snippets: [] };
  const answer = {
    text: 'Run `git stash list` first [1], then **check** it [1]\\n\\n'
      + '1. **Always** read __init__.py [2]\\n2. then `gc` [1] and [9]\\n   wrapped on',
    citations: [0, 1, 2, 3].map((k) => ({ citation_index: k, document_index: k === 2 ? 2 : 1,
      snippet_index: null, excerpt: 'x', start_char: 0, end_char: 1 })),
    search_documents: [doc, { ...doc, source: 'b.md' }],
  };
  const root = document.createElement('div');
  renderAnswerText(root, answer, () => {});
  const ol = root.querySelector('ol');
  return {
    blocks: [...root.children].map((el) => el.tagName),
    code: [...root.querySelectorAll('code')].map((el) => el.textContent),
    strong: [...root.querySelectorAll('strong')].map((el) => el.textContent),
    items: ol ? [...ol.children].map((li) => li.textContent) : [],
    markers: [...root.querySelectorAll('button.cite')].map((b) => b.dataset.citation),
  };
}"""


def test_inline_markdown_and_ordered_lists_keep_markers_in_order(base: str, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    got = page.evaluate(RENDER)
    assert got["blocks"] == ["P", "OL"]
    assert got["code"] == ["git stash list", "gc"]
    assert got["strong"] == ["check", "Always"]
    assert got["items"] == ["Always read __init__.py [2]", "then gc [1] and [9]\n   wrapped on"]
    assert got["markers"] == ["0", "1", "2", "3"]  # [9] has no citation: plain text


def test_thread_titles_show_two_lines_and_the_whole_title_on_hover(base: str,
                                                                     page_of: Any) -> None:
    page, _ = page_of(base, viewport={"width": 1280, "height": 800})
    ready(page)
    question = "How do I clean the jet of the stove after a long trip in the hills?"
    ask(page, question)
    page.wait_for_selector(".turn:last-of-type .answer[aria-busy=false]")
    button = page.locator("#threads .thread-open", has_text="How do I clean").first
    button.wait_for()
    assert button.get_attribute("title") == question
    # Exactly two whole lines: the sidebar is narrow, one line would show "How do I c…",
    # and nothing of a third line may show in the button's padding either.
    lines = button.locator(".thread-title").evaluate("""el => {
        const r = el.getBoundingClientRect(), b = el.parentElement.getBoundingClientRect();
        const s = getComputedStyle(el.parentElement);
        const inner = b.bottom - parseFloat(s.paddingBottom);
        return [r.height / parseFloat(getComputedStyle(el).lineHeight), r.bottom <= inner + 0.5]; }""")
    assert round(lines[0], 1) == 2 and lines[1], lines


def test_on_a_phone_turns_and_the_drawer_stay_below_the_header(base: str, page_of: Any) -> None:
    page, _ = page_of(base, viewport={"width": 360, "height": 640}, is_mobile=True)
    ready(page)
    header = page.locator("header.top")
    ask(page, "Which fuel does the Ember stove burn?")
    page.wait_for_selector(".turn:last-of-type .answer[aria-busy=false]")
    page.wait_for_function("() => !document.querySelector('#ask').disabled")
    bottom = header.evaluate("el => el.getBoundingClientRect().bottom")
    assert bottom > 80  # two rows at 360 px: what the fixed 3.2rem offsets did not allow
    # The new turn was scrolled to: its question is below the header, not under it.
    top = page.locator(".turn:last-of-type h2.question").evaluate(
        "el => el.getBoundingClientRect().top")
    assert bottom <= top < 640
    page.click("#menu")
    drawer = page.locator("#sidebar").evaluate("el => el.getBoundingClientRect().top")
    assert drawer >= bottom - 1


def test_prev_and_next_are_disabled_when_there_is_one_citation(base: str, page_of: Any) -> None:
    page, answer = asked(page_of, base, "Where should fuel be stored?")
    assert len(answer["citations"]) == 1, answer["text"]
    page.click(".turn:last-of-type button.cite")
    page.wait_for_selector("#cited-span")
    assert page.locator("#viewer-prev").is_disabled() and page.locator("#viewer-next").is_disabled()
    # …and enabled again for an answer with several.
    ask(page, "Which fuel does the Flint stove burn, and the Cinder stove?")
    assert len(last_answer(page, base)["citations"]) >= 2
    page.click(".turn:last-of-type button.cite[data-citation='0']")
    page.wait_for_function("() => !document.querySelector('#viewer-next').disabled")
    page.click("#viewer-next")
    page.wait_for_function(
        "() => document.querySelector('#viewer-position').textContent.startsWith('Citation 2')")


def test_a_quote_that_does_not_address_the_question_is_marked_where_it_is_shown(
        base: str, page_of: Any) -> None:
    page, answer = asked(page_of, base, "Stray question: which fuel does the Flint stove burn?")
    flagged = [i["details"]["claim_index"] for i in answer["issues"]
               if i["code"] == "off_topic_evidence"]
    assert flagged == [1], answer["issues"]
    turn = page.locator(".turn:last-of-type")
    rows = turn.locator(".sources-list > li")
    assert rows.count() == 2
    texts = rows.all_inner_texts()
    ok = next(t for t in texts if "butane" in t)
    off = next(t for t in texts if "Refunds are paid" in t)
    assert "does not address the question" not in ok
    assert "This passage does not address the question (support 0.00)" in off
    # The marker of the flagged claim looks different and says why to a screen reader.
    markers = turn.locator(".answer button.cite")
    assert markers.evaluate_all("bs => bs.map(b => b.classList.contains('flagged'))") \
        == [False, True]
    assert "does not address the question" in (markers.nth(1).get_attribute("aria-label") or "")
    markers.nth(1).hover()
    page.wait_for_selector("#cite-card:not([hidden]) .flag")
    markers.nth(0).hover()
    page.wait_for_selector("#cite-card:not([hidden]) .card-support")
    assert page.locator("#cite-card .flag").count() == 0


# When the whole answer is said not to be in the sources, the answer says so above its
# quotes; no quote is marked on its own (as `citewise ask` prints it).
NO_ANSWER = """async () => {
  const { renderSources } = await import('/web/answer.js');
  const doc = { source: 'a.md', document: { id: 'd1', title: 'A' }, snippets: [] };
  const answer = {
    text: 'x [1]', search_documents: [doc],
    citations: [{ citation_index: 0, document_index: 1, snippet_index: null, claim_index: 0,
      excerpt: 'x', start_char: 0, end_char: 1 }],
    issues: [{ code: 'off_topic_evidence', message: 'm', details: { claim_index: 0, support: 0.1 } }],
  };
  const flags = (a) => { const root = document.createElement('div');
    renderSources(root, a, () => {}); return root.querySelectorAll('.flag').length; };
  const none = { ...answer, issues: [...answer.issues,
    { code: 'no_answer_in_sources', message: 'm', details: {} }] };
  return [flags(answer), flags(none)];
}"""


def test_no_quote_is_marked_on_its_own_when_the_answer_is_not_in_the_sources(
        base: str, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    assert page.evaluate(NO_ANSWER) == [1, 0]


# The words the searches found in no document are listed with the query analysis.
HOW = """async () => {
  const { renderHow } = await import('/web/answer.js');
  const root = document.createElement('details');
  renderHow(root, { run_id: 'r1', model: 'extractive', reasoning_trace: [],
    usage: { steps: [], input_tokens: 0, output_tokens: 0, cost: null, currency: 'USD' },
    query: { original_query: 'How do I switch hashing to bcrypt?' },
    query_details: { queries: ['How do I switch hashing to bcrypt?'], retrieved: 3, selected: 3,
                     unmentioned: ['switch', 'bcrypt'] } });
  const facts = [...root.querySelectorAll('dl.facts dt')].map((dt) => [dt.textContent,
    dt.nextElementSibling.textContent]);
  return Object.fromEntries(facts)['In no document'];
}"""


def test_the_words_in_no_document_are_shown_with_the_query_analysis(
        base: str, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    assert page.evaluate(HOW) == "switch, bcrypt"


# The answering model's estimates are listed with the query analysis; none when it made none.
ANSWERABILITY = """async () => {
  const { renderHow } = await import('/web/answer.js');
  const shown = (extra) => {
    const root = document.createElement('details');
    renderHow(root, { run_id: 'r1', model: 'extractive', reasoning_trace: [],
      usage: { steps: [], input_tokens: 0, output_tokens: 0, cost: null, currency: 'USD' },
      query: { original_query: 'How long are snapshots kept?' }, query_details: {}, ...extra });
    const facts = [...root.querySelectorAll('dl.facts dt')].map((dt) => [dt.textContent,
      dt.nextElementSibling.textContent]);
    const got = Object.fromEntries(facts);
    return [got['Answerability'] ?? null, got['Confidence'] ?? null];
  };
  return [shown({ answerability: 0.5234, confidence: 0.2871 }),
    shown({ answerability: 0.31, confidence: null }), shown({})];
}"""


def test_the_estimates_are_shown_with_the_query_analysis(base: str, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    assert page.evaluate(ANSWERABILITY) == [["0.52", "0.29"], ["0.31", None], [None, None]]
