"""A table of one row of values under its header reads as the values' fields (rsyslog's
review, 2026-12-07). Sphinx writes each of rsyslog's parameters a table "type | default |
mandatory | obsolete legacy directive" over "integer | 10 | no | none": the row of values
said no "default", was never quoted, and asked how often imfile polls by default,
citewise quoted another parameter's default ("For polling mode, the default is 10240.")."""

from __future__ import annotations

from pathlib import Path

from _answers import ask_over


def _param(name: str, kind: str, default: str, legacy: str, text: str, note: str = "") -> str:
    return (f'<section id="{name.lower()}"><h4>{name}</h4>'
            '<table class="docutils align-default"><thead><tr class="row-odd">'
            '<th class="head"><p>type</p></th><th class="head"><p>default</p></th>'
            '<th class="head"><p>mandatory</p></th>'
            '<th class="head"><p><code>obsolete legacy</code> directive</p></th></tr></thead>'
            f'<tbody><tr class="row-even"><td><p>{kind}</p></td><td><p>{default}</p></td>'
            f'<td><p>no</p></td><td><p>{legacy}</p></td></tr></tbody></table>'
            + (f'<div class="versionadded"><p><span class="versionmodified added">{note}'
               "</span></p></div>" if note else "")
            + f'<p>{text}</p></section>')


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
        + _param("ReadTimeout", "integer", "0", "none",
                 "Sets the maximum time a partial message is held back before imfile "
                 "submits it.", note="New in version 8.32.0.")
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
    answer = ask_over(tmp_path, {"imfile.html": PAGE}, "How often does imfile check for new "
                      "data by default when it runs in polling mode?")
    assert answer.citations, answer.text
    quote = answer.citations[0].excerpt
    assert "default: 10 |" in quote, quote
    assert quote.endswith("This setting specifies how often files are to be polled for new "
                          "data."), quote


def test_a_version_note_between_a_default_and_its_entry_leaves_them_paired(
        tmp_path: Path) -> None:
    """108 of rsyslog's parameters have "New in version …" between the row and the
    description (code review, 2026-12-07)."""
    from citewise.models.leaning import default_line

    answer = ask_over(tmp_path, {"imfile.html": PAGE}, "How long does imfile hold back a "
                      "partial message before it submits it, by default?")
    assert answer.citations, answer.text
    # The note stays in the one verbatim span from the default to its entry, which the
    # answer cites as two sentences: the default's (with the note) and the entry's.
    quotes = [c.excerpt for c in answer.citations]
    assert quotes[0].startswith("type: integer | default: 0 |"), quotes
    assert quotes[1].endswith("before imfile submits it."), quotes
    # A value may hold a "|" of its own.
    assert default_line("type: binary | default: on|off | mandatory: no")


def test_other_tables_keep_their_header_row() -> None:
    """Two rows of values, a long value (an example), a header cell spanning columns, a
    value in a code block, a table of two columns, or one after a paragraph: a table as
    before, its header row a line of its own."""
    from citewise.knowledge.loaders.html import extract_html

    head = "<tr><th>Setting</th><th>Default</th><th>Meaning</th></tr>"
    tables = {
        "two rows": head + "<tr><td>timeout</td><td>30 s</td><td>How long.</td></tr>"
                           "<tr><td>retries</td><td>3</td><td>How often.</td></tr>",
        "a long value": head + "<tr><td>timeout</td><td>30 s</td><td>"
                               + "This is how long it waits. " * 5 + "</td></tr>",
        "a spanning header": '<tr><th colspan="2">Setting</th><th>Meaning</th></tr>'
                             "<tr><td>timeout</td><td>30 s</td><td>How long.</td></tr>",
        "code": head + "<tr><td>timeout</td><td><pre>x = 1\ny = 2</pre></td>"
                       "<td>How long.</td></tr>",
        "two columns": "<tr><th>Setting</th><th>Meaning</th></tr>"
                       "<tr><td>timeout</td><td>How long.</td></tr>",
        "a tick drawn as an image": head + '<tr><td>timeout</td><td><img src="yes.png" '
                                           'alt="(./)"/></td><td>How long.</td></tr>',
    }
    for why, rows in tables.items():
        text = extract_html(f"<html><body><h1>T</h1><table>{rows}</table></body></html>")[0]
        assert "Setting: " not in text and "Setting" in text.split("\n")[2], (why, text)
    after = extract_html(f"<html><body><h1>T</h1><p>The settings:</p><table>{head}<tr><td>"
                         "timeout</td><td>30 s</td><td>How long.</td></tr></table></body>"
                         "</html>")[0]
    assert "Setting | Default | Meaning" in after, after
