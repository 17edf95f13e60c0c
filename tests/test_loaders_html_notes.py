"""A Sphinx page's footnotes are text, and its sidebar is not.

Docutils (Sphinx 5+) writes footnotes as ``<aside class="footnote">`` and the HTML loader
left out every ``<aside>`` as a sidebar: BorgBackup's manual (Debian's ``borgbackup-doc``)
lost "Only “nodump”, “immutable”, “compressed” and “append” are supported." while its
marker stayed in the text ("Flags [7]"). Its theme's ``<div class="sphinxsidebar">``
began every stored page with the logo's "Borg 1.2.4" (new-user review, 2026-12-04). The
fixture is modelled on those pages."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.html import HtmlLoader, extract_html

_PAGE = """<!DOCTYPE html><html><head><title>General — Borg documentation</title></head>
<body><div id="left-column"><div class="sphinxsidebar"><a href="index.html"
class="text-logo"><img src="_static/logo.svg"> Borg 1.2.4</a>
<div class="sidebar-block"><form action="search.html"><input name="q"></form></div></div>
</div><div id="right-column"><div role="navigation"><ol class="breadcrumb"><li><a
href="index.html">Docs</a></li></ol></div>
<div class="document clearer body"><section id="general"><h1>General</h1>
<p>The following platform features are supported: ACLs <a class="footnote-reference
brackets" href="#id10" id="id5" role="doc-noteref"><span class="fn-bracket">[</span>1<span
class="fn-bracket">]</span></a> and flags <a class="footnote-reference brackets"
href="#id11" id="id6" role="doc-noteref"><span class="fn-bracket">[</span>2<span
class="fn-bracket">]</span></a>.</p>
<aside class="footnote-list brackets">
<aside class="footnote brackets" id="id10" role="note">
<span class="label"><span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></span>
<span class="backrefs">(<a role="doc-backlink" href="#id5">1</a>,<a role="doc-backlink"
href="#id14">2</a>)</span>
<p>Only “nodump”, “immutable”, “compressed” and “append” are supported.</p>
</aside>
<aside class="footnote brackets" id="id11" role="note">
<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink"
href="#id6">2</a><span class="fn-bracket">]</span></span>
<p>Feature request #1332</p>
</aside>
</aside>
<aside class="sidebar"><p>Read the release notes before upgrading.</p></aside>
</section></div></div></body></html>"""


def _load() -> str:
    return HtmlLoader().load(Path("general.html"), _PAGE.encode()).text


def test_a_footnote_is_kept_on_one_line_with_its_label() -> None:
    text = _load()
    assert ("[1] Only “nodump”, “immutable”, “compressed” and “append” are supported."
            in text.splitlines())
    assert "[2] Feature request #1332" in text.splitlines()
    assert "(1,2)" not in text  # its links back to the references are navigation


def test_a_footnote_anchor_points_at_its_label() -> None:
    doc = HtmlLoader().load(Path("general.html"), _PAGE.encode())
    at = doc.metadata["anchors"]["id10"]
    assert doc.text[at:].startswith("[1] Only")


def test_the_sphinx_sidebar_and_other_asides_are_left_out() -> None:
    text = _load()
    assert text.startswith("General\n\nThe following platform features are supported")
    assert "Borg 1.2.4" not in text
    assert "release notes" not in text  # an aside that is no note is still a sidebar


def test_an_rst_sidebar_is_the_texts_box_with_its_title_as_label() -> None:
    """rST's ``.. sidebar::`` is part of the text: docutils writes it as ``<aside
    class="sidebar">`` with a ``<p class="sidebar-title">``, and SQLAlchemy's "Lazy
    Connecting" box (one of 15) was lost with the site's sidebars (new-user review,
    2026-12-05). Its title labels its first paragraph, as an admonition's does."""
    from citewise.knowledge.loaders.html import extract_html

    page = ('<html><body><div role="main"><section id="s"><h2>Engine</h2><p>First paragraph.'
            '</p><{0} class="sidebar"><p class="sidebar-title">Lazy Connecting</p><p>The Engine '
            'has not actually tried to connect to the database yet.</p></{0}><p>Last paragraph.'
            '</p></section></div></body></html>')
    bare = page.replace('<div role="main">', '<div class="document">')  # plain rst2html
    for tag, html in (("aside", page), ("div", page), ("aside", bare)):  # docutils 0.18+, before
        text, _, sections, _ = extract_html(html.format(tag))
        assert text == ("Engine\n\nFirst paragraph.\n\nLazy Connecting: The Engine has not "
                        "actually tried to connect to the database yet.\n\nLast paragraph.")
        assert [s[2] for s in sections] == ["Engine"]


