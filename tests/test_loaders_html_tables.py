"""Pygments' line numbers and a grid's empty first cells (HTML loader 30).

New-user review of BIND 9's manual (Sphinx, ``bind9-doc``, 2026-12-05): a zone file shown
with line numbers was stored "24ns1 IN A 192.168.254.2" — the number glued to the record —
and a zone table whose rows leave the name blank under the one above ("www" over two more
addresses) was stored "600 | IN | A | 10.0.0.2", every column shifted one to the left.
"""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

INLINE = """<html><body><main><h1>Zones</h1><p>An example zone:</p>
<div class="highlight-none notranslate"><div class="highlight"><pre><span></span><span
class="linenos"> 1</span>$TTL 2d    ; default TTL for zone
<span class="linenos"> 2</span>$ORIGIN example.com.
<span class="linenos">10</span>ns1        IN      A       192.168.254.2
</pre></div></div><p>Then reload the zone.</p></main></body></html>"""

# Pygments' other layout (``linenos="table"``): the numbers in a cell of their own.
TABLE = """<html><body><main><h1>Zones</h1><p>An example zone:</p>
<div class="highlight-none notranslate"><table class="highlighttable"><tr><td
class="linenos"><div class="linenodiv"><pre>1
2
3</pre></div></td><td class="code"><div class="highlight"><pre><span></span>$TTL 2d    ; default TTL for zone
$ORIGIN example.com.
ns1        IN      A       192.168.254.2
</pre></div></td></tr></table></div><p>Then reload the zone.</p></main></body></html>"""

CODE = "$TTL 2d    ; default TTL for zone\n$ORIGIN example.com.\nns1        IN      A       192.168.254.2"


# docutils' own line numbers (rst2html's ":number-lines:").
DOCUTILS = ('<html><body><main><h1>Zones</h1><p>An example zone:</p><pre class="code">'
            '<small class="ln">1 </small>$TTL 2d    ; default TTL for zone\n<small class="ln">'
            '2 </small>$ORIGIN example.com.\n<small class="ln">3 </small>ns1        IN      A'
            '       192.168.254.2</pre><p>Then reload the zone.</p></main></body></html>')


def test_line_numbers_are_no_part_of_the_code() -> None:
    for html in (INLINE, TABLE, DOCUTILS):
        text, _, _, _, roles = read_html(html)
        assert f"An example zone:\n\n{CODE}\n\nThen reload the zone." in text, text
        start = text.index(CODE)
        assert (start, start + len(CODE), "code") in roles


ZONE = """<html><body><main><h1>Round robin</h1><table class="docutils align-default"><tbody>
<tr class="row-odd"><td><p>Name</p></td><td><p>TTL</p></td><td><p>CLASS</p></td>
<td><p>TYPE</p></td><td><p>Resource Record (RR) Data</p></td></tr>
<tr class="row-even"><td><p>www</p></td><td><p>600</p></td><td><p>IN</p></td><td><p>A</p></td>
<td><p>10.0.0.1</p></td></tr>
<tr class="row-odd"><td></td><td><p>600</p></td><td><p>IN</p></td><td><p>A</p></td>
<td><p>10.0.0.2</p></td></tr>
<tr class="row-odd"><td></td><td><p>600</p></td><td><p>IN</p></td><td><p>A</p></td>
<td><p>10.0.0.3</p></td></tr>
<tr class="row-odd"><td></td><td><p>600</p></td><td><p>IN</p></td><td><p>A</p></td>
<td><p>10.0.0.4</p></td></tr>
<tr class="row-even"><td></td><td></td><td></td><td></td><td></td></tr>
</tbody></table></main></body></html>"""


def test_a_grids_empty_first_cell_keeps_the_columns_in_place() -> None:
    text = read_html(ZONE)[0]
    # A name over three blank ones: two of the five rows have text in the first column.
    assert "www | 600 | IN | A | 10.0.0.1\n| 600 | IN | A | 10.0.0.2\n| 600 | IN | A | " \
        "10.0.0.3\n| 600 | IN | A | 10.0.0.4" in text, text
    assert "\n600 |" not in text
    assert "| |" not in text  # a row with no text at all writes nothing


