"""LibreOffice's help (Debian's ``libreoffice-help-en-us``; new-user review 2026-12-06):
a word that differs by system or application is hidden spans its script unhides, and the
"Related Topics" box is links to other pages (HTML loader 53)."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

PAGE = """<html><head><title>Inserting Manual Page Breaks</title></head><body>
<header id="TopLeftHeader"><a class="logo" href="new_help.html"><p>LibreOffice 7.4 Help</p>
</a></header><div id="DisplayArea" itemprop="softwareHelp">
<h1 id="hd_id1">Inserting Manual Page Breaks</h1>
<p id="par_id1" class="paragraph">Press <span class="switchinline"><span hidden="true"
id="MAC_id1" class="MAC">Command</span><span hidden="true"
id="default_id1">Ctrl</span></span>+Enter.</p>
<p id="par_id2">To check, go to <span class="switchinline"><span hidden="true" id="MAC_id2"
class="MAC"><span class="menuitem">LibreOffice - Preferences</span></span><span
hidden="true" id="default_id2"><span class="menuitem">Tools - Options</span></span></span>
<span class="menuitem"> - LibreOffice Writer - View</span>.</p>
<p hidden="true">A hidden paragraph.</p>
<div class="relatedtopics"><p class="related"><a name="related"></a><span
class="emph">Related Topics</span></p><div class="relatedbody"><div class="embedded">
<p class="paragraph">Date &amp; Time Functions</p><p><a href="func_date.html">DATE</a></p>
<p><a href="func_datevalue.html">DATEVALUE</a></p></div></div></div>
</div></body></html>"""


def test_a_switch_reads_its_default_word_and_no_other() -> None:
    text = read_html(PAGE)[0]
    assert "Press Ctrl+Enter." in text and "Command" not in text
    assert "go to Tools - Options - LibreOffice Writer - View." in text
    assert "Preferences" not in text and "A hidden paragraph." not in text


def test_the_related_topics_box_is_no_text_of_the_page() -> None:
    text = read_html(PAGE)[0]
    assert "Related Topics" not in text and "DATEVALUE" not in text
    assert "Time Functions" not in text
