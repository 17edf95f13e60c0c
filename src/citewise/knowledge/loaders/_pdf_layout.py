"""What a PDF's page layout adds to its text layer, and what its outline says of it.

Two things a reader of a printed manual never takes for content (new-user review of the
gnuplot 5.4 manual, 2026-12-04, 311 pages):

* **Running heads and feet.** "24 gnuplot 5.4" / "gnuplot 5.4 23" opened or closed 309
  pages; the text layer glues them to the page's first sentence, and 92 of 324 retrieved
  snippets held one. A page's first or last line is dropped when its shape (digits read as
  ``#``) opens or closes at least a fifth of the pages, and at least three; it must hold a
  number (a page number), so a heading that merely recurs is kept. Texinfo's heads name
  the chapter ("Chapter 4: Ordered and unordered factors 19": a new shape each chapter;
  169 of R's 239 manual pages), so a first or last line is also dropped when it carries
  the page's printed number, the numbers following the pages (:func:`_paged_heads`).
* **Contents and index pages.** Its 19 pages of contents (527 lines with dot leaders) and
  8 of index ("multiplot, 55, 89, 172") were chunks that every question about a title
  matched and none was answered from. A page is one of them when three quarters of its
  lines end with a page number and enough of them have dot leaders or a term's list of
  pages; it is left out, as the HTML loader leaves out a generated table of contents.
  (A data sheet whose lines end in numbers has neither.)
* **Words hyphenated at a line's end.** TeX breaks words across lines ("isosur-\nface",
  "com-\nmands": 88 in gnuplot's manual), so the index read "isosur" and "face". A break
  is joined ("isosurface") when the document spells the joined word elsewhere at least
  as often as the hyphenated one; a compound it writes with its hyphen ("user-defined")
  keeps it, and a word it never spells whole keeps its hyphen — on one line, so an option
  is quoted as "--no-site-file", not "--no-site- file".
* **Chapter heads.** Apache FOP heads each page with its chapter's or module's title
  ("1.2  Getting Started", "mnesia"): 523 of 618 pages of ten Erlang/OTP manuals opened
  with one, and 14 sat inside a sentence that went on over the page. With no number and a
  new title each chapter, the rule above misses them; the outline names them (see
  :func:`strip_running`).
* **Sections.** The loader knew only pages, so a chunk ran from one command's entry into
  the next and no quote said where it was. A PDF's outline (its bookmarks) names every
  section and the page it starts on; each title is found as a line of that page's text,
  and the section runs to the next one found. The title line is a ``heading`` span. Titles
  not found on their page (a typeset title that differs from its bookmark) are skipped:
  their text stays in the section before. A title may be typeset after its number
  ("1.7.8  Recovery of Transactions" for the bookmark "Recovery of Transactions": 284 of
  the Erlang manuals' 1,410 bookmarks), and a function's bookmark "abort/1" is its
  signature's line.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from citewise.knowledge.loaders.base import PageSpan, RoleSpan, SectionSpan

__all__ = ["LIGATURES", "dehyphenate", "drop_contents", "headings", "outline", "sections", "strip_running"]

_DIGITS = re.compile(r"\d+")
#: Typographic ligatures as their letters: FOP's bold faces set "Conﬁguration" with U+FB01
#: (86 times in ten Erlang manuals), which no search for "configuration" found.
LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
                           "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})
#: Most outline entries read (a 2,000-page manual has ~5,000).
MAX_OUTLINE = 20_000


def _shape(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()))


def strip_running(pages: list[str], entries: Sequence[tuple[int, str, int]] = (),
                  labels: Mapping[str, str] | None = None) -> list[str]:
    """``pages`` without their running heads and feet (see the module docstring); with the
    outline's ``entries``, also a head that repeats a section's title on a later page; with
    the page ``labels`` (``{"4": "iv"}``), a first or last line that is the page's label
    alone (the front matter's "i" under R's preface ended its last sentence: "… i")."""
    pages = _outline_heads(_paged_heads(_numbered_running(pages), entries), entries)
    return _labelled(pages, labels) if labels else pages


def _labelled(pages: list[str], labels: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    for number, text in enumerate(pages, start=1):
        label = labels.get(str(number))
        lines = text.split("\n")
        if label is not None and len(lines) > 1:
            if lines[-1].strip() == label:
                lines.pop()
            if lines[0].strip() == label:
                lines.pop(0)
            text = "\n".join(lines).strip()
        out.append(text)
    return out


_EDGE_NUMBER = re.compile(r"^\s*(\d{1,5})(?:\s+\S|\s*$)|\S\s+(\d{1,5})\s*$")
_HEAD_CHARS = 120  # a running head is one short line


def _page_number(line: str, *, foot: bool = False,
                 titles: frozenset[str] = frozenset()) -> int | None:
    """The number a head opens or closes with; a foot's only at its end or alone, since a
    page's last line may be a footnote ("3 some of the consoles …") — or before a title
    of the outline, as Sphinx's LaTeX sets an even page's foot ("28 Chapter 4. Source
    packages": 89 of them were text in the Debian Policy Manual, review 2026-12-07)."""
    m = _EDGE_NUMBER.search(line) if len(line) <= _HEAD_CHARS else None
    if m is None or (foot and m.group(1) is not None and line.strip() != m.group(1)
                     and _bare(_PART_WORD.sub("", line[m.end(1):])) not in titles):
        return None
    return int(m.group(1) or m.group(2))


# "Chapter 4." or "Appendix A." before a title, as a running head or foot names its part.
_PART_WORD = re.compile(r"^\s*(?:Chapter|Appendix|Part|Kapitel|Chapitre|Anhang|Annexe)\s+"
                        r"[\w.]+?[.:]?\s+")


def _paged_heads(pages: list[str], entries: Sequence[tuple[int, str, int]]) -> list[str]:
    """``pages`` less a first or last line that carries the page's printed number at one
    of its ends, where the printed numbers follow the pages: Texinfo heads each page with
    its chapter ("Chapter 4: Ordered and unordered factors 19", "Appendix B: Configuration
    on a Unix-alike 57"), a new head each chapter, so no one shape recurs on a fifth of the
    pages; what recurs is the number's distance from the page's place in the file (6 in
    R's manual, whose front matter is six pages), and the number alone on a chapter's
    first page is one of them. That distance must be shared by a fifth
    of the pages, and at least three; a line that is a title of the outline is a heading,
    whatever number it starts with ("6 Lists and data frames" on the page numbered 6)."""
    titles = frozenset(_bare(title) for _, title, _ in entries)
    offsets: Counter[int] = Counter()
    for index, text in enumerate(pages, start=1):
        lines = text.split("\n")
        found = {n - index for n in (_page_number(lines[0]),
                                     _page_number(lines[-1], foot=True, titles=titles))
                 if n is not None}
        offsets.update(found)
    if not offsets:
        return pages
    offset, count = offsets.most_common(1)[0]
    if count < max(3, len(pages) // 5):
        return pages
    out: list[str] = []
    for index, text in enumerate(pages, start=1):
        lines = text.split("\n")
        for at, foot in ((0, False), (-1, True)):
            if (len(lines) > 1
                    and _page_number(lines[at], foot=foot, titles=titles) == index + offset
                    and _bare(lines[at]) not in titles):
                lines.pop(at)
        out.append("\n".join(lines).strip())
    return out


def _numbered_running(pages: list[str]) -> list[str]:
    counts: Counter[str] = Counter()
    for text in pages:
        lines = text.split("\n")
        if text.strip():
            counts.update({_shape(lines[0]), _shape(lines[-1])})
    need = max(3, len(pages) // 5)
    running = {shape for shape, n in counts.items() if n >= need and "#" in shape}
    if not running:
        return pages
    out: list[str] = []
    for text in pages:
        lines = text.split("\n")
        head = None
        # A chapter's first page repeats its head as its title: the title is kept.
        while lines and _shape(lines[0]) in running and lines[0].strip() != head:
            head = lines.pop(0).strip()
        while lines and _shape(lines[-1]) in running:
            lines.pop()
        out.append("\n".join(lines).strip())
    return out


def _outline_heads(pages: list[str], entries: Sequence[tuple[int, str, int]]) -> list[str]:
    """``pages`` less a first line that is a running head naming the current chapter or
    module ("1.2  Getting Started", "mnesia" — Apache FOP's heads change with the chapter,
    so no shape recurs on a fifth of the pages): a title of the outline, its number aside,
    that opens a page after the one its section starts on, or that the page repeats below
    (a chapter's first page has the head over the title). A title that starts a section on
    this very page is the page's heading and is kept."""
    starts: dict[str, set[int]] = {}
    for _, title, page in entries:
        starts.setdefault(_bare(title), set()).add(page)
    if not starts:
        return pages
    firsts = [_bare(text.split("\n", 1)[0]) for text in pages]
    out: list[str] = []
    for number, (text, key) in enumerate(zip(pages, firsts, strict=True), start=1):
        lines = text.split("\n")
        on = starts.get(key)
        # A head recurs: on the chapter's first page over its title, or atop the pages
        # after it — the page before opened with it or started its section, or the page
        # after opens with it. A title that opens a later page alone ("Options" again,
        # with no bookmark of its own there) is a heading.
        if on is not None and (any(_bare(line) == key for line in lines[1:]) or (
                min(on) < number and number not in on and (
                    number - 1 in on or firsts[number - 2] == key
                    or (number < len(firsts) and firsts[number] == key)))):
            text = "\n".join(lines[1:]).strip()
        out.append(text)
    return out


# A section's number before its title: "1.7.8", "A.2", "3.", "IV".
_NUMBER = r"(?:[A-Z](?:\.\d+)+\.?|[A-Z]?\d+(?:\.\d+)*\.?|[IVXLC]+\.?)"
_NUMBERED = re.compile(rf"^\s*{_NUMBER}\s+(?=\S)")


def _bare(line: str) -> str:
    return " ".join(_NUMBERED.sub("", line).split()).lower()


_ENDS_WITH_PAGE = re.compile(r"[\s,.]\s*(?:\d+|[ivxlc]+)\s*$")
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*(?:\d+|[ivxlc]+)\s*$")
_PAGE_LIST = re.compile(r"\S,\s*\d+(?:\s*,\s*\d+)*\s*$")


_LAST_NUMBER = re.compile(r"(\d+)\s*$")


def _contents_signs(text: str, page_count: int) -> tuple[bool, bool]:
    """(its lines end with page numbers that rise, the way a contents page's do; and
    enough of its lines have dot leaders or page lists)."""
    # An index's letter headings ("A", "B", …) are neither entries nor prose.
    lines = [line for line in text.split("\n") if len(line.strip()) > 1]
    if len(lines) < 4:  # the last page of an index may hold one entry: one beside its index
        return bool(lines) and all(_LEADERS.search(x) or _PAGE_LIST.search(x)
                                   for x in lines), False
    ends = sum(1 for line in lines if _ENDS_WITH_PAGE.search(line)) >= 0.75 * len(lines)
    leaders = sum(1 for line in lines if _LEADERS.search(line))
    listed = sum(1 for line in lines if _PAGE_LIST.search(line))
    strong = ends and (leaders >= 0.2 * len(lines) or listed >= 0.4 * len(lines))
    numbers = [int(m.group(1)) for line in lines if (m := _LAST_NUMBER.search(line))]
    rising = sum(1 for a, b in itertools.pairwise(numbers) if a <= b)
    pages = ends and bool(numbers) and max(numbers) <= 2 * page_count + 50 and (
        rising >= 0.9 * (len(numbers) - 1))
    return pages, strong


def drop_contents(pages: list[str]) -> list[str]:
    """``pages`` with every table-of-contents and index page made blank: a page with the
    signs, and the pages next to one whose lines end with rising page numbers (a contents
    page of chapter titles has no leaders: "Polar plots 78"; a data sheet's numbers do
    not rise: "Rated voltage 240", "Rated current 16")."""
    signs = [_contents_signs(text, len(pages)) for text in pages]
    drop = [strong for _, strong in signs]
    changed = True
    while changed:
        changed = False
        for i, (rising, _) in enumerate(signs):
            if rising and not drop[i] and ((i > 0 and drop[i - 1])
                                           or (i + 1 < len(drop) and drop[i + 1])):
                drop[i] = changed = True
    return ["" if gone else text for text, gone in zip(pages, drop, strict=True)]


_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_BROKEN = re.compile(r"([^\W\d_]+)-\n([^\W\d_A-Z]+)")


def dehyphenate(pages: list[str]) -> list[str]:
    """``pages`` with the words TeX hyphenated at a line's end joined where the document
    spells them whole (see the module docstring): the word's two lines are one. A break
    kept keeps its hyphen on one line too: "--no-site-file", not "--no-site- file" when a
    quote's line breaks are read as spaces (R's manual, 2026-12-05)."""
    seen: Counter[str] = Counter()
    for text in pages:
        seen.update(w.lower() for w in _WORD.findall(text))

    def join(m: re.Match[str]) -> str:
        first, rest = m.group(1), m.group(2)
        whole = (first + rest).lower()
        if seen[whole] and seen[whole] >= seen[f"{first}-{rest}".lower()]:
            return f"{first}{rest}"
        return f"{first}-{rest}"  # a compound, or a word never spelled whole: one line

    return [_BROKEN.sub(join, text) if "-\n" in text else text for text in pages]


def outline(reader: Any) -> list[tuple[int, str, int]]:
    """``(depth, title, one-based page)`` of every outline entry, in document order; an
    entry pypdf cannot resolve is left out, a broken outline reads as none."""
    found: list[tuple[int, str, int]] = []

    def walk(items: Any, depth: int) -> None:
        for item in items:
            if len(found) >= MAX_OUTLINE:
                return
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
                title = " ".join(str(item.title).translate(LIGATURES).split())
            except Exception:
                continue
            if title and isinstance(page, int) and page >= 0:
                found.append((depth, title, page + 1))

    try:
        walk(reader.outline, 0)
    except Exception:  # pypdf raises many kinds on a damaged outline
        return []
    return found


def headings(page_texts: list[str], entries: Sequence[tuple[int, str, int]]
             ) -> tuple[list[str], list[tuple[int, int, int, str]]]:
    """The outline's titles found as lines of their pages: ``(page, start, end, path)``
    with offsets into the page's text, and the pages' texts with each such title made a
    paragraph of its own (a blank line after it, as an HTML heading has), so that the text
    under it starts a sentence rather than continuing the title's."""
    pages = list(page_texts)
    found: list[tuple[int, int, int, str]] = []
    path: list[str] = []
    cursor: dict[int, int] = {}
    for depth, title, page in entries:
        path = [*path[:depth], title]
        if not 1 <= page <= len(pages):
            continue
        text = pages[page - 1]
        m = next((hit for pattern in _title_lines(title)
                  if (hit := pattern.search(text, cursor.get(page, 0))) is not None), None)
        if m is None:
            continue
        start = m.start() + len(m.group()) - len(m.group().lstrip())
        end = m.end()
        if text[end:end + 1] == "\n" and text[end:end + 2] != "\n\n":
            text = pages[page - 1] = f"{text[:end]}\n{text[end:]}"
        cursor[page] = end + 1
        found.append((page, start, end, " > ".join(path)))
    return pages, found


def _title_lines(title: str) -> list[re.Pattern[str]]:
    """The lines a bookmark's title may be typeset as, the likeliest first: the title,
    maybe after its section number ("1.7.8  Recovery of Transactions" for the bookmark
    "Recovery of Transactions") or after the word its part is (the bookmark "B Invoking R"
    set as "Appendix B Invoking R"); for a function's entry named by its arity ("abort/1",
    Erlang's reference manuals), else the line of its signature, "abort(Reason :: term())
    -> no_return()" ("HTTP/2" is no function: its line is the title). The title's own line
    comes first: GNU Prolog's "8.25.4 random/3" is under random/1's template
    "random(-float)" and its description, which were filed under random/3 (review,
    2026-12-07). An underscore may be
    a space or nothing in the text: LaTeX draws it as a rule, and GNU Prolog's manual has
    "set prolog flag/2" for the bookmark "set_prolog_flag/2" (150 of its 378 titles)."""
    words = r"\s+".join(_underscored(re.escape(w)) for w in title.split())
    plain = re.compile(rf"(?m)^[ \t]*(?:{_PART}[ \t\xa0]+)?(?:{_NUMBER}[ \t\xa0]+)?{words}[ \t]*$")
    arity = _ARITY.match(title)
    if arity is None:
        return [plain]
    name = _underscored(re.escape(arity.group(1)))
    return [plain, re.compile(rf"(?m)^[ \t]*{name}\(.*$")]


def _underscored(pattern: str) -> str:
    return pattern.replace("_", "[_ ]?")


# The word a book sets before a part's number: Texinfo's "Appendix B Invoking R" for the
# bookmark "B Invoking R" (R's manuals: every appendix was filed under the last chapter).
_PART = r"(?:Appendix|Chapter|Part|Annex|Anhang|Annexe|Kapitel|Chapitre|Teil|Partie)"
_ARITY = re.compile(r"^(?:[\w.]+:)?([a-z_]\w*)/\d+$")  # a function's name is lower case


def sections(text_length: int, pages: Sequence[PageSpan],
             found: Sequence[tuple[int, int, int, str]]
             ) -> tuple[list[SectionSpan], list[RoleSpan]]:
    """Section spans (path "III Commands > Set-show > Isosamples") and heading spans of the
    titles :func:`headings` found, in the assembled text (``pages`` place each page)."""
    start_of = {number: a for a, _, number in pages}
    placed = [(start_of[page] + a, start_of[page] + b, name)
              for page, a, b, name in found if page in start_of]
    out_sections: list[SectionSpan] = []
    roles: list[RoleSpan] = []
    for i, (start, end, name) in enumerate(placed):
        stop = placed[i + 1][0] if i + 1 < len(placed) else text_length
        out_sections.append((start, stop, name))
        roles.append((start, end, "heading"))
    return out_sections, roles
