"""mdBook's pages as a reader sees them (new-user review of the Rust book, Debian's
``rust-doc``, 2026-12-04). mdBook hides "boring" lines of its examples (283 of them in 17
chapters: ``#![allow(unused)]``, ``fn main() {``), writes footnote markers as superscripts
("hash tables1.") and their notes with the label as a superscript of its own (a stray
paragraph "1"), captions each listing in a ``<span class="caption">`` paragraph, and sets
integer ranges as ``2<sup>n - 1</sup>``, which read "2n - 1 - 1", wrong arithmetic."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

from citewise.knowledge.loaders.base import LoadedDocument

PAGE = """<!DOCTYPE html><html><head><title>Data Types - The Rust Programming Language</title>
</head><body><main>
<h1 id="data-types"><a class="header" href="#data-types">Data Types</a></h1>
<p>Each signed variant can store numbers from -(2<sup>n - 1</sup>) to 2<sup>n - 1</sup> - 1
inclusive. So an <code>i8</code> can store numbers from -(2<sup>7</sup>) to 2<sup>7</sup> - 1.</p>
<p>Here’s an example of a constant declaration:</p>
<pre><pre class="playground"><code class="language-rust"><span class="boring">#![allow(unused)]
</span><span class="boring">fn main() {
</span>const THREE_HOURS_IN_SECONDS: u32 = 60 * 60 * 3;
<span class="boring">}
</span></code></pre></pre>
<p><span class="caption">Listing 3-1: A constant holding three hours in seconds</span></p>
<p>By default, <code>HashMap</code> uses SipHash, which resists attacks involving hash
tables<sup class="footnote-reference"><a href="#siphash">1</a></sup>. It is not the fastest.</p>
<div class="footnote-definition" id="siphash"><sup class="footnote-definition-label">1</sup>
<p><a href="https://en.wikipedia.org/wiki/SipHash">https://en.wikipedia.org/wiki/SipHash</a></p>
</div>
<p>Pandoc marks its notes the other way round<a href="#fn1" class="footnote-ref" id="fnref1"
role="doc-noteref"><sup>2</sup></a>.</p>
</main></body></html>"""


def _load(tmp_path: Path) -> LoadedDocument:
    page = tmp_path / "ch03-02-data-types.html"
    page.write_text(PAGE, encoding="utf-8")
    return load(page)


def test_hidden_code_lines_are_left_out(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    code = [doc.text[a:b] for a, b, role in doc.roles if role == "code"]
    assert code == ["const THREE_HOURS_IN_SECONDS: u32 = 60 * 60 * 3;"]
    assert "allow(unused)" not in doc.text and "fn main" not in doc.text


def test_a_power_that_is_an_expression_keeps_its_brackets(tmp_path: Path) -> None:
    text = " ".join(_load(tmp_path).text.split())
    assert "from -(2^(n - 1)) to 2^(n - 1) - 1 inclusive" in text
    assert "from -(2^7) to 2^7 - 1." in text


def test_footnotes_read_as_markers_and_labelled_notes(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert "hash tables[1]. It is not the fastest." in " ".join(doc.text.split())
    assert "[1] https://en.wikipedia.org/wiki/SipHash" in doc.text
    assert "\n1\n" not in doc.text
    assert "the other way round[2]." in " ".join(doc.text.split())


def test_a_listing_caption_is_a_label_not_prose_nor_a_section(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    caption = "Listing 3-1: A constant holding three hours in seconds"
    at = doc.text.index(caption)
    assert (at, at + len(caption), "heading") in doc.roles
    assert [name for _, _, name in doc.sections] == ["Data Types"]
