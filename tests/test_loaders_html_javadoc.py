"""A Javadoc API reference as a reader sees it (jsoup 1.15.3's, Debian's
``libjsoup-java-doc``, 2026-12-04): a member's notes are a definition list whose
descriptions carry no full stop ("user-agent to use"), so "Parameters:", "Returns:" and "See
Also:" with their descriptions ran on as one sentence and were quoted as one; and the
member summary table repeats each member's first sentence, which was quoted beside the
member's own section ("boolean | isValid(Document dirtyDocument) | Determines if …")."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

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
