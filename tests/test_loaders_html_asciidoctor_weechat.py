"""WeeChat's guides (Asciidoctor, Debian's ``weechat-doc`` 3.8; new-user review
2026-12-06): a list a sentence introduces is content though each item links into the page;
the byline under a page's title is a notice (HTML loader 51)."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

IRCV3 = """<html><body><div id="header"><h1>WeeChat user&#8217;s guide</h1>
<div class="details"><span id="author" class="author">Sébastien Helleu</span><br>
<span id="email" class="email"><a href="mailto:f@example.org">f@example.org</a></span><br>
<span id="revnumber">version 3.8</span></div>
<div id="toc" class="toc2"><div id="toctitle">Table of Contents</div><ul class="sectlevel1">
<li><a href="#irc">1. IRC</a></li><li><a href="#keys">2. Keys</a></li>
<li><a href="#relay">3. Relay</a></li></ul></div></div>
<div id="content"><div class="sect1"><h2 id="irc">1. IRC</h2><div class="sectionbody">
<div class="paragraph"><p>WeeChat supports the following <a href="https://ircv3.net/">IRCv3
extensions <sup>↗</sup></a>:</p></div>
<div class="ulist"><ul><li><p><a href="#irc_ircv3_account_notify">account-notify</a></p></li>
<li><p><a href="#irc_ircv3_away_notify">away-notify</a></p></li>
<li><p><a href="#irc_ircv3_sasl">SASL v3.2</a></p></li></ul></div>
<div class="ulist"><ul><li><a href="#a">Alpha</a></li><li><a href="#b">Beta</a></li>
<li><a href="#c">Gamma</a></li></ul></div>
<div class="paragraph"><p>By default all capabilities are enabled.</p></div></div></div>
<div class="sect1"><h2 id="keys">2. Keys</h2><p>Alt+F5 switches buffers.</p></div></div>
</body></html>"""


def test_a_list_a_sentence_introduces_is_kept_though_its_items_are_links() -> None:
    text, _title, _sections, _meta, _roles = read_html(IRCV3)
    for name in ("account-notify", "away-notify", "SASL v3.2"):
        assert name in text, name
    # A list of in-page links nothing introduces is still the page's contents.
    assert "Alpha" not in text and "1. IRC\n\n2. Keys" not in text


def test_the_byline_is_a_notice() -> None:
    text, _title, _sections, _meta, roles = read_html(IRCV3)
    (notice,) = [text[a:b] for a, b, role in roles if role == "notice"]
    assert notice.split() == ["Sébastien", "Helleu", "f@example.org", "version", "3.8"]
