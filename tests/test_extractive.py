"""The extractive model quotes sources so that every claim it writes verifies: a source's
own footnotes ("tall.[2]") must not be read as citation markers, and a quoted list item
is a claim of its own with its own marker (reviewer repros ``footnote_markers`` and
``list_items``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from citewise import Agent, KnowledgeBase
from citewise.agent.state import RunSettings
from citewise.answer import Answer
from citewise.grounding.claims import MARKER_GROUP, split_claims
from citewise.models.base import ModelRequest, TextDelta, ToolMessage, UserMessage
from citewise.models.extractive import ExtractiveModel
from citewise.models.sentence_candidates import candidates

EIFFEL = ("Eiffel Tower\n\nThe Eiffel Tower is 330 metres tall.[2] It was completed in 1889 "
          "for the World's Fair.[3] Gustave Eiffel's company designed and built the tower.[1]\n")
SHIPPING = ("# Shipping\n\nShipping options:\n- Standard shipping takes 5 business days\n"
            "- Express shipping takes 1 business day\n- Freight shipping takes 10 business days\n")


def extractive_answer(question: str, *passages: str) -> str:
    results: list[dict[str, Any]] = [
        {"text": p, "document_index": i + 1} for i, p in enumerate(passages)]
    request = ModelRequest(messages=[
        UserMessage(content=question),
        ToolMessage(call_id="c1", name="search_knowledge", content="",
                    data={"results": results}),
    ])

    async def go() -> str:
        return "".join([p.text async for p in ExtractiveModel().stream(request)
                        if isinstance(p, TextDelta) and p.channel == "answer"])

    return asyncio.run(go())


def test_footnotes_in_a_passage_are_not_quoted_as_markers() -> None:
    text = extractive_answer("How tall is the Eiffel Tower?", EIFFEL)
    groups = [m.group(0).strip() for m in MARKER_GROUP.finditer(text)]
    assert groups and set(groups) == {"[1]"}  # only the model's own markers
    assert text.startswith("The Eiffel Tower is 330 metres tall. [1]")
    assert "Eiffel Tower [1]" not in text.replace("The Eiffel Tower", "")  # not the title


def test_list_items_are_quoted_one_claim_each_with_a_marker() -> None:
    text = extractive_answer("How long does express shipping take?", SHIPPING)
    claims = [c for c in split_claims(text) if c.is_claim]
    assert claims[0].text == "Express shipping takes 1 business day"
    assert all(c.numbers == [1] for c in claims)  # no item left uncited
    assert "Shipping options:" not in text  # a lead-in asserts nothing


def test_one_quote_is_no_list() -> None:
    # A lone list item was answered "- Freight shipping takes …", and an option as
    # "- -i, --ignore-initial=SKIP1:SKIP2", which reads as a double dash (review, session 16).
    assert (extractive_answer("How long does freight shipping take?", SHIPPING)
            == "Freight shipping takes 10 business days [1]")


def test_sentences_with_full_stops_stay_prose() -> None:
    text = extractive_answer("When was the tower finished and built?",
                             "The tower was finished in 1889. The tower was built by a firm.")
    assert "\n" not in text and text.count("[1]") == 2


def assert_at_offsets(answer: Answer, kb: KnowledgeBase) -> None:
    """Every citation's excerpt is the stored text of its document at its offsets."""
    for c in answer.citations:
        doc = answer.search_documents[c.document_index - 1]
        text = kb.document_text(str(doc.document["id"]))
        assert text is not None and c.start_char is not None
        assert text[c.start_char : c.end_char] == c.excerpt


def ask(tmp_path: Path, name: str, body: str, question: str, *, strict: bool) -> tuple[
        Answer, KnowledgeBase]:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(body, encoding="utf-8")
    kb = KnowledgeBase.open(tmp_path / "data", dense=False)
    if not kb.list_documents():
        assert not kb.ingest([src]).failed
    return Agent(kb).ask(question, settings=RunSettings(strict=strict)), kb


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(("name", "body", "question", "first"), [
    ("eiffel.txt", EIFFEL, "How tall is the Eiffel Tower?",
     "The Eiffel Tower is 330 metres tall."),
    ("shipping.md", SHIPPING, "How long does express shipping take?",
     "Express shipping takes 1 business day"),
])
def test_extractive_answers_verify_end_to_end(
    tmp_path: Path, name: str, body: str, question: str, first: str, strict: bool
) -> None:
    answer, kb = ask(tmp_path, name, body, question, strict=strict)
    try:
        assert answer.issues == []
        assert answer.claims and all(c.status == "supported" and not c.removed
                                     for c in answer.claims)
        assert answer.claims[0].text == first
        assert answer.citations[0].excerpt == first
        assert_at_offsets(answer, kb)  # offsets point at the exact source characters
    finally:
        kb.close()


