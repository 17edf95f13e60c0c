"""Does the extractive model quote the sentence that answers, or abstain? One test per
failure class of issue #27, on text shaped like real documentation and licences:

* entity words instead of the predicate (a licence's title notice vs. its clause);
* boilerplate and structure as evidence (a Sphinx page: ``¶`` marks, doctests, a
  "Changed in version" note, a copyright footer);
* a look-alike document outranking the one the question names, or a sibling section
  outranking the one the question names (a shell's startup files);
* an off-topic question answered with a confident quote.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citewise import Agent, KnowledgeBase
from citewise.answer import Answer
from citewise.models.sentence_rank import Sentence, intent, rank, structure_penalty

LICENCE = """\
# The Harbour Public Licence, version 2.1

The Harbour Public Licence, version 2.1, is published by the Harbour Software Foundation.
Copyright (C) 2019 Harbour Software Foundation. Everyone is permitted to copy and
distribute verbatim copies of this licence document, but changing it is not allowed.

## 1. Definitions

"The Software" means the source code and object code distributed under this licence.
"You" means the individual or legal entity exercising rights under this licence.

## 2. Distribution

You may distribute modified versions of the Software only if every modified file carries
a prominent notice stating that you changed it and the date of the change. When you
distribute the Software in object code form, you must also make the corresponding source
code available for at least three years.

## 3. Termination

Your rights under this licence end automatically if you fail to comply with any of its
terms; they are reinstated if you cure the violation within 30 days of notice.
"""

SPHINX = """\
<!DOCTYPE html><html><head>
<title>json — JSON encoder and decoder — Python 3.12 documentation</title></head>
<body><div class="related"><a href="index.html">Home</a> | <a href="prev.html">Previous</a>
| <a href="next.html">Next</a></div>
<main>
<h1>json — JSON encoder and decoder<a class="headerlink" href="#module-json">¶</a></h1>
<p>JSON (JavaScript Object Notation) is a lightweight data interchange format inspired by
JavaScript object literal syntax.</p>
<h2>Basic Usage<a class="headerlink" href="#basic-usage">¶</a></h2>
<dl class="py function">
<dt class="sig sig-object py" id="json.dumps">json.dumps(<em>obj</em>, <em>*</em>,
<em>skipkeys=False</em>, <em>indent=None</em>, <em>sort_keys=False</em>)<a
class="headerlink" href="#json.dumps">¶</a></dt>
<dd><p>Serialize <em>obj</em> to a JSON formatted str using this conversion table.</p>
<div class="highlight"><pre>&gt;&gt;&gt; import json
&gt;&gt;&gt; print(json.dumps({'indent': 4}, indent=4))  # pretty-printed with an indent of 4
{
    "indent": 4
}</pre></div>
<p>If <em>indent</em> is a non-negative integer or string, then JSON array elements and
object members will be pretty-printed with that indent level.</p>
<div class="versionchanged"><p><span class="versionmodified changed">Changed in version
3.2: </span>Allow strings for indent in addition to integers.</p></div>
<p>If <em>sort_keys</em> is true (default: False), then the output of dictionaries will be
sorted by key.</p>
</dd></dl>
</main>
<p>© Copyright 2001-2024, Python Software Foundation. This page is licensed under the Python
Software Foundation License Version 2.</p>
</body></html>
"""

NORTH = """\
# Northline Rail: refunds and delays

Northline Rail refunds a cancelled ticket to the original payment card within 14 days.
A Northline Rail season ticket can be refunded for the unused full weeks only.
Delay compensation is paid when a Northline train arrives 60 minutes late or more.
"""

SOUTH = """\
# Southmoor Rail: refunds and delays

Refunds for cancelled tickets reach your card within 5 days.
A Southmoor Rail season ticket can be refunded for the unused days at a daily rate.
Delay compensation is paid when a Southmoor train arrives 30 minutes late or more.
"""

# Sibling sections that say nearly the same, shaped like the Bash manual's "Bash Startup
# Files": the sentence the question asks for shares fewer of its words than the next
# section's first sentence does; its section's heading is what the question names.
STARTUP = """\
# Shell startup files

This section describes how the shell executes its startup files. If any of the files
exist but cannot be read, the shell reports an error. Tildes are expanded in filenames.

## Invoked as an interactive login shell, or with --login

When the shell is invoked as an interactive login shell, or as a non-interactive shell with
the --login option, it first reads and executes commands from /etc/profile, if that file
exists. After reading that file, it looks for ~/.profile and reads the first one that exists.

