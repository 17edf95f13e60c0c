"""HTML text as a reader of the page sees it, found wrong on real manuals (SQLite's and
Apache httpd's, session 15): ordered lists lost their numbers though the text says "step
8", 2<sup>64</sup> read "264", search-only hidden headings were glued to the paragraph
before them, and every page carried its breadcrumb trail, language switcher and list of
in-page links."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load


def _page(tmp_path: Path, body: str) -> str:
    path = tmp_path / "page.html"
    path.write_text(f"<html><head><title>T</title></head><body>{body}</body></html>",
                    encoding="utf-8")
    return load(path).text


def test_ordered_lists_keep_their_numbers(tmp_path: Path) -> None:
    text = _page(tmp_path, "<p>Follow these steps.</p><ol><li>Save the schema.</li>"
                 "<li>Do what step 1 said.</li><li value=8>Rename it.</li><li>Check.</li>"
                 "</ol><ol start=3 type=i><li>three</li></ol><ol type=A><li>one</li></ol>"
                 "<ul><li>a bullet</li></ul>")
    assert "1. Save the schema.\n2. Do what step 1 said.\n8. Rename it.\n9. Check." in text
    assert "iii. three" in text and "A. one" in text
    assert "\na bullet" in text  # unordered items have no number
    # An item's number goes on its first paragraph's line; one holding only code keeps it.
    text = _page(tmp_path, "<ol><li><p>Configure.</p><p>Then wait.</p></li>"
                 "<li><pre>make install</pre></li><li>Done.</li></ol>")
    assert "1. Configure.\n\nThen wait." in text
    assert "2.\n\nmake install" in text and "3. Done." in text


def test_a_superscript_after_a_digit_is_a_power(tmp_path: Path) -> None:
    text = _page(tmp_path, "<p>At most 2<sup>64</sup> rows, or 2<sup>31</sup>-1 pages; "
                 "see note<sup>1</sup>.</p>")
    assert "At most 2^64 rows, or 2^31-1 pages; see note1." in text


def test_a_superscript_after_a_variable_is_a_power_and_after_a_word_a_mark(
        tmp_path: Path) -> None:
    # ImageMagick's fx page (new-user review, 2026-12-06): "exponentiation (xy)".
    text = _page(tmp_path, "<p>exponentiation (<var>x<sup>y</sup></var>), e<sup>x</sup>, "
                 "x<sup>2</sup>+y<sup>2</sup>, [jinc(x)]<sup>2</sup> and A*r<sup>3</sup>; "
                 "see note<sup>1</sup>, the n<sup>th</sup> one, (below)<sup><a href='#f'>2"
                 "</a></sup>.</p>")
    assert "exponentiation (x^y), e^x, x^2+y^2, [jinc(x)]^2 and A*r^3;" in text
    assert "see note1, the nth one, (below)2." in text


def test_a_word_as_a_power_is_one_and_an_ordinals_ending_is_none(tmp_path: Path) -> None:
    # Go's specification (new-user review, 2026-12-05): "scales the mantissa by 10exp".
    text = _page(tmp_path, "<p>It scales the mantissa by 10<sup>exp</sup> or by "
                 "2<sup>exp</sup>, since the 21<sup>st</sup> or 2<sup>nd</sup> draft.</p>")
    assert "by 10^exp or by 2^exp, since the 21st or 2nd draft." in text


def test_elements_hidden_by_their_style_are_not_text(tmp_path: Path) -> None:
    text = _page(tmp_path, "<p>Higher bits are reserved.</p>"
                 "<h _id=p style='display:none'> PRAGMA auto_vacuum</h><hr>"
                 "<p>PRAGMA auto_vacuum = 0 disables it.</p>"
                 "<div style='visibility: hidden'>ghost</div>")
    assert "PRAGMA auto_vacuum\n" not in text and "ghost" not in text
    assert "Higher bits are reserved.\n\nPRAGMA auto_vacuum = 0 disables it." in text


def test_a_search_only_heading_names_its_entrys_section(tmp_path: Path) -> None:
    """SQLite's pragma.html heads each pragma with a hidden ``<h _id=…>`` only its site
    search reads; every pragma after PRAGMA optimize was filed under that pragma's bold
    line "Determination Of When To Run Analyze" (2026-12-06)."""
    path = tmp_path / "pragma.html"
    path.write_text(
        "<html><head><title>PRAGMA Statements</title></head><body>"
        "<h1>PRAGMA Statements</h1><h2>List Of PRAGMAs</h2>"
        "<a name='pragma_optimize'></a><h _id=pragma_optimize style='display:none'> PRAGMA "
        "optimize</h><hr><p><b>PRAGMA optimize;</b></p><p>Attempt to optimize.</p>"
        "<p><b>Determination Of When To Run Analyze</b></p><p>A table is analyzed when "
        "stale.</p>"
        "<a name='pragma_page_size'></a><h _id=pragma_page_size style='display:none'> PRAGMA "
        "page_size</h><hr><p><b>PRAGMA </b><i>schema.</i><b>page_size;</b></p><p>Query or "
        "set the page size of the database.</p>"
        "<h _id=pragma_shrink_memory style='display:none'> PRAGMA shrink_memory</h><hr>"
        "<p><b>PRAGMA shrink_memory</b></p><p>Frees as much memory as it can.</p>"
        "</body></html>", encoding="utf-8")
    doc = load(path)

    def section(words: str) -> str | None:
        at = doc.text.index(words)
        return next(name for start, end, name in doc.sections if start <= at < end)

    assert section("A table is analyzed") == ("PRAGMA Statements > List Of PRAGMAs > PRAGMA "
                                              "optimize > Determination Of When To Run Analyze")
    assert section("Query or set the page size") == ("PRAGMA Statements > List Of PRAGMAs > "
                                                     "PRAGMA page_size")
    # Its bold signature, the same name, is no section under itself.
    assert section("Frees as much memory") == ("PRAGMA Statements > List Of PRAGMAs > PRAGMA "
                                               "shrink_memory")
    assert "PRAGMA page_size\n" not in doc.text  # hidden: still no text of its own


def test_breadcrumbs_language_switchers_and_in_page_link_lists_are_chrome(
        tmp_path: Path) -> None:
    text = _page(tmp_path, (
        "<div id='path'><a href='/'>Apache</a> &gt; <a href='/httpd'>HTTP Server</a> &gt; "
        "<a href='/docs'>Documentation</a></div>"
        "<div class='toplang'><p><span>Available Languages: </span><a href='en'>en</a> | "
        "<a href='fr' hreflang='fr'>fr</a> | <a href='ja' hreflang='ja'>ja</a></p></div>"
        "<h1>mod_expires</h1><ul id='toc'><li><a href='#a'>ExpiresActive</a></li>"
        "<li><a href='#b'>ExpiresByType</a></li><li><a href='#c'>ExpiresDefault</a></li></ul>"
        "<p>This module controls the Expires header.</p>"
        "<ul><li><a href='#a'>ExpiresActive</a> turns it on.</li><li>Plain</li>"
        "<li>Items</li></ul>"))
    assert "Apache" not in text and "Available Languages" not in text
    assert "ExpiresByType" not in text
    assert "mod_expires\n\nThis module controls the Expires header." in text
    assert "ExpiresActive turns it on." in text  # a list with words of its own stays


def test_a_sentence_runs_on_through_a_short_display_block() -> None:
    """Exim's specification (new-user review, 2026-12-05): DocBook closes a paragraph at a
    display block, so "Instead, the alias item" / ":blackhole:" / "can be used." were three
    sentences, the first and last quoted as if whole; so were 237 sentences of the bench's
    manuals ("For example, the command" / "ls > dirlist 2>&1" / "directs both …"). The
    block stays a line and a code span of its own, at the same offsets."""
    from citewise.knowledge.loaders.html import read_html
    from citewise.sentences import sentence_spans

    html = ("<html><body><h2>Redirect</h2><p>It does not work. Instead, the alias item\n</p>"
            '<div class="literallayout"><pre>\n:blackhole:\n</pre></div><p>\ncan be used. It '
            "does what its name implies.</p><h3>Example</h3><pre>ls -l</pre><p>lists files."
            "</p><p>Run this:</p><pre>make</pre><p>and wait.</p><p>Then the command</p>"
            "<pre>zle vi-set-buffer A</pre><dl><dt>vi-set-mark (unbound)</dt><dd>Set the "
            "mark.</dd></dl></body></html>")
    text, _, _, _, roles = read_html(html)
    sentences = [text[a:b] for a, b in sentence_spans(text)]
    assert "Instead, the alias item\n :blackhole:\n can be used." in sentences, sentences
    and_is = html.replace("can be used. It", "and is used. It")
    assert "Instead, the alias item\n :blackhole:\n and is used." in [
        text[a:b] for text in (read_html(and_is)[0],) for a, b in sentence_spans(text)]
    code = next((a, b) for a, b, role in roles if role == "code")
    assert text[code[0]:code[1]] == ":blackhole:"
    # A lead-in that stops mid-sentence ends with its example when a new sentence follows
    # (Wireshark's guide, review 2026-12-06: "However, the display filter … is not
    # equivalent to" was quoted without what it is not equivalent to).
    filters = ("<p>The display filter</p><pre>tcp.port in {80, 443}</pre><p>is equivalent "
               "to</p><pre>tcp.port == 80 || tcp.port == 443</pre><p>However, sets differ."
               "</p>")
    shown = read_html(f"<html><body>{filters}</body></html>")[0]
    assert [shown[a:b] for a, b in sentence_spans(shown)] == [
        "The display filter\n tcp.port in {80, 443}\n is equivalent to\n "
        "tcp.port == 80 || tcp.port == 443", "However, sets differ."]
    # After a heading, a lead-in's colon or before a list's next term, a block stands apart.
    assert "lists files." in sentences and "Run this:" in sentences
    assert "Then the command\n\nzle vi-set-buffer A\n\nvi-set-mark (unbound)" in text
    # Nor after a list item or between two blocks of code, nor through four lines.
    for body, kept in (("<ul><li>first item</li></ul><pre>foo</pre><p>bar baz.</p>",
                        "first item\n\nfoo\n\nbar baz."),
                       ("<p>Build it with</p><pre>make</pre><pre>make install</pre>"
                        "<p>then wait.</p>", "Build it with\n\nmake\n\nmake install\n\nthen"),
                       ("<p>Write</p><pre>a\nb\nc\nd</pre><p>and go on.</p>",
                        "Write\n\na\nb\nc\nd\n\nand"),
                       # Nor into a sentence of its own that opens with a name in lower
                       # case (RDoc's Array page, Ruby's review 2026-12-05).
                       ("<p>Add items with push or</p><pre>arr.push(5)</pre><p><code>unshift"
                        "</code> will add a new item to the beginning.</p>",
                        "Add items with push or\n\narr.push(5)\n\nunshift will"),
                       # …whatever its verb, when markup sets the name apart (Sphinx's
                       # quickstart, review 2026-12-06), a link to it included
                       ("<p>using member options, like</p><pre>.. automodule:: io</pre><p>"
                        "<em>autodoc</em> needs to import your modules.</p>",
                        "using member options, like\n\n.. automodule:: io\n\nautodoc needs"),
                       ("<p>call it as</p><pre>f(x)</pre><p><a href='#g'><code>g</code></a> "
                        "takes over.</p>", "call it as\n\nf(x)\n\ng takes"),
                       # Sphinx's inline literal, and a link inside the emphasis
                       ("<p>like</p><pre>.. automodule:: io</pre><p><code class='docutils "
                        "literal'><span class='pre'>autodoc</span></code> needs it.</p>",
                        "like\n\n.. automodule:: io\n\nautodoc needs"),
                       ("<p>like</p><pre>x()</pre><p><em><a href='#a'>autodoc</a></em> needs "
                        "it.</p>", "like\n\nx()\n\nautodoc needs"),
                       # not a word set in markup inside the sentence going on
                       ("<p>the command</p><pre>ls</pre><p>lists <em>all</em> files.</p>",
                        "the command\n ls\n lists all")):
        text, _, _, _, _ = read_html(f"<html><body>{body}</body></html>")
        assert text.startswith(kept), text


# Flask 2.2's "Configuring from Environment Variables", as sphinx-tabs writes it: a tab list
# of buttons, then one panel per shell, all but the first ``hidden`` until clicked.
TABS = """<main><section id="configuring-from-environment-variables">
<h2>Configuring from Environment Variables</h2>
<p>Environment variables can be set in the shell before starting the server:</p>
<div class="sphinx-tabs docutils container">
<div aria-label="Tabbed content" role="tablist">
<button aria-controls="panel-1-QmFzaA==" aria-selected="true" id="tab-1-QmFzaA=="
 role="tab">Bash</button>
