"""Haddock's pages (GHC's library reference, Debian's ``ghc-doc``) as their readers see
them: each instance's folded details, the synopsis, "Source" links and the labels shown
only without JavaScript left out; a declaration a section of its own; MathJax as it reads.
Found by a new-user review (2026-12-05): folded instance details were 74 % of Prelude's
text, and "IORefs > Instances" was the section of every function after the first."""

from __future__ import annotations

from tests._sections import section_at

from citewise.knowledge.loaders.html import read_html

PAGE = r"""<html><head><title>Data.IORef</title></head><body>
<div id="content"><div id="module-header"><p class="caption">Data.IORef</p></div>
<div id="synopsis"><details id="syn"><summary>Synopsis</summary><ul><li class="src short">
<a href="#v:newIORef">newIORef</a> :: a -&gt; IO (IORef a)</li></ul></details></div>
<div id="interface"><a href="#g:1" id="g:1"><h1>IORefs</h1></a>
<div class="top"><p class="src"><span class="keyword">data</span> <a id="t:IORef"
class="def">IORef</a> a <a href="src/GHC-IORef.html#IORef" class="link">Source</a> <a
href="#t:IORef" class="selflink">#</a></p><div class="doc"><p>A mutable variable in the IO
monad</p></div><div class="subs instances"><h4 class="instances details-toggle-control
details-toggle" data-details-id="i:IORef">Instances</h4><details id="i:IORef" open="open">
<summary class="hide-when-js-enabled">Instances details</summary><table><tr><td
class="src clearfix">Eq (IORef a)</td><td class="doc"><p>Pointer equality.</p></td></tr>
<tr><td colspan="2"><details id="i:id:IORef:Eq:1"><summary class="hide-when-js-enabled">
Instance details</summary><p>Defined in <a href="GHC-IORef.html">GHC.IORef</a></p><div
class="subs methods"><p class="caption">Methods</p><p class="src"><a>(==)</a> :: IORef a
-&gt; IORef a -&gt; Bool</p></div></details></td></tr></table></details></div></div>
<div class="top"><p class="src"><a id="v:newIORef" class="def">newIORef</a> :: a -&gt; IO
(IORef a) <a href="src/GHC-IORef.html#newIORef" class="link">Source</a></p><div
class="doc"><p>Build a new <code>IORef</code></p></div></div>
<div class="top"><p class="src"><a id="v:nub" class="def">nub</a> :: Eq a =&gt; [a] -&gt;
[a]</p><div class="doc"><p><span class="mathjax">\(\mathcal{O}(n^2)\)</span>. The
<code>nub</code> function removes duplicate elements from a list.</p></div></div>
</div></div></body></html>"""


def test_folded_details_the_synopsis_and_source_links_are_left_out() -> None:
    text, _, _, _, _ = read_html(PAGE)
    for gone in ("Instance details", "Defined in", "Methods", "Synopsis", "Source", "(==)"):
        assert gone not in text, (gone, text)
    assert "Eq (IORef a) | Pointer equality." in text
    assert text.count("newIORef :: a -> IO (IORef a)") == 1, text


def test_a_declaration_is_a_section_of_its_own() -> None:
    text, _, sections, _, _ = read_html(PAGE)


    assert section_at(text, sections, "Pointer equality.") == "IORefs > Instances"
    assert section_at(text, sections, "Build a new IORef") == "IORefs"  # not "IORefs > Instances"


def test_mathjax_reads_as_its_formula() -> None:
    text, _, _, _, _ = read_html(PAGE)
    assert "O(n^2). The nub function removes duplicate elements from a list." in text, text