## Invoked as an interactive non-login shell

When an interactive shell that is not a login shell is started, the shell reads and executes
commands from ~/.shellrc, if that file exists. The --norc option inhibits this behaviour.

## Invoked non-interactively

As noted above, if a non-interactive shell is invoked with the --login option, the shell
attempts to read and execute commands from the login shell startup files.
When the shell is started non-interactively, to run a script for example, it reads the file
named by the ENV variable.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("quality")
    docs = root / "docs"
    docs.mkdir()
    (docs / "harbour-licence.md").write_text(LICENCE, encoding="utf-8")
    (docs / "json.html").write_text(SPHINX, encoding="utf-8")
    (docs / "northline-rail.md").write_text(NORTH, encoding="utf-8")
    (docs / "southmoor-rail.md").write_text(SOUTH, encoding="utf-8")
    base = KnowledgeBase.open(root / "kb")
    report = base.ingest([docs])
    assert not report.failed
    return base


def _ask(kb: KnowledgeBase, question: str) -> Answer:
    answer = Agent(kb).ask(question)
    assert answer.status == "completed"
    for c in answer.citations:  # the verbatim guarantee, whatever was chosen
        doc = answer.search_documents[c.document_index - 1]
        text = kb.document_text(str(doc.document["id"]))
        assert text is not None and c.start_char is not None
        assert text[c.start_char:c.end_char] == c.excerpt
    return answer


def _first(answer: Answer) -> tuple[str, str]:
    assert answer.citations, answer.text
    c = answer.citations[0]
    return Path(answer.search_documents[c.document_index - 1].source).name, c.excerpt


def test_the_clause_that_answers_beats_the_notice_that_names_the_licence(
        kb: KnowledgeBase) -> None:
    # The notice shares "Harbour Public Licence" and "distribute" with the question; the
    # clause shares only "modified", "distribute" and what is asked: a condition.
    answer = _ask(kb, "Under the Harbour Public Licence, what must I do before I can "
                      "distribute a modified version?")
    source, excerpt = _first(answer)
    assert source == "harbour-licence.md"
    assert "prominent notice stating that you changed it" in excerpt
    assert "Copyright" not in answer.text


def test_a_sphinx_page_quotes_prose_not_marks_doctests_or_change_notes(
        kb: KnowledgeBase) -> None:
    answer = _ask(kb, "What does the indent argument of json.dumps do?")
    source, excerpt = _first(answer)
    assert source == "json.html"
    assert "pretty-printed with that indent level" in excerpt
    for c in answer.citations:
        assert "¶" not in c.excerpt and ">>>" not in c.excerpt
        assert not c.excerpt.startswith("Changed in version")
    for doc in answer.search_documents:
        for snip in doc.snippets:
            assert "¶" not in (snip.section or "")


def test_the_named_document_beats_its_look_alike(kb: KnowledgeBase) -> None:
    # Northline's sentence shares more words with the question than Southmoor's own.
    answer = _ask(kb, "How long does Southmoor take to refund a cancelled ticket to the "
                      "original payment card?")
    source, excerpt = _first(answer)
    assert source == "southmoor-rail.md"
    assert "within 5 days" in excerpt
    assert all(Path(answer.search_documents[c.document_index - 1].source).name
               == "southmoor-rail.md" for c in answer.citations)


def test_the_section_the_question_names_beats_its_sibling(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "startup.md").write_text(STARTUP, encoding="utf-8")
    base = KnowledgeBase.open(tmp_path / "kb")
    assert not base.ingest([docs]).failed
    answer = _ask(base, "Which file does an interactive non-login shell read at startup?")
    _, excerpt = _first(answer)
    assert "~/.shellrc" in excerpt
    c = answer.citations[0]
    assert c.snippet_index is not None
    snippet = answer.search_documents[c.document_index - 1].snippets[c.snippet_index]
    assert (snippet.section or "").endswith("Invoked as an interactive non-login shell")
    # The sibling section's own question still gets its own sentence.
    _, excerpt = _first(_ask(base, "What does a non-interactive shell read when it runs a script?"))
    assert "ENV variable" in excerpt


@pytest.mark.parametrize("question", [
    "What is the boiling point of water at sea level?",
    "How do I set the execution policy in PowerShell?",
])
def test_an_off_topic_question_is_not_answered(kb: KnowledgeBase, question: str) -> None:
    answer = _ask(kb, question)
    assert answer.citations == []
    assert "do not answer" in answer.text
    assert "no_answer_in_sources" in {i.code for i in answer.issues}
    assert answer.search_documents  # the closest passages are still shown