<button aria-controls="panel-1-Q01E" aria-selected="false" id="tab-1-Q01E"
 role="tab">CMD</button></div>
<div aria-labelledby="tab-1-QmFzaA==" class="sphinx-tabs-panel" id="panel-1-QmFzaA=="
 role="tabpanel"><pre>$ export FLASK_MAIL_ENABLED=false</pre></div>
<div aria-labelledby="tab-1-Q01E" class="sphinx-tabs-panel" hidden="true" id="panel-1-Q01E"
 role="tabpanel"><pre>&gt; set FLASK_MAIL_ENABLED=false</pre></div>
<div class="ui-tabs-panel" role="tabpanel" style="display: none;" id="ps"
 ><pre>&gt; $env:FLASK_MAIL_ENABLED = "false"</pre></div>
</div>
<p>The variables can then be loaded with from_prefixed_env().</p>
<div hidden="true">A hidden note that no tab shows.</div>
</section></main>"""


def test_hidden_tab_panels_are_text_and_their_ids_no_anchors() -> None:
    from citewise.knowledge.loaders.html import read_html

    text, _, sections, meta, roles = read_html(f"<html><body>{TABS}</body></html>")
    assert "$ export FLASK_MAIL_ENABLED=false" in text
    assert "> set FLASK_MAIL_ENABLED=false" in text  # the CMD tab, hidden until clicked
    # Each panel under its tab's name, a caption (a heading's role, no section), and the
    # tab buttons themselves no text: "CMD" once, over its panel.
    assert "CMD\n\n> set FLASK_MAIL_ENABLED=false" in text and text.count("CMD") == 1
    assert "Bash\n\n$ export" in text and text.count("Bash") == 1
    assert all(any(text[a:b] == name and kind == "heading" for a, b, kind in roles)
               for name in ("Bash", "CMD"))
    assert [title for _, _, title in sections] == ["Configuring from Environment Variables"]
    assert '> $env:FLASK_MAIL_ENABLED = "false"' in text  # jQuery UI hides it by its style
    assert "A hidden note" not in text  # what nothing shows stays out
    anchors = meta["anchors"]
    assert not any(ident.startswith("panel-") or ident == "ps" for ident in anchors)
    # The sentence after the tabs links to its section, not to a panel.
    after = text.index("The variables can then be loaded")
    assert max((at, ident) for ident, at in anchors.items() if at <= after)[1] == (
        "configuring-from-environment-variables")


def test_sphinx_viewcode_source_links_are_no_text() -> None:
    """Requests' API page (python-requests-doc, review 2026-12-05) follows each of its 90
    signatures with Sphinx viewcode's "[source]" link: it reached the stored text, search
    results and section names as "requests.request(method, url, **kwargs)[source]"."""
    from citewise.knowledge.loaders.html import read_html

    page = ('<html><body><main><dl class="py function"><dt class="sig sig-object py" '
            'id="requests.request"><span class="sig-name">requests.request</span>(method, '
            'url, **kwargs)<a class="reference internal" href="_modules/requests/api.html#'
            'request"><span class="viewcode-link"><span class="pre">[source]</span></span>'
            '</a><a class="headerlink" href="#requests.request">¶</a></dt><dd><p>Constructs '
            'and sends a Request.</p><p>See <a href="_modules/x.html">[source] notes</a>.'
            '</p></dd></dl></main></body></html>')
    text = read_html(page)[0]
    assert "requests.request(method, url, **kwargs)\n" in text and "¶" not in text
    assert text.count("[source]") == 1  # a link that only says so is kept


def test_rdocs_method_signatures_are_terms_not_prose() -> None:
    """Ruby's manual as RDoc writes it (Darkfish, new-user review 2026-12-05): "how do I
    strip the nils out of an array" was answered "slice!(start, length) → new_array or
    nil": a method's call sequences were prose to quote."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><body><main><div id="method-i-slice-21" class="method-detail">'
            '<div class="method-heading"><span class="method-callseq">slice!(start, length) '
            '&rarr; new_array or nil</span></div><div class="method-heading"><span '
            'class="method-callseq">slice!(range) &rarr; new_array or nil</span></div>'
            '<div class="method-description"><p>Removes and returns elements from '
            '<code>self</code>.</p></div></div></main></body></html>')
    text, _, _, _, roles = read_html(html)
    for signature in ("slice!(start, length) → new_array or nil",
                      "slice!(range) → new_array or nil"):
        at = text.index(signature)
        assert (at, at + len(signature), "term") in roles, roles
    prose = text.index("Removes and returns")
    assert not any(a <= prose < b for a, b, _ in roles)


