"""Markdown's HTML blocks: lines of tags alone are not on the page (Docker's review,
2026-12-07). Docker's run reference lays its tables out in HTML, one tag to a line; stored
verbatim, "<table> <thead> <tr> <th>Policy</th> …" ran into the cell's sentence, and asked
which restart policy is the default, citewise quoted the markup with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _answers import ask_over

RUN = """\
# Docker run reference

## Restart policies (--restart)

Using the `--restart` flag on Docker run you can specify a restart policy for
how a container should or should not be restarted on exit.

<table>
  <thead>
    <tr>
      <th>Policy</th>
      <th class="no-wrap">Result</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <td><strong>no</strong></td>
      <td>
        Do not automatically restart the container when it exits. This is the
        default.
      </td>
    </tr>
    <tr>
      <td>
        <span style="white-space: nowrap">
          <strong>on-failure</strong>[:max-retries]
        </span>
      </td>
      <td>
        Restart only if the container exits with a non-zero exit status.
      </td>
    </tr>
  </tbody>
</table>

An ever increasing delay is added before each restart to prevent flooding the server.
"""


def _load(tmp_path: Path, body: str) -> tuple[str, list[tuple[int, int, str]]]:
    from citewise.knowledge.loaders.markdown import MarkdownLoader

    path = tmp_path / "run.md"
    path.write_text(body, encoding="utf-8")
    doc = MarkdownLoader().load(path, path.read_bytes())
    return doc.text, doc.roles


def test_an_html_tables_tag_lines_are_hidden_and_its_header_cells_a_heading(
        tmp_path: Path) -> None:
    text, roles = _load(tmp_path, RUN)
    shown = {text[a:b] for a, b, role in roles if role == "hidden"}
    assert "<table>\n  <thead>\n    <tr>" in shown
    assert "      <td>" in shown
    headings = [text[a:b] for a, b, role in roles if role == "heading"]
    assert headings[2:] == ["<th>Policy</th>", '<th class="no-wrap">Result</th>']
    # A line with text between its tags is text: "<td><strong>no</strong></td>".
    at = text.index("      <td><strong>no")
    assert not any(a <= at < b for a, b, role in roles if role == "hidden")


@pytest.mark.parametrize(("question", "quote"), [
    ("Which restart policy is used when I don't give one?",
     "Do not automatically restart the container when it exits."),
    ("How do I restart a container only when it fails?",
     "Restart only if the container exits with a non-zero exit status."),
])
def test_a_cell_of_an_html_table_is_quoted_without_its_markup(
        tmp_path: Path, question: str, quote: str) -> None:
    answer = ask_over(tmp_path, {"run.md": RUN},
                       question)
    assert answer.citations, answer.text
    assert answer.citations[0].excerpt == quote


def test_a_sentence_right_under_a_hidden_line_is_still_a_candidate() -> None:
    """A hidden span inside a sentence's span is cut out of it: a sentence that began on a
    hidden line (an HTML comment right above its paragraph) was dropped whole."""
    from citewise.models.candidate_spans import items_apart

    text = "<!-- added: v1.2 -->\nThe daemon retries a failed pull three times.\n"
    hidden = (0, text.index("\n"), "hidden")
    assert items_apart(text, [hidden], [(0, len(text) - 1)]) == [
        (text.index("\n"), len(text) - 1)]


def test_eval_reads_a_cells_sentence_without_the_tag_lines_around_it(tmp_path: Path) -> None:
    """``citewise eval`` widens a cited span to its sentence: not over the hidden lines of
    tags before and after it (it showed "<td> Do not automatically restart …")."""
    from citewise import KnowledgeBase
    from citewise.evaluation import evaluate
    from citewise.evaluation_questions import EvalQuestion

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "run.md").write_text(RUN, encoding="utf-8")
    question = EvalQuestion("q1", "How do I restart a container only when it fails?",
                            ("Restart only if the container exits with a non-zero exit "
                             "status.",))
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "docs"])
        [result] = evaluate(kb, [question], warm_up=False)
    assert result.evidence_at_1, result
    assert result.first_sentence == ("Restart only if the container exits with a non-zero "
                                     "exit status.")


def _candidates(tmp_path: Path, body: str) -> list[Any]:
    from citewise.models.sentence_candidates import candidates

    text, roles = _load(tmp_path, body)
    results = [{"text": text, "source": str(tmp_path / "run.md"), "title": "run",
                "section": "", "roles": [list(r) for r in roles], "document_index": 1}]
    return candidates([{"results": results}])


def test_the_text_after_an_html_table_is_under_its_heading_again(tmp_path: Path) -> None:
    """A code review (2026-12-07): with no ``table`` span, the table's last lines headed
    every paragraph after it (Bootstrap's "Our default modal …" under "<td>Extra
    large</td>" instead of "Optional sizes")."""
    after = next(s for s in _candidates(tmp_path, RUN) if s.text.startswith("An ever"))
    assert "<" not in after.before and "Policy" not in after.before, after.before


def test_sentences_of_two_cells_are_not_quoted_as_one(tmp_path: Path) -> None:
    """A sentence that points back ("This is the default.") is quoted with the one before
    it — not across a row's closing tags into another cell: "Restart only if … status. [1]
    </td></tr> <tr><td> This is the default." (code review, 2026-12-07)."""
    body = ("# Restart policies\n\n<table>\n<tr><td>\nRestart only if the container exits "
            "with a non-zero exit status.\n</td></tr>\n<tr><td>\nThis is the default.\n"
            "</td></tr>\n</table>\n")
    quotes = [s.quote or s.text for s in _candidates(tmp_path, body)]
    assert all("<" not in q for q in quotes), quotes
    assert not any(q.startswith("Restart only") and "This is the default" in q
                   for q in quotes), quotes
