"""What two new-user reviews (2026-12-07) found in the text stored and the names read:
Graphviz's hand-written HTML 2 pages (a list in a ``<MENU>``, DOT examples in ``<XMP>``, an
``<IMG … />`` in upper case) and a Tornado question naming "the pure-Python
SimpleAsyncHTTPClient", declined as a name no page mentions."""

from __future__ import annotations

from citewise.knowledge.loaders.html import extract_html
from citewise.models.answerability import named, unnamed


def test_a_menu_is_a_list_not_navigation() -> None:
    """Graphviz's DOT language page lists the four forms of an ID in a ``<MENU>``: they were
    dropped, and "An ID is one of the following:" stood over nothing."""
    text, *_ = extract_html(
        "<HTML><BODY><H1>The DOT Language</H1><P>An <I>ID</I> is one of the following: "
        "<MENU><LI> Any string of alphabetic characters, not beginning with a digit;"
        "<LI> a numeral;<LI> an HTML string (&lt;...&gt;).</MENU>"
        "An ID is just a string.</BODY></HTML>")
    assert "Any string of alphabetic characters, not beginning with a digit;" in text
    assert "\nan HTML string (<...>).\n" in text
    # HTML 2's <DIR> is a list too.
    text, *_ = extract_html("<html><body><p>Files:</p><DIR><LI>a.gv<LI>b.gv</DIR></body></html>")
    assert "\na.gv\nb.gv" in text
    # … while a menu that names itself navigation is still left out.
    text, *_ = extract_html("<html><body><menu class='navbar'><li><a href='/'>Home</a></li>"
                            "</menu><p>The body text.</p></body></html>")
    assert "Home" not in text and "The body text." in text


def test_an_xmp_is_preformatted_code_with_its_markup_as_text() -> None:
    """Graphviz shows its DOT examples and an image map's HTML in ``<XMP>``s: they were read
    as one line run into the next sentence ("… b -> {c d} } yields the figure"), and the
    ``<IMG … />`` written "<IMG …></IMG>"."""
    text, *_ = extract_html(
        "<HTML><BODY><P>For example, the following graph\n<XMP>\ndigraph G {\n  a -> b\n"
        "  b -> c\n  c -> d\n}\n"
        "</XMP>\nyields the figure.<P>Refer to it in a web page:\n<XMP>\n"
        '<A HREF="x.map"><IMG SRC="x.gif" ismap="ismap" /></A>\n</XMP>\nDone.</BODY></HTML>')
    assert "\n\ndigraph G {\n  a -> b\n  b -> c\n  c -> d\n}\n\nyields the figure." in text
    assert '\n\n<A HREF="x.map"><IMG SRC="x.gif" ismap="ismap" /></A>\n\nDone.' in text
    # HTML 2's <LISTING> is preformatted as well.
    text, *_ = extract_html("<html><body><p>Run:</p><LISTING>dot -Tpng\n  -o x.png\n  x.gv\n"
                            "  -v</LISTING><p>Done.</p></body></html>")
    assert "dot -Tpng\n  -o x.png\n  x.gv\n  -v" in text


def test_a_title_case_phrase_is_words_not_an_identifier_nor_a_words_part() -> None:
    question = "Is the pure-Python SimpleAsyncHTTPClient what Tornado uses by default?"
    assert "python simpleasynchttpclient" not in named(question)
    passages = [{"results": [{"title": "tornado.simple_httpclient", "section": "",
                              "text": "class tornado.simple_httpclient.SimpleAsyncHTTPClient "
                                      "Non-blocking HTTP client with no external "
                                      "dependencies. This is the default in Python."}]}]
    assert unnamed(question, passages) == []
    # … while words in title case are still one name.
    assert named("Does it back up to Time Machine?") == ["time machine"]
    assert named("Can I use GitHub Actions for it?") == ["github actions"]


def test_an_faqs_numbered_questions_in_bold_are_headings() -> None:
    """Graphviz's FAQ writes its questions as a bold run in a paragraph, misnested in a
    self-link (``<A name=Q2 HREF=#Q2><B>Q2</A>. Where can I discuss Graphviz?</B>``), and
    SQLite's as long bold questions ("(12) I deleted a lot of data but …"): they were
    sentences, and two of Graphviz's were quoted back as answers. A contents line's bold
    link and bold words apart ("kdig -h") are still no headings."""
    text, _, sections, _ = extract_html(
        "<html><body><h2>General</h2><p><a name='mailinglist'></a><A name=Q2 HREF=#Q2>\n"
        "<B>Q2</A>. Where can I discuss Graphviz?</B>\n<p>We run a mailing list.\n"
        "<p><b>(12) I deleted a lot of data but the database file did not get any smaller. "
        "Is this a bug?</b></p><p>No. When you delete information, pages are left unused."
        "</p><P>\n<A name=Q15>\n<B>Q. When I have a red edge it shows up as a solid red in PNG "
        "and GIF formats, but has a black border when rendered to JPEG.  </B>\n</A>\n<P>This "
        "is an artifact of JPEG's lossy compression algorithm."
        "<p><a href='#1'><b>Quick reminder about HTTP</b></a></p>"
        "<p><strong>kdig</strong> <strong>-h</strong></p><p>Prints the help.</p>"
        "</body></html>")
    names = [name.rsplit(" > ", 1)[-1] for _, _, name in sections]
    assert "Q2. Where can I discuss Graphviz?" in names
    assert ("(12) I deleted a lot of data but the database file did not get any smaller. "
            "Is this a bug?") in names
    assert ("Q. When I have a red edge it shows up as a solid red in PNG and GIF formats, "
            "but has a black border when rendered to JPEG.") in names
    assert "Quick reminder about HTTP" not in names and "kdig -h" not in names
    mailing = next(s for s in sections if s[2].endswith("Graphviz?"))
    assert text[mailing[0]:mailing[1]].strip().endswith("We run a mailing list.")