def test_a_pages_front_matter_titles_it_when_it_has_no_title() -> None:
    from citewise.knowledge.loaders.html import read_html

    # Go's documentation: the template's title in a comment, the body's first heading
    # "Introduction" (all three of its pages were titled so: new-user review, 2026-12-05).
    page = ('<!--{\n\t"Title": "The Go Programming Language Specification",\n\t"Subtitle": '
            '"Version of June 29, 2022"\n}-->\n\n<h2 id="Introduction">Introduction</h2>'
            "<p>This is the reference manual.</p>")
    assert read_html(page)[1] == "The Go Programming Language Specification"
    assert read_html(page.replace('"Title"', '"Tilte"'))[1] == "Introduction"
    assert read_html("<!--{ not json }--><h2>Intro</h2><p>x</p>")[1] == "Intro"
    titled = "<html><head><title>Spec</title></head><body>" + page + "</body></html>"
    assert read_html(titled)[1] == "Spec"


def test_a_sphinx_code_blocks_caption_names_it_and_runs_into_nothing() -> None:
    """Jinja's "Required Blocks" (new-user review, 2026-12-05): each listing's caption,
    "page.txt", read as a paragraph stopping mid-sentence, so it ran on through its short
    listing into the next caption ("page.txt {% block body required %} issue.txt"). A
    caption names its listing: a heading's role, no section, no run-on."""
    from citewise.knowledge.loaders.html import read_html

    def block(i: int, caption: str, code: str) -> str:
        return (f'<div class="literal-block-wrapper docutils container" id="id{i}"><div '
                f'class="code-block-caption"><span class="caption-text"><code class="docutils '
                f'literal notranslate"><span class="pre">{caption}</span></code></span><a '
                f'class="headerlink" href="#id{i}">¶</a></div>\n<div class="highlight-jinja">'
                f'<div class="highlight"><pre><span></span>{code}\n</pre></div></div></div>\n')

    html = ("<html><body><h1>Required Blocks</h1><p>Blocks can be marked as required.</p>"
            + block(20, "page.txt", "{% block body required %}{% endblock %}")
            + block(21, "issue.txt", '{% extends "page.txt" %}')
            + "<p>Rendering page.txt will fail.</p></body></html>")
    text, _, sections, _, roles = read_html(html)
    assert text == ("Required Blocks\n\nBlocks can be marked as required.\n\npage.txt\n\n"
                    "{% block body required %}{% endblock %}\n\nissue.txt\n\n"
                    '{% extends "page.txt" %}\n\nRendering page.txt will fail.')
    assert [s[2] for s in sections] == ["Required Blocks"]
    at = text.index("issue.txt")
    assert (at, at + len("issue.txt"), "heading") in roles


