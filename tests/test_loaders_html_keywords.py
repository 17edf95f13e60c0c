"""A manual's keyword entries written as bold lines are sections, and what a page hides
inside a ``<pre>`` is not text.

HAProxy's manual (haproxy-dconv HTML, Debian's ``haproxy-doc``) writes each of its 1,300
keywords as ``<div class="keyword"><b>hard-stop-after</b> <span>&lt;time&gt;</span></div>``
over a ``<pre>`` of its description, and every link to a keyword found in several sections
carries a Bootstrap drop-down menu of them, hidden by the stylesheet. Read as they were,
the entries were one section per chapter (chunks straddled two entries and a quote was
labelled "4.2 Alphabetically sorted keywords reference") and the menus were glued into
sentences: "… used with "ca-fileThis keyword is available in sections :Bind options…"
(new-user review, 2026-12-03). The fixture is modelled on that page."""

from __future__ import annotations

from pathlib import Path

from tests._sections import section_at

from citewise.knowledge.loaders.base import LoadedDocument
from citewise.knowledge.loaders.html import HtmlLoader

_MENU = ('<span class="dropdown"><a class="dropdown-toggle" data-toggle="dropdown" href="#">'
         'ca-file<span class="caret"></span></a><ul class="dropdown-menu"><li '
         'class="dropdown-header">This keyword is available in sections :</li><li><a '
         'href="#ca-file%20%28Bind%20options%29">Bind options</a></li><li><a href="#x">'
         'Server and default-server options</a></li></ul></span>')

_PAGE = f"""<!DOCTYPE html><html><head><title>HAProxy Configuration Manual</title></head>
<body><div class="container-fluid"><div id="page-wrapper"><div class="row">
<h2 id="chapter-3.1">3.1. Process management and security</h2>
<div class="keyword"><b><a class="anchor" name="ca-base"></a><a href="#3.1-ca-base">ca-base</a>
</b> <span style="color: #080">&lt;dir&gt;</span></div><pre class="text">Assigns a default
directory to fetch SSL CA certificates and CRLs from when a relative path is used with
&quot;{_MENU}&quot; or &quot;crl-file&quot; directives.
</pre>
<div class="keyword"><b><a class="anchor" name="hard-stop-after"></a><a
href="#3.1-hard-stop-after">hard-stop-after</a></b> <span style="color: #080">&lt;time&gt;
</span></div><pre class="text">Defines the maximum time allowed to perform a clean
soft-stop.
</pre>
<div class="keyword"><b><a class="anchor" name="nbthread"></a><a href="#3.1-nbthread">nbthread</a>
</b></div><pre class="text">This setting is only available when support for threads was
built in.
</pre>
<pre class="prettyprint"><code>global
    nbthread 4
</code></pre>
<p><b>Warning</b> the next two settings are experimental and may change.</p>
<p>Nothing else.</p>
<div class="table"><p class="title"><strong>Table 3.1. Limits</strong></p>
<table><tr><td>maxconn</td><td>2000</td></tr></table></div>
<p>After the table.</p>
</div></div></div></body></html>"""


def load(tmp_path: Path) -> tuple[str, list[tuple[int, int, str]]]:
    doc = load_doc(tmp_path)
    return doc.text, [(a, b, str(t)) for a, b, t in doc.sections]


def load_doc(tmp_path: Path) -> LoadedDocument:
    page = tmp_path / "configuration.html"
    page.write_text(_PAGE, encoding="utf-8")
    return HtmlLoader().load(page, page.read_bytes())


def test_a_keyword_line_over_its_description_is_a_section(tmp_path: Path) -> None:
    text, sections = load(tmp_path)
    names = [t for _, _, t in sections]
    assert names[:4] == [
        "3.1. Process management and security",
        "3.1. Process management and security > ca-base <dir>",
        "3.1. Process management and security > hard-stop-after <time>",
        "3.1. Process management and security > nbthread",
    ]
    entry = next((a, b) for a, b, t in sections if t.endswith("hard-stop-after <time>"))
    # The entry's section holds its description and nothing of the next entry.
    assert text[entry[0]:entry[1]].strip() == (
        "hard-stop-after <time>\n\nDefines the maximum time allowed to perform a clean\n"
        "soft-stop.")
    # A bold word opening a sentence is prose; a table's caption is no section (the text
    # after the table is not the table's).
    assert not any("Warning" in t or "Table 3.1" in t for t in names), names
    after = text.index("After the table.")
    assert next(t for a, b, t in sections if a <= after < b).endswith("nbthread")


