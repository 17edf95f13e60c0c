"""Support means "the cited text supports this claim as an answer to the question".

A verbatim quote used to score 1.0 against itself, whatever was asked. Here a real
knowledge base (sections of the Apache License 2.0 and of Python's data-model reference,
as they are written) answers questions through a scripted model that quotes it verbatim,
as the extractive model does, or paraphrases, as a language model does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citewise.agent.runner import Agent
from citewise.agent.state import RunSettings
from citewise.answer import Answer
from citewise.grounding.assemble import assemble_answer
from citewise.grounding.relevance import NOT_IN_SOURCES, OFF_TOPIC_LEXICAL, QuestionRelevance
from citewise.grounding.verify import Verifier
from citewise.knowledge.base import KnowledgeBase
from citewise.models.scripted import ScriptedModel, call

APACHE = """\
   3. Grant of Patent License. Subject to the terms and conditions of
      this License, each Contributor hereby grants to You a perpetual,
      worldwide, non-exclusive, no-charge, royalty-free, irrevocable
      (except as stated in this section) patent license to make, have made,
      use, offer to sell, sell, import, and otherwise transfer the Work,
      where such license applies only to those patent claims licensable
      by such Contributor that are necessarily infringed by their
      Contribution(s) alone or by combination of their Contribution(s)
      with the Work to which such Contribution(s) was submitted.

   7. Disclaimer of Warranty. Unless required by applicable law or
      agreed to in writing, Licensor provides the Work (and each
      Contributor provides its Contributions) on an "AS IS" BASIS,
      WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or
      implied, including, without limitation, any warranties or conditions
      of TITLE, NON-INFRINGEMENT, MERCHANTABILITY, or FITNESS FOR A
      PARTICULAR PURPOSE. You are solely responsible for determining the
      appropriateness of using or redistributing the Work and assume any
      risks associated with Your exercise of permissions under this License.
"""

DATAMODEL = """\
object.__hash__(self)

Called by built-in function hash() and for operations on members of hashed collections
including set, frozenset, and dict. The __hash__() method should return an integer. The
only required property is that objects which compare equal have the same hash value.

