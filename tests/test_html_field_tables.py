"""A table of one row of values under its header reads as the values' fields (rsyslog's
review, 2026-12-07). Sphinx writes each of rsyslog's parameters a table "type | default |
mandatory | obsolete legacy directive" over "integer | 10 | no | none": the row of values
said no "default", was never quoted, and asked how often imfile polls by default,
citewise quoted another parameter's default ("For polling mode, the default is 10240.")."""

from __future__ import annotations

from pathlib import Path


def _param(name: str, kind: str, default: str, legacy: str, text: str) -> str:
    return (f'<section id="{name.lower()}"><h4>{name}</h4>'
            '<table class="docutils align-default"><thead><tr class="row-odd">'
            '<th class="head"><p>type</p></th><th class="head"><p>default</p></th>'
            '<th class="head"><p>mandatory</p></th>'
            '<th class="head"><p><code>obsolete legacy</code> directive</p></th></tr></thead>'
            f'<tbody><tr class="row-even"><td><p>{kind}</p></td><td><p>{default}</p></td>'
            f'<td><p>no</p></td><td><p>{legacy}</p></td></tr></tbody></table>'
            f'<p>{text}</p></section>')


PAGE = ("<html><head><title>imfile: Text File Input Module</title></head><body>"
        '<div class="body"><h1>imfile: Text File Input Module</h1>'
        "<p>This module provides the ability to convert any standard text file into a "
        "syslog message. It can run in inotify mode or in polling mode.</p>"
        "<h2>Module Parameters</h2>"
        + _param("Mode", "word", "inotify", "none",
                 "This specifies if imfile is shall run in inotify or polling mode. "
                 "For polling mode, the default is 10240.")
        + _param("PollingInterval", "integer", "10", "$InputFilePollInterval",
                 "This setting specifies how often files are to be polled for new data. "
                 "The time specified is in seconds.")
        + _param("MaxSubmitAtOnce", "integer", "1024", "",
                 "This is an expert option. It can be used to set the maximum input batch "
                 "size that imfile can generate.")
        + "</div></body></html>")


def test_a_tables_one_row_of_values_reads_as_fields_under_their_names(tmp_path: Path) -> None:
    from citewise.knowledge.loaders.html import HtmlLoader

    path = tmp_path / "imfile.html"
    path.write_text(PAGE, encoding="utf-8")
    doc = HtmlLoader().load(path, path.read_bytes())
    row = ("type: integer | default: 10 | mandatory: no | obsolete legacy directive: "
           "$InputFilePollInterval")
    assert row in doc.text
    assert "type | default" not in doc.text  # the header row is in its values' names
    # An empty value is no field: no name, no trailing separator.
    assert "\ntype: integer | default: 1024 | mandatory: no\n" in doc.text


def test_a_default_in_a_row_of_fields_is_quoted_with_its_description(tmp_path: Path) -> None:
    from citewise import Agent, KnowledgeBase

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "imfile.html").write_text(PAGE, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "docs"])
        answer = Agent(kb).ask("How often does imfile check for new data by default when it "
                               "runs in polling mode?")
    assert answer.citations, answer.text
    quote = answer.citations[0].excerpt
    assert "default: 10 |" in quote, quote
    assert quote.endswith("This setting specifies how often files are to be polled for new "
                          "data."), quote


def test_other_tables_keep_their_header_row() -> None:
    """Two rows of values, a long value (an example), or a header cell spanning columns: a
    table as before."""
    from citewise.knowledge.loaders.html import extract_html

    two = ("<table><tr><th>Setting</th><th>Default</th></tr><tr><td>timeout</td><td>30 s</td>"
           "</tr><tr><td>retries</td><td>3</td></tr></table>")
    long = ("<table><tr><th>Plain text</th><th>Typical result</th></tr><tr><td>"
            + "This is a paragraph. " * 8 + "</td><td>It is rendered.</td></tr></table>")
    for html in (two, long):
        text = extract_html(f"<html><body><h1>T</h1>{html}</body></html>")[0]
        assert "Setting | Default" in text or "Plain text | Typical result" in text, text