def test_what_a_question_asks_for() -> None:
    assert "default" in intent("How many connections does it allow out of the box?")
    assert "yesno" in intent("Can I use a sequence for gap-free numbers?")
    assert "procedure" in intent("How do I skip the pre-commit hook?")
    assert "code" not in intent("What does the indent argument do?")
    # A limit by any superlative (libcurl's review, 2026-12-07: "biggest" was none).
    for limit in ("What is the biggest receive buffer size I can ask for?",
                  "What's the smallest timeout it accepts?", "What is the highest level?"):
        assert "limit" in intent(limit), limit
    assert "limit" not in intent("What is the best way to store it?")
    assert "limit" not in intent("Which function gives the greatest common divisor?")
    # What is left unsaid asks for a default too, however it is put.
    for unsaid in ("I never set a timeout; how long does it wait?",
                   "Which engine do I get if I don't choose one?",
                   "The reply has no body and no length header. What then?",
                   "I haven't configured logging. Where do messages go?",
                   # gnuplot's review (2026-12-04): "By default, sampling is set to 100
                   # points." got no default cue for this one.
                   "If I plot a function without changing any settings, how many points "
                   "does it sample?",
                   # FFmpeg's review (2026-12-05).
                   "What port does the amqp protocol use if I leave it out of the URL?",
                   "If I give a color without an alpha part, how opaque is it?",
                   # nginx's review and the tune split (2026-12-05): the verbs of leaving
                   # a value out, and the value said to be missing.
                   "Which TLS protocol versions are turned on if I don't list any?",
                   "What log format does access_log use when I don't name one?",
                   "If the unit doesn't say which account to use, whose is it?",
                   "What compression level is used if none is given?",
                   "Where does cd go when I give it no directory?",
                   "What unit is a time span in when I write a plain number with no suffix?",
                   "Is there a cap on upload size if I leave the configuration alone?",
                   "If there's no Port line in my config, which port is it?",
                   "I never configured logging. Why are debug messages missing?"):
        assert "default" in intent(unsaid), unsaid
    assert "default" not in intent("How do I pick a port?")
    assert "default" not in intent("Which names does the list include?")
    assert "default" not in intent("What happens when the file has no newline at the end?")
    # … nor do these, which say "no" or "never" of something else (the review of the
    # change, 2026-12-05).
    for other in ("Why does gcc give no warning for this cast?",
                  "Why has my test passed no matter what I change?",
                  "Why does postmap say the table has no such entry?",
                  "Why does the journal never mention the crash?",
                  "Which error is returned when no rows are listed?"):
        assert "default" not in intent(other), other
    assert "default" in intent("Which TLS versions are on if I don’t list any?")  # ’
    # A how-to question asks for a default only in that word (systemd's review).
    assert "default" not in intent("How can I change a couple of settings of a unit "
                                   "without touching its original unit file?")
    assert "default" in intent("How do I give a dataclass field an empty list as its "
                               "default without all instances sharing it?")
    # … or in the words that say it: "unless told otherwise" (Guile's review, 2026-12-07:
    # "Which file …" read as a how-to, and "By default, the history file is
    # ‘$HOME/.guile_history’." lost to the sentence naming the variable).
    assert "default" in intent("Which file does the Guile REPL save its input history to "
                               "unless told otherwise?")
    assert "default" in intent("Which option does it use out of the box?")
    assert "default" not in intent("How do I keep the log by itself, otherwise it rotates?")


def test_a_value_left_unspecified_states_a_default() -> None:
    """"If the alpha component is not specified then '0xff' is assumed." and "When not
    specified, the string is automatically limited to 32 characters." state what a value
    left out is, without the word "default" (FFmpeg's and HAProxy's reviews, 2026-12-05);
    "even if this option is not set" states none."""
    question = "If I give a color without an alpha part, how opaque is it?"
    told = [_sentence("The alpha component may be a string composed by \"0x\" followed by "
                      "an hexadecimal number or a decimal number between 0.0 and 1.0."),
            _sentence("If the alpha component is not specified then '0xff' is assumed.")]
    scored = {x.sentence.text[:10]: x for x in rank(question, told)}
    assert scored["If the alp"].parts["intent"] > 0 == scored["The alpha "].parts["intent"]
    unset = rank(question, [_sentence("Note that even if this option is not set, the "
                                      "behaviour can be chosen per branch.")])
    assert unset[0].parts["intent"] == 0


