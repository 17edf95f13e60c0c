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
