"""Claim splitting: list items and abbreviations (reviewer repros ``numbered_list`` and
``abbrev``). A claim cut in the wrong place is scored against words it does not say, and
strict mode deletes the pieces of a correctly cited sentence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.answer import Answer
from citewise.grounding.claims import segments, split_claims
from citewise.knowledge.retrieve.evidence import _ascii_sentence_spans
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import UserMessage
from citewise.models.scripted import ScriptedModel, call
from citewise.sentences import join_abbreviations, sentence_spans

REFUNDS = ("Refunds are issued within 5 business days of the return. Items bought on sale "
           "cannot be refunded. Store credit never expires.")
CLINIC = ("Dr. Smith approves all refunds for the clinic. The U.S. office handles billing "
          "for overseas patients.")


def claims(text: str) -> list[str]:
    return [c.text for c in split_claims(text) if c.is_claim]


def answer_for(source: str, text: str, *, strict: bool) -> Answer:
    """Run ``text`` as a scripted answer over one retrieved document ``source``."""

    @tool
    def lookup(ctx: RunContext, query: str) -> ToolResult:
        """Find passages.

        Args:
            query: what to look for
        """
        ctx.ledger.add([Hit(chunk_id=1, document_id="doc", source="/kb/doc.txt", text=source,
                            start_char=0, end_char=len(source), field_length=len(source),
                            score=1.0, title="doc")])
        return ToolResult(text="[1] doc", data={"query": query})

    model = ScriptedModel([[call("lookup", query="q")], text])
    state = RunState(run_id="run_s", thread_id="thr_s", question="q",
                     messages=[UserMessage(content="q")])

    async def go() -> Answer:
        events = [e async for e in run_agent(state, model=model, tools=Toolset([lookup]),
                                             settings=RunSettings(strict=strict))]
        assert events[-1].kind == "run_finished"
        return events[-1].answer

    return asyncio.run(go())


# -- list items ---------------------------------------------------------------------------

NUMBERED = ("1. Refunds are issued within 5 business days [1]\n"
            "2. Items bought on sale cannot be refunded [1]\n"
            "3. Store credit never expires [1]")
ITEMS = ["Refunds are issued within 5 business days", "Items bought on sale cannot be refunded",
         "Store credit never expires"]


@pytest.mark.parametrize("text", [
    NUMBERED,
    NUMBERED.replace("1. ", "1) ").replace("2. ", "2) ").replace("3. ", "3) "),
    NUMBERED.replace(" [1]", ""),
    "Steps:\n" + NUMBERED,
    NUMBERED.replace("1. ", "- ").replace("2. ", "* ").replace("3. ", "+ "),
    NUMBERED.replace(" [1]\n", ". [1]\n"),
    # Converted documents' typographic bullets and lettered enumerations.
    NUMBERED.replace("1. ", "• ").replace("2. ", "– ").replace("3. ", "▪ "),
    NUMBERED.replace("1. ", "(a) ").replace("2. ", "(b) ").replace("3. ", "c) "),
])
def test_list_items_without_full_stops_are_one_claim_each(text: str) -> None:
    got = [t.rstrip(".") for t in claims(text)]
    assert got == ITEMS  # no "…days\n2." with the next item's number glued on


def test_numbered_list_answer_is_supported_and_kept_in_strict_mode() -> None:
    for strict in (False, True):
        answer = answer_for(REFUNDS, NUMBERED, strict=strict)
        assert [c.status for c in answer.claims] == ["supported"] * 3
        assert answer.issues == [] and answer.text == NUMBERED


# -- abbreviations ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("Dr. Smith approves all refunds [1]. The U.S. office handles billing [1].",
     ["Dr. Smith approves all refunds.", "The U.S. office handles billing."]),
    ("Mr. and Mrs. Jones met Prof. Lee on St. Mary's street.",
     ["Mr. and Mrs. Jones met Prof. Lee on St. Mary's street."]),
    ("Pay by card, e.g. Visa, i.e. any major card, vs. cash. Cash is refused.",
     ["Pay by card, e.g. Visa, i.e. any major card, vs. cash.", "Cash is refused."]),
    ("J. R. Smith signs for Acme Inc. and Beta Ltd. in the U.K. office.",
     ["J. R. Smith signs for Acme Inc. and Beta Ltd. in the U.K. office."]),
    ("The desk opens at 9 a.m. and closes at 5 p.m. on weekdays.",
     ["The desk opens at 9 a.m. and closes at 5 p.m. on weekdays."]),
    ("See Fig. 3 and No. 7 for the form. Items cost 3. more than cash.",
     ["See Fig. 3 and No. 7 for the form.", "Items cost 3. more than cash."]),
    # …but these full stops do end a sentence: the next one starts with a capital.
    ("The parts are made by Acme Inc. The firm ships them etc. Shipping is free.",
     ["The parts are made by Acme Inc.", "The firm ships them etc.", "Shipping is free."]),
    ("So did I. Then we left the U.S. Returns stay open.",
     ["So did I.", "Then we left the U.S.", "Returns stay open."]),
    ("Take vitamin C. Then rest. Plan B. It worked.",  # a letter, then a sentence's start
     ["Take vitamin C.", "Then rest.", "Plan B.", "It worked."]),
    ("Signed by J. Smith and John F. Kennedy in the U.K. office.",  # initials before names
     ["Signed by J. Smith and John F. Kennedy in the U.K. office."]),
    # Ant's manual (review, 2026-12-05): a target named by a letter ends its sentence
    # before "Thus", marker or no marker; an initial before a name still does not.
    ("First A runs, then B, and finally D. [1] Thus, running D first calls C. [1]",
     ["First A runs, then B, and finally D.", "Thus, running D first calls C."]),
    ("First A runs, and finally D. Thus, running D first calls C.",
     ["First A runs, and finally D.", "Thus, running D first calls C."]),
    ("Signed by J. [1] Smith in 1990. [1]", ["Signed by J. Smith in 1990."]),
    # A quotation's own sentence ends do not end the sentence quoting it.
    ('The captain shouted "Abandon ship. Now!" when the hull cracked. Nobody moved.',
     ['The captain shouted "Abandon ship. Now!" when the hull cracked.', "Nobody moved."]),
    ("She asked “Is it safe? Really?” and waited. It was.",
     ["She asked “Is it safe? Really?” and waited.", "It was."]),
    ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),  # closed quotes
    # A quote missing from a list of quoted words opens none: perlootut's text ran into
    # the two sentences after it (Perl's review, 2026-12-07).
    ('Terms like "class", "object, "method", and "attribute" recur. Learn them. Then go.',
     ['Terms like "class", "object, "method", and "attribute" recur.', "Learn them.",
      "Then go."]),
    # … but one opened after "=" or "*" is open (the code review, 2026-12-07).
    ('Set title="Hello. World" in the file. Then save.',
     ['Set title="Hello. World" in the file.', "Then save."]),
    ('Quote starts *"Emphasis. Inside"* here. Done.',
     ['Quote starts *"Emphasis. Inside"* here.', "Done."]),
    # … and the character named in quotes opens none (the second code review).
    ('Enclosing characters in double quotes (‘"’) preserves them. Backslash escapes it.',
     ['Enclosing characters in double quotes (‘"’) preserves them.', "Backslash escapes it."]),
    ('Use `"` to start a string. Then close it.', ['Use " to start a string.', "Then close it."]),
    ("One case. (This method, if present, is rare.) The next.",
     ["One case.", "(This method, if present, is rare.)", "The next."]),
    ("Dr.\n\nSmith approves refunds.", ["Dr.", "Smith approves refunds."]),  # a blank line
])
def test_abbreviations_do_not_end_a_claim(text: str, expected: list[str]) -> None:
    assert [c.text for c in split_claims(text)] == expected


def test_abbreviated_answer_is_supported_and_kept_in_strict_mode() -> None:
    text = "Dr. Smith approves all refunds [1]. The U.S. office handles billing [1]."
    answer = answer_for(CLINIC, text, strict=True)
    assert answer.text == text and answer.issues == []
    assert [c.excerpt for c in answer.citations] == [
        "Dr. Smith approves all refunds for the clinic.",
        "The U.S. office handles billing for overseas patients."]


def test_join_abbreviations_leaves_sentence_spans_and_its_fast_path_alone() -> None:
    # Chunking and evidence windows keep the plain splitter (and the ASCII fast path stays
    # equal to it); joining is a separate pass on top of either.
    spans = sentence_spans(CLINIC)
    assert spans == _ascii_sentence_spans(CLINIC) and len(spans) == 4
    joined = join_abbreviations(CLINIC, spans)
    assert [CLINIC[a:b] for a, b in joined] == [
        "Dr. Smith approves all refunds for the clinic.",
        "The U.S. office handles billing for overseas patients."]
    assert join_abbreviations(CLINIC, _ascii_sentence_spans(CLINIC)) == joined


def test_segments_of_a_source_skip_its_footnotes_and_bullets() -> None:
    text = ("# Tower\nThe tower is 330 metres tall.[2] It opened in 1889.[3]\n- Item one\n"
            "2. Item two")
    assert [text[a:b] for a, b in segments(text)] == [
        "Tower", "The tower is 330 metres tall.", "It opened in 1889.", "Item one", "Item two"]


def test_quoted_list_items_leave_their_typographic_bullets_behind() -> None:
    # A bullet inside a quote is a markup fragment in the answer ("- • Items bought…").
    from citewise.models.sentence_candidates import candidates

    text = ("Returns:\n\n• Refunds are issued within 5 business days.\n"
            "(ii) Items bought on sale cannot be refunded.\n– Store credit never expires.")
    found = candidates([{"results": [{"text": text, "source": "a.txt", "document_index": 1}]}])
    assert [s.text for s in found] == [f"{item}." for item in ITEMS]
    assert all(s.text in text for s in found)  # still verbatim spans of the source


def test_a_lone_double_star_in_a_quote_is_text_not_emphasis() -> None:
    # The zsh manual's "‘-3**2’ evaluates as ‘9’": stripped of its "**", the claim said
    # "-32" and failed the number check of a verbatim quote (new-user review, 2026-12-04).
    from citewise.grounding.claims import plain_text

    assert plain_text("hence ‘-3**2’ evaluates as ‘9’, not ‘-9’ [1].") == (
        "hence ‘-3**2’ evaluates as ‘9’, not ‘-9’.")
    assert plain_text("the glob **/*.c and A__lleXP_ort") == "the glob **/*.c and A__lleXP_ort"
    # Markdown that pairs up is still read as markdown.
    assert plain_text("**Default:** `16384` (16 KiB) [2]") == "Default: 16384 (16 KiB)"
    assert plain_text("- a __b__ and ``x `y` z``") == "a b and x `y` z"
    # A line's lead in bold is a lead (a model's numbered steps), and a code span that
    # opens a line keeps what it starts with (a term such as "+ or - (jump)": code review
    # and Lynx's review, 2026-12-07).
    assert plain_text("**1.** Install the package with pip [1].\n**2)** Then start it [1].") == (
        "Install the package with pip.\nThen start it.")
    assert plain_text("`+ or - (jump)`: Finally, a suffix [1]") == "+ or - (jump): Finally, a suffix"
    assert plain_text("**-** means stdin [1]") == "- means stdin"
    assert plain_text("**# comment** lines are skipped") == "# comment lines are skipped"


def test_a_verbatim_quote_with_a_lone_double_star_is_supported(tmp_path: Path) -> None:
    from citewise import Agent, KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "arith.md").write_text(
        "# Arithmetic evaluation\n\nThe shell evaluates integer arithmetic in `(( ))`. Note "
        "the precedence of exponentiation is below that of unary operators, hence "
        "‘-3**2’ evaluates as ‘9’, not ‘-9’.\n", encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask("Why does -3**2 give 9 instead of -9 in shell arithmetic?")
    assert answer.citations and "-3**2" in answer.citations[0].excerpt
    codes = {i.code for i in answer.issues}
    assert not codes & {"unsupported_claim", "no_answer_in_sources"}, answer.issues


def test_a_code_mark_followed_by_a_lower_case_word_ends_no_sentence() -> None:
    """The Rust book (mdBook, new-user review of 2026-12-04): "`panic!`", "`vec!`" and the
    `?` operator cut about 95 of its sentences, so "The ? operator can only be used in
    functions whose return type is compatible" was never a candidate ("The ?" alone was too
    short to quote). Prose puts a capital after "!" and "?", and a line break or a blank
    line still ends the sentence."""
    text = ("The ? operator can only be used in functions whose return type is compatible "
            "with the value the ? is used on. Calling panic! when a function fails is the "
            "simplest way out. Is it safe? It is. Done!\nnext line starts lower.")
    got = [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]
    assert got == [
        "The ? operator can only be used in functions whose return type is compatible "
        "with the value the ? is used on.",
        "Calling panic! when a function fails is the simplest way out.",
        "Is it safe?", "It is.", "Done!", "next line starts lower.",
    ]


def test_a_mark_standing_alone_in_code_ends_no_sentence() -> None:
    """nginx's nginx_modsite script (new-user review, 2026-12-06): shell's negation in
    ``[[ ! -e "$X" ]] && ngx_error …`` cut the line after its "!", and a citation began
    at ``-e "$NGINX_SITES_ENABLED/…"``. A mark with a space on both sides and an option, a
    variable or a bracket after it is an operator; French puts a space before its "!" and
    "?" too, and a capital or a number after them, so "Bonjour ! Comment ça va ?" is
    still two."""
    text = ('[[ ! -e "$DIR/$SITE" ]] && ngx_error "Site does not appear to be enabled." '
            "Run it again. Bonjour ! Comment ça va ? Très bien. Vraiment ? 3 fois.")
    got = [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]
    assert got == [
        '[[ ! -e "$DIR/$SITE" ]] && ngx_error "Site does not appear to be enabled."',
        "Run it again.", "Bonjour !", "Comment ça va ?", "Très bien.", "Vraiment ?", "3 fois.",
    ]


def test_a_dotted_name_ending_in_its_full_stop_ends_no_sentence_before_a_plain_word() -> None:
    """BIND's manual (new-user review, 2026-12-05): "The file is called named.conf. which is
    typically located in …" was cut after "named.conf.", and "which is typically located in
    either /etc/namedb or /usr/local/etc/namedb." was quoted without the file it names. A
    lower-case identifier after one still starts a sentence ("max_connections sets …")."""
    text = ("The file is called named.conf. which is typically located in /etc/namedb. "
            "Then ip6.arpa. is appended to the name. Edit postgresql.conf. max_connections "
            "sets the limit. Run git-log. git-log shows history. Edit postgresql.conf. "
            "configfile can also be given. Build it with dpkg-deb. dpkg will spot it.")
    got = [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]
    assert got == [
        "The file is called named.conf. which is typically located in /etc/namedb.",
        "Then ip6.arpa. is appended to the name.",
        "Edit postgresql.conf.", "max_connections sets the limit.", "Run git-log.",
        "git-log shows history.", "Edit postgresql.conf.", "configfile can also be given.",
        "Build it with dpkg-deb.", "dpkg will spot it.",
    ]


def test_an_abbreviation_before_a_dash_that_closes_an_aside_ends_no_sentence() -> None:
    """Django's manual (new-user review, 2026-12-05): "all request methods – POST, GET,
    HEAD, etc. – will be routed to the same function" was two sentences, and the answer was
    quoted as "– will be routed to the same function for the same URL." A dash after a
    line break is a list's bullet, and "etc." before a capital still ends a sentence."""
    text = ("In other words, all request methods – POST, GET, HEAD, etc. – will be routed to "
            "the same function. Keyword queries — in filter(), etc. — are ANDed together. "
            "Pick one of red, green, etc. Then save.\n– a list item")
    got = [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]
    assert got == [
        "In other words, all request methods – POST, GET, HEAD, etc. – will be routed to "
        "the same function.",
        "Keyword queries — in filter(), etc. — are ANDed together.",
        "Pick one of red, green, etc.", "Then save.", "– a list item",
    ]