def test_code_is_asked_for_only_when_the_question_wants_code() -> None:
    for wanted in ("Is there an example of a here-document?",
                   "What's the syntax for a case statement?",
                   "Show me a code snippet that opens a connection.",
                   "What code do I need to register a handler?",
                   "What is the signature of parse?",
                   "What's the command line to build the docs?"):
        assert "code" in intent(wanted), wanted
    # Code as a thing talked about is not a request for code (the bench's questions:
    # every one of these had the code intent, and none of them asks for code).
    for talked_about in ("What status code does Apache return unless I configure it?",
                         "Which code page is used for file names on a FAT stick?",
                         "Can I put a fenced code block inside a bullet list item?",
                         "If two files require the same module, does its code run twice?",
                         "Will moving it to a thread make it run in parallel with my other "
                         "code?",
                         "How can I check a script for bash-only syntax?",
                         "Is DELETE FROM log ORDER BY ts LIMIT 1000 valid SQLite syntax?"):
        assert "code" not in intent(talked_about), talked_about


def test_a_version_note_answers_a_question_about_the_version() -> None:
    # Python's logging HOWTO (a review of its reStructuredText, 2026-12-04): "Which Python
    # version added the encoding parameter …?" is answered by the version note, which ranks
    # below the current behaviour for any other question.
    note = Sentence(1, 0, "Changed in version 3.9: The encoding argument was added.", "",
                    "logging.rst", "Logging HOWTO", True, role="version_note")
    prose = Sentence(1, 0, "The encoding argument names the log file's encoding.", "",
                     "logging.rst", "Logging HOWTO", True)
    for asked in ("Which Python version added the encoding argument?",
                  "Since which version is there an encoding argument?"):
        assert "version" in intent(asked)
        assert rank(asked, [prose, note])[0].sentence is note, asked
    assert "version" not in intent("What does the encoding argument do?")
    assert rank("What does the encoding argument do?", [note, prose])[0].sentence is prose


def _sentence(text: str, *, asserts: bool = True) -> Sentence:
    return Sentence(1, 0, text, "", "page.html", "Page", asserts)


@pytest.mark.parametrize("text", [
    "© Copyright 2001-2024, Python Software Foundation.",
    "Prev | Up | Next",
    ">>> json.dumps([1, 2], indent=4)",
    "json.dumps(obj, *, skipkeys=False, indent=None)",
    "Changed in version 3.2: Allow strings for indent in addition to integers.",
    "character varying(n), varchar(n) | variable-length with limit | text",
    "psql -X --set ON_ERROR_STOP=on dbname < dumpfile",  # a command line from a <pre>
    "git log --oneline -5",
    # Pointers and contents lines (test_evidence_pointers.py has them in a page).
    "See Section 19.4 for the details of each setting.",
    "For more information about sockets, see the systemd.socket manual.",
    "Consult the Dovecot documentation for how to configure the authentication server.",
    "If you require reject_unauth_pipelining, turn off CHUNKING as described above.",
    "For the full list of accepted command line options, run xapian-tcpsrv --help or see "
    "the xapian-tcpsrv man page.",
    "For a complete list of formats, see Appendix B.",
    "For the full list of supported codecs see Appendix B.",
    "How to turn off backwards-compatibility warnings.",
])
def test_structure_ranks_below_prose(text: str) -> None:
    prose = "If indent is a non-negative integer, members are pretty-printed with it."
    assert structure_penalty(_sentence(text), code_wanted=False) > 0.2
    assert structure_penalty(_sentence(prose), code_wanted=False) == 0.0


@pytest.mark.parametrize("prose", [
    "Use the -x option to remove ignored files.",
    "git add -p lets you stage hunks one by one.",
    "the -n flag bypasses the hooks",
    # Nor is prose that mentions seeing or describing a pointer.
    "The server sees the client's address as described in RFC 5321.",
    "How long a job waits is set by max_wait.",
    "For the full list to be kept, run the cleanup with --keep-all.",
    # An instruction, not a pointer (code review, 2026-12-07).
    "For a complete set of tests, run make check in the build directory.",
    "For a complete description of the format, read the file header first.",
    "For the full list of files seen by the scanner the cache keeps 100 entries.",
    # A reminder that goes on to say it (Perl's perlopentut, a new user's review): the
    # sentence states the answer, it does not point at it.
    "As noted above, if the file does not already exist, then the append-mode open will "
    "create it for you.",
])
def test_prose_naming_an_option_or_a_reference_is_plain_prose(prose: str) -> None:
    assert structure_penalty(_sentence(prose), code_wanted=False) == 0.0


