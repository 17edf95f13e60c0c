"""Evidence that was never a candidate (session 16, found on the man-page and SQLite tune
questions): an option's term glued by the sentence splitter to the first sentence of its
description ("-P max-procs, --max-procs=max-procs\\n    Run up to max-procs processes at a
time; the default is 1.") read as a term, so the sentence stating the default was context
only; and SQLite's ``<li><p><b>Maximum Number Of Tables In A Join</b></p>`` titles read as
sentences and were quoted ahead of the limit they introduce."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests._loaders import load

from citewise.knowledge.ingest.chunking import chunk_text
from citewise.knowledge.loaders import LoadedDocument
from citewise.models.sentence_rank import candidates, rank

XARGS = r""".TH XARGS 1
.SH NAME
xargs \- build and execute command lines from standard input
.SH OPTIONS
.TP
.BI "\-n " max-args "\fR, \fI" "\-\-max\-args" \fR=\fImax-args
Use at most \fImax-args\fR arguments per command line.
.TP
.BI "\-P " max-procs "\fR, \fI" "\-\-max\-procs" \fR=\fImax-procs
Run up to
.I max-procs
processes at a time; the default is 1.
If
.I max-procs
is 0, xargs will run as many processes as possible at a time.
While xargs is running, you can send its process a SIGUSR1 signal to increase the
number of commands to run simultaneously.
"""

LIMITS = """<html><head><title>Limits In SQLite</title></head><body><h1>Limits In SQLite</h1>
<ol start=4><li><p><b>Maximum Number Of Tables In A Join</b></p>
<p>SQLite does not support joins containing more than 64 tables.
This limit arises from the bitmaps of the query optimizer.</p></li>
<li><p><b>Maximum Depth Of An Expression Tree</b></p>
<p>SQLite parses expressions into a tree for processing.</p></li>
<li><p><b>Only a bold sentence, which is prose.</b></p></li></ol>
<a name="q18"></a><p><b>(18) Case-insensitive matching of Unicode does not work.</b></p>
<blockquote>The default configuration only folds the case of ASCII characters.</blockquote>
</body></html>"""


def _observation(doc: LoadedDocument, source: str) -> list[dict[str, Any]]:
    return [{"results": [{"document_index": 1, "text": doc.text, "source": source,
                          "title": doc.title or "", "roles": [list(r) for r in doc.roles]}]}]


def test_a_term_glued_to_its_description_is_quoted_with_it(tmp_path: Path) -> None:
    path = tmp_path / "xargs.1"
    path.write_text(XARGS, encoding="utf-8")
    doc = load(path)
    told = candidates(_observation(doc, str(path)))
    described = [s for s in told if "the default is 1." in s.text]
    assert len(described) == 1 and described[0].asserts
    assert described[0].text.startswith("-P max-procs, --max-procs=max-procs")
    # A term alone on its line is still context, never a candidate.
    assert not any(s.text.strip() == "-n max-args, --max-args=max-args" for s in told)
    best = rank("By default, how many processes does xargs run at once?", told)[0]
    assert best.sentence is described[0]


def test_a_bold_only_paragraph_is_a_heading_with_its_item_number(tmp_path: Path) -> None:
    path = tmp_path / "limits.html"
    path.write_text(LIMITS, encoding="utf-8")
    doc = load(path)
    assert "4. Maximum Number Of Tables In A Join\n\nSQLite does not" in doc.text
    assert "5. Maximum Depth Of An Expression Tree" in doc.text
    title = doc.text.index("Maximum Number Of Tables")
    assert any(a <= title < b and role == "heading" for a, b, role in doc.roles)
    told = candidates(_observation(doc, str(path)))
    texts = [s.text for s in told]
    assert not any("Maximum Number Of Tables In A Join" in t for t in texts)
    assert "6. Only a bold sentence, which is prose." in doc.text
    assert any("Only a bold sentence, which is prose." in t for t in texts)
    assert not any("(18) Case-insensitive" in t for t in texts)  # an FAQ's numbered entry
    ascii_only = next(s for s in told if s.text.startswith("The default configuration"))
    assert "Case-insensitive matching" in ascii_only.before
    limit = next(s for s in told if s.text.startswith("SQLite does not support joins"))
    assert "Maximum Number Of Tables In A Join" in limit.before
    best = rank("Is there a maximum number of tables I can put in one join?", told)[0]
    assert best.sentence is limit
    # As ingest stores it: the chunker's spans of the item and of the title that opens it
    # start together, and the narrower one (the heading) is what the title is.
    records = chunk_text("d", doc.text, sections=doc.sections, roles=doc.roles)
    chunks = [{"document_index": 1, "text": r.text, "source": str(path), "title": "",
               "roles": [list(x) for x in r.roles]} for r in records]
    stored = candidates([{"results": chunks}])
    assert stored and not any("Maximum Number Of Tables" in x.text for x in stored)


def test_a_sentence_without_a_subject_is_quoted_with_the_one_it_completes() -> None:
    # adduser.conf(5): the value is in a sentence that only says "Defaults to …".
    text = ("FIRST_UID, LAST_UID\n    specifies an inclusive range of UIDs from which "
            "normal user's UIDs are allocated. Defaults to 1000 - 59999.\n\nDSHELL\n"
            "    The login shell to be used for all new users. Default: /bin/bash.")
    found = [s.text for s in candidates([{"results": [{
        "document_index": 1, "text": text, "source": "adduser.conf.5", "title": "",
        "roles": [[0, 19, "term"], [133, 139, "term"]]}]}])]
    assert any(t.endswith("are allocated. Defaults to 1000 - 59999.") for t in found)
    assert any(t.endswith("for all new users. Default: /bin/bash.") for t in found)
    assert "Defaults to 1000 - 59999." not in found and "Default: /bin/bash." not in found
    best = rank("Which UIDs are allocated to normal users by default?",
                candidates([{"results": [{"document_index": 1, "text": text,
                                          "source": "adduser.conf.5", "title": ""}]}]))[0]
    assert "1000 - 59999" in best.sentence.text


def test_two_terms_glued_to_one_description_are_quoted_with_it(tmp_path: Path) -> None:
    # git's "-n\n--dry-run\nDon't actually remove anything." read as terms only.
    path = tmp_path / "clean.html"
    path.write_text("<html><body><h1>git-clean</h1><dl><dt>-n</dt><dt>--dry-run</dt>"
                    "<dd>Don't actually remove anything, just show what would be done. "
                    "Nothing is deleted then.</dd></dl></body></html>", encoding="utf-8")
    doc = load(path)
    told = candidates(_observation(doc, str(path)))
    first = next(s for s in told if "Don't actually remove" in s.text)
    assert first.text.startswith("-n\n--dry-run\n") and first.asserts
    later = next(s for s in told if s.text == "Nothing is deleted then.")
    assert "--dry-run" in later.before  # the terms are the definition's context