def test_a_complexity_that_opens_a_description_is_no_sentence_alone() -> None:
    """Haddock (GHC's library reference, new-user review 2026-12-05) opens a function's
    description with its complexity: "O(log n). Insert a new key and value in the map." was
    two sentences, the first "O(log n).", and "is Map insert O(log n)?" never quoted it."""
    text = ("O(log n). Insert a new key and value in the map. Complexity: O (n * log(m)). "
            "Check the map. The cost is O(n). Then we sort.")
    got = [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]
    assert got == [
        "O(log n). Insert a new key and value in the map.",
        "Complexity: O (n * log(m)). Check the map.", "The cost is O(n).", "Then we sort.",
    ]


def test_an_ellipsis_that_leaves_a_list_open_ends_no_quote_but_chunks_stay() -> None:
    """CMake's manual (new-user review, 2026-12-04) quoted "In this variant, foreach
    iterates over the numbers 0, 1, ..." for a question its next words answer. An ellipsis
    before a capital, or at a line's end, still ends the sentence; chunk boundaries (which
    join without ``ellipses``) are as they were."""
    text = ("In this variant, foreach iterates over the numbers 0, 1, ... up to (and "
            "including) the nonnegative integer <stop>. Wait... Then go. It trails off...\n"
            "and on.")
    assert [text[a:b] for a, b in segments(text)] == [
        "In this variant, foreach iterates over the numbers 0, 1, ... up to (and "
        "including) the nonnegative integer <stop>.",
        "Wait...", "Then go.", "It trails off...", "and on."]
    plain = [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]
    assert plain[0] == "In this variant, foreach iterates over the numbers 0, 1, ..."
