"""A short sentence that points back, in the paragraph after a list ("Those delays are only
examples."), is said of the whole list, not of its last item: the Developer's Reference's
review (its EPUB, 2026-12-07) got the quote "Other NMUs: 10 days\\n\\nThose delays are only
examples." — an item and the next paragraph's first sentence, as if one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _answers import ask_over
from citewise.knowledge.loaders.html import read_html
from citewise.models.sentence_candidates import candidates

NMU = """<html><head><title>Non-Maintainer Uploads</title></head><body>
<h2>5.11.1 When and how to do an NMU</h2>
<p>Some examples of the delays an NMU should wait in the DELAYED queue:</p>
<ul>
<li><p>Upload fixing only release-critical bugs older than 7 days: 2 days</p></li>
<li><p>Upload fixing only release-critical and important bugs: 5 days</p></li>
<li><p>Other NMUs: 10 days</p></li>
</ul>
<p>Those delays are only examples. In some cases, a shorter delay is acceptable.</p>
</body></html>"""


def test_a_pointer_after_a_list_is_not_quoted_with_the_list_s_last_item(
        tmp_path: Path) -> None:
    text, _, _, _, roles = read_html(NMU)
    observations: list[dict[str, Any]] = [{"results": [{
        "document_index": 1, "text": text, "source": "pkgs.html", "title": "NMUs",
        "roles": [list(r) for r in roles]}]}]
    quotes = {s.text: s.quote or s.text for s in candidates(observations)}
    assert quotes["Other NMUs: 10 days"] == "Other NMUs: 10 days", quotes
    assert quotes["Those delays are only examples."] == "Those delays are only examples.", quotes
    answer = ask_over(tmp_path, {"pkgs.html": NMU},
                      "How long should an NMU wait when it is not about release-critical bugs?")
    assert not any("10 days\n\nThose" in c.excerpt for c in answer.citations), answer.text


def test_a_pointer_after_one_item_is_still_that_item_s() -> None:
    """"It can be changed with --timeout." after a list of one item, or "This is dangerous"
    after two, says something of the item before it (the code review, 2026-12-07)."""
    page = ("<html><body><h2>Timeouts</h2><ul><li><p>The connect timeout is 30 seconds by "
            "default.</p></li></ul><p>It can be changed with --timeout.</p></body></html>")
    text, _, _, _, roles = read_html(page)
    observations: list[dict[str, Any]] = [{"results": [{
        "document_index": 1, "text": text, "source": "t.html", "title": "T",
        "roles": [list(r) for r in roles]}]}]
    texts = [s.text for s in candidates(observations)]
    assert ("The connect timeout is 30 seconds by default.\n\nIt can be changed with --timeout."
            in texts), texts