def test_a_bold_label_over_its_boxs_one_paragraph_labels_it() -> None:
    """SQLAlchemy's API pages box each class's bases: ``<div class="class-bases">`` with a
    bold "Class signature" over one paragraph. As a heading it opened a section that ran
    on over the class's methods (review, 2026-12-05); it labels its paragraph."""
    from citewise.knowledge.loaders.html import extract_html

    page = ('<html><body><h2>API</h2><dl class="py class"><dt id="P">class Pool()</dt><dd>'
            '<p>Abstract base class.</p><div class="class-bases docutils container"><p><strong>'
            'Class signature</strong></p><p>class Pool (Identified)</p></div><dl class="py '
            'method"><dt id="P.connect">connect()</dt><dd><p>Return a connection.</p></dd></dl>'
            '</dd></dl></body></html>')
    text, _, sections, _ = extract_html(page)
    assert "Class signature: class Pool (Identified)" in text
    assert [s[2] for s in sections] == ["API"]
    # A bold title over a box of several paragraphs still heads them.
    box = ('<html><body><h2>API</h2><div><p><b>Options</b></p><p>One.</p><p>Two.</p></div>'
           '</body></html>')
    assert [s[2] for s in extract_html(box)[2]][-1] == "API > Options"


def test_an_old_docutils_footnote_list_writes_its_label_on_the_notes_line() -> None:
    """docutils before 0.18 wrote footnotes as ``<dl class="footnote brackets">``, the
    label a ``<dt class="label">``: a lone "1" over the note (SQLAlchemy's manual, CMake's
    find_package; new-user review, 2026-12-05). It reads "[1] DDL refers …", as the
    marker in the text does, and its id points at the label."""
    from citewise.knowledge.loaders.html import read_html

    page = ('<html><body><h2>Commit</h2><p>A statement <a class="footnote-reference brackets" '
            'href="#id2" id="id1">1</a> and more.</p><dl class="footnote brackets"><dt '
            'class="label" id="id2"><span class="brackets"><a class="fn-backref" href="#id1">1'
            '</a></span></dt><dd><p>DDL refers to the subset of SQL.</p></dd></dl></body></html>')
    text, _, _, meta, roles = read_html(page)
    assert text == "Commit\n\nA statement [1] and more.\n\n[1] DDL refers to the subset of SQL."
    assert text[meta["anchors"]["id2"]:].startswith("[1] DDL")
    assert not [r for r in roles if r[2] == "term"]


def test_a_box_label_needs_a_docutils_container_and_a_paragraph_with_text() -> None:
    """A review of the change (2026-12-05): the label rule fired on any ``<div>`` of two
    paragraphs, spilled a label whose paragraph was blank onto the next heading ("Top >
    Contact: Other"), and looked at every sibling of every paragraph (12 s for 8,000 in
    one ``<div>``)."""
    from citewise.knowledge.loaders.html import read_html

    spill = ('<html><body><h1>Top</h1><div class="container"><p><b>Contact</b></p><p> </p>'
             "</div><h2>Other</h2><p>x.</p></body></html>")
    text, _, sections, _, _ = read_html(spill)
    assert "Contact: Other" not in text and [s[2] for s in sections][-1] == "Top > Other"
    plain = ('<html><body><h1>Top</h1><div><p><b>Summary</b></p><p>It works.</p></div>'
             "</body></html>")
    assert read_html(plain)[0] == "Top\n\nSummary\n\nIt works."
    image = ('<html><body><h1>T</h1><div class="container"><p><b>Diagram</b></p><p><img '
             'src="a.png"></p></div><p>The system has three parts.</p></body></html>')
    assert "Diagram: The system" not in read_html(image)[0]


