"""Navigation bars of generated manuals (DocBook's ``navheader``/``navfooter``, Texinfo's
``Next: … Previous: … Up:`` header, a bare table of Prev/Up/Home/Next links) are page
chrome: they must not be indexed as text, while the content around them is kept whole.

The fixtures are modelled on real pages (PostgreSQL 15's DocBook HTML manual, the Debian
Reference, the Bash Texinfo manual) and built here, so nothing needs to be installed."""

from __future__ import annotations

import re
from pathlib import Path

from citewise.knowledge.loaders.html import HtmlLoader, extract_html

_NAV_WORDS = re.compile(r"\b(?:Prev|Previous|Next|Up|Home)\b")

# The shape of /usr/share/doc/postgresql-doc-15/html/auth-pg-hba-conf.html (DocBook XSL).
_DOCBOOK = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
 "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<title>21.1. The pg_hba.conf File</title>
<link rel="prev" href="client-authentication.html" title="Chapter 21. Client Authentication" /></head>
<body id="docContent" class="container-fluid col-10"><div class="navheader"><table width="100%"
 summary="Navigation header"><tr><th colspan="5" align="center">21.1. The
 <code class="filename">pg_hba.conf</code> File</th></tr><tr><td width="10%" align="left">
<a accesskey="p" href="client-authentication.html"
 title="Chapter 21. Client Authentication">Prev</a> </td><td width="10%" align="left"><a accesskey="u"
 href="client-authentication.html" title="Chapter 21. Client Authentication">Up</a></td><th width="60%"
 align="center">Chapter 21. Client Authentication</th><td width="10%" align="right"><a accesskey="h"
 href="index.html" title="PostgreSQL 15.20 Documentation">Home</a></td><td width="10%" align="right">
 <a accesskey="n" href="auth-username-maps.html" title="21.2. User Name Maps">Next</a></td></tr>
</table><hr />
</div><div class="sect1" id="AUTH-PG-HBA-CONF"><div class="titlepage"><div><div><h2 class="title"
 style="clear: both">21.1. The <code class="filename">pg_hba.conf</code> File</h2></div></div></div>
<a id="id-1.6.8.8.2" class="indexterm"></a><p>
   Client authentication is controlled by a configuration file,
   which traditionally is named
   <code class="filename">pg_hba.conf</code> and is stored in the database
   cluster's data directory.</p>
<div class="table" id="AUTH-TABLE"><p class="title"><strong>Table 21.1. Methods</strong></p><table
 class="table" summary="Methods" border="1"><tr><th>Method</th><th>Meaning</th></tr>
<tr><td><code>trust</code></td><td>Allow the connection unconditionally.</td></tr>
<tr><td><code>reject</code></td><td>Reject the connection. See
 <a href="auth-trust.html">Next steps</a>.</td></tr>
</table></div>
</div><div class="navfooter"><hr /><table width="100%" summary="Navigation footer"><tr><td width="40%"
 align="left"><a accesskey="p" href="client-authentication.html" title="Chapter 21.
 Client Authentication">Prev</a></td><td width="20%" align="center">
