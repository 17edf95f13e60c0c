"""A MediaWiki page as a wiki export ships it (cppreference's offline copy, Debian's
``cppreference-doc-en-html``; new-user review, 2026-12-04): the skin around the text was
stored with every page — the tagline "From cppreference.com", the breadcrumb "< c | string
| byte" with left-to-right marks, "Run this code" over each example, and the footer
"Retrieved from "http://…&oldid=85666"" on all 291 pages."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

PAGE = """<!DOCTYPE html><html><head><title>strcpy, strcpy_s - cppreference.com</title></head>
<body><div id="mw-page-base" class="noprint"></div>
<div id="content"><a id="top"></a>
<h1 id="firstHeading" class="firstHeading">strcpy, strcpy_s</h1>
<div id="bodyContent">
<div id="siteSub">From cppreference.com</div>
<div id="contentSub"><span class="subpages">&lt; <a href="../../../c.html">c</a>\u200e | <a
href="../../string.html">string</a>\u200e | <a href="../byte.html">byte</a></span></div>
<div id="jump-to-nav" class="mw-jump">Jump to: <a href="#mw-head">navigation</a>, <a
href="#p-search">search</a></div>
<div id="mw-content-text" lang="en" dir="ltr" class="mw-content-ltr">
<p>Copies the null-terminated byte string pointed to by src to the array pointed to by
dest.</p>
<h3><span class="mw-editsection">[<a href="edit">edit</a>]</span><span class="mw-headline"
id="Example">Example</span></h3>
<div class="t-example"><div class="t-example-live-link"><div class="coliru-btn">Run this
code</div></div><pre>strcpy(dest, src);</pre></div>
</div>
<div class="printfooter">Retrieved from "<a
href="http://en.cppreference.com/mwiki/index.php?title=c/string/byte/strcpy&amp;oldid=85666">http://en.cppreference.com/mwiki/index.php?title=c/string/byte/strcpy&amp;oldid=85666</a>"</div>
<div id="catlinks" class="catlinks"><div id="mw-normal-catlinks">Categories: Todo</div></div>
</div></div></body></html>
"""


def test_the_wiki_skin_is_left_out(tmp_path: Path) -> None:
    page = tmp_path / "strcpy.html"
    page.write_text(PAGE, encoding="utf-8")
    doc = load(page)
    assert doc.text == ("strcpy, strcpy_s\n\nCopies the null-terminated byte string pointed to "
                        "by src to the array pointed to by dest.\n\nExample\n\n"
                        "strcpy(dest, src);")