def test_a_footnote_labels_links_back_are_not_its_label() -> None:
    """docutils 0.17 writes a footnote cited twice as ``<span class="brackets">1</span><span
    class="fn-backref">(<a>1</a>,<a>2</a>)</span>``: its label read "[1(1,2)]" (a review
    of the change, 2026-12-05); a citation's label is longer than a number's."""
    from citewise.knowledge.loaders.html import read_html

    twice = ('<html><body><p>A [1].</p><dl class="footnote brackets"><dt class="label" '
             'id="n"><span class="brackets">1</span><span class="fn-backref">(<a href="#a">1'
             '</a>,<a href="#b">2</a>)</span></dt><dd><p>A footnote.</p></dd></dl></body></html>')
    assert read_html(twice)[0].endswith("\n\n[1] A footnote.")
    cited = ('<html><body><p>A.</p><dl class="citation"><dt class="label" id="s"><span '
             'class="brackets"><a class="fn-backref" href="#x">Smith2002a</a></span></dt><dd>'
             "<p>A book.</p></dd></dl></body></html>")
    assert read_html(cited)[0] == "A.\n\n[Smith2002a] A book."


def test_a_note_docbook_draws_as_a_table_reads_as_a_labelled_note() -> None:
    """DocBook XSL with admonition graphics draws a note as a table, its icon beside its
    title over its text (aptitude's manual, the Debian Reference): "Important | If you do
    not resolve …" was a table row, "Important If you do not …" one sentence (new-user
    review, 2026-12-05). And the "[D]" link to an image's long description is no text."""
    from citewise.knowledge.loaders.html import read_html

    page = ('<html><body><h2>Resolving</h2><div class="important" style="margin-left: 0.5in">'
            '<table border="0" summary="Important"><tr><td rowspan="2" align="center" '
            'valign="top" width="25"><img alt="[Important]" src="images/important.png"/></td>'
            '<th align="left">Important</th></tr><tr><td align="left" valign="top"><p>If you '
            'do not resolve any broken dependencies, aptitude resolves them.</p><ul><li>Press '
            'g.</li><li>Press q.</li></ul></td></tr></table></div><div class="mediaobject">'
            '<table summary="manufactured viewport for HTML img"><tr><td><img src="a.png" '
            'alt="[package view]"/></td></tr></table><div class="longdesc-link" align="right">'
            '<br clear="all"/><span class="longdesc-link">[<a href="ld-idm445.html" '
            'target="longdesc">D</a>]</span></div></div><p>As you can see.</p></body></html>')
    text, _, sections, _, roles = read_html(page)
    assert text == ("Resolving\n\nImportant: If you do not resolve any broken dependencies, "
                    "aptitude resolves them.\n\nPress g.\nPress q.\n\nAs you can see.")
    assert [s[2] for s in sections] == ["Resolving"]
    assert "table" not in {role for _, _, role in roles}