<a accesskey="u" href="client-authentication.html"
 title="Chapter 21. Client Authentication">Up</a></td><td width="40%" align="right"> <a accesskey="n"
 href="auth-username-maps.html" title="21.2. User Name Maps">Next</a></td></tr><tr><td width="40%"
 align="left" valign="top">Chapter 21. Client Authentication </td><td width="20%" align="center"><a
 accesskey="h" href="index.html" title="PostgreSQL 15.20 Documentation">Home</a></td><td width="40%"
 align="right" valign="top"> 21.2. User Name Maps</td></tr></table></div></body></html>"""


def test_docbook_navheader_and_navfooter_are_not_text(tmp_path: Path) -> None:
    page = tmp_path / "auth-pg-hba-conf.html"
    page.write_text(_DOCBOOK, encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())
    assert not _NAV_WORDS.search(doc.text.replace("See Next steps.", "")), doc.text
    assert "Chapter 21. Client Authentication" not in doc.text
    assert "User Name Maps" not in doc.text
    # The content is whole: the heading, the prose, the content table with its own link.
    assert doc.text.startswith("21.1. The pg_hba.conf File\n\n")
    assert "Client authentication is controlled by a configuration file" in doc.text
    assert "reject | Reject the connection. See Next steps." in doc.text
    assert [s[2] for s in doc.sections] == ["21.1. The pg_hba.conf File"]
    for start, end, title in doc.sections:
        assert doc.text[start:end].startswith(title)


def test_docbook_navigation_inside_main_content_is_still_chrome() -> None:
    # The PostgreSQL web site wraps the same DocBook output in a <main>/<div id=docContent>.
    body = _DOCBOOK.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
    text, _, _, _ = extract_html(f"<html><body><main>{body}</main></body></html>")
    assert not _NAV_WORDS.search(text.replace("See Next steps.", "")), text
    assert "Allow the connection unconditionally." in text


def test_image_only_navigation_of_the_debian_reference_is_dropped() -> None:
    html = """<html><body><div class="navheader"><table summary="Navigation header"><tr>
      <th colspan="3" align="center">Chapter 1. GNU/Linux tutorials</th></tr><tr>
      <td align="left"><a accesskey="p" href="pr01.en.html"><img src="images/prev.png" alt="Prev"/></a></td>
      <th width="60%" align="center"> </th><td align="right"><a accesskey="n" href="ch02.en.html">
      <img src="images/next.png" alt="Next"/></a></td></tr></table><hr/></div>
      <div class="chapter"><h1 class="title">Chapter 1. GNU/Linux tutorials</h1>
      <p>The shell prompt ends with a dollar sign.</p></div>
      <div class="navfooter"><hr/><table summary="Navigation footer"><tr>
      <td align="left" valign="top">Preface </td><td align="center"><a accesskey="h"
      href="index.en.html"><img src="images/home.png" alt="Home"/></a></td>
      <td align="right" valign="top"> Chapter 2. Debian package management</td></tr></table></div>
      </body></html>"""
    text, _, _, _ = extract_html(html)
    assert text == "Chapter 1. GNU/Linux tutorials\n\nThe shell prompt ends with a dollar sign."


def test_texinfo_header_of_next_previous_up_links_is_dropped() -> None:
    # The shape of /usr/share/doc/bash-doc/bashref.html (Texinfo 6).
    html = """<html><body><div class="header"><p>
      Next: <a href="#Introduction" accesskey="n" rel="next">Introduction</a>, Previous:
      <a href="dir.html#Top" accesskey="p" rel="prev">(dir)</a>, Up: <a href="dir.html#Top"
      accesskey="u" rel="up">(dir)</a> &nbsp; [<a href="#SEC_Contents" title="Table of contents"
      rel="contents">Contents</a>][<a href="#Indexes" title="Index" rel="index">Index</a>]</p></div>
      <span id="Bash-Features-1"></span><h1 class="top">Bash Features</h1>
      <p>This text is a brief description of the features that are present in the Bash shell.
      Next: the <a href="#Introduction">Introduction</a> describes what a shell is.</p>
      <div class="nav-panel"><p>Next: <a href="#Shell-Syntax" accesskey="n" rel="next">Shell Syntax</a>,
      Up: <a href="#Basic-Shell-Features" accesskey="u" rel="up">Basic Shell Features</a></p></div>
      </body></html>"""
    text, _, _, _ = extract_html(html)
    assert text == (
        "Bash Features\n\nThis text is a brief description of the features that are present in"
        " the Bash shell. Next: the Introduction describes what a shell is."
    )


# The shape of zsh-doc 5.9's Options.html (texi2any 6.8): a bar of "<<", "<", ">", ">>",
# "?" links over and under every node, and the generator's signature with the manual's
# small print at the bottom of the page (new-user review, 2026-12-04: 119 of 901 chunks
# held the bar, and "Zsh version 5.9, released on May 14, 2022." answered two questions
# the manual cannot answer).
_TEXI2ANY_BAR = """<table class="header" cellpadding="1" cellspacing="1" border="0">
<tr><td valign="middle" align="left">[<a href="#Options" title="Beginning of this chapter or
previous chapter"> &lt;&lt; </a>]</td>
<td valign="middle" align="left">[<a href="#Options" title="Previous section in reading order">
 &lt; </a>]</td>
<td valign="middle" align="left">[<a href="#Options" title="Up section"> Up </a>]</td>
<td valign="middle" align="left">[<a href="#Description-of-Options" title="Next section in
reading order"> &gt; </a>]</td>
<td valign="middle" align="left">[<a href="Shell-Builtin-Commands.html" title="Next chapter">
 &gt;&gt; </a>]</td>
<td valign="middle" align="left"> &nbsp; </td>
<td valign="middle" align="left">[<a href="index.html" title="Cover (top) of document">Top</a>]</td>
<td valign="middle" align="left">[<a href="zsh_toc.html#SEC_Contents" title="Table of
contents">Contents</a>]</td>
<td valign="middle" align="left">[<a href="Concept-Index.html" title="Index">Index</a>]</td>
<td valign="middle" align="left">[<a href="zsh_abt.html#SEC_About" title="About (help)"> ? </a>]</td>
</tr></table>"""


def test_texi2any_arrow_bars_and_the_generators_signature_are_dropped() -> None:
    html = f"""<html><body>{_TEXI2ANY_BAR}
      <span id="Specifying-Options"></span><h2 class="section">16.1 Specifying Options</h2>
      <p>Options are primarily referred to by name. These names are case insensitive and
      underscores are ignored.</p>
      <table><tr><td>&lt;</td><td>Less than, in a numeric comparison.</td></tr></table>
      <hr>{_TEXI2ANY_BAR}
      <p><font size="-1">
        This document was generated on <em>February 5, 2023</em> using
        <a href="https://www.gnu.org/software/texinfo/"><em>texi2any</em></a>.
      </font></p>

      <font size="-1">Zsh version 5.9, released on May 14, 2022.</font>
      </body></html>"""
    text, _, _, _ = extract_html(html)
    assert text == (
        "16.1 Specifying Options\n\nOptions are primarily referred to by name. These names are"
        " case insensitive and underscores are ignored.\n\n< | Less than, in a numeric"
        " comparison."
    )


def test_small_print_inside_the_content_is_kept() -> None:
    html = """<html><body><p>The limit is <small>(by default)</small> 64 jobs.</p>
      <font size="-1">Changed in release 5.9.</font><p>Jobs are numbered from one.</p>
      <p>Generated files are removed by make clean.</p></body></html>"""
    text, _, _, _ = extract_html(html)
    assert "(by default) 64 jobs" in text and "Changed in release 5.9." in text
    assert "Generated files are removed by make clean." in text


def test_a_classless_table_of_only_prev_up_home_next_links_is_dropped() -> None:
    html = """<html><body><table><tr><td><a href="a.html">&lt;&lt; Prev</a></td>
      <td><a href="index.html">Up</a></td><td><a href="/">Home</a></td>
      <td><a href="c.html">Next &gt;&gt;</a></td></tr></table>
      <p>Replication copies every change to the standby.</p>
      <table><tr><td>Next</td><td>The next value of the sequence.</td></tr>
      <tr><td><a href="up.html">Up</a></td><td>Moves the cursor up.</td></tr></table>
      </body></html>"""
    text, _, _, _ = extract_html(html)
    assert text == (
        "Replication copies every change to the standby.\n\n"
        "Next | The next value of the sequence.\nUp | Moves the cursor up."
    )


def test_real_postgresql_page_loses_its_navigation_only(tmp_path: Path) -> None:
    # Not a fixture of the test: it only guards the same property on the real page when it
    # happens to be installed, skipped otherwise.
    import pytest

    page = Path("/usr/share/doc/postgresql-doc-15/html/auth-pg-hba-conf.html")
    if not page.is_file():
        pytest.skip("postgresql-doc-15 is not installed")
    doc = HtmlLoader().load(page, page.read_bytes())
    assert "Prev | Up" not in doc.text and "| Home |" not in doc.text
    assert doc.text.startswith("21.1. The pg_hba.conf File\n\nClient authentication is controlled")


_CHAPTER = """<html><head><title>Chapter 20. Server Configuration</title></head><body>
<div class="chapter"><h2>Chapter 20. Server Configuration</h2>
<div class="toc"><p><b>Table of Contents</b></p><dl class="toc">
<dt><span class="sect1"><a href="a.html">20.1. Setting Parameters</a></span></dt>
<dt><span class="sect1"><a href="b.html">20.2. File Locations</a></span></dt></dl></div>
<p>There are many configuration parameters that affect the behavior of the system.</p>
<div class="list-of-tables"><p><b>List of Tables</b></p><dl><dt>20.1. Modes</dt></dl></div>
</div></body></html>"""


def test_a_docbook_table_of_contents_is_chrome_unless_it_is_the_whole_page() -> None:
    text, _, _, _ = extract_html(_CHAPTER)
    assert text == ("Chapter 20. Server Configuration\n\nThere are many configuration "
                    "parameters that affect the behavior of the system.")
    # A page that is nothing but its contents (a manual's index page) keeps them.
    only = _CHAPTER.replace('<h2>Chapter 20. Server Configuration</h2>', '').replace(
        "<p>There are many configuration parameters that affect the behavior of the "
        "system.</p>", "")
    kept, _, _, _ = extract_html(only)
    assert "20.1. Setting Parameters" in kept and "20.2. File Locations" in kept


_DIRECTIVE = """<html><body><div class="body" role="main"><section id="ctest-1"><h1>ctest(1)</h1>
{contents}
<section id="synopsis"><h2>Synopsis</h2><p>Runs the tests of a build tree.</p></section>
</section></div></body></html>"""
_ITEMS = ('<p class="topic-title">Contents</p><ul class="simple"><li><p><a class="reference'
          ' internal" href="#ctest-1">ctest(1)</a></p><ul><li><p><a class="reference internal"'
          ' href="#synopsis">Synopsis</a></p></li></ul></li></ul>')


def test_a_docutils_contents_directive_is_chrome_but_doxygens_contents_is_the_page() -> None:
    """docutils' ``.. contents::`` put every section title of CMake's pages first, as
    text (CMake review, 2026-12-04): nested, so no list of in-page links alone."""
    for block in (f'<div class="contents topic" id="contents">{_ITEMS}</div>',
                  f'<nav class="contents" id="contents" role="doc-toc">{_ITEMS}</nav>'):
        text, _, _, _ = extract_html(_DIRECTIVE.format(contents=block))
        assert text == "ctest(1)\n\nSynopsis\n\nRuns the tests of a build tree.", text
    doxygen = ('<html><body><div class="header"><div class="title">Encoder</div></div>'
               '<div class="contents"><p>Encodes a frame of audio.</p></div></body></html>')
    kept, _, _, _ = extract_html(doxygen)
    assert "Encodes a frame of audio." in kept


def test_texinfos_foot_bar_without_rel_or_accesskey_is_dropped() -> None:
    """GNU Octave's manual, a page a node (texi2any 7): the bar at a page's foot names
    where its links go by title alone, with no ``rel`` nor ``accesskey`` (new-user review,
    2026-12-05: all 11 pages read ended "Next: Catching Errors, Up: Handling Errors
    [Contents][Index]"). A sentence of the page that says "Next:" keeps its link."""
    bar = ('<div class="header"><p>Next: <a href="Catching-Errors.html">Catching Errors</a>, '
           'Up: <a href="Handling-Errors.html">Handling Errors</a> &nbsp; [<a href="index.html'
           '#SEC_Contents" title="Table of contents" rel="contents">Contents</a>][<a href="'
           'Concept-Index.html" title="Index" rel="index">Index</a>]</p></div>')
    head = bar.replace('Errors.html"', 'Errors.html" rel="next"')
    html = (f"<html><body>{head}"
            '<h4 class="subsection">12.1.1 Raising Errors</h4><p>The most common use of errors '
            'is for checking input arguments to functions.</p><p>Next: read <a href="C.html">'
            f"Catching Errors</a> to learn more.</p><hr>{bar}</body></html>")
    text, _, _, _ = extract_html(html)
    assert text == ("12.1.1 Raising Errors\n\nThe most common use of errors is for checking "
                    "input arguments to functions.\n\nNext: read Catching Errors to learn more.")


def test_a_site_banner_and_lone_page_turning_links_are_dropped() -> None:
    """Exim's specification (xfpt's HTML, new-user review 2026-12-05): the site's name as
    an ``<h1>`` over every chapter opened every section path ("Exim Internet Mailer >
    Chapter 17 …"), and "<-previous" / "next->" links outside any bar were text. A heading
    that is a link to another page of the site, in the text, stays."""
    back = '<a class="previous_page" href="a.html">&lt;-previous</a>'
    on = '<a class="next_page" href="b.html">next-&gt;</a>'
    contents = '<a class="toc_page" href="index.html">Table of Contents</a>'
    html = ('<html><body><h1 id="header"><a href="http://www.exim.org">Exim Internet Mailer'
            f'</a></h1><div id="outer"><div id="content">{back}{on}<div class="chapter"><h2>'
            'Chapter 32 - Retry configuration</h2><p>Some text here.</p><h3><a href="c.html">'
            f'See also</a></h3><p>More text.</p></div>{back}{contents}{on}</div></div>'
            '</body></html>')
    text, _, sections, _ = extract_html(html)
    assert text == "Chapter 32 - Retry configuration\n\nSome text here.\n\nSee also\n\nMore text."
    assert [s[2] for s in sections] == ["Chapter 32 - Retry configuration",
                                        "Chapter 32 - Retry configuration > See also"]
    # Not a section's heading named "…-header", a heading that links to itself, a heading
    # in the main content, nor a link in a sentence whose class says "next page".
    kept = {'<h2 class="section-header"><a href="#install">Installing</a></h2>': "Installing",
            '<div class="card-header"><a href="#c1">How do I reset it?</a></div>':
                "How do I reset it?",
            '<h2 id="header"><a href="#header">Header</a></h2>': "Header",
            '<main><h1 id="header"><a href="https://example.org">Example</a></h1></main>':
                "Example",
            '<p>See the <a class="next-page" href="x.html">next chapter</a>.</p>':
                "See the next chapter.",
            # An operator named in code (RDoc's Array page, Ruby's review 2026-12-05): the
            # "<<" of "push or <<" is no arrow to another page.
            '<p>Add items by using either <a href="Array.html#method-i-push"><code>push</code>'
            '</a> or <a href="Array.html#method-i-3C-3C"><code>&lt;&lt;</code></a>.</p>':
                "Add items by using either push or <<.",
            # A label's value (Asciidoctor's RDoc page, review 2026-12-05): no page turn.
            '<div class="aliases">Alias for: <a href="AbstractBlock.html#method-i-3C-3C">'
            '&lt;&lt;</a></div>': "Alias for: <<"}
    for block, first in kept.items():
        text, _, _, _ = extract_html(f"<html><body>{block}<p>Some text.</p></body></html>")
        assert text.split("\n\n")[0] == first, (block, text)


def test_a_heading_that_links_to_the_sites_front_page_is_its_banner() -> None:
    # Django's manual (new-user review, 2026-12-05): every page began with the section
    # "Django 3.2.25 documentation", its site's name linking to its front page.
    from citewise.knowledge.loaders.html import read_html

    page = ('<html><body><div id="hd"><h1><a href="../../index.html">Django 3.2.25 '
            'documentation</a></h1></div><div id="bd"><h1>How to use sessions</h1>'
            "<p>Django provides full support for anonymous sessions.</p></div></body></html>")
    text, _, sections, _, _ = read_html(page)
    assert text.startswith("How to use sessions"), text
    assert sections[0][2] == "How to use sessions"
    # A heading that links to a page of the site, or to another site, is no banner.
    for href in ("intro.html", "https://getbootstrap.com/", "#top"):
        other = page.replace("../../index.html", href)
        assert read_html(other)[0].startswith("Django 3.2.25 documentation"), href


def test_a_name_in_code_that_reads_like_a_page_turn_is_kept() -> None:
    """Jinja's table of filters (new-user review, 2026-12-05): ``first()`` and ``last()``
    link to their entries in code, and were dropped as "First" and "Last" buttons, which
    shifted the table's rows. A "Last" link in words is still a page turn."""
    cell = ('<td><p><a class="reference internal" href="#jinja-filters.{0}"><code class="xref '
            'py py-func docutils literal notranslate"><span class="pre">{0}()</span></code>'
            '</a></p></td>')
    rows = [["escape", "last", "replace"], ["first", "list", "round"]]
    rows += [[f"f{i}{j}" for j in range(3)] for i in range(6)]  # the table has 54
    html = ("<html><body><h1>Filters</h1><table>"
            + "".join("<tr>" + "".join(cell.format(n) for n in row) + "</tr>" for row in rows)
            + "</table><p>End.</p></body></html>")
    text, _, _, _ = extract_html(html)
    assert "escape() | last() | replace()" in text and "first() | list() | round()" in text
    bar = ('<html><body><div><a href="a.html">First</a> | <a href="z.html">Last</a></div>'
           "<h1>Filters</h1><p>End.</p></body></html>")
    assert "Last" not in extract_html(bar)[0]


def test_a_themes_note_on_the_release_documented_is_dropped() -> None:
    """The shape of Celery 5.2's Sphinx pages (python-celery-doc): the theme's "deck" above
    every page says which release is documented and links elsewhere; a sentence of the text
    that names a version is kept."""
    html = """<html><body><div class="body" role="main">
      <div class="deck"><p>
        This document describes the current stable version of Celery (5.2).
        For development docs,
        <a href="http://docs.celeryproject.org/en/master/faq.html">go here</a>.
      </p></div>
      <h1>Frequently Asked Questions</h1>
      <p>This document describes the current stable version of the wire protocol, which
      is version 2.</p>
      <p>Celery requires Python 3.7 or newer.</p></div></body></html>"""
    text, _, _, _ = extract_html(html)
    assert "go here" not in text and "Celery (5.2)" not in text
    assert text.startswith("Frequently Asked Questions\n\n")
    assert "the wire protocol, which is version 2." in text
    assert text.endswith("Celery requires Python 3.7 or newer.")


def test_release_notes_and_signatures_are_told_from_the_text_about_them() -> None:
    """A review of the change (2026-12-05): Read the Docs' note in its warning box left
    "Warning" on the next heading; sentences naming a version by number went; and an
    "About this document" page kept texi2any's signature once the text went on after it."""
    rtd = ('<html><body><div class="admonition warning"><p class="admonition-title">Warning'
           "</p><p>You are not reading the most recent version of this documentation. "
           '<a href="/en/latest/">3.2</a> is the latest version available.</p></div>'
           "<h1>Install</h1><p>Run the installer.</p>"
           '<p>This document describes version 2 of the wire protocol; version 1 is described '
           'in <a href="v1.html">the old specification</a>.</p>'
           '<p>This manual documents version 9.1 of the <a href="x">GNU core utilities</a>.</p>'
           "</body></html>")
    text, _, sections, _ = extract_html(rtd)
    assert text.startswith("Install\n\nRun the installer.") and "Warning" not in text
    assert [path for _, _, path in sections] == ["Install"]
    assert "version 2 of the wire protocol" in text and "version 9.1 of the GNU" in text
    about = ("<html><body><h1>About This Document</h1><p>This document was generated on "
             "<em>February 5, 2023</em> using <a href='t'>texi2any</a>.</p><p>The buttons "
             "in the navigation panels have the following meaning.</p></body></html>")
    assert "texi2any" not in extract_html(about)[0]


def test_man2htmls_index_of_the_pages_sections_is_contents() -> None:
    """man2html ends a manual page with an "Index": a definition list of links to the
    page's own sections, empty descriptions between them (Privoxy's manual page, review
    2026-12-07). It is the page's contents; a list of terms with descriptions stays."""
    page = """<HTML><BODY><H1>PRIVOXY</H1>
<A NAME="lbAB">&nbsp;</A><H2>NAME</H2>
privoxy - Privacy Enhancing Proxy
<A NAME="lbAC">&nbsp;</A><H2>OPTIONS</H2>
<DL COMPACT><DT><B>--no-daemon</B><DD>Do not fork into the background.
<DT><B>--help</B><DD>Print brief usage info and exit.</DL>
<HR><A NAME="index">&nbsp;</A><H2>Index</H2>
<DL>
<DT><A HREF="#lbAB">NAME</A><DD>
<DT><A HREF="#lbAC">OPTIONS</A><DD>
<DT><A HREF="#lbAD">COPYRIGHT AND LICENSE</A><DD>
<DL>
<DT><A HREF="#lbAN">COPYRIGHT</A><DD>
<DT><A HREF="#lbAO">LICENSE</A><DD>
</DL>
</DL>
</BODY></HTML>"""
    text = extract_html(page)[0]
    assert "Do not fork into the background." in text and "--help" in text
    assert "COPYRIGHT" not in text and not re.search(r"\nNAME\n\nOPTIONS", text), text


def test_a_header_of_site_links_alone_is_navigation() -> None:
    """Docutils' HTML writer (review, 2026-12-07): every page's text opened with its
    ``<div class="header">`` of site links, "Docutils | Overview | About | Users |
    Reference | Developers". A header or footer with any words beside its links stays."""
    links = " | ".join(f'<a class="reference external" href="../index.html#{n}">{n}</a>'
                       for n in ("Docutils", "Overview", "About", "Users", "Reference"))
    page = ('<html><body><div class="header">{header}<hr class="header"/></div><div '
            'class="document"><h1 class="title">Docutils Front-End Tools</h1><p>Once the '
            'package is unpacked, you will find a tools directory.</p></div></body></html>')
    text, _, _, _ = extract_html(page.format(header=links))
    assert text == ("Docutils Front-End Tools\n\nOnce the package is unpacked, you will find "
                    "a tools directory."), text
    worded = f"See also {links} for the reference pages of this release."
    kept, _, _, _ = extract_html(page.format(header=worded))
    assert "for the reference pages of this release" in kept and "Overview" in kept
    # Nor a heading with its permalink, nor a list of names (the code review, 2026-12-07).
    heading = ('<h2><a href="#install">Installing foo</a> <a class="headerlink" '
               'href="#install">#</a></h2>')
    assert "Installing foo" in extract_html(page.format(header=heading))[0]
    names = '<a href="/alice">Alice Smith</a>, <a href="/bob">Bob Jones</a>'
    assert "Alice Smith, Bob Jones" in extract_html(page.format(header=names))[0]


def test_a_sphinx_toctree_is_navigation() -> None:
    """Ghostscript's toc.html is a toctree of every page's headings (1,460 lines), and it
    came second for "How to Install Ghostscript on MS Windows" (review, 2026-12-08)."""
    from citewise.knowledge.loaders.html import read_html

    page = ("<html><body><section><h1>Table of Contents</h1><div class='toctree-wrapper "
            "compound'><ul><li><a href='Install.html'>How to Install Ghostscript</a><ul><li>"
            "<a href='Install.html#windows'>Installing on MS Windows</a></li></ul></li></ul>"
            "</div><p>Every page is listed above.</p></section></body></html>")
    text = read_html(page)[0]
    assert "Install" not in text and "Every page is listed above." in text
