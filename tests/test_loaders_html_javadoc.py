"""A Javadoc API reference as a reader sees it (jsoup 1.15.3's, Debian's
``libjsoup-java-doc``, 2026-12-04): a member's notes are a definition list whose
descriptions carry no full stop ("user-agent to use"), so "Parameters:", "Returns:" and "See
Also:" with their descriptions ran on as one sentence and were quoted as one; and the
member summary table repeats each member's first sentence, which was quoted beside the
member's own section ("boolean | isValid(Document dirtyDocument) | Determines if …")."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load, section_of

from citewise.grounding.claims import segments
from citewise.knowledge.loaders.base import LoadedDocument
from citewise.models.sentence_candidates import candidates

PAGE = """<!DOCTYPE html><html><head><title>Connection (jsoup Java HTML Parser 1.15.3 API)
</title></head><body><main role="main">
<div class="header"><div class="subTitle"><span class="packageLabelInType">Package</span>&nbsp;\
<a href="package-summary.html">org.jsoup</a></div>
<h2 title="Interface Connection" class="title">Interface Connection</h2></div>
<ul class="blockList"><li class="blockList"><a id="methods.inherited.from.class.java.lang.Object">
<!--   --></a>
<h3>Methods inherited from class&nbsp;java.lang.Object</h3>
<code>clone, equals, finalize, getClass, hashCode</code></li></ul>
<h3>Method Summary</h3>
<table class="memberSummary"><tr><th>Modifier and Type</th><th>Method</th>
<th>Description</th></tr>
<tr><td>boolean</td><th><code>isValid&#8203;(Document&nbsp;dirtyDocument)</code></th>
<td><div class="block">Determines if the input document body is valid, against the safelist.
</div></td></tr>
<tr><td>Connection</td><th><code>userAgent&#8203;(java.lang.String&nbsp;userAgent)</code></th>
<td><div class="block">Set the request user-agent header.</div></td></tr></table>
<h3>Method Detail</h3>
<ul class="blockList"><li class="blockList">
<h4>userAgent</h4>
<pre class="methodSignature">Connection&nbsp;userAgent&#8203;(java.lang.String&nbsp;userAgent)</pre>
<div class="block">Set the request user-agent header.</div>
<dl>
<dt><span class="paramLabel">Parameters:</span></dt>
<dd><code>userAgent</code> - user-agent to use</dd>
<dt><span class="returnLabel">Returns:</span></dt>
<dd>this Connection, for chaining</dd>
<dt><span class="throwsLabel">Throws:</span></dt>
<dd><code>java.net.MalformedURLException</code> - if the request URL is not a HTTP or HTTPS URL</dd>
<dd><code>HttpStatusException</code> - if the response is not OK and HTTP response errors are not ignored</dd>
<dt><span class="seeLabel">See Also:</span></dt>
<dd><a href="helper/HttpConnection.html#DEFAULT_UA"><code>HttpConnection.DEFAULT_UA</code></a></dd>
</dl>
</li></ul></main></body></html>"""


def _load(tmp_path: Path) -> LoadedDocument:
    page = tmp_path / "Connection.html"
    page.write_text(PAGE, encoding="utf-8")
    return load(page)


def test_each_entry_of_a_members_notes_is_a_sentence_of_its_own(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    sentences = [" ".join(doc.text[a:b].split()) for a, b in segments(doc.text)]
    assert "Parameters: userAgent - user-agent to use" in sentences
    assert "Returns: this Connection, for chaining" in sentences
    assert "See Also: HttpConnection.DEFAULT_UA" in sentences
    # A term's several descriptions are one each (a method's exceptions under "Throws:").
    assert ("Throws: java.net.MalformedURLException - if the request URL is not a HTTP or "
            "HTTPS URL") in sentences
    assert ("HttpStatusException - if the response is not OK and HTTP response errors are "
            "not ignored") in sentences
    # A term stays on the line above its description, and is still a term.
    assert "Parameters:\nuserAgent - user-agent to use\n\nReturns:" in doc.text
    terms = [doc.text[a:b] for a, b, role in doc.roles if role == "term"]
    assert terms == ["Parameters:", "Returns:", "Throws:", "See Also:"]


def test_a_summary_row_restating_a_members_sentence_is_no_candidate(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    result = {"document_index": 1, "text": doc.text, "source": "Connection.html",
              "title": doc.title, "roles": [list(r) for r in doc.roles]}
    texts = [s.text for s in candidates([{"results": [result]}])]
    assert "Set the request user-agent header." in texts  # the member's own sentence
    assert not any("| Set the request user-agent header." in t for t in texts)
    # Told by its cells, not its role: a chunk that starts inside the table has none.
    bare = [s.text for s in candidates([{"results": [{**result, "roles": []}]}])]
    assert not any("| Set the request user-agent header." in t for t in bare)
    # A row whose member has no section in the passages is still a candidate.
    assert any(t.endswith("| Determines if the input document body is valid, against the "
                          "safelist.") for t in texts)


def test_javadocs_package_line_inherited_lists_and_zero_width_spaces_are_not_text(
        tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert "Package" not in doc.text and "org.jsoup\n" not in doc.text
    assert "inherited" not in doc.text and "getClass" not in doc.text
    assert "\u200b" not in doc.text
    assert "Connection userAgent(java.lang.String userAgent)" in " ".join(doc.text.split())
    assert doc.text.startswith("Interface Connection")


# Javadoc 11 (jsoup's): the class title is an <h2>, a member's anchor id is its signature.
OVERLOADS = """<!DOCTYPE HTML><html><head><!-- Generated by javadoc -->
<title>Selector (jsoup Java HTML Parser 1.15.3 API)</title></head><body><main role="main">
<div class="header"><h2 title="Class Selector" class="title">Class Selector</h2></div>
<div class="description"><ul class="blockList"><li class="blockList">
<div class="block">CSS-like element selector, that finds elements matching a query.
<h2>Selector syntax</h2>
<p>A selector is a chain of simple selectors, separated by combinators.</p></div>
</li></ul></div>
<h3>Method Detail</h3>
<a id="select(java.lang.String,org.jsoup.nodes.Element)"><!--   --></a>
<ul class="blockList"><li class="blockList"><h4>select</h4>
<div class="block">Find elements matching selector.</div></li></ul>
<a id="select(org.jsoup.select.Evaluator,java.lang.Iterable)"><!--   --></a>
<ul class="blockList"><li class="blockList"><h4>select</h4>
<div class="block">Find elements matching an evaluator.</div></li></ul>
<a id="&lt;init&gt;()"><!--   --></a>
<ul class="blockList"><li class="blockList"><h4>Selector</h4>
<div class="block">Creates a selector.</div></li></ul>
</main></body></html>"""


def test_overloaded_members_sections_are_named_by_their_signatures(tmp_path: Path) -> None:
    page = tmp_path / "Selector.html"
    page.write_text(OVERLOADS, encoding="utf-8")
    doc = load(page)
    assert section_of(doc, "Find elements matching selector.") == \
        "Class Selector > Method Detail > select(String, Element)"
    assert section_of(doc, "Find elements matching an evaluator.") == \
        "Class Selector > Method Detail > select(Evaluator, Iterable)"
    assert section_of(doc, "Creates a selector.") == \
        "Class Selector > Method Detail > Selector()"
    # The stored text is the page's: the heading still reads as written.
    assert "\n\nselect\n\nFind elements matching selector." in doc.text


def test_a_doc_comments_heading_stays_below_its_class(tmp_path: Path) -> None:
    page = tmp_path / "Selector.html"
    page.write_text(OVERLOADS, encoding="utf-8")
    doc = load(page)
    assert section_of(doc, "A selector is a chain") == "Class Selector > Selector syntax"
    # The class's own sections after its description are the class's, not the comment's.
    assert section_of(doc, "Method Detail") == "Class Selector > Method Detail"


def test_javadoc_17_members_and_headings(tmp_path: Path) -> None:
    # Javadoc 17: an <h1> title, the signature as the id of the member's <section>.
    page = tmp_path / "Jsoup.html"
    page.write_text("""<!DOCTYPE HTML><html><head><!-- Generated by javadoc (17) -->