def test_rdocs_folded_source_and_hover_hint_are_not_text() -> None:
    """Asciidoctor's API reference (RDoc's Darkfish; new-user review, 2026-12-05): each
    method's source listing, folded until clicked, was 42 % of the stored text and was
    quoted for a prose question, and "click to toggle source", shown on hover, ended 203
    signatures ("role?(expected_value = nil) click to toggle source")."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><body><main><div class="method-detail"><div class="method-heading"><span '
            'class="method-name">role?</span><span class="method-args">(expected_value = nil)'
            '</span><span class="method-click-advice">click to toggle source</span></div><div '
            'class="method-description"><p>Public: Checks if the role attribute is set.</p>'
            '<div class="method-source-code" id="role-3F-source"><pre><span class="ruby-comment">'
            '# File lib/asciidoctor/abstract_node.rb, line 291</span>\ndef role?\n  x\nend</pre>'
            '</div></div></div></main></body></html>')
    text, _, _, _, roles = read_html(html)
    assert text == "role?(expected_value = nil)\n\nPublic: Checks if the role attribute is set."
    assert (0, len("role?(expected_value = nil)"), "term") in roles


def test_a_formulas_image_reads_as_its_text() -> None:
    """Sphinx's imgmath (Celery's canvas guide; review, 2026-12-05): "forming the
    expression" lost its formula, which was the answer."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><body><p>A chain of tasks forming the expression <img class="math" '
            'src="_images/math/5121.png" alt="(2 + 2) + 16 = 20"/></p><p><img src="logo.png" '
            'alt="Celery logo"/> End.</p></body></html>')
    assert read_html(html)[0] == ("A chain of tasks forming the expression (2 + 2) + 16 = 20"
                                  "\n\nEnd.")


