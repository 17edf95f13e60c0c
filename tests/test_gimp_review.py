"""What a new user met on GIMP's manual (Debian's ``gimp-help-en`` 2.10.34, review of
2026-12-06) that is not how a page is read (``test_loaders_html_docbook_gimp``): a
language's name in a question was taken for a product's, and the question declined."""

from __future__ import annotations

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