def test_a_menu_hidden_in_a_pre_is_not_text(tmp_path: Path) -> None:
    text, _ = load(tmp_path)
    assert "This keyword is available" not in text and "Bind options" not in text
    assert 'relative path is used with\n"ca-file" or "crl-file" directives.' in text


def test_a_pre_of_class_text_is_prose_and_an_example_is_code(tmp_path: Path) -> None:
    """Every description in HAProxy's manual is a ``<pre class="text">``, its examples
    ``<pre class="prettyprint">``: all of it was code, so a configuration example ranked
    with the prose ("What is the default admin password for the stats page?" quoted
    "backend stats_auth stats enable acl AUTH …")."""
    doc = load_doc(tmp_path)
    code = [doc.text[a:b] for a, b, role in doc.roles if role == "code"]
    assert code == ["global\n    nbthread 4"], code
    prose = doc.text.index("Defines the maximum time allowed")
    assert not any(a <= prose < b for a, b, role in doc.roles if role == "code")


# The shapes of HAProxy 2.6's entries its review found filed under the wrong keyword
# (2026-12-05): a synopsis of more than twelve words, one ending in "...", three keywords
# over one description, and the keyword matrix whose cells are only an image.
_ENTRIES = """<!DOCTYPE html><html><head><title>HAProxy Configuration Manual</title></head>
<body><div class="container-fluid">
<h2 id="chapter-4.2">4.2. Alphabetically sorted keywords reference</h2>
<div class="keyword"><b><a class="anchor" name="acl"></a><a href="#4.2-acl">acl</a></b>
<span style="color: #080">&lt;aclname&gt;</span> <span>&lt;criterion&gt;</span>
<span>[flags]</span> <span>[operator]</span> <span>&lt;value&gt;</span> ...</div>
<pre class="text">Declare or complete an access list.
</pre>
<div class="keyword"><b><a class="anchor" name="stick-table type"></a><a
href="#4.2-stick-table%20type">stick-table type</a></b> <span style="color: #800">{ip |
integer | string <span>[len <span>&lt;length&gt;</span>]</span> | binary}</span> size
<span>&lt;size&gt;</span> <span>[expire <span>&lt;expire&gt;</span>]</span>
<span>[nopurge]</span> <span>[peers <span>&lt;peersect&gt;</span>]</span></div>
<pre class="text">Configure the stickiness table for the current section.
</pre>
<div class="keyword"><b><a class="anchor" name="inter"></a><a href="#5.2-inter">inter</a></b>
<span style="color: #080">&lt;delay&gt;</span></div><div class="keyword"><b><a
class="anchor" name="fastinter"></a><a href="#5.2-fastinter">fastinter</a></b>
<span>&lt;delay&gt;</span></div><div class="keyword"><b><a class="anchor"
name="downinter"></a><a href="#5.2-downinter">downinter</a></b> <span>&lt;delay&gt;</span>
</div><pre class="text">The "inter" parameter sets the interval between two consecutive
health checks to &lt;delay&gt; milliseconds.
</pre>
<pre class="prettyprint arguments"> roundrobin  Each server is used in turns, according to their weights.
             It is limited by design to 4095 active servers per backend.
</pre>
<table class="table"><thead><tr><th>keyword</th><th>defaults</th><th>frontend</th></tr>
</thead><tr><td>backlog</td><td class="pagination-centered"><img src="css/check.png"
alt="X" title="yes" /></td><td class="pagination-centered"> </td></tr>
<tr><td>bind</td><td>no<br /><img src="css/cross.png" alt="no" /></td><td>yes<br
/><img src="css/check.png" alt="yes" /></td></tr></table>
</div></body></html>"""


def _entries(tmp_path: Path) -> LoadedDocument:
    page = tmp_path / "configuration.html"
    page.write_text(_ENTRIES, encoding="utf-8")
    return HtmlLoader().load(page, page.read_bytes())


def test_every_keyword_entry_is_its_own_section_and_stacked_ones_are_one(
        tmp_path: Path) -> None:
    doc = _entries(tmp_path)

    def entry(words: str) -> str:
        at = doc.text.index(words)
        return next(str(t) for a, b, t in doc.sections if a <= at < b).split(" > ")[-1]

    assert entry("Declare or complete") == (
        "acl <aclname> <criterion> [flags] [operator] <value> ...")
    assert entry("Configure the stickiness table").startswith("stick-table type {ip |")
    assert entry("sets the interval between") == (
        "inter <delay>, fastinter <delay>, downinter <delay>")
    # Links go to the entry, not to the chapter: haproxy-dconv names its anchors.
    assert doc.text[doc.metadata["anchors"]["inter"]:].startswith("inter <delay>")


