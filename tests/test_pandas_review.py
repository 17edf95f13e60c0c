"""From two new-user reviews of pandas 1.5.3's Sphinx HTML documentation (2026-12-07):
numpydoc's parameter names were glued to their types, a lettered list lost its letters,
and the site's redirect pages became documents of one line."""

from __future__ import annotations

from pathlib import Path

import pytest

PARAMS = ("<html><head><title>pandas.read_csv</title></head><body><h1>pandas.read_csv</h1>"
          '<dl class="field-list"><dt class="field-odd">Parameters</dt><dd class="field-odd">'
          '<dl><dt><strong>sep</strong><span class="classifier">str, default ‘,’</span></dt>'
          "<dd><p>Delimiter to use.</p></dd>"
          '<dt><strong>skipfooter</strong><span class="classifier">int, default 0</span></dt>'
          "<dd><p>Number of lines at bottom of file to skip (Unsupported with engine=’c’).</p>"
          "</dd></dl></dd></dl></body></html>")


def test_a_numpydoc_parameters_type_is_apart_from_its_name() -> None:
    """Sphinx's stylesheet draws the " : " (``.classifier:before``); stored without it,
    "skipfooterint, default 0" was no word a search for "skipfooter" finds."""
    from citewise.knowledge.loaders.html import extract_html

    text = extract_html(PARAMS)[0]
    assert "sep : str, default ‘,’" in text
    assert "skipfooter : int, default 0" in text
    # docutils writes the colon itself: not twice.
    own = ('<html><body><h1>T</h1><dl><dt>depth<span class="classifier-delimiter">:</span> '
           '<span class="classifier">integer</span></dt><dd><p>How deep.</p></dd></dl>'
           "</body></html>")
    assert "depth: integer" in extract_html(own)[0]


def test_a_parameter_named_in_a_question_is_found_by_its_name(tmp_path: Path) -> None:
    from citewise import KnowledgeBase

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "pandas.read_csv.html").write_text(PARAMS, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "docs"])
        hits = kb.search("skipfooter", k=3)
    assert hits and "skipfooter : int, default 0" in hits[0].text


@pytest.mark.parametrize(("kind", "mark"), [("loweralpha", "l."), ("upperalpha", "L."),
                                             ("lowerroman", "xii."), ("upperroman", "XII.")])
def test_docutils_lettered_list_keeps_its_letters(kind: str, mark: str) -> None:
    """``<ol class="loweralpha" start="12">``: a stylesheet draws "l."; it was "12."."""
    from citewise.knowledge.loaders.html import extract_html

    html = (f'<html><body><h1>T</h1><ol class="{kind}" start="12"><li><p>For StringDtype, '
            "methods return a nullable integer dtype.</p></li></ol></body></html>")
    assert f"{mark} For StringDtype" in extract_html(html)[0]


REDIRECT = ('<html>\n    <head>\n        <meta http-equiv="refresh" '
            'content="0;URL=getting_started/tutorials.html"/>\n    </head>\n    <body>\n'
            '        <p>\n            The page has been moved to <a href="getting_started/'
            'tutorials.html">Community tutorials</a>\n        </p>\n    </body>\n<html>')


def test_a_redirect_page_is_skipped_and_said_so(tmp_path: Path) -> None:
    from citewise import KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tutorials.html").write_text(REDIRECT, encoding="utf-8")
    (docs / "moved.html").write_text(  # its attributes the other way round
        '<html><head><meta content="0; url=new.html" http-equiv="Refresh"></head>'
        "<body>Moved.</body></html>", encoding="utf-8")
    (docs / "read_csv.html").write_text(PARAMS, encoding="utf-8")
    # A page that reloads itself is a page (it names no other), however short.
    (docs / "short.html").write_text('<html><head><meta http-equiv="refresh" content="60">'
                                     "</head><body><p>Builds are green.</p></body></html>",
                                     encoding="utf-8")
    # A page that refreshes itself and has text of its own is a page.
    (docs / "status.html").write_text(
        '<html><head><meta http-equiv="refresh" content="30"></head><body><h1>Status</h1>'
        + "<p>The build farm rebuilds every package twice a day and reports here.</p>" * 5
        + "</body></html>", encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([docs])
    assert sorted(Path(p).name for p in report.added) == ["read_csv.html", "short.html",
                                                          "status.html"]
    assert sorted(Path(p).name for p in report.skipped) == ["moved.html", "tutorials.html"]
    assert "redirect" in report.summary()