def test_a_line_of_a_see_also_section_points_elsewhere() -> None:
    # cppreference's "See also" table row outranked memcpy's own answer (2026-12-05).
    from dataclasses import replace

    row = _sentence("is_trivially_copyable (C++11) | checks if a type is trivially copyable")
    seen = replace(row, section="std::memcpy > See also")
    assert structure_penalty(seen, code_wanted=False) >= structure_penalty(
        row, code_wanted=False) + 0.25
    prose = _sentence("The behavior of memcpy is not specified.")
    assert structure_penalty(replace(prose, section="Seeing it also > Notes"),
                             code_wanted=False) == 0.0


def test_the_html_loader_drops_permalink_marks(tmp_path: Path) -> None:
    from citewise.knowledge.loaders.html import HtmlLoader

    page = tmp_path / "json.html"
    page.write_text(SPHINX, encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())
    assert "¶" not in doc.text
    assert [s[2] for s in doc.sections] == [
        "json — JSON encoder and decoder", "json — JSON encoder and decoder > Basic Usage"]
    assert "json.dumps(obj, *, skipkeys=False, indent=None, sort_keys=False)\n" in doc.text
    for start, end, _ in doc.sections:
        assert doc.text[start:end].strip()


def test_a_question_naming_what_no_passage_mentions_is_unanswerable() -> None:
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    passage = "The prompt string PS1 is expanded before each primary prompt is displayed."
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    seen = [{"results": [{"text": passage}]}]
    assert answerability("How is the prompt string PS1 expanded?", best, seen) > 0.8
    for question in ("How is the prompt of cmd.exe expanded?",  # an identifier
                     "How is the PowerShell prompt expanded?",  # a name
                     "How is the prompt string expanded by promptfmt()?",  # a function
                     # A module or a path of a namespace (Perl, C++, Rust: "threads::shared"
                     # was answered from a page about threads that never names it).
                     "How is the prompt string expanded by Term::ReadLine?",
                     "How is the prompt string expanded with prompt::expand?"):
        assert answerability(question, best, seen) == 0.0, question
    named_too = [{"results": [{"text": passage + " See prompt::expand."}]}]
    assert answerability("How is the prompt string expanded with prompt::expand?", best,
                         named_too) > 0.8
    # The asker is no name: "I'm", "I’ve", "I'd" mid-question name nothing to look for.
    for question in ("How is PS1 expanded when I'm in a prompt?",
                     "I’ve set PS1: how is the prompt string expanded?",
                     "Once I'd set PS1, how is it expanded?",
                     "Is the prompt string expanded() before it is displayed?"):
        assert answerability(question, best, seen) > 0.8, question


@pytest.mark.parametrize("question", [
    "My copy of a big ISO stopped halfway: how is the prompt string PS1 expanded?",  # a unit
    "With 10 GB free, how is the prompt string PS1 expanded?",
    "If PS1 is 'Prompt:', how is the prompt string expanded?",  # a quoted value
    "How is PS1 expanded for a name, e.g. O'Brien?",  # an example
    "How is PS1 expanded in a locale, say Portuguese, then Spanish?",
    # A file of the asker's, named as examples name one (Click's review, 2026-12-05).
    "When I run my script with python script.py, how is the prompt string PS1 expanded?",
    "Is the prompt string PS1 expanded when my_app.py starts?"])
def test_the_askers_own_data_is_not_a_name_the_passages_must_mention(question: str) -> None:
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    passage = "The prompt string PS1 is expanded before each primary prompt is displayed."
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    assert answerability(question, best, [{"results": [{"text": passage}]}]) > 0.8


def test_a_file_of_the_products_own_is_still_a_name() -> None:
    from citewise.models.answerability import named

    assert named("What goes in setup.py?") == ["setup.py"]
    assert named("Where do I put pg_hba.conf?") == ["pg_hba.conf"]
    assert named("If I run python main.py, what happens?") == []
    assert named("Is PS1 expanded when I run python myscript.py?") == ["ps1"]
    for name in ("my.cnf", "mypy.ini", "main.cf", "input.conf"):
        assert named(f"What goes in {name}?") == [name], name