def test_a_layout_tables_empty_cell_is_no_column() -> None:
    # An indenting cell (argparse's option tables, a note's icon, Doxygen's hanging indent of
    # a signature): a column whose rows are mostly blank, or a table that is no grid.
    options = ("<html><body><main><h1>borg</h1><table><tr><td colspan=\"3\">positional "
               "arguments</td></tr><tr><td></td><td>REPOSITORY</td><td>repository to use"
               "</td></tr><tr><td></td><td>PATH</td><td>where to put it</td></tr></table>"
               "</main></body></html>")
    text = read_html(options)[0]
    assert "\nREPOSITORY | repository to use\nPATH | where to put it" in text, text
    signature = ("<html><body><main><h1>opus_decode()</h1><table class=\"memname\"><tr><td>"
                 "int opus_decode</td><td>(</td><td>OpusDecoder *</td><td>st,</td></tr>"
                 "<tr><td></td><td></td><td>int</td><td>len,</td></tr><tr><td></td><td></td>"
                 "<td>int</td><td>decode_fec</td></tr><tr><td></td><td>)</td><td></td><td>"
                 "</td></tr></table></main></body></html>")
    text = read_html(signature)[0]
    assert "\nint | len,\nint | decode_fec\n) |" in text, text


def test_a_variable_list_set_as_a_table_reads_as_terms_and_descriptions() -> None:
    """DocBook's ``variablelist.as.table`` (Cockpit's guide, GLib's "Running GLib
    Applications"): a term and its description a row. Read as a table's row, the
    description's paragraphs and its example ran on as one line ("[Session] IdleTimeout=15
    When not specified, there is no idle timeout by default.", new-user review 2026-12-05)
    and each row without a full stop ran into the next."""
    from citewise.knowledge.loaders.html import read_html

    page = ('<html><body><h2>Session</h2><div class="variablelist"><table border="0" '
            'class="variablelist"><colgroup><col><col></colgroup><tbody><tr><td><p><span '
            'class="term"><code class="option">Banner</code></span></p></td><td><p>The contents '
            'of the specified file are shown on the login page.</p></td></tr><tr><td><p><span '
            'class="term"><code class="option">IdleTimeout</code></span></p></td><td><p>Set to '
            '0 to disable session timeout.</p><div class="informalexample"><pre class='
            '"programlisting">[Session]\nIdleTimeout=15\n</pre></div><p>When not specified, '
            'there is no idle timeout by default.</p></td></tr></tbody></table></div>'
            '</body></html>')
    text, _, _, _, roles = read_html(page)
    assert text == ("Session\n\nBanner\n\nThe contents of the specified file are shown on the "
                    "login page.\n\nIdleTimeout\n\nSet to 0 to disable session timeout.\n\n"
                    "[Session]\nIdleTimeout=15\n\nWhen not specified, there is no idle timeout "
                    "by default.")
    spans = {text[a:b]: role for a, b, role in roles}
    assert spans["Banner"] == "term" and spans["IdleTimeout"] == "term"
    assert spans["[Session]\nIdleTimeout=15"] == "code"
    assert "table" not in spans.values()


