"""What a new user met on GIMP's manual (Debian's ``gimp-help-en`` 2.10.34, review of
2026-12-06) that is not how a page is read (``test_loaders_html_docbook_gimp``): a
language's name in a question was taken for a product's, and the question declined."""

from __future__ import annotations

from pathlib import Path

from citewise.models.answerability import answerability, named
from citewise.models.sentence_rank import Scored, Sentence


def test_a_languages_name_is_no_product_the_passages_must_mention() -> None:
    passage = "Since GIMP 2.10.6, vertical text (top-to-bottom writing) is possible."
    best = [Scored(Sentence(1, 0, passage, "", "gimp-tool-text.html", "Text", True), 1.0,
                   {"similarity": 0.7, "lexical": 0.5})]
    seen = [{"results": [{"text": passage}]}]
    question = "can I write vertical text for Japanese with the text tool"
    assert named(question) == [] and answerability(question, best, seen) > 0.6
    # A day or a month neither; a product still is, after a language's name too.
    assert named("Does the backup run on Sunday in March?") == []
    assert named("Can Photoshop open vertical Japanese text?") == ["photoshop"]
    assert answerability("Can Photoshop write vertical text?", best, seen) == 0.0


def test_a_terms_quote_shows_the_term_as_a_label_not_inside_the_sentence(
        tmp_path: Path) -> None:
    """GIMP's "Loop forever When this option is checked, …" (and Wireshark's, Mutt's: three
    reviews, 2026-12-06): a definition's term and its sentence, one line apart in the text,
    were printed as one quoted sentence. The term is the label, before the quote marks; the
    quote is the sentence as stored, and the JSON excerpt stays the verbatim slice."""
    import io

    from tests._answers import ask_over

    from citewise.cli.common import print_answer

    page = ("<html><body><main><h1>Configuration</h1><h2>Folder settings</h2><p>Mutt reads "
            "its folders as set here.</p><dl><dt>folder magic</dt><dd><p>Specifies the type "
            "of folder to use: mbox, mmdf, mh or maildir.</p></dd><dt>folder hook</dt><dd><p>"
            "Runs a command when a folder is opened.</p></dd></dl></main></body></html>")
    answer = ask_over(tmp_path, {"config.html": page}, "which folder types can I pick?")
    first = answer.citations[0]
    said = "folder magic Specifies the type of folder to use: mbox, mmdf, mh or maildir."
    assert " ".join(first.excerpt.split()) == said
    out = io.StringIO()
    print_answer(answer, None, out)
    assert ("    folder magic: “Specifies the type of folder to use: mbox, mmdf, mh or "
            "maildir.”\n") in out.getvalue(), out.getvalue()
