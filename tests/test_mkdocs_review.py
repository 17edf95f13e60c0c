"""What a new user met on MkDocs' own manual (Debian's ``mkdocs-doc`` 1.4.2, review of
2026-12-04): admonition titles read as the heading of their note, the front page's
button links as a line of text, "HTTPS" counted as mentioned by every ``https://`` link,
and a sentence that writes the pilcrow itself ("the paragraph symbol (¶ or &para;)") could
never be quoted."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.html import HtmlLoader
from citewise.models.answerability import answerability
from citewise.models.sentence_candidates import candidates
from citewise.models.sentence_rank import Scored, Sentence

PAGE = """<!DOCTYPE html><html><head><title>Configuration - MkDocs</title></head><body>
<div role="main">
<h1 id="configuration">Configuration</h1>
<p><a class="btn btn-primary" role="button" href="../getting-started/">Getting Started</a>
<a class="btn btn-primary" role="button" href="../user-guide/">User Guide</a></p>
<h2 id="plugins">plugins</h2>
<p>A list of plugins to use when building the site.</p>
<div class="admonition note">
<p class="admonition-title">Note</p>
<p>If the plugins config setting is defined, then any defaults (such as search) are
ignored.</p>
</div>
<div class="admonition warning"><p class="admonition-title">Warning:</p>
<p>Plugins run in the order they are listed.</p></div>
</div></body></html>"""


def test_an_admonitions_title_prefixes_its_note_and_buttons_are_chrome(tmp_path: Path) -> None:
    page = tmp_path / "configuration.html"
    page.write_text(PAGE, encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())
    text = " ".join(doc.text.split())
    assert "Note: If the plugins config setting is defined, then any defaults" in text
    assert "Warning: Plugins run in the order they are listed." in text
    assert "\nNote\n" not in doc.text
    assert "Getting Started" not in doc.text and "User Guide" not in doc.text


def _sentence(text: str) -> Sentence:
    return Sentence(1, 0, text, "", "deploying.html", "Deploying your docs", True)


def test_a_links_scheme_mentions_nothing() -> None:
    passage = ("Your site is published at https://example.com/ once the gh-deploy command "
               "pushes the built site to the gh-pages branch.")
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.8, "lexical": 0.6})]
    seen = [{"results": [{"text": passage}]}]
    assert answerability("How do I serve my docs over HTTPS with my own certificate?",
                         best, seen) == 0.0
    assert answerability("Where is my site published after gh-deploy?", best, seen) > 0.8


def test_an_interfaces_abbreviation_is_mentioned_spelled_out() -> None:
    """Sphinx's deploying tutorial (new-user review, 2026-12-06): "can I drag a whole folder
    into the GitLab web UI to upload my docs?" was declined at 0.00, no passage saying "UI";
    its answer says "web interface". A GUI is a graphical one; "UI" alone is no mention of
    anything else."""
    passage = ("At the time of writing, uploading whole directories to GitLab using only the "
               "web interface is not yet implemented.")
    best = [Scored(_sentence(passage), 1.0, {"similarity": 0.7, "lexical": 0.5})]
    seen = [{"results": [{"text": passage}]}]
    assert answerability("can I drag a whole folder into the GitLab web UI to upload my docs?",
                         best, seen) > 0.6
    assert answerability("Is there a GUI for GitLab uploads?", best, seen) == 0.0
    assert answerability("Does GitLab have a CLI for uploads?", best, seen) == 0.0
    network = "GitLab runners configure the interface eth0 with an IPv4 address."
    best = [Scored(_sentence(network), 1.0, {"similarity": 0.7, "lexical": 0.5})]
    assert answerability("Does GitLab have a web UI?", best,
                         [{"results": [{"text": network}]}]) == 0.0


def test_a_sentence_that_writes_the_pilcrow_is_a_candidate() -> None:
    text = ("Permalink\n\nWhen set to True the paragraph symbol (¶ or &para;) is used as the "
            "link text. Options¶ When set to a string, the provided string is used.")
    got = [s.text for s in candidates([{"results": [
        {"document_index": 1, "text": text, "source": "extensions.html", "title": "Ext"}]}])]
    assert "When set to True the paragraph symbol (¶ or &para;) is used as the link text." in got
    assert not any("Options¶" in s for s in got)  # a heading run into its text, still not


NOTE_AS_HEADING = """<html><head><title>psql</title></head><body><div class="refentry">
<h2>Options</h2>
<dl><dt>-S</dt><dd><p>This puts psql into single-line mode.</p>
<div class="note"><h3 class="title">Note</h3><p>This mode is provided for those who insist
on it.</p></div></dd>
<dt>-t</dt><dd><p>Turn off printing of column names.</p></dd></dl>
<div class="note"><h3>Warning</h3><p>Apache's notes are written so too.</p></div>
</div></body></html>"""


def test_a_notes_heading_is_its_label_not_a_section(tmp_path: Path) -> None:
    # DocBook (PostgreSQL's manual) and Apache title a note with a heading: it opened a
    # section "Note" that ran on to the next real heading (171 of PostgreSQL's 932 chunks).
    page = tmp_path / "app-psql.html"
    page.write_text(NOTE_AS_HEADING, encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())
    assert [name for _, _, name in doc.sections] == ["Options"]
    text = " ".join(doc.text.split())
    assert "Note: This mode is provided for those who insist on it." in text
    assert "Warning: Apache's notes are written so too." in text