def test_a_cells_list_items_are_set_apart() -> None:
    """Ant's jar task (new-user review, 2026-12-05): a cell's list ran on as one sentence,
    "fail = throws a BuildException warn = logs a message …"; its items read apart, on
    the row's line still."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><body><table><tr><td>strict</td><td>Configures how to handle breaks: <ul>'
            '<li><q>fail</q> = throws a BuildException</li>\n<li><q>warn</q> = logs a message '
            'on warn level</li><li><q>ignore</q> = logs it (default)</li></ul> Since Ant 1.7.1'
            '</td><td>No</td></tr></table></body></html>')
    text, _, _, _, roles = read_html(html)
    assert text == ("strict | Configures how to handle breaks: “fail” = throws a BuildException; "
                    "“warn” = logs a message on warn level; “ignore” = logs it (default) Since "
                    "Ant 1.7.1 | No")
    assert roles == [(0, len(text), "table")]


def test_layout_cells_are_blocks_and_a_cells_sentences_need_no_semicolon() -> None:
    """A second review of the change (2026-12-05): a variable list's cells without
    paragraphs ran together ("IdleTimeoutWhen not specified."), and "; " was put after
    items that end in their own full stop ("Install it.; Run it.")."""
    from citewise.knowledge.loaders.html import read_html

    terms = ('<html><body><table class="variablelist"><tr><td>IdleTimeout</td><td>When not '
             "specified, none.</td></tr><tr><td>Banner</td><td>Shown x.</td></tr></table>"
             "</body></html>")
    assert read_html(terms)[0] == "IdleTimeout\n\nWhen not specified, none.\n\nBanner\n\nShown x."
    steps = ("<html><body><table><tr><td>a</td><td><ul><li>Install it.</li><li>Run it.</li>"
             "</ul></td></tr></table></body></html>")
    assert read_html(steps)[0] == "a | Install it. Run it."


# The shape of Ant 1.10's Tasks/java.html (ant-doc, hand-written HTML): a description and a
# "Required" cell span the rows of the attributes they are shared by.
SPANNED = """<html><body><h2>Parameters</h2><table class="attr">
<tr><th>Attribute</th><th>Description</th><th>Required</th></tr>
<tr><td>value</td><td rowspan="3">See <a href="using.html#arg">Command-line Arguments</a>.</td>
<td rowspan="3">Exactly one of these</td></tr>
<tr><td>line</td></tr>
<tr><td>file</td></tr>
<tr><td>prefix</td><td rowspan="2">See Command-line Arguments. <em>Since Ant 1.8</em>.</td>
<td>No</td></tr>
<tr><td>suffix</td><td>No</td></tr>
<tr><td>long</td><td rowspan="2">""" + "A very long description. " * 10 + """</td><td>No</td></tr>
<tr><td>longer</td><td>Yes</td></tr>
<tr><td>compiler</td><td>Only if the compiler matches.</td><td>No</td></tr>
</table></body></html>"""


def test_a_cell_spanning_rows_is_carried_into_each_row() -> None:
    rows = read_html(SPANNED)[0].split("\n")
    assert rows[3:8] == [
        "value | See Command-line Arguments. | Exactly one of these",
        "line | See Command-line Arguments. | Exactly one of these",
        "file | See Command-line Arguments. | Exactly one of these",
        "prefix | See Command-line Arguments. Since Ant 1.8. | No",
        "suffix | See Command-line Arguments. Since Ant 1.8. | No",
    ]
    # A long cell keeps its column without being repeated; the rows after a span are whole.
    assert rows[9] == "longer | | Yes"
    assert rows[10] == "compiler | Only if the compiler matches. | No"


def test_a_wikis_tick_and_cross_icons_are_both_marks() -> None:
    # FreedomBox's firewall table (MoinMoin's icons through DocBook): every "(./)" was
    # left out beside the "{X}" kept, so each row said the opposite of the page.
    cell = '<td><p><span class="inlinemediaobject"><img src="icons/{}.png" alt="{}"/></span></p></td>'
    html = ("<html><body><table><tr><th>Service</th><th>Port</th><th>Enabled</th>"
            "<th>External</th></tr><tr><td>SSH</td><td>22/tcp</td>"
            + cell.format("checkmark", "(./)") + cell.format("error", "{X}")
            + "</tr></table></body></html>")
    assert "SSH | 22/tcp | (./) | {X}" in read_html(html)[0]


def test_a_span_ends_with_its_row_group() -> None:
    # cppreference numbers each overload with a cell spanning 142 rows of a <tbody> of
    # two: browsers clip the span there, and the next group's rows are their own.
    html = ("<html><body><table><tbody><tr><td>int printf(const char *format, ...);</td>"
            '<td rowspan="142">(1)</td><td>(until C99)</td></tr><tr><td>int printf(const '
            "char *restrict format, ...);</td><td>(since C99)</td></tr></tbody><tbody><tr>"
            "<td>int printf_s(const char *restrict format, ...);</td><td>(2)</td>"
            "<td>(since C11)</td></tr></tbody></table></body></html>")
    assert [row for row in read_html(html)[0].split("\n") if row] == [
        "int printf(const char *format, ...); | (1) | (until C99)",
        "int printf(const char *restrict format, ...); | (1) | (since C99)",
        "int printf_s(const char *restrict format, ...); | (2) | (since C11)"]


def test_carried_cells_read_as_walked_and_leave_no_state_behind() -> None:
    # A review of the change (2026-12-05): a blank carried cell left the next table's
    # first row opening "| ", carried text was the raw markup's (a hidden sort key, "231"
    # for 2^31), a row the spans fill was skipped, and a cell spanning rows and columns
    # put later cells out of place.
    html = ("<html><body><table><tr><td>a</td><td rowspan=2><img alt='X'></td></tr>"
            "<tr><td>b</td></tr></table><p>p</p><table><tr><td>c</td><td>d</td></tr></table>"
            "<table><tr><td>k</td><td rowspan=2><span style='display:none'>0001</span>"
            "2<sup>31</sup></td></tr><tr><td>m</td></tr></table>"
            "<table><tr><td rowspan=3>A</td><td rowspan=3>B</td></tr><tr></tr><tr></tr>"
            "<tr><td>x</td><td>y</td></tr></table>"
            "<table><tr><td rowspan=2 colspan=2>A</td><td>B</td></tr><tr><td rowspan=2>C</td>"
            "</tr><tr><td>x</td><td>y</td></tr></table></body></html>")
    rows = [row for row in read_html(html)[0].split("\n") if row]
    assert rows[:4] == ["a | X", "b | X", "p", "c | d"]
    assert rows[4:6] == ["k | 2^31", "m | 2^31"]
    assert rows[6:9] == ["A | B", "A | B", "A | B"] and rows[9] == "x | y"
    assert rows[10:] == ["A | B", "A | C", "x | y | C"]


def test_odd_or_huge_spans_neither_fail_nor_multiply_the_text() -> None:
    odd = ('<table><tr><td rowspan="²">a</td><td rowspan="' + "9" * 5000 + '">b</td></tr>'
           "<tr><td>c</td></tr></table>")
    assert read_html(odd)[0].split("\n")[0] == "a | b"
    wide = ("<table><tr>" + "".join(f"<td rowspan=1000>{'w' * 150}{i}</td>" for i in range(200))
            + "</tr>" + "<tr><td>x</td></tr>" * 200 + "</table>")
    text = read_html(wide)[0]
    assert len(text) < 20 * len(wide)  # each row carries a share of its spans' text at most


def test_a_row_whose_cells_hold_code_of_several_lines_is_read_as_blocks() -> None:
    """Wireshark's User's Guide (review 2026-12-06) sets YAML beside YAML in a table: the
    row was one line, the code's lines and indents lost, and YAML's own "!!binary |" read
    like the end of a cell. Such a row's cells are blocks, each code keeping its lines;
    the header row and a row of one-line code stay rows."""
    html = ("<html><body><h1>Follow</h1><p>The old format maps to the new one.</p><table>"
            "<tr><th>New YAML format</th><th>Old YAML format</th></tr>"
            "<tr><td><pre class='screen'>packets:\n  - packet: AAA\n    data: !!binary |\n"
            "      DDD</pre></td><td><pre class='screen'># Packet AAA\npeer0_0: !!binary |\n"
            "  DDD</pre></td></tr><tr><td><pre>tcp port 23</pre></td><td>Telnet</td></tr>"
            "</table><p>This loads the stream as YAML.</p></body></html>")
    text, _title, _sections, _meta, roles = read_html(html)
    assert "New YAML format | Old YAML format" in text
    code = [text[a:b] for a, b, role in roles if role == "code"]
    assert "packets:\n  - packet: AAA\n    data: !!binary |\n      DDD" in code
    assert "# Packet AAA\npeer0_0: !!binary |\n  DDD" in code
    assert "tcp port 23 | Telnet" in text  # one line of code: a cell on its row's line
