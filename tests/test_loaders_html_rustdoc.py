"""rustdoc's pages (Rust's standard library reference, Debian's ``rust-doc``): a member's
signature wrapped over lines is one heading; what its stylesheet hides, moves or shows on
hover (notable traits, the version and source link, "Run", "Expand description", "[−]") is
left out; a badge and a footnote marker are not glued to the word before them. Found by a
new-user review (2026-12-05): 777 of 1,851 chunks had a fragment of a signature ("R:
RangeBounds<usize>,") as their section."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

VEC = """<html><head><title>Vec in std::vec - Rust</title></head><body>
<section id="main-content" class="content"><div class="main-heading">
<h1 class="fqn"><span class="in-band">Struct <a href="../index.html">std</a>::<wbr><a
href="index.html">vec</a>::<wbr><a class="struct" href="#">Vec</a></span></h1><span
class="out-of-band">
<span class="since" title="Stable since Rust version 1.0.0">1.0.0</span> ·
<a class="srclink" href="../../src/alloc/vec/mod.rs.html">source</a> ·
<a id="toggle-all-docs" href="javascript:void(0)" title="collapse all docs">[<span
class="inner">&#x2212;</span>]</a></span></div>
<details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand
description</span></summary><div class="docblock"><p>A contiguous growable array type.</p>
<div class="example-wrap"><pre class="rust rust-example-rendered">let v = vec![1, 2];</pre>
<a class="test-arrow" target="_blank" href="https://play.rust-lang.org/">Run</a></div>
</div></details>
<h2 id="implementations" class="small-section-header">Implementations</h2>
<details class="rustdoc-toggle method-toggle" open><summary>
<section id="method.new" class="method has-srclink"><span class="rightside"><span
class="since" title="Stable since Rust version 1.0.0">1.0.0</span> · <a class="srclink"
href="#">source</a></span><a href="#method.new" class="anchor"></a><h4
class="code-header">pub const fn <a href="#method.new" class="fnname">new</a>() -&gt;
Vec&lt;T, Global&gt;<span class="notable-traits"><span
class="notable-traits-tooltip">ⓘ<span class="notable-traits-tooltiptext"><span
class="docblock"><span class="notable">Notable traits for Vec&lt;u8, A&gt;</span><code
class="content">impl Write for Vec&lt;u8, A&gt;</code></span></span></span></span></h4>
</section></summary><div class="docblock"><p>Constructs a new, empty
<code>Vec&lt;T&gt;</code>.</p></div></details>
<details class="rustdoc-toggle method-toggle" open><summary>
<section id="method.drain" class="method has-srclink"><span class="rightside"><span
class="since">1.6.0</span> · <a class="srclink" href="#">source</a></span><h4
class="code-header">pub fn <a href="#method.drain" class="fnname">drain</a>&lt;R&gt;(&amp;mut
self, range: R) -&gt; Drain&lt;'_, T, A&gt; <span class="where fmt-newline">where<br>
&nbsp;&nbsp;&nbsp;&nbsp;R: RangeBounds&lt;usize&gt;,</span></h4></section></summary>
<div class="docblock"><p>Removes the specified range from the vector in bulk.</p></div>
</details>
<div class="item-table"><div class="item-row"><div class="item-left module-item"><a
class="fn" href="fn.park_timeout_ms.html">park_timeout_ms</a><span class="stab
deprecated" title="">Deprecated</span></div><div class="item-right docblock-short">Use
<code>park_timeout</code>.</div></div></div>
<p><code>fn</code>, <code>extern "C" fn</code><sup id="fnref1"><a href="#fn1">1</a></sup>
has the same size.</p>
<div class="footnotes"><hr><ol><li id="fn1"><p>this remains true for any argument types
<a href="#fnref1">↩</a></p></li></ol></div>
</section></body></html>"""


def test_a_signature_wrapped_over_lines_is_one_heading_and_its_section() -> None:
    text, _, sections, _, roles = read_html(VEC)
    at = text.index("Removes the specified range")
    path = next(p for a, b, p in sections if a <= at < b)
    assert path == ("Struct std::vec::Vec > Implementations > pub fn drain<R>(&mut self, "
                    "range: R) -> Drain<'_, T, A> where R: RangeBounds<usize>,"), path
    headings = [text[a:b] for a, b, role in roles if role == "heading"]
    assert "pub const fn new() -> Vec<T, Global>" in headings, headings


def test_what_rustdocs_stylesheet_hides_moves_or_shows_on_hover_is_left_out() -> None:
    text, _, _, _, _ = read_html(VEC)
    for gone in ("Notable traits", "ⓘ", "impl Write", "1.0.0", "1.6.0", "source", "Run",
                 "Expand", "[−]", "↩"):
        assert gone not in text, (gone, text)
    assert "A contiguous growable array type." in text
    assert "let v = vec![1, 2];" in text


def test_a_badge_and_a_footnote_marker_are_not_glued_to_the_word_before() -> None:
    text, _, _, _, _ = read_html(VEC)
    assert "park_timeout_ms Deprecated" in text, text
    assert 'extern "C" fn[1] has the same size.' in text, text
    assert "this remains true for any argument types" in text