def test_a_cell_that_is_only_an_image_reads_as_its_alt_text(tmp_path: Path) -> None:
    text = _entries(tmp_path).text
    assert "backlog | X |" in text
    assert "bind | no | yes" in text  # a cell with text keeps its text alone


def test_an_icon_in_a_cell_is_not_text() -> None:
    """DocBook sets each admonition's icon in a cell beside its title (``<img
    alt="[Tip]">`` | Tip): a picture's name is no mark, and "[Tip] | Tip" moved the
    Debian Reference's answers."""
    from citewise.knowledge.loaders.html import extract_html

    text, _, _, _ = extract_html(
        '<html><body><div class="tip"><table><tr><td><img alt="[Tip]" src="tip.png"/></td>'
        '<th>Tip</th></tr><tr><td colspan="2"><p>Use "--verbose" to find it.</p></td></tr>'
        '</table></div><table><tr><td><img alt="Opus" src="logo.png"/></td><td>1.3.1</td>'
        '</tr></table></body></html>')
    assert "[Tip]" not in text and "Opus" not in text, text


def test_a_keywords_arguments_are_prose(tmp_path: Path) -> None:
    """haproxy-dconv sets a keyword's arguments, each described in sentences, in a ``<pre
    class="prettyprint arguments">``: read as code, "It is limited by design to 4095 active
    servers per backend." ranked below every prose sentence (review, 2026-12-05)."""
    doc = _entries(tmp_path)
    at = doc.text.index("It is limited by design")
    assert not any(a <= at < b for a, b, role in doc.roles if role == "code")


def test_bold_lines_in_a_row_are_one_section_only_for_keywords() -> None:
    """Two bold lines of a glossary with nothing between are two sections, the first
    empty; only keyword blocks stack (a review of the change, 2026-12-05)."""
    from citewise.knowledge.loaders.html import extract_html

    text, _, sections, _ = extract_html(
        "<html><body><h2>Glossary</h2><p><b>Alpha</b></p><p><b>Beta</b></p>"
        "<p>Beta means two.</p><table><tr><td id='c2'><span id='inner2'></span></td>"
        "<td>after</td></tr></table></body></html>")
    at = text.index("Beta means")
    assert next(t for a, b, t in sections if a <= at < b) == "Glossary > Beta"
    _, _, _, meta = extract_html("<html><body><p>x</p><table><tr><td><a name='row1'></a>"
                                 "</td><td>after</td></tr></table></body></html>")
    assert "row1" in meta["anchors"]  # an empty cell's anchor points at what follows


def test_a_parameters_name_and_type_over_its_dash_is_no_heading() -> None:
    """Sphinx's parameter lists (Jinja's API, new-user review 2026-12-05): a parameter with a
    subscripted type, "<strong>newline_sequence</strong> (<em>te.Literal</em><em>[</em>…)
    – ", read as a keyword's synopsis and headed a section of its own (five in Jinja's
    API). Its dash says its description follows; a keyword's synopsis has none."""
    from citewise.knowledge.loaders.html import extract_html

    item = ("<li><p><strong>newline_sequence</strong> (<em>te.Literal</em><em>[</em><em>'\\n'"
            "</em><em>, </em><em>'\\r\\n'</em><em>]</em>) – </p><p>The sequence that starts "
            "a newline.</p></li>")
    html = (f"<html><body><h1>API</h1><p>Parameters:</p><ul>{item}</ul>"
            "<p>After the list.</p></body></html>")
    text, _, sections, _ = extract_html(html)
    assert [s[2] for s in sections] == ["API"]
    assert "newline_sequence (te.Literal" in text
    keyword = ('<html><body><h1>API</h1><div class="para"><p><b>timeout</b> <span>'
               "[&lt;seconds&gt;]</span></p></div><p>Sets it.</p></body></html>")
    assert [s[2] for s in extract_html(keyword)[2]] == ["API", "API > timeout [<seconds>]"]


