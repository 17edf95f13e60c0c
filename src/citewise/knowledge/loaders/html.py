"""HTML: the readable main text of a page, its title, and heading-based sections.

Extraction (selectolax/lexbor) keeps what a reader would read: the ``<main>``/``<article>``
element when the page has one (else ``<body>``), without scripts, styles, navigation,
headers, footers, asides, forms and hidden elements. Outside the main content, elements
whose class/id names them as boilerplate (menus, cookie banners, share bars) go too; inside
it such names describe content (a restaurant's menu, a cookie policy), so they are ignored.
Should that leave no text, the body is read instead, and then the body without the class/id
guesses. Block elements become paragraphs separated by a blank line, list items and table
rows become lines, whitespace inside a block is collapsed, and ``<pre>`` keeps its own. The
extracted text is what is stored; ``sections`` map it back to the page's heading structure
(``"Install > Linux"``) and ``metadata["anchors"]`` maps element ids to offsets in it, so a
citation can link to ``page.html#linux``. Permalink marks (the ``¶`` self-links of Sphinx
and Texinfo pages) are dropped: they would reach section paths and quotes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders._blocks import section_spans, tidy_roles
from citewise.knowledge.loaders._decode import decode_markup, file_metadata
from citewise.knowledge.loaders._html_blocks import (
    LISTING_CODE,
    ahead_of_term,
    block_role,
    class_names,
    element_id,
    element_sibling,
    is_caption,
    is_code_block,
    is_exponent,
    is_keyword,
    is_section,
    opens_entry,
)
from citewise.knowledge.loaders._html_captions import inline_image
from citewise.knowledge.loaders._html_chrome import (
    is_banner,
    is_boilerplate,
    is_empty_category,
    is_footnote,
    is_navigation,
    tab_label,
    text_sidebar,
)
from citewise.knowledge.loaders._html_colophon import is_colophon
from citewise.knowledge.loaders._html_content import main_content
from citewise.knowledge.loaders._html_contents import is_contents, is_index
from citewise.knowledge.loaders._html_display import code_display
from citewise.knowledge.loaders._html_generators import drawn_before, heading_depth, math_text, search_heading
from citewise.knowledge.loaders._html_links import is_jump_link, is_page_turn, is_permalink
from citewise.knowledge.loaders._html_lists import item_number, list_type, start_number
from citewise.knowledge.loaders._html_man import is_man_page, write_man_page
from citewise.knowledge.loaders._html_meta import front_matter_title, meta_content, page_metadata
from citewise.knowledge.loaders._html_notes import (
    admonition_label,
    footnote_label,
    footnote_marker,
    inline_note,
    is_item_label,
)
from citewise.knowledge.loaders._html_out import BLOCK_HEADING, Out, run_on
from citewise.knowledge.loaders._html_pre import BLOCK, DROP, PRE, pre_text
from citewise.knowledge.loaders._html_repair import closed_empty
from citewise.knowledge.loaders._html_rows import (
    column_used,
    entry_name,
    field_names,
    first_cell,
    header_row,
    mark_text,
)
from citewise.knowledge.loaders._html_scribble import LINE_TABLES as SCRIBBLE_LINES
from citewise.knowledge.loaders._html_scribble import table_lines
from citewise.knowledge.loaders._html_tables import in_box, is_layout_cell
from citewise.knowledge.loaders._javadoc import doc_comment_shift, is_javadoc, member_title
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["HtmlLoader", "extract_html"]

_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_SPACE = re.compile(r"\s+")
_VISIBLE = re.compile(r"\S")
# A zero-width space shows nothing (Javadoc writes one before every signature's "("), nor
# do control characters: crmsh's transcripts keep their colours' ESC bytes, 144 on a page,
# printed raw by `citewise search` (review, 2026-12-05). Tab, LF, FF and CR are spaces.
_INVISIBLE = re.compile(r"\u200b|&#8203;|&#x200b;|&ZeroWidthSpace;|[\x00-\x08\x0b\x0e-\x1f\x7f]|"
                        r"&#(?:0*(?:[0-8]|11|1[4-9]|2\d|3[01]|127)|x0*(?:[0-8bef]|1[\da-f]|7f));",
                        re.I)


def _visible(text: str, at: int) -> int:
    """The first visible character's offset from ``at`` on (the text's end if none)."""
    m = _VISIBLE.search(text, at)
    return m.start() if m is not None else len(text)


def _walk(node: Any, out: Out, in_main: bool = False, guess: bool = True) -> None:
    """Write ``node``'s readable content to ``out``; ``in_main``: inside the page's main
    content, where only structural chrome is left out."""
    child = node.child
    while child is not None:
        tag = child.tag
        if tag == "-text":
            out.text(child.text_content or "")
        elif tag == "header" and in_main:
            _walk(child, out, in_main, guess)  # an article's own header holds its headline
        elif tag == "h" and (name := search_heading(child)):
            out.entry_heading(name)
        elif (
            tag in ("-comment", "-doctype")
            or (tag in DROP and not (tag == "aside" and (is_footnote(child)
                                                           or text_sidebar(child))))
            or is_boilerplate(child, guess and not in_main)
            or is_navigation(child)
            or is_colophon(child)
            or (not out.contents and is_contents(child))
            or is_index(child)
            or child.mem_id in out.field_skip
        ):
            pass
        elif (tag == "a" and (is_permalink(child) or is_jump_link(child) or
                              is_page_turn(child))) or \
                (tag == "span" and is_empty_category(child)) or \
                (guess and not in_main and is_banner(child)):
            pass  # a "¶" link, a page turn, a blank category, a site's banner: read by no one
        elif (out.cells or out.heading) and (tag in BLOCK or tag == "br"
                                             or tag in _HEADINGS):
            # A cell's paragraphs, line breaks and lists (Sphinx puts every cell in a <p>)
            # stay on its row's line: "count() | start, [step] | …", not a line a cell; and
            # a title is one line (rustdoc's signature over four, Erlang's in its <div>s).
            # A cell's list items are set apart as a reader sees them, one a line: "“fail” =
            # throws a BuildException; “warn” = logs …" (Ant's jar task, review 2026-12-05).
            before = element_sibling(child, "prev") if out.cells and tag == "li" else None
            if before is not None and before.tag == "li":  # an item after another
                while out.line and not out.line[-1].strip():
                    out.line.pop()  # the space after the item before
                ended = bool(out.line) and out.line[-1].rstrip()[-1:] in ".;:,!?"
                out.line.append(" " if ended else "; ")
            else:
                out.line.append(" ")
            _walk(child, out, in_main, guess)
            out.line.append(" ")
        elif tag == "br":
            out.line.append("\n")  # collapsed to a space unless it ends the block
            lead = out.flush("\n")
            if lead is not None and is_item_label(child, first_break=True):
                # "<li><code>D</code><br>Same as d, …": the item's name over its text, a
                # term ("I Emit a decimal number …" read as a sentence: SWI-Prolog's review).
                out.mark_term(lead)
        elif tag in PRE and is_man_page(shown := pre_text(child)):
            out.anchor(child)
            write_man_page(shown, out, 1 + out.shift)
        elif not (out.cells or out.heading) and (
                display := code_display(child, element_id)) is not None:
            out.anchor(child)  # a <tt> of lines (in a table's row its text is the cell's)
            shown, marks = display
            if written := out.raw(shown):
                out.roles.append((written[0], written[0] + len(written[1]), "code"))
                for offset, ident in marks:
                    out.anchors.setdefault(ident, written[0] + offset)
        elif tag in PRE or is_code_block(child):
            out.anchor(child)
            # read once; a Pygments table's code is its <pre> beside the line numbers
            listing = child.css_first(LISTING_CODE) if tag == "table" else None
            written = out.raw(shown if tag in PRE else table_lines(child, pre_text(
                listing or child)))
            # A <pre class="text"> is prose kept in its lines (haproxy-dconv's descriptions;
            # its examples are "prettyprint"), and "prettyprint arguments" a keyword's
            # arguments described in sentences, not code (HAProxy's review, 2026-12-05).
            prose = bool({"text", "arguments", *SCRIBBLE_LINES} & class_names(child))
            if written and not prose:
                role = "doctest" if written[1].lstrip().startswith(">>>") else "code"
                out.roles.append((written[0], written[0] + len(written[1]), role))
        elif label := admonition_label(child):
            out.flush("\n\n")
            for inner in child.traverse(include_text=False):
                out.anchor(inner)  # a footnote's id: its label, the note's first character
            out.marker += label  # "Note: " on the line of the note's first paragraph
        elif tag in _HEADINGS:
            out.anchor(child)
            written = out.flush()
            out.heading = True
            _walk(child, out, in_main, guess)
            out.heading = False
            written = out.flush()
            if written and in_box(child):
                # A framed box's own caption ("Figure 5", "Translation:"): a heading for
                # what is in the box, no section of the page (the Haskell Report's review,
                # 2026-12-07: "Translation: > 4.2.2 Type Synonym Declarations").
                out.roles.append((written[0], written[0] + len(written[1]), "heading"))
            elif written:
                title = member_title(written[1], out.ids_at(written[0])) if out.javadoc \
                    else written[1]
                level = out.level(_HEADINGS[tag] + heading_depth(child))
                out.add_heading(written[0], level, title, len(written[1]), child)
            if out.notes:
                out.write_notes()  # a note its title cites: the section's first paragraph
        elif tag in ("td", "th") and out.cells == 0 and is_layout_cell(child):
            out.flush("\n\n")  # a layout cell is a block: "IdleTimeout" over its description
            _walk(child, out, in_main, guess)
            out.flush("\n\n")
        elif tag in ("td", "th") and not is_layout_cell(child):
            out.carry(out.spans.before(child))
            out.cell()
            out.anchor(child)
            out.cells += 1
            written_from = len(out.line)
            if (child.text(deep=True) or "").strip():
                if child.mem_id in out.fields:
                    out.text(f"{out.fields[child.mem_id]}: ")  # "default: 10"
                _walk(child, out, in_main, guess)
            else:
                # An empty first cell of a column that has text elsewhere ("www" over two
                # rows left blank in BIND's zone tables) keeps the row's columns in place:
                # "| 600 | IN | A | 10.0.0.2", not "600 | IN | A …" (review, 2026-12-05).
                out.row_begun = first_cell(child) and column_used(child, out.first_columns)
                for inner in child.traverse(include_text=False):
                    out.anchor(inner)  # an empty cell's ids point at what follows
                out.text(mark_text(child))
            out.spans.record(child, out.line[written_from:])  # a spanning cell's text
            out.cells -= 1
        elif tag in BLOCK:
            out.anchor(child)
            sep = "\n" if tag in ("li", "tr", "dt", "dd") else "\n\n"
            lead = out.flush("\n\n" if opens_entry(child) else sep)
            if lead is not None and is_item_label(child):  # "force-hshift" over its text
                out.mark_term(lead)
            if out.notes and not out.cells and tag not in _ROWS:
                out.write_notes()  # cited by the paragraph before this block
            if tag == "dt":  # ids past a "[det]" before the name name the term
                for inner in ahead_of_term(child):
                    out.anchor(inner)
            kind, at = block_role(tag, child), out.length
            if (tab := tab_label(child)) is not None:
                # A tab's name over its panel, as a caption: "PowerShell" over its commands.
                out.text(tab)
                if (line := out.flush()) is not None:
                    out.roles.append((line[0], line[0] + len(line[1]), "heading"))
                at = out.length
            if tag == "ol":
                out.numbers.append([start_number(child.attributes.get("start")),
                                    list_type(child)])
            elif tag == "li" and out.numbers and child.parent is not None \
                    and child.parent.tag == "ol":
                out.write_marker()  # an item that opens with a list: its number stays
                out.marker = item_number(out.numbers[-1], child.attributes.get("value"))
            elif tag in ("aside", "div") and is_footnote(child):
                out.marker = footnote_label(child)  # "[1] Only “nodump” … are supported."
            shift, headed, floor = out.shift, len(out.headings), out.floor
            if out.javadoc and (comment := doc_comment_shift(child, out.headings)) is not None:
                out.shift = comment
            if tag == "article":
                out.floor = -1  # its first heading's level, once written (Out.level)
            elif tag == "tr":
                out.spans.row(child)  # where the cells spanning rows above fall in it
            elif tag == "table" and (names := field_names(child)) is not None:
                out.field_skip.update(names[0])
                out.fields.update(names[1])
            _walk(child, out, in_main or tag in ("article", "main"), guess)
            if tag == "tr":
                out.carry(out.spans.end_row(child))
            out.shift, out.floor = shift, floor
            written = out.flush(sep)
            if len(out.headings) > headed and is_section(child):
                out.end_section(headed)  # gtk-doc's "Since: 2.12" after its Parameters
            if tag in _SCOPES and out.bold_open and len(out.headings) > headed:
                # A bold line inside an entry or an item ("VCD", "DV" over the examples
                # of FFmpeg's -target) heads that entry's rest, not every entry after it:
                # "DV" was the section of 9 chunks of options down to 5.4's end.
                out.ends.append(out.length)
                out.bold_open = False
            if kind == "heading" and written is not None and not is_caption(child, written[1]):
                # A heading written as a bold line (a FAQ's title, a manual's keyword
                # entry "hard-stop-after <time>"): its own section, below every <hN>, so
                # chunks do not straddle two entries and a quote's section names its entry.
                out.bold_heading(written, is_keyword(child))
            if tag == "li":
                out.marker = ""  # an item with no text: its number is not written
            if tag == "ol":
                out.numbers.pop()
            if kind is not None and out.length > at:
                out.roles.append((at, out.length, kind))
            elif tag == "tr" and written is not None and header_row(child):
                out.roles.append((written[0], written[0] + len(written[1]), "heading"))
            if tag == "table" and out.length > at and (name := entry_name(child)):
                out.headings.append((at, BLOCK_HEADING, name))  # starts on its text: _read
                out.bold_open = False
            if out.notes and not out.cells and tag not in _ROWS:
                out.write_notes()  # after the block's role and section end
        elif tag == "img" and (shown := inline_image(child)):
            out.text(shown)  # an icon with no alt text in a sentence: "[image: clone-bad]"
        elif tag in ("sup", "a") and (marker := footnote_marker(child)):
            out.text(marker)  # "tables[1]", not "tables1"
        elif tag == "sup" and (note := inline_note(child)) is not None:
            out.text(note[0])  # "portable[142] way to …"; the note after the paragraph
            out.notes.append((f"{note[0]} {note[1]}", note[2]))
        elif tag == "q":
            # A browser draws an inline quotation's marks: "defaults to “fail”", "the empty
            # string “” is in this set, as is comma “,”" (Ant's manual, 2,697 of them: 13
            # of a review's 30 labels could not be found without them; 2026-12-05).
            out.text("“")
            _walk(child, out, in_main, guess)
            out.text("”")
        elif (math := math_text(child)) is not None:
            out.text(math)  # MathJax's TeX as it reads: "O(n^2)"
        elif (drawn := drawn_before(child)) is not None:
            out.text(drawn)  # "park_timeout_ms Deprecated", "sep : str" as a stylesheet draws
            _walk(child, out, in_main, guess)
        elif tag == "sup" and (power := is_exponent(child, "".join(out.line[-2:]))):
            out.text(power)  # 2<sup>31</sup> is 2^31, not 231; 2<sup>n - 1</sup> 2^(n - 1)
            _walk(child, out, in_main, guess)
            if power == "^(":
                out.text(")")
        else:
            out.anchor(child)
            naming = out.open_inline(tag)
            _walk(child, out, in_main, guess)
            out.naming = naming and out.naming  # unseen yet: the element around goes on
        child = child.next


_SCOPES = frozenset(("dd", "li", "blockquote"))  # a bold heading inside one ends with it
_ROWS = frozenset(("tr", "thead", "tbody", "tfoot"))  # a note waits for its table's end


def _read(tree: Any, javadoc: bool = False) -> Out:
    """The page's text: its main content, else the body, else the body without the class/id
    guesses, whichever is the first to have any text (a page built from ``<div class="menu">``
    is still a page); a generated table of contents only when the page has nothing else."""
    body = tree.body if tree.body is not None else tree.root
    mains = main_content(tree, body)
    tries = [(mains, True, False, False)] if mains else []
    tries += [([body], False, True, False), ([body], False, False, False),
              ([body], False, False, True)]  # a page that is its table of contents
    for roots, in_main, guess, contents in tries:
        out = Out(contents=contents, javadoc=javadoc)
        for root in roots:
            if root is not None:
                _walk(root, out, in_main, guess)
        out.flush()
        out.write_notes()  # cited by the page's last text
        if out.length:
            break
    return out


def extract_html(html: str) -> tuple[str, str | None, list[SectionSpan], dict[str, Any]]:
    """``(text, title, sections, metadata)`` of an HTML document."""
    text, title, sections, meta, _ = read_html(html)
    return text, title, sections, meta


def read_html(html: str
              ) -> tuple[str, str | None, list[SectionSpan], dict[str, Any], list[RoleSpan]]:
    """``(text, title, sections, metadata, roles)`` of an HTML document."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(closed_empty(_INVISIBLE.sub("", html)))
    title_node = tree.css_first("title")
    title = _SPACE.sub(" ", title_node.text()).strip() if title_node is not None else ""
    title = title or meta_content(tree, "og:title") or front_matter_title(html) or ""
    out = _read(tree, is_javadoc(html))
    text = "".join(out.parts)
    roles = tidy_roles(out.roles, text)
    text = run_on(text, roles, out.names)  # blanks only: every offset holds
    if not title and out.headings:
        title = out.headings[0][2]
    meta = page_metadata(tree)
    if out.anchors:  # ids still waiting have no text after them: nothing to point at
        meta["anchors"] = dict(out.anchors)
    # A bold heading's section ends where the text after its entry starts (not on the blank
    # between them: a section starts on a visible character).
    ends = [(_visible(text, at), BLOCK_HEADING, "") for at in out.ends]
    headings = [(_visible(text, at), level, name) for at, level, name in out.headings]
    return (text, title or None, section_spans(sorted([*headings, *ends]), len(text)), meta,
            roles)


