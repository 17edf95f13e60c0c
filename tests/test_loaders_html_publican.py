"""A Publican (DocBook) book as the Debian Administrator's Handbook ships it in 26 languages
(new-user review of its French build, 2026-12-04): every "VOCABULARY", "SECURITY" or "TIP"
box — DocBook's ``<sidebar>``, ``<div class="sidebar">`` — was left out as a site's sidebar
(192 paragraphs of 14 pages, half as much text as was kept), and the bar "Précédent / Le
cahier de l'administrateur Debian / Suivant" opened every page as three list items."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

from citewise import Agent, KnowledgeBase

PAGE = """<!DOCTYPE html><html><head><title>9.7. Planification de tâches</title></head>
<body><div id="banner"><a href="http://debian-handbook.info/get/"><span class="text">
Télécharger le livre numérique</span></a></div>
<ul class="docnav top"><li class="previous"><a accesskey="p" href="sect.at.html">
<strong>Précédent</strong></a></li><li class="home">Le cahier de l'administrateur Debian</li>
<li class="next"><a accesskey="n" href="sect.anacron.html"><strong>Suivant</strong></a></li></ul>
<div class="section"><div class="titlepage"><div><div><h2 class="title">9.7. Scheduling tasks
with cron</h2></div></div></div>
<div class="para">cron is the daemon responsible for executing scheduled and recurring
commands (every day, every week, etc.).</div>
<div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong><span
class="emphasis"><em>SECURITY</em></span> Restricting cron</strong></p></div></div></div>
<div class="para">You can restrict access to cron by creating an explicit authorization
file (whitelist) in /etc/cron.allow, in which you indicate the only users authorized to
schedule commands. All others will automatically be deprived of this feature. Conversely,
to only block one or two troublemakers, you could write their username in the explicit
prohibition file (blacklist), /etc/cron.deny.</div></div>
<div class="para">Each user has their own crontab, edited with crontab -e.</div></div>
<ul class="docnav"><li class="previous"><a accesskey="p" href="sect.at.html"><strong>
Précédent</strong></a></li><li class="up"><a accesskey="u" href="#"><strong>Remonter
</strong></a></li><li class="home"><a accesskey="h" href="index.html"><strong>Sommaire
</strong></a></li><li class="next"><a accesskey="n" href="sect.anacron.html"><strong>
Suivant</strong></a></li></ul>
<div class="sidebar" id="site-links"><ul><li><a href="/a">Home</a></li>
<li><a href="/b">Blog</a></li></ul></div>
</body></html>"""


def _write(folder: Path) -> Path:
    path = folder / "sect.cron.html"
    path.write_text(PAGE, encoding="utf-8")
    return path


def test_a_docbook_sidebar_is_text_and_publicans_bar_is_not(tmp_path: Path) -> None:
    doc = load(_write(tmp_path))
    assert "SECURITY Restricting cron" in doc.text
    assert "their username in the explicit prohibition file (blacklist), /etc/cron.deny." in (
        " ".join(doc.text.split()))
    for chrome in ("Précédent", "Suivant", "Le cahier", "Sommaire", "Télécharger", "Blog"):
        assert chrome not in doc.text, chrome
    assert doc.text.startswith("9.7. Scheduling tasks with cron")


def test_an_answer_quotes_the_box(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _write(docs)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask("How do I stop one user from scheduling commands with cron?")
    assert answer.citations
    # The box's answer (cron.allow or cron.deny), not "Each user has their own crontab".
    assert "/etc/cron." in answer.citations[0].excerpt