def test_a_docbook_notes_own_title_and_a_boxs_long_title() -> None:
    """Wireshark's guide (review, 2026-12-06): a note titled "Busy networks mean large
    captures" lost its label, and the title was a paragraph quoted as the answer; an
    example's 16-word title and a sidebar's question were prose too (the answer to "a
    capture filter for telnet" quoted the title, not the filter), while a shorter example
    title was a caption. Each is a caption now, and never a section."""
    from citewise.knowledge.loaders.html import read_html

    note = ('<div class="note"><table border="0" summary="Note: Busy networks mean large '
            'captures"><tr><td rowspan="2"><img alt="[Note]" src="note.svg"></td><th '
            'align="left">Busy networks mean large captures</th></tr><tr><td><p>A busy network '
            'can produce huge capture files.</p></td></tr></table></div>')
    example = ('<div class="example"><a name="x1"></a><p class="title"><b>Example 4.1. A '
               'capture filter for telnet that captures traffic to and from a particular '
               'host</b></p><div class="example-contents"><pre class="programlisting">tcp port '
               '23 and host 10.0.0.5</pre></div></div>')
    sidebar = ('<div class="sidebar"><div class="titlepage"><div><div><p class="title"><b>What '
               'are checksums for?</b></p></div></div></div><p>Checksums are used to ensure '
               'the integrity of data.</p></div>')
    text, _, sections, _, roles = read_html(
        f"<html><body><h2>Capturing</h2>{note}{example}{sidebar}</body></html>")
    assert "Busy networks mean large captures: A busy network can produce huge" in text
    captions = [text[a:b] for a, b, role in roles if role == "heading"]
    assert captions == ["Capturing", "Example 4.1. A capture filter for telnet that captures "
                        "traffic to and from a particular host", "What are checksums for?"]
    assert [s[2] for s in sections] == ["Capturing"]
    # A paragraph of the same words outside such a box is still prose.
    text, _, _, _, roles = read_html("<html><body><p class='title'><b>What are checksums "
                                     "for?</b></p><p>They check.</p></body></html>")
    assert [role for _, _, role in roles] == []


def test_a_data_table_inside_a_note_stays_a_table() -> None:
    """A second review of the change (2026-12-05): every table inside a note's box was
    read as DocBook's drawn note, its header cells taken for the label ("Note: Values:
    Default: timeout30"). Only a table summarised by the note's title, or holding its
    "[Important]" icon, is the note's drawing."""
    from citewise.knowledge.loaders.html import read_html

    page = ('<html><body><div class="admonition note"><p class="admonition-title">Note</p>'
            '<table class="docutils"><thead><tr><th>Option</th><th>Default</th></tr></thead>'
            "<tbody><tr><td>timeout</td><td>30</td></tr><tr><td>retries</td><td>3</td></tr>"
            "</tbody></table></div></body></html>")
    text, _, _, _, roles = read_html(page)
    assert text == "Note: Option | Default\n\ntimeout | 30\nretries | 3"
    assert "table" in {role for _, _, role in roles}


# The shape of crmsh 4.4's manual (Python AsciiDoc, Debian's ``crmsh-doc``): a note drawn as
# a table, its icon's cell beside its text (with a block title or without one), and an
# "About" page whose section says how the site was made.
_ASCIIDOC = """<html><body><div id="content">
<h2 id="_configuration">Configuration</h2><div class="sectionbody">
<div class="admonitionblock"><table><tr><td class="icon">
<img src="/img/icons/note.png" alt="Note"></td><td class="content">
<div class="title">Version information</div>This section applies to crmsh 2.0+ only.</td>
</tr></table></div>
<div class="paragraph"><p>crm can be configured using a configuration file.</p></div>
<div class="admonitionblock"><table><tr><td class="icon"><div class="title">Tip</div></td>
<td class="content">Messages are colored by host.</td></tr></table></div>
</div>
<h2 id="_site">Site</h2><div class="sectionbody">
<div class="paragraph"><p>This site was generated from AsciiDoc sources.</p></div>
<div class="paragraph"><p>The CSS for this site started as a clone of the bare theme.</p></div>
<div class="paragraph"><p>Fonts used are Open Sans and Font Awesome.</p></div>
</div></div></body></html>"""


def test_an_asciidoc_note_reads_as_a_labelled_note_and_a_sites_own_story_is_text() -> None:
    text, _, _, _ = extract_html(_ASCIIDOC)
    assert "Note: Version information\n\nThis section applies to crmsh 2.0+ only." in text
    assert "Tip: Messages are colored by host." in text
    assert " | " not in text
    assert "Site\n\nThis site was generated from AsciiDoc sources.\n\nThe CSS" in text
    assert text.endswith("Fonts used are Open Sans and Font Awesome.")