<title>Jsoup</title></head><body><main role="main">
<div class="header"><h1 title="Class Jsoup" class="title">Class Jsoup</h1></div>
<section class="class-description"><div class="block">The core public access point.
<h2>Threads</h2><p>Each call is independent.</p></div></section>
<section class="details"><h2>Method Details</h2>
<section class="detail" id="parse(java.lang.String)"><h3>parse</h3>
<div class="block">Parse HTML into a Document.</div></section>
<section class="detail" id="parse(java.io.File,java.lang.String...)"><h3>parse</h3>
<div class="block">Parse the contents of a file as HTML.</div></section></section>
</main></body></html>""", encoding="utf-8")
    doc = load(page)
    assert section_of(doc, "Each call is independent.") == "Class Jsoup > Threads"
    assert section_of(doc, "Parse HTML into") == "Class Jsoup > Method Details > parse(String)"
    assert section_of(doc, "Parse the contents") == \
        "Class Jsoup > Method Details > parse(File, String...)"


def test_other_pages_keep_their_headings(tmp_path: Path) -> None:
    # Not Javadoc: a CMS's sidebar "block" has its own <h2>, and an id like a call is an id.
    page = tmp_path / "site.html"
    page.write_text("""<html><head><title>Site</title></head><body><main>
<h2>News</h2><p>Our news.</p>
<div class="block"><h2>Events</h2><p>Our events.</p></div>
<h3 id="run(x)">run</h3><p>How we run.</p></main></body></html>""", encoding="utf-8")
    doc = load(page)
    assert section_of(doc, "Our events.") == "Events"
    assert section_of(doc, "How we run.") == "Events > run"
