"""A ``.txt`` file written in reStructuredText is read as rST; plain text stays plain.

lighttpd's manual (Debian's ``lighttpd-doc``) is 33 ``.txt`` pages in rST, like Django's
documentation and many projects' READMEs. Read as plain text (new-user review, 2026-12-03)
every page's title was its overline, "===================", no section was found, and quotes
carried ``:Author:`` fields, ``.. contents::`` and the ``::`` that opens an example.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _loaders import load, section
from citewise import Agent, KnowledgeBase

# Shaped like a lighttpd module page: an over- and underlined title, a subtitle, a field
# list, a contents directive, options as a field list, an example opened by "::".
PROXY = """\
===================
the Proxy Interface
===================

-----------------
Module: mod_proxy
-----------------

:Author: A. Writer
:Date: $Date: 2004/08/01 07:01:29 $

.. contents:: Table of Contents

Description
===========

The proxy module is the simplest way to connect the server to backends that speak HTTP.

Options
=======

:proxy.balance:
  might be one of 'hash', 'round-robin' or 'fair' (default).

  'hash' sends the same request URI to the same backend every time, which raises the
  backends' cache hit rate.

:proxy.debug:
  a value between 0 and 65535 that sets the debug level of the module.

Example
=======

Send every PHP request to two backends ::

  proxy.server = ( ".php" => ( ( "host" => "10.0.0.242" ) ) )
"""


def test_a_txt_page_in_rst_is_read_as_rst(tmp_path: Path) -> None:
    page = tmp_path / "proxy.txt"
    page.write_text(PROXY, encoding="utf-8")
    doc = load(page)
    assert doc.content_type == "text/x-rst"
    assert doc.title == "the Proxy Interface"
    options = section(doc, "the Proxy Interface > Module: mod_proxy > Options")
    assert "might be one of 'hash', 'round-robin' or 'fair' (default)." in options
    for junk in ("=====", ":Author:", ".. contents", "Table of Contents", "backends ::"):
        assert junk not in doc.text, junk
    assert 'proxy.server = ( ".php"' in doc.text  # the example, verbatim


@pytest.mark.parametrize("text", [
    # One underlined heading is how plain text marks a heading too.
    "Release notes\n=============\n\nThe 2.0 release drops Python 3.8. Upgrade with pip.\n",
    # A banner of equals signs and no rST at all.
    "=====================\nRELEASE NOTES 2.0\n=====================\n\nIt drops Python 3.8.\n",
    # No adornment: a line of dashes under a sentence that is longer than it.
    "Totals for the week\n---\nTea 3, coffee 5. See you at the meeting::\n",
])
def test_plain_text_stays_plain_text(tmp_path: Path, text: str) -> None:
    page = tmp_path / "NOTES.txt"
    page.write_text(text, encoding="utf-8")
    doc = load(page)
    assert doc.content_type == "text/plain"
    assert doc.text == text  # offsets index the file
    assert any(c.isalnum() for c in doc.title)  # never a line of "="


def test_a_page_docutils_makes_little_of_stays_plain_text(tmp_path: Path) -> None:
    # Two "titles", but most of the file is indented under a line starting "..", which rST
    # reads as a comment and drops: read as rST, most of the words would be lost.
    notes = "\n".join(f"   step {n}: copy the files of batch {n} to the archive" for n in range(30))
    text = f"Backup notes\n============\n\n.. kept from the old wiki\n{notes}\n\nDone\n====\n\nok\n"
    page = tmp_path / "backup.txt"
    page.write_text(text, encoding="utf-8")
    doc = load(page)
    assert doc.content_type == "text/plain" and doc.text == text


def test_a_large_file_stays_plain_text(tmp_path: Path) -> None:
    # docutils reads ~1 MB a second: a 2 MB+ file would hold the ingest for seconds.
    page = tmp_path / "big.txt"
    text = PROXY + "\nMore words in a long appendix.\n" * 80_000
    page.write_text(text, encoding="utf-8")
    doc = load(page)
    assert len(text) > 2_000_000 and doc.content_type == "text/plain" and doc.text == text


def test_an_answer_from_an_rst_txt_page_cites_its_section(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "proxy.txt").write_text(PROXY, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert not kb.ingest([tmp_path / "docs"]).failed
        answer = Agent(kb).ask("Which balancing method does the proxy module use by default?")
        assert answer.citations
        c = answer.citations[0]
        assert "'fair' (default)" in c.excerpt
        doc = answer.search_documents[c.document_index - 1]
        stored = kb.document_text(str(doc.document["id"]))
        assert stored is not None and stored[c.start_char:c.end_char] == c.excerpt
        assert c.snippet_index is not None
        assert (doc.snippets[c.snippet_index].section or "").endswith("> Options")


# Shaped like lighttpd's dirlisting page: each option's default is a paragraph of its own.
LISTING = """\
==================
Directory Listings
==================

