"""GnuCash's Tutorial and Concepts Guide (DocBook XSL with graphical notes, Debian's
``gnucash-docs``; new-user review 2026-12-06): a note drawn as a table with an icon and no
alt text is a note, not a table's row ("Note | By default …"); a table's blank corner cell
keeps its column, so each backend's label stays over its values; the footnotes in a
table's last cell are a note a paragraph (HTML loader 52)."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

NOTE = """<html><head><title>Backup</title></head><body><div class="sect1">
<p>You should also delete any .LCK files.</p><div class="note" style="margin-left: 0.5in;
margin-right: 0.5in;"><table border="0"><tr><td rowspan="2" align="center" valign="top"
width="25"><img src="./stylesheet/note.png"></img></td><th align="left" valign="top">Note</th>
</tr><tr><td colspan="2" align="left" valign="top"><p>By default GnuCash will automatically
delete any .log files that are older than 30 days.</p></td></tr></table></div>
<div class="important"><table border="0"><tr><td rowspan="2"><img
src="./stylesheet/important.png"></img></td><th>Outdated</th></tr><tr><td colspan="2"><p>This
section describes an older release.</p></td></tr></table></div>
<table class="table" border="1"><tr><th>Setting</th><th>Meaning</th></tr><tr><td>Coords</td>
<td>Where it is printed.</td></tr></table></div></body></html>"""

TABLE = """<html><head><title>Files</title></head><body>
<table class="table" summary="Storage Comparison" border="1"><thead><tr><th align="left">&nbsp;
</th><th>XML</th><th>SQLite</th><th>MySQL</th></tr></thead><tbody><tr><td>Compression</td>
<td>gzip</td><td>N/A</td><td>N/A</td></tr><tr><td>Multi-user</td><td>No</td><td>No</td>
<td>Yes</td></tr></tbody><tbody class="footnotes"><tr><td colspan="4"><div id="ftn.a"
class="footnote"><p><sup>[a] </sup>The SQL backends rely on additional packages.</p></div>
<div id="ftn.b" class="footnote"><p><sup>[b] </sup>MySQL place data in their own storage.</p>
</div></td></tr></tbody></table>
<table><thead><tr><th>Account Type</th><th colspan="2">Effect</th></tr><tr><th>&nbsp;</th>
<th>Debit (Dr)</th><th>Credit (Cr)</th></tr></thead><tbody><tr><td>Assets</td>
<td>Increase</td><td>Decrease</td></tr></tbody></table></body></html>"""


def test_a_note_drawn_as_a_table_with_an_unlabelled_icon_is_a_note() -> None:
    text, _, _, _, roles = read_html(NOTE)
    assert "Note: By default GnuCash will automatically delete any .log files that are older " \
           "than 30 days." in text
    assert "Outdated: This section describes an older release." in text
    assert "|" not in text.split("Setting")[0]  # the notes are no rows
    note = text.index("By default")
    assert not any(start <= note < end and role == "table" for start, end, role in roles)
    assert "Coords | Where it is printed." in text  # a data table stays one


def test_a_tables_blank_corner_cell_keeps_the_column_labels_over_their_values() -> None:
    text = read_html(TABLE)[0]
    assert "| XML | SQLite | MySQL\n\nCompression | gzip | N/A | N/A" in text
    assert "Account Type | Effect\n| Debit (Dr) | Credit (Cr)" in text
    # The table's footnotes, one cell below its rows: a note a paragraph, not one line.
    assert "additional packages.\n\n[b] MySQL place data" in text