def test_an_rst_topic_box_is_text_and_a_descriptions_bold_value_no_heading() -> None:
    """Celery's manual (review, 2026-12-05): docutils 0.18 writes ``.. topic::`` as ``<aside
    class="topic">``, and every one was left out with the site's asides ("It supports" and
    its list of features, the canvas guide's overview); a table of contents written so
    still goes. A bold command that is the whole of a definition's description
    ("<dd><p><strong>celery -A proj control revoke &lt;task_id&gt;</strong></p></dd>")
    headed a section."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><body><div class="document"><h1>Celery</h1><aside class="topic contents">'
            '<p class="topic-title">Contents</p><ul><li><a href="#a">Features</a></li></ul>'
            '</aside><aside class="topic"><p class="topic-title">It supports</p><ul><li><p>A '
            'single Celery process can process millions of tasks a minute.</p></li></ul>'
            '</aside><h2>revoke</h2><dl class="field-list"><dt>Program</dt><dd><p><strong '
            'class="program">celery -A proj control revoke &lt;task_id&gt;</strong></p></dd>'
            '</dl><p>Revoking works by a broadcast message.</p></div></body></html>')
    text, _, sections, _, roles = read_html(html)
    assert text == ("Celery\n\nIt supports\n\nA single Celery process can process millions "
                    "of tasks a minute.\n\nrevoke\n\nProgram\n\ncelery -A proj control revoke "
                    "<task_id>\n\nRevoking works by a broadcast message."), text
    assert [s[2] for s in sections] == ["Celery", "Celery > revoke"]
    at = text.index("It supports")
    assert (at, at + len("It supports"), "heading") in roles  # a caption: no section


def test_control_characters_are_not_text() -> None:
    """crmsh's transcripts (Debian's ``crmsh-doc``) keep their terminal colours' ESC bytes
    inside ``<pre>``; no browser draws them."""
    from citewise.knowledge.loaders.html import extract_html

    html = ("<html><body><pre>\x1b[32mcrm(live)history# \x1b[0;10mtimeframe\x07</pre>"
            "<p>Tab\there.</p></body></html>")
    text, _, _, _ = extract_html(html)
    assert "\x1b" not in text and "\x07" not in text
    assert "[32mcrm(live)history# [0;10mtimeframe" in text
    assert "Tab here." in text


def test_a_docbook_articles_title_is_above_its_sections_and_heads_no_chunk() -> None:
    """The shape of FreedomBox's manual pages (DocBook XSL, Debian's ``freedombox-doc-en``):
    the article's title and its first section are both ``<h2 class="title">``; beside
    each other, the title was a section, and a chunk, of one word."""
    from citewise.knowledge.ingest.chunking import chunk_text
    from citewise.knowledge.loaders.html import read_html

    html = ('<section class="article" id="id1"><div class="titlepage"><div><div>'
            '<h2 class="title">Backups</h2></div></div><hr/></div>'
            '<section class="section" id="id2"><div class="titlepage"><div><div>'
            '<h2 class="title" style="clear: both">Backups</h2></div></div></div>'
            "<p>FreedomBox can back up and restore most apps.</p>"
            '<section class="section" id="id3"><div class="titlepage"><div><div>'
            '<h3 class="title">Notes</h3></div></div></div><p>Syncthing data is not '
            "included.</p></section></section></section>")
    text, _, sections, _, roles = read_html(html)
    assert [path for _, _, path in sections] == ["Backups", "Backups > Backups",
                                                 "Backups > Backups > Notes"]
    chunks = chunk_text("d", text, size=100, overlap=0, sections=sections, roles=roles)
    assert chunks[0].text == "Backups\n\nFreedomBox can back up and restore most apps."


def test_a_blogs_article_title_is_not_a_docbook_title() -> None:
    from citewise.knowledge.loaders.html import read_html

    blog = ('<html><body><h1>Blog</h1><div class="article"><section><h2 class="title">Post A'
            "</h2><p>Text.</p></section></div></body></html>")
    assert [path for _, _, path in read_html(blog)[2]][-1] == "Blog > Post A"
    escaped = read_html("<html><body><pre>&#27;[32mok&#x1B;[0m&#9;tab</pre></body></html>")[0]
    assert escaped == "[32mok[0m\ttab"
