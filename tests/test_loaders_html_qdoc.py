"""qdoc's pages (Qt's class reference, Debian's ``qtbase5-doc-html``) as their readers see
them: the navigation bar over every page left out, and a class's properties, one list qdoc
sets in two columns, read one a line. Found by a new-user review (2026-12-05)."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

PAGE = """<html><head><title>QTimer Class | Qt Core 5.15.8</title></head><body>
<div class="header" id="qtdocheader"><div class="main"><div class="main-rounded">
<div class="navigationbar"><ul><li>Qt 5.15</li><li><a href="qtcore-index.html">Qt Core</a>
</li><li><a href="qtcore-module.html">C++ Classes</a></li><li>QTimer</li><li
id="buildversion"><a href="qtcore-index.html">Qt 5.15.8 Reference Documentation</a></li>
</ul></div></div></div></div>
<div class="content"><h1 class="title">QTimer Class</h1><span class="subtitle"></span>
<p>The QTimer class provides repetitive and single-shot timers.</p>
<h2 id="properties">Properties</h2><div class="table"><table class="propsummary"><tr><td
class="topAlign"><ul><li class="fn"><b><a href="#active-prop">active</a></b> : const
bool</li><li class="fn"><b><a href="#interval-prop">interval</a></b> : int</li></ul></td>
<td class="topAlign"><ul><li class="fn"><b><a href="#singleShot-prop">singleShot</a></b> :
bool</li></ul></td></tr></table></div></div></body></html>"""


def test_the_navigation_bar_is_left_out() -> None:
    text, _, _, meta, _ = read_html(PAGE)
    assert text.startswith("QTimer Class\n\nThe QTimer class provides"), text
    assert "Reference Documentation" not in text and "buildversion" not in meta["anchors"]


def test_a_list_set_in_columns_is_read_one_item_a_line() -> None:
    text, _, _, _, roles = read_html(PAGE)
    assert "active : const bool\ninterval : int" in text, text
    assert "singleShot : bool" in text and "|" not in text
    at = text.index("singleShot")
    assert "table" not in {r for a, b, r in roles if a <= at < b}
