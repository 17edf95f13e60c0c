"""gtk-doc's pages (GLib's C API reference, Debian's ``libglib2.0-doc``) as their readers
see them: the navigation table left out, the page's title and purpose set in a layout
table read as a heading and a paragraph, a line-numbered listing read as its code, and a
function's "Since" line in the function's section, not its last subsection's. Found by a
new-user review (2026-12-05)."""

from __future__ import annotations

from tests._sections import section_at

from citewise.knowledge.loaders.html import read_html

PAGE = """<html><head><title>Hash Tables: GLib Reference Manual</title></head><body>
<table class="navigation" id="top" width="100%" summary="Navigation header"><tr>
<td class="shortcuts"><a href="#" class="shortcut">Top</a><span id="nav_description">
<span class="dim">|</span> <a href="#desc" class="shortcut">Description</a></span></td>
<td><a accesskey="h" href="index.html"><img src="home.png" alt="Home"></a></td>
<td><a accesskey="u" href="glib-data-types.html"><img src="up.png" alt="Up"></a></td>
</tr></table>
<div class="refentry"><div class="titlepage"></div>
<div class="refnamediv"><table width="100%"><tr><td valign="top">
<h2><span class="refentrytitle">Hash Tables</span></h2>
<p>Hash Tables — associations between keys and values so that given a key the value can
be found quickly</p></td><td class="gallery_image" valign="top" align="right"></td>
</tr></table></div>
<div class="refsect1"><h2>Functions</h2>
<div class="refsect2"><h3>g_hash_table_remove_all ()</h3>
<p>Removes all keys and their associated values from a GHashTable.</p>
<div class="informalexample"><table class="listing_frame" border="0" cellpadding="0"
cellspacing="0"><tbody><tr><td class="listing_lines" align="right"><pre>1
2</pre></td><td class="listing_code"><pre class="programlisting">// Remove them all.
g_hash_table_remove_all (table);</pre></td></tr></tbody></table></div>
<div class="refsect3"><h4>Parameters</h4><div class="informaltable"><table><tr>
<td class="parameter_name"><p>hash_table</p></td><td class="parameter_description">
<p>a GHashTable</p></td></tr></table></div></div>
<p class="since">Since: 2.12</p></div></div></div></body></html>"""


def test_the_navigation_table_is_left_out_and_the_title_is_a_heading() -> None:
    text, title, _, _, roles = read_html(PAGE)
    assert title == "Hash Tables: GLib Reference Manual"
    assert text.startswith("Hash Tables\n\nHash Tables — associations between keys"), text
    assert "Top" not in text and "Home" not in text and "Description" not in text
    headings = [text[a:b] for a, b, role in roles if role == "heading"]
    assert headings[0] == "Hash Tables"
    purpose = text.index("Hash Tables — associations")
    assert not [r for a, b, r in roles if a <= purpose < b and r == "table"]


def test_a_line_numbered_listing_is_its_code() -> None:
    text, _, _, _, roles = read_html(PAGE)
    code = [text[a:b] for a, b, role in roles if role == "code"]
    assert code == ["// Remove them all.\ng_hash_table_remove_all (table);"], code
    assert "1 2" not in text and "1\n2" not in text


def test_a_line_after_a_subsection_belongs_to_the_section_around_it() -> None:
    text, _, sections, _, _ = read_html(PAGE)


    assert section_at(text, sections, "hash_table | a GHashTable") == (
        "Functions > g_hash_table_remove_all () > Parameters")
    assert section_at(text, sections, "Since: 2.12") == "Functions > g_hash_table_remove_all ()"
