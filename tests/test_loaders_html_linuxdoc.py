"""LinuxDoc-Tools' HTML (BIRD's user's guide, Debian's ``bird2-doc``; new-user review of
2026-12-06): each page opens and closes with "Next Previous Contents", three links written
straight into the body, outside any bar or paragraph — stored as a chunk of its own on
every page."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

PAGE = """<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<HTML><HEAD><META NAME="GENERATOR" CONTENT="LinuxDoc-Tools 1.0.9">
<TITLE>BIRD 2.0 User's Guide: Configuration</TITLE>
<LINK HREF="bird-4.html" REL=next><LINK HREF="bird-2.html" REL=previous></HEAD>
<BODY>
<A HREF="bird-4.html">Next</A>
<A HREF="bird-2.html">Previous</A>
<A HREF="bird.html#toc3">Contents</A>
<HR>
<H2><A NAME="config"></A> <A NAME="s3">3.</A> <A HREF="bird.html#toc3">Configuration</A></H2>
<P>BIRD is configured using a text configuration file. See the
<A HREF="bird-4.html">next</A> chapter for filters.
<P>Read the <A HREF="bird.html#toc3">Contents</A> first.
<HR>
Old pages put their text straight into the body too: see the <A HREF="bird-4.html">next</A>
chapter, or the <A HREF="bird.html#toc3">contents</A>.
<HR>
<A HREF="bird-4.html">Next</A>
<A HREF="bird-2.html">Previous</A>
<A HREF="bird.html#toc3">Contents</A>
</BODY></HTML>"""


def test_page_turns_written_straight_into_the_body_are_left_out() -> None:
    text = read_html(PAGE)[0]
    assert text.startswith("3. Configuration\n\n")
    # Those in a sentence written straight into the body are the sentence's (code review).
    assert text.endswith("Read the Contents first.\n\nOld pages put their text straight into "
                         "the body too: see the next chapter, or the contents.")
    # A page turn's word inside a paragraph is the sentence's own.
    assert "See the next chapter for filters." in text