Options
=======

:dir-listing.activate:
  enables virtual directory listings if a directory is requested and no index-file was
  found

  Default: disabled

:dir-listing.hide-dotfiles:
  if enabled, does not list hidden files in directory listings generated by the
  dir-listing option.

  Default: enabled

:dir-listing.show-readme:
  shows README.txt after the dirlisting if it exists in the directory

  Default: disabled
"""


def test_a_default_on_a_line_of_its_own_is_quoted_with_its_option(tmp_path: Path) -> None:
    """"Default: enabled" is the answer to "do hidden files show up?" — a short line without
    a full stop read as a title, and a paragraph of its own never joined the description it
    completes (review over lighttpd's manual, 2026-12-03)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "dirlisting.txt").write_text(LISTING, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert not kb.ingest([tmp_path / "docs"]).failed
        answer = Agent(kb).ask("Do hidden dotfiles show up in the directory listings?")
        quoted = [c.excerpt for c in answer.citations]
        assert len(quoted) >= 2, quoted
        assert quoted[0].endswith("does not list hidden files in directory listings generated "
                                  "by the dir-listing option."), quoted
        assert quoted[1] == "Default: enabled", quoted


# Shaped like git's manual pages (Debian's git-doc ships them as "git-bisect.txt"): an
# AsciiDoc page whose underlined titles look like rST's. Read as rST, the first line of
# every "----" listing block became a section ("… > $ git bisect good v2.6.13-rc2 …").
GIT_PAGE = """\
git-bisect(1)
=============

NAME
----
git-bisect - Use binary search to find the commit that introduced a bug


SYNOPSIS
--------
[verse]
'git bisect' <subcommand> <options>

DESCRIPTION
-----------
You start a bisect session as follows:

------------------------------------------------
$ git bisect start
$ git bisect good v2.6.13-rc2    # v2.6.13-rc2 is known to be good
------------------------------------------------

Bisect reset
~~~~~~~~~~~~

After a bisect session, to clean up the bisection state, see linkgit:git-reset[1]
and issue the following command:

------------------------------------------------
$ git bisect reset
------------------------------------------------
"""


def test_a_txt_page_in_asciidoc_is_read_as_asciidoc(tmp_path: Path) -> None:
    path = tmp_path / "git-bisect.txt"
    path.write_text(GIT_PAGE, encoding="utf-8")
    doc = load(path)
    assert doc.content_type == "text/asciidoc" and doc.title == "git-bisect(1)"
    assert [n for _, _, n in doc.sections] == [
        "git-bisect(1)", "git-bisect(1) > NAME", "git-bisect(1) > SYNOPSIS",
        "git-bisect(1) > DESCRIPTION", "git-bisect(1) > DESCRIPTION > Bisect reset"]
    assert "$ git bisect start\n$ git bisect good v2.6.13-rc2" in doc.text
    assert "[verse]" not in doc.text and "linkgit" not in doc.text and "----" not in doc.text
    assert "see git-reset(1) and issue" in doc.text


def test_titles_alone_make_no_asciidoc(tmp_path: Path) -> None:
    """nginx's notes on PHP (Debian's nginx-doc, new-user review 2026-12-06): "== … =="
    titles over regexes and shell, read as AsciiDoc, stored "location ~ \\../.\\.php$" for
    "location ~ \\..*/.*\\.php$" and cited it so. Stored as written, every character."""
    path = tmp_path / "php.txt"
    text = ("== PHP Options ==\n\nThere are a number of options.\n\n== PHP-FPM ==\n\n"
            "location ~ \\..*/.*\\.php$ {\n    fastcgi_split_path_info ^(.+\\.php)(/.+)$;\n"
            "}\n")
    path.write_text(text, encoding="utf-8")
    doc = load(path)
    assert doc.content_type == "text/plain" and doc.text == text


def test_a_label_or_a_scripts_first_line_is_no_title(tmp_path: Path) -> None:
    """Debian's nginx notes open with "##" / "#  File:" / "#    php", and its nginx_modsite
    with "#!/bin/bash": eight documents were titled "#  File:" (review, 2026-12-06). The
    file's name says more; a first line that is a title stays one."""
    for name, text, title in (
            ("php.txt", "##\n#  File:\n#    php\n##\n\nPHP options.\n", "php"),
            ("modsite.txt", "#!/bin/bash\n# Enables a site.\necho done\n", "modsite"),
            ("tents.txt", "Caring for tents\n\nAir them daily.\n", "Caring for tents")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert load(path).title == title


def test_plain_text_with_notes_is_no_asciidoc(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    text = "Shopping\n\nNOTE: buy milk.\n\nNOTE: and bread.\n\n[1] a footnote\n"
    path.write_text(text, encoding="utf-8")
    doc = load(path)
    assert doc.content_type == "text/plain" and doc.text == text