REFUNDS = ("# Refunds\n\nRefunds are issued within 5 business days after the item arrives. "
           "Store credit never expires.\n")


@pytest.mark.parametrize(("schema", "expected"), [
    ({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
     {"answer": "Refunds are issued within 5 business days after the item arrives. [1]"}),
    ({"type": "object", "properties": {"summary": {"type": "string"}, "n": {"type": "integer"}}},
     {"summary": "Refunds are issued within 5 business days after the item arrives. [1]"}),
    ({"type": "string"}, "Refunds are issued within 5 business days after the item arrives. [1]"),
    ({"type": "array", "items": {"type": "string"}},
     ["Refunds are issued within 5 business days after the item arrives. [1]"]),
])
def test_a_schema_that_quotes_can_fill_gets_a_cited_structured_answer(
        tmp_path: Path, schema: dict[str, Any], expected: Any) -> None:
    # The default model used to answer in prose, read the loop's repair prompt as a new
    # question and search with it until the run ran out of steps.
    src = tmp_path / "src"
    src.mkdir()
    (src / "refunds.md").write_text(REFUNDS, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "data", dense=False) as kb:
        kb.ingest([src])
        answer = Agent(kb).ask("When are refunds issued after the item arrives?",
                               output_schema=schema)
    assert answer.status == "completed", answer.error
    assert answer.structured == expected
    assert answer.claims and all(c.status == "supported" for c in answer.claims)
    assert answer.citations[0].excerpt == (
        "Refunds are issued within 5 business days after the item arrives.")


def test_a_schema_quotes_cannot_fill_fails_after_its_repairs_without_searching_again(
        tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "refunds.md").write_text(REFUNDS, encoding="utf-8")
    # (a required integer the quote states is filled now: an array of them is not)
    schema = {"type": "object",
              "properties": {"days": {"type": "array", "items": {"type": "integer"}}},
              "required": ["days"]}
    with KnowledgeBase.open(tmp_path / "data", dense=False) as kb:
        kb.ingest([src])
        async def run() -> list[Any]:
            return [e async for e in Agent(kb).stream(
                "When are refunds issued after the item arrives?", output_schema=schema)]

        events = asyncio.run(run())
    end = events[-1]
    assert end.kind == "error" and end.code == "structured_output_invalid"
    searches = [e for e in events if e.kind == "action"]
    assert 1 <= len(searches) <= 2  # the question's own searches, none with the repair text
    assert all("rejected" not in json.dumps(e.input) for e in searches)
    assert any(e.kind == "thought" and "language model" in e.text for e in events)


FAQ = ("# FAQ\n\n## How long is the warranty on the e-bike battery?\n\n"
       "The battery warranty lasts two years from the date of purchase.\n\n"
       "Q. What is the warranty of the kettle? A. The kettle is covered for one year.\n")


def test_a_question_in_the_source_is_not_quoted_as_the_answer(tmp_path: Path) -> None:
    # An FAQ's question heading matched the question word for word and came back as the
    # answer, verified as "supported".
    answer, kb = ask(tmp_path, "faq.md", FAQ, "How long is the warranty on the e-bike battery?",
                     strict=False)
    kb.close()
    assert "?" not in answer.text
    assert answer.claims[0].text == (
        "The battery warranty lasts two years from the date of purchase.")
    assert all(c.status == "supported" for c in answer.claims)


def test_a_question_is_not_a_claim_and_its_marker_is_removed() -> None:
    drafts = split_claims("How long is the warranty? [1] It lasts two years [1].")
    assert [d.is_claim for d in drafts] == [False, True]


DROP = ("# DROP TABLE\n\nCASCADE\n\nAutomatically drop objects that depend on the table "
        "(such as views).\n\nRESTRICT\n\nRefuse to drop the table if any objects depend on "
        "it. This is the default.\n")


def test_a_sentence_that_only_points_back_is_quoted_with_the_one_before(tmp_path: Path) -> None:
    # "This is the default." was quoted alone: true, verified, and useless as an answer.
    answer, kb = ask(tmp_path, "drop.md", DROP,
                     "What does DROP TABLE do by default when other objects depend on it?",
                     strict=True)
    try:
        quotes = ["Refuse to drop the table if any objects depend on it.", "This is the default."]
        assert [c.excerpt for c in answer.citations] == quotes  # two claims, each cited
        # The step says as many sentences as the answer quotes (it said 1 here).
        assert any("Answering from 2 evidence sentence(s)" in (t.thought or "")
                   for t in answer.reasoning_trace)
        assert answer.issues == []
        assert all(c.status == "supported" and not c.removed for c in answer.claims)
        assert_at_offsets(answer, kb)
    finally:
        kb.close()


LIGHTTPD = ("Configuration\n=============\n\n:Author: Jan\n\nOptions\n-------\n\n"
            "server.max-keep-alive-requests\n  maximum number of requests per keep-alive "
            "connection\n\n  Default: 100\n\nserver.max-keep-alive-idle\n  maximum number of "
            "seconds until a idling keep-alive connection is dropped\n\n  Default: 30\n")


def test_a_quotes_part_without_a_full_stop_is_cited_once_with_the_next(tmp_path: Path) -> None:
    """lighttpd's review (2026-12-05): "… connection is dropped [1] Default: 30 [1]" — the
    description has no full stop, so it and "Default: 30" are one claim, and a marker after
    each cited that claim twice with the same excerpt."""
    answer, kb = ask(tmp_path, "configuration.txt", LIGHTTPD,
                     "how long will lighttpd keep an idle keep-alive connection open before "
                     "dropping it, by default?", strict=False)
    try:
        assert answer.text.endswith("is dropped Default: 30 [1]"), answer.text
        assert len(answer.citations) == 1 and answer.citations[0].excerpt.endswith("Default: 30")
        assert [c.status for c in answer.claims] == ["supported"]
        assert_at_offsets(answer, kb)
    finally:
        kb.close()


MODULES = ("Configuration\n=============\n\n:Author: Jan\n\nModules\n-------\n\nserver.modules\n"
           "  modules to load\n\n  Starting with lighttpd 1.4.0 three default modules are loaded "
           "automatically:\n\n  - mod_indexfile\n  - mod_dirlisting\n  - mod_staticfile\n\n"
           "server.event-handler\n  set the event handler\n\n  Default: \"poll\"\n")


def test_a_lead_in_is_quoted_with_the_short_list_it_introduces(tmp_path: Path) -> None:
    """lighttpd's review (2026-12-05): "… three default modules are loaded automatically:"
    was the whole answer, the three never named. The list follows it, an item a line,
    each cited and verified; alone, an item addresses no question, so its relevance is
    judged with its lead-in (strict mode removed all but the first)."""
    answer, kb = ask(tmp_path, "configuration.txt", MODULES,
                     "Which modules does lighttpd load on its own even if I leave them out of "
                     "server.modules?", strict=True)
    try:
        assert answer.text == ("Starting with lighttpd 1.4.0 three default modules are loaded "
                               "automatically: [1]\n\n- mod_indexfile [1]\n- mod_dirlisting [1]"
                               "\n- mod_staticfile [1]"), answer.text
        assert [c.excerpt for c in answer.citations][1:] == [
            "mod_indexfile", "mod_dirlisting", "mod_staticfile"]
        assert all(c.status == "supported" and not c.removed for c in answer.claims)
        assert answer.issues == []
        assert_at_offsets(answer, kb)
    finally:
        kb.close()


def test_a_list_that_runs_on_or_wraps_is_not_quoted_after_its_lead_in() -> None:
    from citewise.models.lead_ins import introduced_items

    lead = "Three modules are loaded:"
    for rest, items in (("\n\n- a\n- b\n\nNext.", ("a", "b")),
                        ("\n\n- a\n- b\n", ()),  # the passage may cut the list off
                        ("\n\n- a long item\n  that wraps\n- b\n\nNext.", ()),
                        ("\n\n- only one\n\nNext.", ()),
                        # An item of two sentences would be two claims, the first uncited
                        # (a second review of the change, 2026-12-05); an item twice, one.
                        ("\n\n- a\n- b. It serves files\n\nNext.", ()),
                        ("\n\n- a\n- a\n\nNext.", ()),
                        ("\n\nA paragraph.\n\nNext.", ())):
        assert introduced_items(lead + rest, [], len(lead)) == items, rest


def test_a_hard_wrapped_markdown_paragraph_is_answered_as_one_line(tmp_path: Path) -> None:
    """The answer read "Water them\\ntwice a week …" (the file's line breaks); its citation
    still points at the stored characters, line breaks and all."""
    body = ("# Fern care\n\nFerns like shade and\nmoist soil. Water them\ntwice a week in "
            "summer and\nonce a week in winter.\n")
    answer, kb = ask(tmp_path, "fern.md", body, "How often should I water ferns in winter?",
                     strict=True)
    try:
        assert answer.text.startswith(
            "Water them twice a week in summer and once a week in winter. [1]"), answer.text
        assert answer.citations[0].excerpt == ("Water them\ntwice a week in summer and\n"
                                               "once a week in winter.")
        assert answer.claims[0].status == "supported"
        assert_at_offsets(answer, kb)
    finally:
        kb.close()


def test_a_term_and_its_indented_definition_are_answered_as_one_line(tmp_path: Path) -> None:
    """A man page's "-w, --wrap=COLS\n    wrap encoded lines …" was answered with its line
    break and indentation, and the next quote ran on after it (review, session 16); run on
    as one line, the term read as the sentence's first words ("AccuracySec= Specify the
    accuracy …", systemd's review, 2026-12-05): a colon sets it off, as a term label."""
    page = (".TH B64 1\n.SH OPTIONS\n.TP\n\\fB\\-w\\fR, \\fB\\-\\-wrap\\fR=\\fICOLS\\fR\n"
            "wrap encoded lines after COLS character (default 76).\n")
    answer, kb = ask(tmp_path, "b64.1", page, "At what column does b64 wrap its output?",
                     strict=False)
    try:
        assert answer.text.startswith("-w, --wrap=COLS: wrap encoded lines after COLS "
                                      "character (default 76). [1]"), answer.text
        assert answer.citations[0].excerpt == (
            "-w, --wrap=COLS\n    wrap encoded lines after COLS character (default 76).")
        assert_at_offsets(answer, kb)
    finally:
        kb.close()


def test_a_line_wrapped_inside_a_sentence_is_no_term_and_gets_no_colon() -> None:
    """HAProxy's descriptions are preformatted, every line after a sentence's first
    indented: the term-and-colon join made "… into a static web: server …" of 8 of 54
    answered sentences (review, 2026-12-05). A colon goes after a term the loader marked
    (the test above), never after a line break alone."""
    text = extractive_answer(
        "Can a dynamic server be turned into a static one?",
        "Servers are added at run time. As such it cannot be turned into a static web\n"
        "    server when the configuration is reloaded.")
    assert "a static web server when the configuration is reloaded. [1]" in text, text
    assert "web:" not in text


def test_a_list_of_questions_is_not_quoted_as_an_answer() -> None:
    """A FAQ's contents list its questions as items; "3.9 Which are good parameters for
    encoding high quality MPEG-4?" and the next were the whole answer to a question the
    manual does not answer, both markers then dropped as citing no claim (FFmpeg's
    review, 2026-12-05). A question is context, never evidence, in a list too."""
    faq = ("- 3.8 How do I encode Xvid or DivX video with ffmpeg?\n"
           "- 3.9 Which are good parameters for encoding high quality MPEG-4?\n"
           "- 3.10 Which are good parameters for encoding high quality MPEG-1/MPEG-2?")
    results = [{"text": faq, "document_index": 1,
                "roles": [[a, a + len(line), "list_item"] for a, line in _lines(faq)]}]
    sentences = candidates([{"results": results}])
    assert not [s.text for s in sentences if s.asserts]


def _lines(text: str) -> list[tuple[int, str]]:
    out, at = [], 0
    for line in text.split("\n"):
        out.append((at, line))
        at += len(line) + 1
    return out


def test_a_sentence_retrieved_twice_is_quoted_once() -> None:
    """Overlapping chunks bring a sentence twice, once with the short sentence after it
    that points back: the answer quoted it two times (rsync's --progress, session 15)."""
    option = ("--progress\n    This option tells rsync to print information showing the "
              "progress of the transfer.")
    text = extractive_answer("How can I make rsync show progress while copying?",
                             f"{option} This gives a bored user something to watch.",
                             f"Options:\n\n{option}\n\n--partial\n    Keeps partial files.")
    assert text.count("print information showing the progress") == 1, text


def test_a_sentence_two_entries_share_is_quoted_once_however_it_is_wrapped() -> None:
    """HAProxy's "setenv" and "presetenv" entries end alike, their lines broken at other
    words; both copies were quoted, and both citations fell on the first (new-user
    review, 2026-12-03)."""
    ending = ("The changes immediately take effect so that the next line{}the configuration "
              "file sees the new value.")
    text = extractive_answer(
        "How do I give an environment variable in the config a fallback value for when it "
        "is not set?",
        "setenv <name> <value>\n\nSets environment variable <name> to value <value>. If the "
        "variable exists, it is overwritten. " + ending.format(" in\n"),
        "presetenv <name> <value>\n\nSets environment variable <name> to value <value>. If "
        "the variable exists, it is NOT overwritten. " + ending.format("\nin "))
    assert text.count("take effect so that the next line") == 1, text


def test_the_printed_sources_quote_a_long_sentence_whole(tmp_path: Path) -> None:
    """The sources cut quotes at 160 characters, once right on the answer ("events of
    severity WARNING a…", review, session 16)."""
    import io

    from citewise.cli.common import print_answer

    long = ("The default level is WARNING, which means that only events of this severity "
            "and higher will be tracked, unless the logging package is configured to do "
            "otherwise, and events that are tracked can be handled in different ways, the "
            "simplest of which is printing them to the console.")
    assert 160 < len(long) < 400
    answer, kb = ask(tmp_path, "levels.md", f"# Levels\n\n{long}\n",
                     "Which level does logging use by default?", strict=False)
    try:
        out = io.StringIO()
        print_answer(answer, kb, out)
        assert f"“{long}”" in out.getvalue()
    finally:
        kb.close()


def test_a_list_of_quotes_starting_with_a_dash_is_bulleted_with_a_star() -> None:
    # openssl-req(1): "- -key filename|uri This option …" read as an option "--key"
    # (new-user review, 2026-12-03).
    from citewise.models.quote_writing import Quote, render

    chosen = [Quote(1.0, 1, "-key filename|uri This option provides the private key"),
              Quote(0.9, 1, "-x509 This option outputs a certificate instead")]
    text = "".join(render(chosen))
    assert text == ("* -key filename|uri This option provides the private key [1]\n"
                    "* -x509 This option outputs a certificate instead [1]")
    claims = [c for c in split_claims(text) if c.is_claim]
    assert [c.text for c in claims] == [chosen[0].text, chosen[1].text]
    plain = [Quote(1.0, 1, "Shipping takes a day"), Quote(0.9, 1, "Freight a week")]
    assert "".join(render(plain)).startswith("- Shipping takes a day [1]\n- Freight")


def test_quotes_from_two_sections_are_two_paragraphs() -> None:
    # Borg's FAQ: a lock warning from one entry and the security contact from another ran
    # on as one paragraph that read as one passage (new-user review, 2026-12-04).
    from citewise.models.quote_writing import Quote, render

    lock = Quote(1.0, 1, "Borg keeps an exclusive lock, which may make backups fail.",
                      "FAQ > Can I back up from several servers?")
    mail = Quote(0.95, 1, "Send a private email to the security contact.",
                      "FAQ > How do I report a security issue?")
    text = "".join(render([lock, mail]))
    assert text == (f"{lock.text} [1]\n\n{mail.text} [1]")
    claims = [c for c in split_claims(text) if c.is_claim]
    assert [c.text for c in claims] == [lock.text, mail.text]
    again = Quote(0.9, 1, "Only one backup can write at a time.", lock.section)
    assert "".join(render([lock, again])) == f"{lock.text} [1] {again.text} [1]"
    other_doc = Quote(0.9, 2, "Only one backup can write at a time.", lock.section)
    assert "".join(render([lock, other_doc])) == f"{lock.text} [1]\n\n{other_doc.text} [2]"


def test_a_list_of_options_after_a_lead_in_is_bulleted_so_that_they_read_as_options() -> None:
    """"- -v [1]" reads as a double dash; a list of options takes "* " (as quotes that
    start with a dash do)."""
    from citewise.models.quote_writing import Quote, _code_after

    options = Quote(1.0, 1, "Use one of:", items=("-v", "--verbose"))
    assert _code_after(options) == "\n\n* -v [1]\n* --verbose [1]"
    words = Quote(1.0, 2, "Loaded:", items=("mod_a", "mod_b"))
    assert _code_after(words) == "\n\n- mod_a [2]\n- mod_b [2]"


def test_a_declines_answerability_is_written_apart_from_its_threshold() -> None:
    """Ghostscript's review (2026-12-08): "answerability 0.45, below 0.45" said nothing of
    why the question was declined; as many decimals as tell them apart."""
    from citewise.models.extractive import _apart

    assert _apart(0.4497, 0.45) == ("0.4497", "0.4500")
    assert _apart(0.446, 0.45) == ("0.446", "0.450")
    assert _apart(0.31, 0.45) == ("0.31", "0.45")