_EXIM = """<html><body><div class="chapter"><h2>Chapter 30 - The smtp transport</h2>
<div class="section"><h3>4. Private options for smtp</h3>
<p>The private options of the smtp transport are as follows.</p>
<table><tr><td><span class="docbook_option">max_rcpt</span></td><td>Use: <span>smtp</span>
</td><td>Type: <span>integer</span></td><td>Default: <span>100</span></td></tr></table>
<p>This option limits the number of RCPT commands that are sent in a single SMTP message
transaction.</p>
<table><tr><td><span class="docbook_option">port</span></td><td>Use: <span>smtp</span></td>
<td>Type: <span>string</span></td><td>Default: <span>see below</span></td></tr></table>
<p>This option specifies the TCP/IP port on the server to which Exim connects.</p>
<table><tr><td>red</td><td>green</td><td>blue</td></tr></table>
<table><tr><td>Author</td><td>Version: 1.2</td><td>Date: 2020</td></tr></table>
</div><div class="section"><h3>5. How the limits for the number of hosts to try are used</h3>
<p>There are two options that are concerned with the number of hosts.</p></div></div>
</body></html>"""


def test_an_entrys_header_row_heads_its_section(tmp_path: Path) -> None:
    """Exim's specification (xfpt's HTML, new-user review 2026-12-05): each option is a
    table of one row — its name, where it is used, its type and default — over its
    description. The 437 options of nine chapters sat in four sections, a chunk ran over
    three of them and no quote said which option it was about. The row is still text (its
    default answers questions); a table of one row that is no name and fields is no entry."""
    page = tmp_path / "ch-the_smtp_transport.html"
    page.write_text(_EXIM, encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())

    def section_of(words: str) -> str:
        at = doc.text.index(words)
        return next(str(t) for a, b, t in doc.sections if a <= at < b)

    smtp = "Chapter 30 - The smtp transport > 4. Private options for smtp"
    assert section_of("The private options") == smtp
    assert section_of("max_rcpt | Use: smtp | Type: integer | Default: 100") == \
        f"{smtp} > max_rcpt"
    assert section_of("This option limits the number of RCPT") == f"{smtp} > max_rcpt"
    assert section_of("This option specifies the TCP/IP port") == f"{smtp} > port"
    assert section_of("red | green | blue") == f"{smtp} > port"
    assert section_of("Author | Version: 1.2") == f"{smtp} > port"  # fields of no option
    assert section_of("There are two options") == (
        "Chapter 30 - The smtp transport > 5. How the limits for the number of hosts to try "
        "are used")
    assert all(doc.text[a] not in " \n" for a, _, _ in doc.sections)


def test_a_directives_syntax_table_heads_its_own_section() -> None:
    # nginx's reference (new-user review, 2026-12-05): each directive is an anchor and a
    # "Syntax: / Default: / Context:" table, no heading; the core module's ~90 directives
    # were one section, "Directives".
    from citewise.knowledge.loaders.html import read_html

    def directive(name: str, default: str, text: str) -> str:
        return (f'<a name="{name}"></a><div class="directive"><table cellspacing="0"><tr>'
                f"<th>Syntax:</th><td><code><strong>{name}</strong> <code><i>timeout</i>"
                f"</code>;</code><br></td></tr><tr><th>Default:</th><td><pre>{name} {default};"
                f"</pre></td></tr><tr><th>Context:</th><td><code>http</code>, <code>server"
                f"</code></td></tr></table></div><p>{text}</p>")

    page = ("<html><body><h1>Module ngx_http_core_module</h1><h4>Directives</h4>"
            + directive("keepalive_timeout", "75s", "The first parameter sets a timeout.")
            + directive("send_timeout", "60s", "Sets a timeout for transmitting a response.")
            + "</body></html>")
    text, _, sections, _, _ = read_html(page)


    top = "Module ngx_http_core_module > Directives"
    assert section_at(text, sections, "The first parameter sets") == f"{top} > keepalive_timeout"
    assert section_at(text, sections, "keepalive_timeout 75s;") == f"{top} > keepalive_timeout"
    assert section_at(text, sections, "transmitting a response") == f"{top} > send_timeout"
    # Apache's directive table, under its own heading, opens with "Description:": no entry.
    apache = ("<html><body><h2>AllowOverride Directive</h2><table class='directive'><tr><th>"
              "Description:</th><td>Types of directives</td></tr><tr><th>Syntax:</th><td>"
              "AllowOverride All</td></tr><tr><th>Default:</th><td>AllowOverride None</td>"
              "</tr></table><p>When the server finds an .htaccess file.</p></body></html>")
    text, _, sections, _, _ = read_html(apache)
    assert {p for _, _, p in sections} == {"AllowOverride Directive"}


