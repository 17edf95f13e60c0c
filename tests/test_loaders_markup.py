"""The markup formats people keep, on real files written here: reStructuredText and AsciiDoc
rendered to what a reader reads, with section spans whose offsets index the stored text."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._loaders import load, section, section_of

from citewise.errors import IngestError

# -- reStructuredText ------------------------------------------------------------------------

RST = """\
=============
 Field guide
=============

The guide covers **tents** and *stoves*; see :ref:`Packing list <packing>` and
:func:`~outfit.stoves.light`. Read the `manual <https://example.org/m>`_.

.. note:: Never cook inside a tent.

.. toctree::

   tents
   stoves

.. _packing:

Packing list
============

- a sleeping bag rated to -5 C
- two litres of water

#. pitch the tent
#. light the stove

Stoves
------

.. code-block:: python

   stove.light(match=True)

.. versionadded:: 2.1
   Alcohol stoves are covered.

=======  ======
Fuel     Hours
=======  ======
Gas      3
Alcohol  1
=======  ======

.. include:: secret.txt

.. raw:: html

   <script>alert(1)</script>
"""


def test_rst_renders_reader_text_with_sections(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP SECRET PASSWORD")
    path = tmp_path / "guide.rst"
    path.write_text(RST)
    doc = load(path)
    assert doc.content_type == "text/x-rst"
    assert doc.title == "Field guide"
    text = doc.text
    assert "The guide covers tents and stoves; see Packing list and light." in text
    for markup in ("**", ":ref:", "`", "===", "---", ".. ", "<https", "toctree"):
        assert markup not in text, markup
    assert "Note: Never cook inside a tent." in text
    assert "- a sleeping bag rated to -5 C\n- two litres of water" in text
    assert "1. pitch the tent\n2. light the stove" in text
    assert "stove.light(match=True)" in text
    assert "Alcohol stoves are covered." in text
    assert "Gas | 3" in text
    # Neither another file of the server nor raw HTML gets in.
    assert "SECRET" not in text
    assert "script" not in text
    assert [n for _, _, n in doc.sections] == [
        "Field guide", "Field guide > Packing list", "Field guide > Packing list > Stoves"]
    assert section(doc, "Field guide > Packing list").startswith("Packing list\n\n- a sleeping")
    assert section_of(doc, "Gas | 3") == "Field guide > Packing list > Stoves"
    assert section(doc, "Field guide > Packing list > Stoves").endswith("Alcohol | 1")


def test_rst_without_headings_and_empty(tmp_path: Path) -> None:
    path = tmp_path / "notes.rest"
    path.write_text("Just a paragraph with ``code``.\n")
    doc = load(path)
    assert doc.text == "Just a paragraph with code."
    assert doc.sections == []
    assert doc.title == "notes"
    empty = tmp_path / "empty.rst"
    empty.write_text(".. a comment only\n")
    with pytest.raises(IngestError) as err:
        load(empty)
    assert err.value.code == "empty_document"
    # A docs/index.rst that only includes the README says so (includes are never read).
    index = tmp_path / "index.rst"
    index.write_text(".. include:: ../README.rst\n")
    with pytest.raises(IngestError) as err:
        load(index)
    assert err.value.code == "empty_document"
    assert "only includes ../README.rst" in err.value.message
    assert err.value.details["includes"] == ["../README.rst"]




# -- AsciiDoc --------------------------------------------------------------------------------

ADOC = """\
= Field Guide
Ada Walker <ada@example.org>
v2.1, 2026-01-01
:product: OutfitPro

The *{product}* guide covers _tents_ and `stoves`. See <<packing,the packing list>>
and link:https://example.org/m[the manual].

// a comment line
////
A comment block.
////

NOTE: Never cook inside a tent.

[[packing]]
== Packing list

* a sleeping bag
* two litres of water

. pitch the tent
. light the stove

Fuel:: gas or alcohol

=== Stoves

.Lighting a stove
[source,python]
----
stove.light(match=True)
----

|===
|Fuel |Hours

|Gas |3
|Alcohol |1
|===

include::secret.adoc[]

++++
<script>alert(1)</script>
++++

Older Style Title
-----------------

Line one +
line two.
"""


def test_asciidoc_renders_reader_text_with_sections(tmp_path: Path) -> None:
    (tmp_path / "secret.adoc").write_text("TOP SECRET PASSWORD")
    path = tmp_path / "guide.adoc"
    path.write_text(ADOC)
    doc = load(path)
    assert doc.content_type == "text/asciidoc"
    assert doc.title == "Field Guide"
    assert doc.metadata["attributes"] == {"product": "OutfitPro"}
    text = doc.text
    assert text.startswith("Field Guide\n\nThe OutfitPro guide covers tents and stoves. See "
                           "the packing list and the manual.\n\n")
    assert "Ada Walker" not in text and "v2.1" not in text  # the header's lines
    for gone in ("comment", "SECRET", "script", "[[", "----", "|==="):
        assert gone not in text, gone
    assert "NOTE: Never cook inside a tent." in text
    assert "- a sleeping bag\n- two litres of water" in text
    assert "1. pitch the tent\n2. light the stove" in text
    assert "Fuel\ngas or alcohol" in text
    assert "Lighting a stove\n\nstove.light(match=True)\n\nFuel | Hours\nGas | 3\nAlcohol | 1" \
        in text
    assert "Line one\nline two." in text
    assert [n for _, _, n in doc.sections] == [
        "Field Guide", "Field Guide > Packing list", "Field Guide > Packing list > Stoves",
        "Field Guide > Older Style Title"]
    assert section(doc, "Field Guide > Packing list").startswith("Packing list\n\n- a sleeping")
    assert section_of(doc, "Gas | 3") == "Field Guide > Packing list > Stoves"
    assert section(doc, "Field Guide > Older Style Title") == \
        "Older Style Title\n\nLine one\nline two."


def test_asciidoc_unclosed_block_and_empty(tmp_path: Path) -> None:
    path = tmp_path / "notes.asciidoc"
    path.write_text("Intro line.\n\n----\nno closing delimiter\n")
    doc = load(path)
    assert doc.text == "Intro line.\n\nno closing delimiter"
    assert doc.sections == [] and doc.title == "notes"
    empty = tmp_path / "empty.adoc"
    empty.write_text("// only a comment\n:attr: x\n")
    with pytest.raises(IngestError) as err:
        load(empty)
    assert err.value.code == "empty_document"


def test_asciidoc_link_without_text_reads_as_its_url(tmp_path: Path) -> None:
    # Asciidoctor renders ``link:URL[]`` as the URL; it was dropped ("available at .").
    path = tmp_path / "README.adoc"
    path.write_text("= Jetty\n\nDocumentation is available at link:https://jetty.org/docs/[].\n"
                    "See link:https://example.org/faq[the FAQ] too.\n")
    text = load(path).text
    assert "Documentation is available at https://jetty.org/docs/." in text
    assert "See the FAQ too." in text