class HtmlLoader:
    """``.html`` / ``.htm`` / ``.xhtml`` pages."""

    name = "html"
    # A change to what a page reads as bumps the version, so knowledge bases re-read their
    # pages (``git log -L '/version = /,+1:src/citewise/knowledge/loaders/html.py'`` has
    # each one's reasons, and the comment here those up to 62).
    # 65: a table's header row (<th> cells or <thead>) is a heading.
    # 66: one row of values under its header reads as fields ("default: 10"); numpydoc's
    # "name : type" as Sphinx's stylesheet draws it; docutils' lettered lists' letters.
    # 67: DocBook's function prototype (a table of a parameter a row) is code in its lines.
    # 68: <menu> and <dir> are lists, <xmp> and <listing> preformatted; <IMG … /> kept.
    # 69: an FAQ's numbered question in bold, up to 30 words, in a self-link too, heads.
    # 70: a table row whose cell holds code between paragraphs is read as blocks; Sphinx's
    #     toctree (links to other pages' titles) is navigation.
    version = "70"
    extensions: tuple[str, ...] = (".html", ".htm", ".xhtml")
    content_types: tuple[str, ...] = ("text/html", "application/xhtml+xml")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        html, encoding = decode_markup(path, data)
        text, title, sections, meta, roles = read_html(html)
        if not text.strip():
            raise IngestError(
                f"{path}: no readable text in the page",
                code="empty_document",
                details={"path": str(path)},
            )
        return LoadedDocument(
            text=text,
            content_type="text/html",
            title=title or path.stem,
            metadata={**file_metadata(path, data, encoding), **meta},
            sections=sections,
            roles=roles,
        )
