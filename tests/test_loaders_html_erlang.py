"""Erlang/OTP's HTML reference (Debian's ``erlang-doc``) as its readers see it: a heading
whose title sits in ``<div>``s is one heading; a page whose functions are ``<article>``s
beside the module's own sections is read whole; a function's "Types" is below the
function, and its description the function's; the fixed top bar's copy of the title is
left out. Found by a new-user review (2026-12-05): ets.html lost 7.6 kB (its Description,
Concurrency, Match Specifications), and 1,069 of 1,511 chunks had the section "Types"."""

from __future__ import annotations

from tests._sections import section_at

from citewise.knowledge.loaders.html import read_html

PAGE = """<html><head><title>Erlang -- ets</title></head><body><div id="container">
<div class="topbar"><div class="topbar-title"><h1>ets</h1></div></div>
<aside id="leftnav"><nav><ul><li><a href="lists.html">lists</a></li></ul></nav></aside>
<div id="content"><div class="innertube"><center><h1>ets</h1></center></div>
<section class="description"><div class="innertube"><h3 id="description"
class="title-link"><div class="title-name">Description</div><div class="title-anchors">
<span class="ghlink-after"><a href="#description"><span class="paperclip-after"></span></a>
</span></div></h3><p>When the process terminates, the table is automatically destroyed.</p>
</div></section><div class="innertube"><h3 id="exports" class="title-link"><div
class="title-name">Exports</div></h3></div>
<article class="func"><h4 id="new-2" class="title-link func-head"><div
class="title-anchors"><span><a href="#new-2"><span class="paperclip-before"></span></a>
</span></div><span class="title-name">new(Name, Options) -&gt; table()</span></h4>
<div class="REFBODY fun-types"><h3 id="types" class="func-types-title">Types</h3>
<div class="REFTYPES">Name = atom()</div></div>
<div class="exports-tube"><div class="REFBODY"><p>Creates a new table and returns a table
identifier.</p></div></div></article>
<article class="func"><h4 id="delete-1" class="title-link func-head"><span
class="title-name">delete(Table) -&gt; true</span></h4><div class="REFBODY"><p>Deletes
the entire table Table.</p></div></article></div></div></body></html>"""


def test_the_modules_own_sections_are_read_beside_its_function_articles() -> None:
    text, _, _, _, _ = read_html(PAGE)
    # The top bar's copy of the title is gone, the module's own sections are there.
    assert text.startswith("ets\n\nDescription\n\nWhen the process terminates, the table is "
                           "automatically destroyed."), text
    assert "Deletes the entire table Table." in text and "lists" not in text


def test_a_title_in_divs_is_one_heading_and_a_functions_types_are_below_it() -> None:
    text, _, sections, _, roles = read_html(PAGE)


    assert section_at(text, sections, "When the process terminates") == "ets > Description"
    assert section_at(text, sections, "Name = atom()") == (
        "ets > Exports > new(Name, Options) -> table() > Types")
    assert section_at(text, sections, "Creates a new table") == (
        "ets > Exports > new(Name, Options) -> table()")
    assert section_at(text, sections, "Deletes the entire table") == "ets > Exports > delete(Table) -> true"
    headings = [text[a:b] for a, b, r in roles if r == "heading"]
    assert "Description" in headings and "new(Name, Options) -> table()" in headings


def test_an_articles_headings_of_one_rank_stay_siblings_and_a_layout_section_ends_nothing() -> None:
    # A review of the change (2026-12-05): every heading of an <article> had been put under
    # its first ("Install > Usage"), and any <div class="section"> ended its section.
    post = ("<html><body><header><h1>Blog</h1></header><main><article><h2>Install</h2><p>Run "
            "pip install foo.</p><h2>Usage</h2><p>Run foo serve.</p></article></main>"
            "</body></html>")
    assert [p for _, _, p in read_html(post)[2]] == ["Install", "Usage"]
    hero = ("<html><body><div class='section'><h1>Install guide</h1><p>How to install.</p>"
            "</div><div class='content'><p>Run make install as root.</p></div></body></html>")
    text, _, sections, _, _ = read_html(hero)
    at = text.index("Run make install")
    assert [p for a, b, p in sections if a <= at < b] == ["Install guide"]


def test_a_hidden_heading_leaves_a_pages_articles_its_content() -> None:
    page = ("<html><body><div class='modal' style='display:none'><h2>Subscribe</h2></div>"
            "<div class='promo'><p>Buy the book now.</p></div>"
            "<article><h1>Post one</h1><p>Body one.</p></article></body></html>")
    assert read_html(page)[0] == "Post one\n\nBody one."