def test_a_parameters_dash_runs_on_into_its_description() -> None:
    """SQLAlchemy's parameters (sphinx-paramlinks nests a ``<p>`` in a ``<p>``, so the
    parser closes the name's paragraph at the dash) and MkDocs' "config (MkDocsConfig) –":
    the name was a sentence of its own and the description was quoted without it
    (new-user review, 2026-12-05). The dash's line break is a space's: one sentence, every
    offset where it was; a dash in code stays."""
    from citewise.knowledge.loaders.html import extract_html

    html = ('<html><body><h2>API</h2><ul><li><p><strong>pre_ping</strong><a class="paramlink '
            'headerlink" href="#p">¶</a> – <p>if True, the pool will emit a ping.</p></p></li>'
            '<li><p><strong>pool_size=5</strong> – the number of connections.</p></li></ul>'
            "<pre>echo –\n\ndone</pre></body></html>")
    text, _, _, _ = extract_html(html)
    assert text == ("API\n\npre_ping – \nif True, the pool will emit a ping.\n\npool_size=5 – "
                    "the number of connections.\n\necho –\n\ndone")


def test_a_dash_runs_on_only_inside_one_block() -> None:
    """A review of the change (2026-12-05): a table's last cell "–", a heading ending in a
    dash and a list's last item ran on into the paragraph after them."""
    from citewise.knowledge.loaders.html import extract_html

    for html in ("<table><tr><td>foo</td><td>–</td></tr></table><p>The next paragraph.</p>",
                 "<h2>Part one —</h2><p>the beginning of it.</p>",
                 "<ul><li>alpha</li><li>beta –</li></ul><p>the paragraph.</p>"):
        text = extract_html(f"<html><body>{html}</body></html>")[0]
        assert "\n\n" in text and " \n" not in text, text


def test_a_bold_word_that_is_a_whole_list_item_is_an_item_not_a_heading() -> None:
    """Sphinx's theming page (sphinx-doc, new-user review 2026-12-06): the scrolls theme's
    colour options are ``<li><p><strong>headerbordercolor</strong></p></li>``, each read as a
    bold heading: five sections of one word each, after "The following color options are
    available:". A list item is its list's, as a definition's whole description is."""
    from citewise.knowledge.loaders.html import extract_html

    text, _, sections, _ = extract_html(
        "<html><body><h1>Builtin themes</h1><p>The following color options are available:</p>"
        '<ul class="simple"><li><p><strong>headerbordercolor</strong></p></li>'
        "<li><p><strong>linkcolor</strong></p></li></ul><p>Another theme.</p></body></html>")
    assert [s[2] for s in sections] == ["Builtin themes"]
    assert "available:\n\n" in text and "headerbordercolor" in text


def test_a_synopsis_under_its_heading_is_its_text_not_a_heading() -> None:
    """sphinx-build's manual page (sphinx-doc, new-user review 2026-12-06): "<p><strong>
    sphinx-build</strong> [<em>options</em>] &lt;<em>sourcedir</em>&gt; …</p>" right under
    "Synopsis" was read as a keyword's bold heading: the section "Synopsis > sphinx-build
    [options] …" with nothing in it, and the synopsis was never quoted."""
    from citewise.knowledge.loaders.html import extract_html

    text, _, sections, _ = extract_html(
        "<html><body><h1>sphinx-build</h1><h2>Synopsis</h2><p><strong>sphinx-build</strong> "
        "[<em>options</em>] &lt;<em>sourcedir</em>&gt; &lt;<em>outputdir</em>&gt;</p>"
        "<h2>Description</h2><p>It builds.</p></body></html>")
    assert [s[2] for s in sections] == [
        "sphinx-build", "sphinx-build > Synopsis", "sphinx-build > Description"]
    assert section_at(text, sections, "sphinx-build [options] <sourcedir>") == (
        "sphinx-build > Synopsis")
    # A bold subheading under "Usage" is still one (a review of the change).
    _, _, sections, _ = extract_html(
        "<html><body><h1>Tool</h1><h2>Usage</h2><p><strong>Configuration</strong></p>"
        "<p>Set X.</p><p><strong>Running</strong></p><p>Run it.</p></body></html>")
    assert [s[2] for s in sections] == [
        "Tool", "Tool > Usage", "Tool > Usage > Configuration", "Tool > Usage > Running"]