A class that overrides __eq__() and does not define __hash__() will have its __hash__()
implicitly set to None. When the __hash__() method of a class is None, instances of the
class will raise an appropriate TypeError when a program attempts to retrieve their hash
value.
"""

# The disclaimer, quoted verbatim (as the extractive model quotes): it matches itself
# word for word, and says nothing about any vacuum cleaner.
DISCLAIMER = ("Unless required by applicable law or agreed to in writing, Licensor provides "
              "the Work (and each Contributor provides its Contributions) on an \"AS IS\" "
              "BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied, "
              "including, without limitation, any warranties or conditions of TITLE, "
              "NON-INFRINGEMENT, MERCHANTABILITY, or FITNESS FOR A PARTICULAR PURPOSE.")
PATENT = ("Subject to the terms and conditions of this License, each Contributor hereby "
          "grants to You a perpetual, worldwide, non-exclusive, no-charge, royalty-free, "
          "irrevocable (except as stated in this section) patent license to make, have made, "
          "use, offer to sell, sell, import, and otherwise transfer the Work, where such "
          "license applies only to those patent claims licensable by such Contributor that "
          "are necessarily infringed by their Contribution(s) alone or by combination of "
          "their Contribution(s) with the Work to which such Contribution(s) was submitted.")
HASH_NONE = ("A class that overrides __eq__() and does not define __hash__() will have its "
             "__hash__() implicitly set to None.")

OFF_TOPIC_Q = "What is the warranty period of the Acme X200 vacuum cleaner?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("support")
    (root / "apache-2.0.txt").write_text(APACHE)
    (root / "datamodel.txt").write_text(DATAMODEL)
    base = KnowledgeBase.open(root / "kb", dense=False)
    report = base.ingest([root / "apache-2.0.txt", root / "datamodel.txt"])
    assert len(report.added) == 2
    return base


def ask(kb: KnowledgeBase, question: str, answer: str, *, query: str | None = None,
        strict: bool = False, verifier: Verifier | None = None) -> Answer:
    model = ScriptedModel([call("search_knowledge", query=query or question, k=5), answer])
    agent = Agent(kb, model=model, settings=RunSettings(strict=strict), verifier=verifier,
                  provenance=False)
    return agent.ask(question)


def doc_of(answer: Answer, name: str) -> int:
    return next(i for i, d in enumerate(answer.search_documents, start=1)
                if d.source.endswith(name))


def codes(answer: Answer) -> list[str]:
    return [i.code for i in answer.issues]


def test_a_verbatim_quote_that_does_not_answer_scores_low(kb: KnowledgeBase) -> None:
    probe = ask(kb, OFF_TOPIC_Q, "x")
    n = doc_of(probe, "apache-2.0.txt")  # the disclaimer is retrieved ("warranty")
    answer = ask(kb, OFF_TOPIC_Q, f"{DISCLAIMER} [{n}]")
    cit = answer.citations[0]
    assert cit.excerpt in APACHE.replace("\n      ", "\n      ")  # verbatim, as ever
    assert cit.support is not None and cit.support < 0.5
    claim = answer.claims[0]
    assert claim.status == "unsupported" and claim.support is not None and claim.support < 0.5
    off = [i for i in answer.issues if i.code == "off_topic_evidence"]
    assert len(off) == 1 and off[0].details["relevance"] < OFF_TOPIC_LEXICAL
    assert "no_answer_in_sources" in codes(answer)


def test_strict_drops_the_off_topic_quote_and_says_the_documents_do_not_answer(
        kb: KnowledgeBase) -> None:
    n = doc_of(ask(kb, OFF_TOPIC_Q, "x"), "apache-2.0.txt")
    answer = ask(kb, OFF_TOPIC_Q, f"{DISCLAIMER} [{n}]", strict=True)
    assert answer.text == NOT_IN_SOURCES
    assert answer.citations == [] and answer.claims[0].removed
    assert {"off_topic_evidence", "all_claims_removed", "no_answer_in_sources"} <= set(
        codes(answer))
    assert answer.search_documents  # the closest passages are still shown


def test_the_same_quote_for_a_question_it_answers_scores_high(kb: KnowledgeBase) -> None:
    q = "Which patent license does each Contributor grant?"
    n = doc_of(ask(kb, q, "x"), "apache-2.0.txt")
    answer = ask(kb, q, f"{PATENT} [{n}]")
    assert answer.claims[0].status == "supported"
    assert answer.citations[0].support is not None and answer.citations[0].support >= 0.9
    assert codes(answer) == []


def test_only_the_sentence_that_strays_is_flagged_and_dropped(kb: KnowledgeBase) -> None:
    q = "What happens to __hash__ when a class overrides __eq__?"
    probe = ask(kb, q, "x", query="hash __eq__ class overrides warranty")
    d, a = doc_of(probe, "datamodel.txt"), doc_of(probe, "apache-2.0.txt")
    text = f"{HASH_NONE} [{d}] {DISCLAIMER} [{a}]"
    answer = ask(kb, q, text, query="hash __eq__ class overrides warranty")
    assert [c.status for c in answer.claims] == ["supported", "unsupported"]
    assert codes(answer) == ["off_topic_evidence"]  # the answer as a whole still answers
    strict = ask(kb, q, text, query="hash __eq__ class overrides warranty", strict=True)
    assert strict.text == f"{HASH_NONE} [{d}]"
    assert [c.document_index for c in strict.citations] == [d]


def test_a_language_model_answer_none_of_whose_claims_holds_is_flagged(
        kb: KnowledgeBase) -> None:
    q = "What happens to __hash__ when a class overrides __eq__?"
    n = doc_of(ask(kb, q, "x"), "datamodel.txt")
    # An LLM-style answer: on topic, cited, and wrong (the document says None, not id()).
    text = (f"When a class overrides __eq__(), Python keeps the inherited __hash__() "
            f"based on id() [{n}]. Such instances can still be used as dict keys [{n}].")
    answer = ask(kb, q, text)
    assert [c.status for c in answer.claims] == ["unsupported", "unsupported"]
    assert "no_answer_in_sources" in codes(answer)
    strict = ask(kb, q, text, strict=True)
    assert strict.text == NOT_IN_SOURCES and strict.citations == []
    # one right sentence among them: the answer is not flagged
    mixed = ask(kb, q, f"{HASH_NONE} [{n}] " + text)
    assert "no_answer_in_sources" not in codes(mixed)


def test_the_embedder_judges_a_paraphrased_question(kb: KnowledgeBase) -> None:
    # No content word of the question is in the quote; an embedder that knows they mean
    # the same thing lifts it over the line, one batch per answer.
    q = "Do authors give away rights to their inventions?"
    n = doc_of(ask(kb, q, "x", query="Contributor patent license"), "apache-2.0.txt")
    lexical = ask(kb, q, f"{PATENT} [{n}]", query="Contributor patent license")
    assert "off_topic_evidence" in codes(lexical)
    batches: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        batches.append(texts)
        return [[1.0, 0.0] if t == q or t.startswith("Subject to the terms") else [0.0, 1.0]
                for t in texts]

    verifier = Verifier(document_text=kb.document_text, relevance_embed=embed)
    semantic = ask(kb, q, f"{PATENT} [{n}]", query="Contributor patent license",
                   verifier=verifier)
    assert semantic.claims[0].status == "supported" and codes(semantic) == []
    assert len(batches) == 1 and batches[0][0] == q


def test_relevance_weighs_words_every_passage_shares_less() -> None:
    from citewise.answer import SearchDocument, Snippet

    docs = [SearchDocument(source=f"/kb/{i}.md", snippets=[Snippet(text=t)]) for i, t in
            enumerate(["Python 3.11 is faster than Python 3.10.",
                       "Python supports multiple inheritance.",
                       "Python code is compiled to bytecode."])]
    judge = QuestionRelevance("What is the warranty period for Python?", docs)
    # "python" is in every retrieved passage: sharing it is not addressing the question
    assert judge.lexical("Python 3.11 is faster than Python 3.10.") < 0.2
    assert judge.lexical("The warranty period is two years.") > 0.8
    assert QuestionRelevance("Why?", docs).lexical("anything at all") == 1.0


def test_a_stale_quote_still_fails_verification(tmp_path: Path) -> None:
    from citewise.agent.state import RunState
    from citewise.knowledge.retrieve.hits import Hit

    stored = "Refunds are issued within 5 business days of the return."
    stale = "Refunds are issued within 3 business days of the return."
    state = RunState(run_id="r", thread_id="t", question="How long do refunds take?")
    state.ledger.add([Hit(chunk_id=1, document_id="d", source="/kb/r.md", text=stale,
                          start_char=0, end_char=len(stale), field_length=len(stale),
                          score=1.0)])
    answer, issues = assemble_answer(state, f"{stale} [1]", settings=RunSettings(),
                                     ended_by_tool=None,
                                     verifier=Verifier(document_text=lambda _: stored))
    assert answer.citations == []
    assert "snippet_not_verbatim" in [i.code for i in issues]


@pytest.mark.slow  # embeds the document with the packaged model
def test_the_knowledge_base_embedder_is_used_by_default(tmp_path: Path) -> None:
    # An Agent over a knowledge base with vectors judges relevance with its embedder too.
    (tmp_path / "apache-2.0.txt").write_text(APACHE)
    with KnowledgeBase.open(tmp_path / "kb") as base:
        base.ingest([tmp_path / "apache-2.0.txt"])
        agent = Agent(base, model=ScriptedModel([]), provenance=False)
        assert agent.verifier is not None and agent.verifier.relevance_embed is not None
        q = "Who won the 2018 football world cup?"
        answer = ask(base, q, f"{PATENT} [1]", query="Contributor grants patent license")
        assert "off_topic_evidence" in codes(answer)
        assert answer.claims[0].support is not None and answer.claims[0].support < 0.5


def test_the_cli_says_when_the_sources_do_not_support_the_answer(kb: KnowledgeBase) -> None:
    """All claims unsupported: `citewise ask` printed the quotes as a normal answer and
    said so only in a warning on stderr (new-user review, session 15)."""
    import io

    from citewise.cli.common import print_answer

    n = doc_of(ask(kb, OFF_TOPIC_Q, "x"), "apache-2.0.txt")
    answer = ask(kb, OFF_TOPIC_Q, f"{DISCLAIMER} [{n}]")
    assert "no_answer_in_sources" in codes(answer) and answer.citations
    out = io.StringIO()
    print_answer(answer, kb, out)
    text = out.getvalue()
    # Said before the answer, in the decline's words (Sphinx's review, 2026-12-06, met two
    # wordings of one verdict), and its quotes listed as a decline lists them.
    assert text.startswith("The documents do not answer this question: what follows quotes")
    assert text.index(answer.text.strip()[:40]) < text.index(
        "Closest passages (they do not answer it):")
    assert "Sources:" not in text
    supported = ask(kb, "Does a class that overrides __eq__ keep its hash?",
                    f"{HASH_NONE} [{doc_of(ask(kb, 'hash __eq__', 'x'), 'datamodel.txt')}]")
    out = io.StringIO()
    print_answer(supported, kb, out)
    assert "do not answer" not in out.getvalue() and "Sources:" in out.getvalue()


def test_the_cli_marks_the_quote_that_does_not_address_the_question(kb: KnowledgeBase) -> None:
    """One claim answers, one quotes an unrelated clause: the warning was on stderr only,
    and in the answer the unrelated quote looked as sure as the other (review, 2026-12-03)."""
    import io

    from citewise.cli.common import print_answer

    question = "Does a class that overrides __eq__ keep its hash?"
    probe = ask(kb, question, "x", query="hash __eq__ warranty disclaimer")
    hashed, apache = doc_of(probe, "datamodel.txt"), doc_of(probe, "apache-2.0.txt")
    answer = ask(kb, question, f"{HASH_NONE} [{hashed}] {DISCLAIMER} [{apache}]",
                 query="hash __eq__ warranty disclaimer")
    assert codes(answer).count("off_topic_evidence") == 1
    assert "no_answer_in_sources" not in codes(answer)
    out = io.StringIO()
    print_answer(answer, kb, out)
    lines = out.getvalue().splitlines()
    flagged = [n for n, line in enumerate(lines) if "does not address the question" in line]
    assert len(flagged) == 1, lines
    assert lines[flagged[0] - 1].strip().startswith("“Unless required by applicable law")
    assert "support 0." in lines[flagged[0]]
    hash_line = next(n for n, line in enumerate(lines) if "implicitly set to None" in line)
    assert "does not address" not in lines[hash_line + 1]


def test_an_unsupported_answer_says_so_in_its_text_for_clients_that_read_only_text(
        kb: KnowledgeBase) -> None:
    # An OpenAI SDK or a chat UI reads `content` alone: the closest passages, quoted with
    # `finish_reason: stop` and the flag only in `citewise.issues`, read as an answer.
    import asyncio
    import io

    from citewise.cli.common import print_answer
    from citewise.dialects.openai_chat import OpenAIChatDialect
    from citewise.events import AnswerDelta
    from citewise.grounding.relevance import UNSUPPORTED_NOTE

    n = doc_of(ask(kb, OFF_TOPIC_Q, "x"), "apache-2.0.txt")
    model = ScriptedModel([call("search_knowledge", query=OFF_TOPIC_Q, k=5),
                           f"{DISCLAIMER} [{n}]  \n"])  # trailing blanks streamed as sent
    agent = Agent(kb, model=model, provenance=False)

    async def run() -> list[Any]:
        return [e async for e in agent.stream(OFF_TOPIC_Q)]

    events = asyncio.run(run())
    answer = events[-1].answer
    assert "no_answer_in_sources" in codes(answer) and answer.citations
    assert answer.text.endswith(f"\n\n{UNSUPPORTED_NOTE}")
    streamed = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert streamed == answer.text  # the note streams too, once, after what was sent
    assert [e.end_of_message for e in events if isinstance(e, AnswerDelta)][-1]
    content = OpenAIChatDialect().final(answer)["choices"][0]["message"]["content"]
    assert content.endswith(UNSUPPORTED_NOTE)
    out = io.StringIO()
    print_answer(answer, kb, out)
    assert out.getvalue().count("do not answer this question") == 1  # said first, once
    supported = ask(kb, "Does a class that overrides __eq__ keep its hash?",
                    f"{HASH_NONE} [{doc_of(ask(kb, 'hash __eq__', 'x'), 'datamodel.txt')}]")
    assert UNSUPPORTED_NOTE not in supported.text


BDAT = """\
The SMTP server supports RFC 3030 CHUNKING (the BDAT command) without BINARYMIME, in both
the server and the screening daemon. It is enabled by default.

