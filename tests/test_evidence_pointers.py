"""A sentence that says *why* or *where*, quoted instead of the one that says *how*.

Seen in a new user's review over Postfix's README files (2026-12-03): asked how to log to
stdout, the extractive model quoted "Logging to stdout is useful when Postfix runs in a
container" — the motivation, not the setting; asked how to stop advertising CHUNKING, it
quoted "… turn off the CHUNKING announcement as described above" — a pointer to the
answer, not the answer; a contents line ("How to turn off … warnings.") was quoted too.
The page below is shaped like those READMEs: each such sentence shares more of the
question's words than the sentence that answers.
"""

from __future__ import annotations

import pytest

from _answers import kb_over
from citewise import Agent, KnowledgeBase

MAILER = """\
# Mailer logging and CHUNKING support

This document covers the following topics:

- How to log to stdout from a container.
- How to disable BDAT support.

## Logging to stdout

Logging to stdout is useful when the mailer runs in a container, as it eliminates a syslogd
dependency. Set maillog_file = /dev/stdout in main.cf, and start the daemon in the
foreground with the start-fg command.

## Disabling BDAT support

BDAT support is enabled by default. To stop announcing CHUNKING, set
smtpd_discard_ehlo_keywords = chunking in main.cf and reload the daemon.

## Downsides of CHUNKING

If you require reject_unauth_pipelining to block spambots, then turn off the mailer's
CHUNKING announcement to clients as described above.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return kb_over(tmp_path_factory.mktemp("pointers"), {"mailer.md": MAILER})


def _first_quote(kb: KnowledgeBase, question: str) -> str:
    answer = Agent(kb).ask(question)
    assert answer.citations, answer.text
    return answer.citations[0].excerpt


def test_how_do_i_is_answered_by_the_setting_not_by_why_it_is_useful(kb: KnowledgeBase) -> None:
    quote = _first_quote(kb, "How do I get the mailer to write its log to stdout when "
                             "running in a container?")
    assert "maillog_file" in quote


def test_a_pointer_to_the_answer_is_not_the_answer(kb: KnowledgeBase) -> None:
    quote = _first_quote(kb, "How can I stop the mailer from advertising CHUNKING to clients?")
    assert "smtpd_discard_ehlo_keywords" in quote