def test_an_identifier_in_camel_case_is_a_name_the_passages_must_mention() -> None:
    """rsyslog's review (2026-12-07): "What is the default value of imfile's maxFileSize
    parameter?" — imfile has no such parameter — was answered with another setting's
    default; a lower-case identifier with an inner capital named nothing."""
    from citewise.models.answerability import answerability, named
    from citewise.models.sentence_rank import Scored

    question = "What is the default value of imfile's maxFileSize parameter?"
    assert named(question) == ["maxfilesize"]
    assert named("Does openTempFile clean up the file?") == ["opentempfile"]
    assert named("Is the max file size read in kB?") == []  # words, not an identifier
    # Units and brands written in camel case are no identifiers (code review, 2026-12-07).
    for other in ("Can it record at 44.1 kHz?", "Does it run on macOS?",
                  "How do I sync my iPhone?", "Is the battery 5000 mAh?"):
        assert named(other) == [], other
    # A switch named with its dash is still named (bench ff18).
    assert named("How do I raise -max_muxing_queue_size?") == ["max_muxing_queue_size"]
    passage = "The default value of MaxSubmitAtOnce is 1024."
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    seen = [{"results": [{"text": passage, "title": "imfile: Text File Input Module"}]}]
    assert answerability(question, best, seen) == 0.0
    stated = "The maxFileSize parameter sets the largest file imfile reads; default 1m."
    best = [Scored(_sentence(stated), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    assert answerability(question, best, [{"results": [{"text": stated}]}]) > 0.8


def test_a_file_name_with_a_hyphen_is_named_whole() -> None:
    """rsyslog's review (2026-12-07): a decline said "No passage found mentions “ng.conf”"
    of "syslog-ng.conf"."""
    from citewise.models.answerability import answerability, named, unnamed
    from citewise.models.sentence_rank import Scored

    question = "How do I write a destination block in syslog-ng.conf that encrypts?"
    assert named(question) == ["syslog-ng.conf"]
    passage = "The omfwd action encrypts messages when StreamDriver.Mode is 1."
    seen = [{"results": [{"text": passage}]}]
    assert unnamed(question, seen) == ["syslog-ng.conf"]
    told = "Convert each destination block of syslog-ng.conf to an omfwd action that encrypts."
    best = [Scored(_sentence(told), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    assert answerability(question, best, [{"results": [{"text": told}]}]) > 0.8


def test_a_name_is_mentioned_as_a_word_not_inside_another() -> None:
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    notice = "Permission is granted to copy and redistribute this manual on a Mac."
    best = [Scored(_sentence(notice), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    seen = [{"results": [{"text": notice, "title": "Time Machine"}]}]
    assert answerability("What port does Redis listen on by default?", best, seen) == 0.0
    # A plural, a version after the name, or the passage's title are mentions.
    for question in ("Can I redistribute it to two Macs?", "Is it for Mac?",
                     "Does Time Machine copy it?"):
        assert answerability(question, best, seen) > 0.8, question
    seen = [{"results": [{"text": "Set LC_ALL or LANG to override python3's locale.",
                          "title": None}]}]
    for question in ("Which wins, LC_ or LANG?", "What does Python do with the locale?"):
        assert answerability(question, best, seen) > 0.8, question
    # A dot or hyphen inside a name may be left out (Erlang's SSH manual: "X509-certificates
    # are not supported."), but the name is still a word of its own.
    seen = [{"results": [{"text": "X509-certificates are not supported; use WiFi.",
                          "title": None}]}]
    for question in ("Does the daemon accept X.509 certificates?", "Does it do Wi-Fi?"):
        assert answerability(question, best, seen) > 0.8, question
    assert answerability("Does it speak X.5090?", best, seen) == 0.0


def test_a_name_in_title_case_ending_in_s_is_not_a_common_plural() -> None:
    # "How do I install it on Windows?" was answered from HAProxy's "HTTP/2 initial window
    # size" (new-user review, 2026-12-03): the word stripped of its "s" was found.
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    def found(question: str, passage: str) -> bool:
        best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
        return answerability(question, best, [{"results": [{"text": passage}]}]) > 0.8

    window = "HAProxy sets the HTTP/2 initial window size for outgoing connections."
    assert not found("How do I install HAProxy on Windows?", window)
    assert found("How do I install HAProxy on Windows?", "HAProxy runs on Windows and Linux.")
    assert found("Can I copy it to two Macs?", "It can be copied to a Mac.")
    assert found("How many GPUs can it use?", "It uses one GPU per process.")


def test_an_identifiers_underscore_may_be_a_space_in_the_text() -> None:
    # gnuplot's PDF manual (LaTeX draws "\\_" as a rule): "What is stored in GPVAL_ERRMSG?"
    # was declined although the manual answers it (new-user review, 2026-12-04).
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    passage = "GPVAL ERRMSG holds the text of the most recent error message."
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    seen = [{"results": [{"text": passage}]}]
    assert answerability("What is stored in GPVAL_ERRMSG?", best, seen) > 0.8
    assert answerability("What is stored in GPVAL_ERRNO?", best, seen) == 0.0


def test_a_name_of_several_words_is_mentioned_whole() -> None:
    # "Time Machine" was found "mentioned" by a manual's "time" and "machine".
    from citewise.models.answerability import answerability, named
    from citewise.models.sentence_rank import Scored

    assert named("How do I set up Time Machine backups on my Mac?") == ["time machine", "mac"]
    assert named("Does asking for Read Uncommitted give dirty reads?") == ["read uncommitted"]
    apart = "Set the time of the machine before you mount a network drive."
    together = "Time Machine backs up\nto a network drive every hour."  # a line break inside
    for passage, expected in ((apart, False), (together, True)):
        best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
        found = answerability("How often does Time Machine back up to a network drive?",
                              best, [{"results": [{"text": passage}]}])
        assert (found > 0.8) is expected, passage


def test_a_name_inside_a_compound_or_comparison_still_counts() -> None:
    from citewise.models.answerability import named

    assert named("What happens to my LUKS-encrypted drive?") == ["luks"]
    assert "perforce" in named("How do I lock a file in git, like Perforce checkouts?")
    assert "javascript-style" in named("Can json.loads accept JavaScript-style comments?")
    assert "powershell" in named("Is 'x' quoted by the PowerShell prompt?")


def test_verification_reuses_the_vectors_the_quotes_were_chosen_with(
        kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    # The verifier embedded the question and every quote again with the knowledge base's
    # embedder: a third of an answer's verification time.
    embedder = kb.dense.embedder  # type: ignore[union-attr]
    seen: list[list[str]] = []
    real = embedder.embed

    def counting(texts: Any) -> Any:
        seen.append(list(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "embed", counting)
    answer = _ask(kb, "When do my rights under the Harbour Public Licence end?")
    assert answer.citations
    quotes = {c.excerpt for c in answer.citations}
    assert not any(quotes & set(batch) for batch in seen), seen  # only the query, if at all
    assert all(len(batch) == 1 for batch in seen)


def test_an_option_named_as_an_identifier_is_the_section_the_question_names() -> None:
    # logind.conf(5): "Are a user's processes killed when they log out?" is asked of the
    # KillUserProcesses= option, whose heading shares no whole word with it (new-user
    # review, 2026-12-03).
    def option(text: str, name: str) -> Sentence:
        return Sentence(1, 0, text, "", "logind.conf.5.gz", "LOGIND.CONF", True,
                        section=f"OPTIONS > {name}")

    sentences = [option("Defaults to 10s.", "UserStopDelaySec="),
                 option('Defaults to "no".', "KillUserProcesses="),
                 option("Defaults to 100.", "max_sessions")]
    best = rank("Are a user's processes killed when they log out, by default?", sentences)[0]
    assert best.sentence.section == "OPTIONS > KillUserProcesses="
    best = rank("How many sessions at most, by default?", sentences)[0]
    assert best.sentence.section == "OPTIONS > max_sessions"


def test_an_option_the_question_names_is_its_entrys_section() -> None:
    # perlrun: "What does the -l command line switch do?" quoted -s's entry, which says
    # "switch" and "command line" (a Perl manual's review, 2026-12-04).
    def switch(text: str, name: str) -> Sentence:
        return Sentence(1, 0, text, "", "perlrun.pod", "perlrun", True,
                        section=f"DESCRIPTION > Command Switches > {name}")

    sentences = [
        switch("-s enables rudimentary switch parsing for switches on the command line.", "-s"),
        switch("-l[octnum] enables automatic line-ending processing.", "-l[octnum]"),
        switch("-x tells Perl that the program is embedded in a larger text.", "-x directory"),
        switch("-d runs the program under the debugger.", "-d, -dt")]
    assert rank("What does the -l command line switch do?", sentences)[0].sentence.section \
        .endswith("> -l[octnum]")
    assert rank("What is -dt for on the command line?", sentences)[0].sentence \
        .section.endswith("> -d, -dt")
    # Named on the way, not asked about: its entry is only as good as its words.
    for scored in rank("How many lines does the command line switch -l process?", sentences):
        assert scored.parts["section"] < 0.5, scored
    # A hyphenated word is no option: "x-ray" names no "-x" entry.
    top = rank("Does the command line switch parsing handle x-ray files?", sentences)[0]
    assert top.sentence.section.endswith("> -s")


def test_a_classs_member_is_mentioned_by_its_class_and_its_name_apart() -> None:
    # An API reference names "Jsoup.clean" as the class's page and the member's section:
    # "What does Jsoup.clean return?" was declined (the Javadoc review, 2026-12-04).
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    passage = "Returns: safe HTML (body fragment)"
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    seen = [{"results": [{"text": passage, "title": "Jsoup",
                          "section": "Class Jsoup > Method Detail > clean"}]}]
    assert answerability("What does Jsoup.clean return?", best, seen) > 0.8
    assert answerability("What does Jsoup.parse return?", best, seen) == 0.0  # not named
    # Not a file name: both parts of "cmd.exe" or "README.md" are no mention of it.
    apart = [{"results": [{"text": "Run the exe from cmd; see the README, md format."}]}]
    for question in ("What does cmd.exe return?", "What does README.md say?"):
        assert answerability(question, best, apart) == 0.0, question


def test_a_paths_parts_are_mentioned_apart() -> None:
    # rustdoc's String page documents "pub fn len(&self)" under "std::string::String" and
    # never writes "String::len": "Does String::len() count characters?" was declined at
    # 0.0 (the rustdoc review, 2026-12-05). A crate no passage names is still not mentioned,
    # nor a member no heading names ("format" in a sentence is no std::format).
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    passage = ("Returns the length of this String, in bytes. Use the format! macro to "
               "build one.")
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.7, "lexical": 0.5})]
    seen = [{"results": [{"text": passage, "title": "String in std::string - Rust",
                          "section": "Struct std::string::String > Implementations > "
                                     "pub fn len(&self) -> usize"}]}]
    assert answerability("Does String::len() count characters?", best, seen) > 0.5
    assert answerability("How do I run a task with tokio::spawn?", best, seen) == 0.0
    assert answerability("Does String::capacity() count bytes?", best, seen) == 0.0
    assert answerability("How do I pad a number with std::format?", best, seen) == 0.0


def test_an_instances_member_is_mentioned_by_its_class_named_as_one() -> None:
    # Requests' API reference documents "elapsed" under "class requests.Response": "What
    # exactly does response.elapsed measure?" was declined at 0.0, the definition retrieved
    # first (the Requests review, 2026-12-05).
    from citewise.models.answerability import answerability
    from citewise.models.sentence_rank import Scored

    passage = ("class requests.Response\n\nThe Response object, which contains a server's "
               "response to an HTTP request.\n\nelapsed\n\nThe amount of time elapsed "
               "between sending the request and the arrival of the response.")
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.6, "lexical": 0.4})]
    seen = [{"results": [{"text": passage, "title": "Developer Interface"}]}]
    assert answerability("What exactly does response.elapsed measure?", best, seen) > 0.5
    assert answerability("What does response.latency measure?", best, seen) == 0.0
    # A word that is no class named as one: "vm.swappiness" is not mentioned by "the vm
    # settings" and "swappiness", nor "lazy.nvim" by "Lazy" opening a sentence.
    other = [{"results": [{"text": "Lazy loading keeps the vm settings. Swappiness is 60, "
                                   "and nvim reads them."}]}]
    for question in ("What is the default vm.swappiness?", "How do I set up lazy.nvim?"):
        assert answerability(question, best, other) == 0.0, question


def test_the_sentence_restating_a_yes_no_question_is_its_answer() -> None:
    # PostgreSQL's TRUNCATE page (the bench's pg24): the answer to a yes/no question says
    # the question's words back with a verdict, and lost to a neighbour with more words of
    # its own while those counted for 0.2 (2026-12-05).
    sentences = [_sentence(text) for text in (
        "If ON TRUNCATE triggers are defined for any of the tables, then all BEFORE TRUNCATE "
        "triggers are fired before any truncation happens, and all AFTER TRUNCATE triggers "
        "are fired after the last truncation is performed and any sequences are reset.",
        "TRUNCATE will not fire any ON DELETE triggers that might exist for the tables.",
        "TRUNCATE quickly removes all rows from a set of tables.")]
    best = rank("Will my ON DELETE triggers run when I empty a table with TRUNCATE?",
                sentences)[0]
    assert best.sentence.text.startswith("TRUNCATE will not fire"), best.sentence.text