When a spammer or worm sends mail with forged sender addresses, innocent sites are flooded
with undeliverable mail notifications. This is called backscatter mail.

The first chapter of this manual was written by a volunteer. It was revised in 2019.
"""


@pytest.mark.slow  # embeds the document with the packaged model
def test_a_quote_that_leans_on_the_sentence_before_is_judged_with_it(tmp_path: Path) -> None:
    """"It is enabled by default." answers "Is BDAT chunking on out of the box?", but alone
    its embedding is far from the question: it was called off topic, and `citewise ask`
    printed that under the right answer (review over Postfix's READMEs, 2026-12-03)."""
    (tmp_path / "bdat.txt").write_text(BDAT)
    with KnowledgeBase.open(tmp_path / "kb") as base:
        base.ingest([tmp_path / "bdat.txt"])
        question = "Is BDAT chunking on out of the box?"
        answer = ask(base, question, "It is enabled by default. [1]")
        assert "off_topic_evidence" not in codes(answer), answer.issues
        assert answer.claims[0].status == "supported"
        # The sentence the next one names: "This is called backscatter mail."
        defined = ("When a spammer or worm sends mail with forged sender addresses, innocent "
                   "sites are flooded\nwith undeliverable mail notifications. [1]")
        answer = ask(base, "What does the term backscatter mean?", defined)
        assert "off_topic_evidence" not in codes(answer), answer.issues
        # Leaning on a sentence about something else does not make a quote on topic.
        answer = ask(base, question, "It was revised in 2019. [1]")
        assert "off_topic_evidence" in codes(answer)


def test_a_default_stated_of_this_value_leans_on_the_sentence_before() -> None:
    """OpenSSL's "By default this value is initialised to SSL_AD_UNRECOGNIZED_NAME." names
    what "this value" is only in the sentence before ("The value of the alert to be used
    …"); embedded alone it was called off topic for "which alert is sent unless I change
    it?", and the right answer came back as "the documents do not answer" (new-user review
    of OpenSSL's man pages, 2026-12-07). A default that opens on its own subject does not
    lean."""
    from citewise.grounding.relevance import _with_antecedent

    before = "The value of the alert to be used should be stored in the al parameter."
    quote = "By default this value is initialised to SSL_AD_UNRECOGNIZED_NAME."
    assert _with_antecedent(quote, before, "") == f"{before} {quote}"
    assert _with_antecedent("By default, it is off.", before, "") == (
        f"{before} By default, it is off.")
    own = "By default, logs go to standard error."
    assert _with_antecedent(own, before, "") == own


def test_a_list_item_is_judged_with_the_lead_in_of_its_list_only() -> None:
    """An item of a list ("mod_dirlisting" under "… three default modules are loaded
    automatically:") addresses the question through its lead-in; a paragraph after a
    code line after a lead-in ("The required syntax for an AMQP URL is:" / the URL /
    "Where hostname and port (default is 5672) …") is no item, and judged with its lead-in
    it was called off topic (FFmpeg's bench question ff26, 2026-12-05)."""
    from citewise.grounding.relevance import _lead_in
    from citewise.grounding.verify import excerpt_spans

    listed = ("Modules are loaded in order. Three default modules are loaded automatically:"
              "\n\n- mod_indexfile\n- mod_dirlisting\n- mod_staticfile\n\nNext.")
    at = listed.index("mod_dirlisting")
    assert _lead_in(listed, at, excerpt_spans(listed)) == (
        "Three default modules are loaded automatically:")
    numbered = "Do this:\n1. Stop it.\n2. Start it.\n\nNext."
    assert _lead_in(numbered, numbered.index("Start"), excerpt_spans(numbered)) == "Do this:"
    url = ("The required syntax for an AMQP URL is:\n\namqp://[[user]:[password]@]hostname"
           "[:port][/vhost]\n\nWhere hostname and port (default is 5672) is the address of "
           "the broker.")
    assert _lead_in(url, url.index("Where"), excerpt_spans(url)) == ""
    prose = "It is set so: by default. Then it runs."
    assert _lead_in(prose, prose.index("Then"), excerpt_spans(prose)) == ""


def test_a_quote_under_the_entry_the_question_names_addresses_it() -> None:
    """Privoxy's option entries name the option only in their heading ("7.6.8.
    socket-timeout"); "Effect if unset: A default value of 300 seconds is used." was
    called off topic for "If I never set socket-timeout, how long …?", and the right
    answer came back as "the documents do not answer" (new-user review, 2026-12-07). The
    entry a quote is under counts as its context."""
    from citewise.answer import SearchDocument, Snippet
    from citewise.grounding.verify import Excerpt

    quote = "Effect if unset: A default value of 300 seconds is used."
    docs = [SearchDocument(source="/kb/config.html", snippets=[Snippet(
        text=f"Specifies: Number of seconds after which a connection is dropped. {quote}",
        section="7. The Main Configuration File > 7.6. Miscellaneous > 7.6.8. socket-timeout")]),
            SearchDocument(source="/kb/faq.html", snippets=[Snippet(
                text="Privoxy listens on port 8118 by default.", section="3. FAQ > 3.1. Port")])]
    judge = QuestionRelevance("If I never set socket-timeout, how long does a socket wait "
                              "before giving up?", docs)
    start = docs[0].snippets[0].text.index(quote)
    [score] = judge.excerpt_scores([(docs[0], Excerpt(0, start, start + len(quote), quote, 1.0))])
    assert score > OFF_TOPIC_LEXICAL, score  # off topic without its entry: 0.0
    [other] = judge.excerpt_scores([(docs[1], Excerpt(0, 0, 41, docs[1].snippets[0].text, 1.0))])
    assert other < OFF_TOPIC_LEXICAL, other
    # Under an entry the question does not name, a quote that does not address it stays
    # off topic.
    elsewhere = [SearchDocument(source="/kb/config.html", snippets=[Snippet(
        text=quote, section="7. The Main Configuration File > 7.6.2. keep-alive-timeout")])]
    judge = QuestionRelevance("If I never set socket-timeout, how long does a socket wait "
                              "before giving up?", [*elsewhere, *docs])
    [far] = judge.excerpt_scores([(elsewhere[0], Excerpt(0, 0, len(quote), quote, 1.0))])
    assert far < score, (far, score)


def test_a_quote_under_its_paragraphs_opening_sentence_addresses_what_that_names() -> None:
    """GNU Prolog's "By default vector max is set to 127." is two sentences under "sparse
    representation: an additional bit-vector is used …"; asked how large the sparse
    bit-vector is by default, the right quote was called off topic and the answer came
    back as "the documents do not answer" (new-user review, 2026-12-07). The opening
    sentence of the paragraph or list item a quote is in counts as its context."""
    from citewise.answer import SearchDocument, Snippet
    from citewise.grounding.relevance import OFF_TOPIC
    from citewise.grounding.verify import Excerpt
    from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

    quote = "By default vector max is set to 127."
    # A passage of the manual (its page 181) as the loader reads it, bullets and all.
    text = ("There are two internal representations for an FD variable:\n"
            "• interval representation: only the min and the max of the variable are "
            "maintained. In this\nrepresentation it is possible to store values included in "
            "0..fd max integer.\n"
            "• sparse representation: an additional bit-vector is used to store the set of "
            "possible values for\nthe variable (i.e. the domain). In this representation it "
            f"is possible to store values included in\n0..vector max. {quote}"
            "\n\nAtoms are kept in a table of 32768 entries.")
    docs = [SearchDocument(source="/kb/gprolog.pdf", snippets=[Snippet(text=text)])]
    embedder = MiniLMEmbedder()
    judge = QuestionRelevance("How large is the bit-vector used for sparse finite-domain "
                              "representations unless I change it?", docs, embedder.embed)
    start = text.index(quote)
    [score] = judge.excerpt_scores([(docs[0], Excerpt(0, start, start + len(quote), quote, 1.0))])
    assert judge.embed_error is None
    assert score > OFF_TOPIC, score  # 0.17 with its neighbours alone
    # The next paragraph's sentence is no part of that one: it stays off topic.
    atoms = "Atoms are kept in a table of 32768 entries."
    at = text.index(atoms)
    [other] = judge.excerpt_scores([(docs[0], Excerpt(0, at, at + len(atoms), atoms, 1.0))])
    assert other < OFF_TOPIC, other
    # A PDF's paragraphs have no blank line between them: a sentence with no word of the
    # opening one does not go on with it, and stays off topic (code review, 2026-12-07).
    pdf = ("The TLS certificate of the server is configured in tls.conf with the cert "
           "option.\nEach line holds one setting. Comments start with a hash.\nThe log file "
           "is rotated every night at midnight.\nOld log files are compressed with gzip and "
           "kept for a week.")
    docs = [SearchDocument(source="/kb/admin.pdf", snippets=[Snippet(text=pdf)])]
    judge = QuestionRelevance("Where do I configure the TLS certificate of the server?", docs,
                              embedder.embed)
    old = "Old log files are compressed with gzip and kept for a week."
    at = pdf.index(old)
    [unrelated] = judge.excerpt_scores([(docs[0], Excerpt(0, at, at + len(old), old, 1.0))])
    assert unrelated < OFF_TOPIC, unrelated
