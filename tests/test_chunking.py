"""Chunking: exact offsets on any Unicode, sizes, overlap, stable ids, page/section/line."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.errors import ConfigError
from citewise.knowledge.ingest.chunking import Chunker, chunk_id, chunk_text
from citewise.text import line_of

# Pieces that stress code-point offsets: astral emoji (and ZWJ sequences), combining
# marks, CJK with its own sentence ends, CRLF and lone CR line ends, RTL text, NBSP.
PIECES = [
    "Hello world.", "Refunds take 14 days!", "😀", "👩‍👩‍👧", "e\u0301", "n\u0303o",
    "東京は大きい。", "次の文？", "\r\n", "\r\n\r\n", "\n\n", "\r", " ", "\u00a0", "\t",
    "مرحبا بالعالم.", "Ünïcödé…", "a" * 50, "word " * 30, "?", ".",
]
texts = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(min_size=1, max_size=40)), min_size=1, max_size=40
).map("".join)


def _check(text: str, size: int, overlap: int) -> None:
    chunks = chunk_text("doc-1", text, size=size, overlap=overlap)
    for ch in chunks:
        assert ch.text == text[ch.start_char : ch.end_char]
        assert 0 <= ch.start_char < ch.end_char <= len(text)
        assert len(ch.text) <= size
        assert ch.line == line_of(text, ch.start_char)
        assert ch.id == chunk_id("doc-1", ch.start_char, ch.end_char, ch.text)
        assert 0 <= ch.id < 2**53
        assert not ch.text[0].isspace() and not ch.text[-1].isspace()
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    starts = [c.start_char for c in chunks]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)  # always moves on
    # Every non-space character is in some chunk: nothing is dropped.
    covered: set[int] = set()
    for c in chunks:
        covered.update(range(c.start_char, c.end_char))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(20, 300), st.integers(0, 9))
def test_offsets_are_exact_on_any_unicode(text: str, size: int, overlap_tenths: int) -> None:
    _check(text, size, size * overlap_tenths // 20)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=400))
def test_offsets_exact_on_arbitrary_text(text: str) -> None:
    _check(text, 60, 10)


def test_packs_sentences_with_overlap() -> None:
    sentences = [f"Sentence number {i} is here." for i in range(40)]
    text = " ".join(sentences)
    chunks = chunk_text("d", text, size=120, overlap=60)
    assert len(chunks) > 5
    for a, b in itertools.pairwise(chunks):
        assert b.start_char < a.end_char  # overlapping
        assert b.start_char > a.start_char
        # chunk boundaries fall on sentence boundaries
        assert text[b.start_char - 1 : b.start_char] in (" ", "")
        assert a.text.endswith(".")


def test_zero_overlap_partitions_sentences() -> None:
    text = " ".join(f"S{i} ends here." for i in range(30))
    chunks = chunk_text("d", text, size=50, overlap=0)
    for a, b in itertools.pairwise(chunks):
        assert b.start_char > a.end_char


def test_long_sentence_is_cut_at_whitespace() -> None:
    text = "word " * 100 + "end."
    chunks = chunk_text("d", text, size=64, overlap=0)
    assert len(chunks) > 5
    assert all(len(c.text) <= 64 for c in chunks)
    assert all(c.text.split() and set(c.text.split()) <= {"word", "end."} for c in chunks)


def test_ids_are_stable_and_depend_on_document_and_place() -> None:
    text = "One sentence. Another sentence."
    a = chunk_text("d1", text, size=20, overlap=0)
    assert [c.id for c in a] == [c.id for c in chunk_text("d1", text, size=20, overlap=0)]
    assert {c.id for c in a}.isdisjoint(c.id for c in chunk_text("d2", text, size=20, overlap=0))
    assert len({c.id for c in a}) == len(a)


def test_sections_and_pages_split_chunks_and_label_them() -> None:
    text = "# Intro\n\nHello there. More text.\n\n## Scope\n\nIn scope.\nSecond line."
    scope = text.index("## Scope")
    sections = [(0, scope, "Intro"), (scope, len(text), "Intro > Scope")]
    pages = [(0, 20, 1), (20, len(text), 2)]
    chunks = chunk_text("d", text, size=500, overlap=0, sections=sections, pages=pages)
    assert all(c.text == text[c.start_char : c.end_char] for c in chunks)
    by_section = {c.section for c in chunks}
    assert by_section == {"Intro", "Intro > Scope"}
    for c in chunks:
        # A chunk never straddles a section or page boundary.
        assert not (c.start_char < scope < c.end_char) and not (c.start_char < 20 < c.end_char)
        assert c.page == (1 if c.start_char < 20 else 2)
    last = chunks[-1]
    assert last.section == "Intro > Scope" and last.line == line_of(text, last.start_char) == 5


def test_chunker_validates_settings() -> None:
    with pytest.raises(ConfigError):
        Chunker(size=10)
    with pytest.raises(ConfigError):
        Chunker(size=100, overlap=60)
    assert Chunker(size=100, overlap=10).signature != Chunker(size=100, overlap=20).signature


def test_no_chunk_starts_after_an_abbreviation_or_a_page_reference() -> None:
    """The chunker's sentences are the quotes' sentences: "(p. 190)", "e.g." and "i.e."
    end none, so no chunk opens with "190)) for details." (a LaTeX PDF's cross-references
    made 5 % of gnuplot's chunks start so), and a sentence's closing bracket stays with it."""
    sentences = [
        "The lighting model is set per surface (see lighting (p. 190) for details).",
        "A palette maps values to colours, e.g. a gray scale for printing.",
        "Hidden surfaces are removed first, i.e. before any shading is applied.",
        "Contours are drawn on the base (p. 112) or on the surface.",
    ]
    text = " ".join(sentences * 6)
    starts = {text.find(s) for s in sentences} | {
        i for i in range(len(text)) if any(text.startswith(s, i) for s in sentences)}
    for size, overlap in [(80, 0), (160, 40), (240, 100)]:
        chunks = chunk_text("d", text, size=size, overlap=overlap)
        assert len(chunks) > 3
        for c in chunks:
            assert c.start_char in starts, c.text[:40]
            assert c.text.endswith((").", ".")) and c.text.count("(") == c.text.count(")"), c.text


def test_a_section_that_is_only_its_heading_is_no_chunk() -> None:
    """"2 Usage" over "2.1 Main options": the chapter's heading alone was a chunk that
    matched every search for its words and answered none (FFmpeg's review, 2026-12-05).
    Its words stay in the section path of the chunks under it."""
    text = "2 Usage\n\n2.1 Main options\n\nThe -y option overwrites output files."
    usage, main = text.index("2 Usage"), text.index("2.1 Main")
    sections = [(usage, main, "2 Usage"), (main, len(text), "2 Usage > 2.1 Main options")]
    roles = [(usage, usage + 7, "heading"), (main, main + 16, "heading")]
    chunks = chunk_text("doc", text, sections=sections, roles=roles)
    assert [c.text for c in chunks] == ["2.1 Main options\n\nThe -y option overwrites output files."]
    assert chunks[0].section == "2 Usage > 2.1 Main options" and chunks[0].ordinal == 0
    # A heading with nothing under it, not even a sub-section, stays a chunk: its words
    # are in no other chunk's section path.
    text = "Intro\n\nInstall\n\nRun pip install citewise."
    intro, install = 0, text.index("Install")
    chunks = chunk_text("doc", text, sections=[(intro, install, "Intro"),
                                               (install, len(text), "Install")],
                        roles=[(intro, 5, "heading"), (install, install + 7, "heading")])
    assert [c.text for c in chunks] == ["Intro", "Install\n\nRun pip install citewise."]


def test_a_long_listing_is_cut_between_its_lines_and_keeps_its_heading() -> None:
    """DocBook's page.height.portrait: "Synopsis" over a 2,450-character ``<xsl:choose>``
    listing was a chunk of its own, and the listing was cut inside its lines
    (``<xsl:when`` | ``test="$paper.type = 'A5'"…``; new-user review, 2026-12-05)."""
    lines = [f'    <xsl:when test="$paper.type = \'A{i}\'">{300 - i}mm</xsl:when>'
             for i in range(40)]
    text = "Synopsis\n\n" + "\n".join(lines)
    roles = [(0, 8, "heading"), (10, len(text), "code")]
    chunks = chunk_text("doc", text, size=800, overlap=0, roles=roles)
    assert chunks[0].text.startswith("Synopsis\n\n    <xsl:when")
    assert all(len(c.text) <= 800 for c in chunks)
    for c in chunks:  # every chunk is whole lines of the listing (after the heading)
        body = c.text.removeprefix("Synopsis\n\n")
        assert all(line.strip() in {x.strip() for x in lines} for line in body.split("\n"))
    assert "".join(c.text for c in chunks).count("<xsl:when") == len(lines)
    # Prose with no line ends is still cut at spaces.
    text = "word " * 100 + "end."
    assert all(set(c.text.split()) <= {"word", "end."}
               for c in chunk_text("d", text, size=64, overlap=0))


def test_a_long_list_is_cut_between_its_items_and_no_chunk_lies_inside_another() -> None:
    """pandoc's README (new-user review, 2026-12-05): its list of formats, items without
    full stops, is one "sentence" of 2,000 characters; it was cut inside an item wrapped
    over lines ("-   `fb2`" in one chunk, its description in the next), and the sentences
    before it came back as chunks inside the one before ("It can convert *from*" alone)."""
    items = [f"-   `fmt{i}`\n    ([Format number {i}](https://example.org/formats/{i}/spec)\n"
             f"    e-book)" for i in range(20)]
    text = "Pandoc can convert between formats. It reads many.\n\nIt can convert *from*\n\n" + \
        "\n".join(items)
    roles = [(text.index(item), text.index(item) + len(item), "list_item") for item in items]
    chunks = chunk_text("d", text, roles=roles)
    for c in chunks:
        body = c.text[c.text.index("-   `"):] if "-   `" in c.text else ""
        assert body.count("-   `") == body.count("e-book)"), c.text  # whole items only
    spans = [(c.start_char, c.end_char) for c in chunks]
    assert not [s for s, t in itertools.pairwise(spans) if t[1] <= s[1]]  # none inside another
    assert "".join(c.text for c in chunks).count("-   `fmt") == len(items)


def test_no_chunk_ends_on_a_list_items_number_alone() -> None:
    """An item that opens with a block reads "5." over its paragraph; a chunk ended on the
    number and the next repeated it with its text (GIMP's review, 2026-12-06)."""
    steps = "".join(f"{n}.\n\nStep {n} tells you to press the button number {n} once.\n\n"
                    for n in range(1, 9))
    text = "Saving a file takes these steps.\n\n" + steps
    chunks = chunk_text("d", text, size=120, overlap=0)
    assert len(chunks) > 3
    for ch in chunks:
        assert not re.search(r"(?:^|\n)\d\.\Z", ch.text), ch.text
        assert text[ch.start_char:ch.end_char] == ch.text
    assert all(re.match(r"\d\.\n\nStep \d", ch.text) for ch in chunks[1:])  # with its text


def test_a_sections_last_short_sentence_reaches_back_into_a_chunk_of_its_context() -> None:
    """Privoxy's FAQ ends a section with "As of Privoxy 3.0.7 these options are disabled by
    default.": after a full chunk of long sentences it was a 58-character chunk of its
    own, and no search for the options it speaks of found it (new-user review,
    2026-12-07). A region's last chunk that short reaches back as far as the size allows."""
    long = ("The actions editor and the remote toggle can be reached from any browser that "
            "talks to the proxy, and " + "anyone on the network can use them " * 8 + "alike.")
    text = " ".join([long] * 4) + " As of 3.0.7 these options are disabled by default."
    chunks = chunk_text("d", text, size=800, overlap=120)
    last = chunks[-1]
    assert last.text.endswith("these options are disabled by default.")
    assert last.text.startswith("The actions editor"), last.text
    assert len(last.text) <= 800
    # It reaches back to half a chunk, not the whole size: a near copy of the one before.
    short = ("The remote toggle can be reached from any browser on the local network, and "
             "anyone who can reach the proxy can use it too. ")
    tail = "These options are turned off by default in every release since 3.0.7."
    text = short * 12 + tail
    chunks = chunk_text("d", text, size=800, overlap=120)
    last = chunks[-1]
    assert last.text.endswith(tail) and 400 <= len(last.text) < 480, last.text
    assert all(text[c.start_char:c.end_char] == c.text for c in chunks)
    assert all(text[c.start_char:c.end_char] == c.text for c in chunks)
    assert all(len(c.text) > 200 for c in chunks)


def test_a_sentence_a_page_leaves_open_ends_in_its_chunk() -> None:
    """A PDF's page break inside a sentence (the loader joins such pages by one line break)
    cut the sentence in two chunks: Asymptote's quote ended "… retained in the file
    .asy/history in the user's" (review, 2026-12-07). The chunk goes on to the sentence's
    end and cites the page it starts on; a page that ends its paragraph is cut as before."""
    one = ("Interactive mode keeps a history. A history of the most recent commands will be "
           "retained in the file .asy/history in the user's")
    two = "home directory (unless the option was given). The next sentence is on page two."
    text = f"{one}\n{two}"
    pages = [(0, len(one), 1), (len(one) + 1, len(text), 2)]
    chunks = chunk_text("d", text, size=500, overlap=0, pages=pages)
    assert [c.text for c in chunks] == [
        f"{one}\nhome directory (unless the option was given).", "The next sentence is on page two."]
    assert [c.page for c in chunks] == [1, 2]
    assert all(c.text == text[c.start_char:c.end_char] for c in chunks)
    # A page that ends its paragraph: the page is the cut.
    apart = f"{one}.\n\n{two}"
    pages = [(0, len(one) + 1, 1), (len(one) + 3, len(apart), 2)]
    assert [c.page for c in chunk_text("d", apart, size=500, overlap=0, pages=pages)] == [1, 2]
    assert chunk_text("d", apart, size=500, overlap=0, pages=pages)[0].text == f"{one}."
    # The sentence is cut as quotes cut it: not after "p." or "e.g.", nor inside ". . .";
    # and one that ends the text is carried too (code review, 2026-12-07).
    for rest in ("home directory (see p. 190) for details.", "home directory, e.g. the one "
                 "you log in to.", "home directory . . . and more words.", "home directory."):
        joined = f"{one}\n{rest} After it."
        pages = [(0, len(one), 1), (len(one) + 1, len(joined), 2)]
        first = chunk_text("d", joined, size=500, overlap=0, pages=pages)[0]
        assert first.text == f"{one}\n{rest}", first.text
    last = f"{one}\nhome directory."
    pages = [(0, len(one), 1), (len(one) + 1, len(last), 2)]
    assert [c.text for c in chunk_text("d", last, size=500, overlap=0, pages=pages)] == [last]
    # A section that starts before the sentence ends keeps the page's cut.
    sections = [(0, len(one) + 1, "A"), (len(one) + 1, len(text), "B")]
    pages = [(0, len(one), 1), (len(one) + 1, len(text), 2)]
    cut = chunk_text("d", text, size=500, overlap=0, sections=sections, pages=pages)
    assert cut[0].text == one


def test_no_chunk_starts_inside_a_table_row() -> None:
    """ImageMagick's WebP options (review, 2026-12-08): a row of several sentences was cut
    between them, and a chunk began "Possible values range from 0 to 6. Default value is
    4." — the answer, with nothing saying it is the compression method's. A row's
    sentences are one unit; outside a table, sentences are packed as before."""
    from citewise.knowledge.ingest.chunking import chunk_text
    from citewise.knowledge.loaders.html import read_html

    rows = "".join(
        f"<tr><td>option{i}=value</td><td>The setting number {i} of the encoder. Lower "
        f"values might be faster. Possible values range from 0 to {i}. Default value is "
        f"{i - 1}.</td></tr>" for i in range(1, 16))
    text, _, sections, _, roles = read_html(f"<html><body><h1>WebP</h1><table>{rows}</table>"
                                            "<p>One. Two. Three. Four.</p></body></html>")
    chunks = chunk_text("d", text, size=400, overlap=80, sections=sections, roles=roles)
    assert len(chunks) > 3
    for c in chunks:
        body = c.text.lstrip()
        assert body.startswith(("WebP", "option")), body[:60]
        assert all(line.startswith("option") and line.endswith(".")
                   for line in body.splitlines()[1 if body.startswith("WebP") else 0:]
                   if "|" in line), body
