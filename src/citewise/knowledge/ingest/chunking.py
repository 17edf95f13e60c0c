"""Sentence-aware chunking with overlap, offsets exact into the stored text.

Chunks never straddle a section or page boundary (so each chunk has one section and one
page for its citation) — but for a sentence a page leaves open, which its chunk ends on
the next page; inside one, whole sentences are packed up to ``size`` characters
and the next chunk starts with the last sentences of the previous one, up to ``overlap``
characters. A sentence longer than ``size`` is cut at whitespace (or hard, when it has
none). ``chunk.text == text[chunk.start_char:chunk.end_char]`` always holds. Each chunk
carries the loader's role spans that fall inside it (headings, code, tables…: see
:data:`citewise.knowledge.loaders.base.ROLES`), clipped to it and relative to its start.

Sentences are :func:`~citewise.sentences.sentence_spans` mended by
:func:`~citewise.sentences.join_abbreviations`, as quotes are: a full stop after "e.g.", "i.e." or
a page reference ("see lighting (p. 190)") ends no sentence, so no chunk starts with
"190)) for details." (5 % of the chunks of gnuplot's PDF manual did, 2 % of git's and
zsh's pages: a passage, snippet or quote that opens mid-sentence). Closing quotes and
brackets after a sentence's stop are its own (``(This is rare.)`` stays whole).

A sentence wholly inside a ``hidden`` span (a markdown file's HTML comments and link
definitions: in the source, not on the rendered page) is in no chunk's sentences: a chunk
begins and ends with text a reader sees, and a run of hidden lines makes no chunk at all.
Why: Node.js's API pages are 13 % ``<!-- YAML … -->`` history; as chunks of their own
they were indexed and took passage slots from the prose. Hidden text between two visible
sentences of one chunk stays in it (a chunk is one slice of the text); the index leaves
it out (:func:`citewise.store.records.indexed_text`).
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from citewise.errors import ConfigError
from citewise.knowledge.index.headings import SECTION_SEPARATOR
from citewise.knowledge.loaders.base import ROLES, PageSpan, RoleSpan, SectionSpan
from citewise.sentences import join_abbreviations, sentence_spans
from citewise.store.base import ChunkRecord

__all__ = ["Chunker", "chunk_id", "chunk_text"]

_MASK_53 = (1 << 53) - 1


def chunk_id(document_id: str, start: int, end: int, text: str) -> int:
    """Stable 53-bit id (exact in a JSON number / a JavaScript double)."""
    digest = hashlib.sha256(f"{document_id}\x00{start}\x00{end}\x00{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & _MASK_53


@dataclass(frozen=True, slots=True)
class Chunker:
    """Chunking settings. ``size`` and ``overlap`` count characters (code points)."""

    size: int = 800
    overlap: int = 120

    def __post_init__(self) -> None:
        if self.size < 20:
            raise ConfigError(f"chunk size must be >= 20, got {self.size}", code="invalid_chunking")
        if not 0 <= self.overlap < self.size // 2:
            raise ConfigError(
                f"chunk overlap must be in [0, size/2), got {self.overlap}",
                code="invalid_chunking",
            )

    @property
    def signature(self) -> str:
        """Changes whenever chunk boundaries would: stored to detect stale chunking."""
        return f"sentence-v19:{self.size}:{self.overlap}"

    def chunk(
        self,
        document_id: str,
        text: str,
        *,
        sections: Sequence[SectionSpan] = (),
        pages: Sequence[PageSpan] = (),
        roles: Sequence[RoleSpan] = (),
    ) -> list[ChunkRecord]:
        return chunk_text(
            document_id, text, size=self.size, overlap=self.overlap, sections=sections,
            pages=pages, roles=roles,
        )


def _regions(text: str, sections: Sequence[SectionSpan], pages: Sequence[PageSpan]
             ) -> list[int]:
    length = len(text)
    cuts = {0, length}
    for a, b, _ in sections:
        cuts.update(x for x in (a, b) if 0 < x < length)
    section_cuts = sorted(cuts)
    ends = {b: _sentence_end(text, b, section_cuts) for _, b, _ in pages}
    gone = {b + 1 for b, e in ends.items() if e != b}  # the next page's start, passed over
    for a, b, _ in pages:
        cuts.update(x for x in (a, ends[b]) if 0 < x < length and x not in gone)
    return sorted(cuts)


# A sentence the page break does not end: the page after goes on with it (the PDF loader
# joins the pages by one line break, not a blank line). Asymptote's manual had a quote end
# "… retained in the file .asy/history in the user's" at its page's foot, and the next
# chunk start "home directory (unless …" (review, 2026-12-07): the chunk goes on to the
# sentence's end, within this reach and its section, and cites the page it starts on.
_PAGE_SENTENCE_REACH = 400


def _sentence_end(text: str, end: int, section_cuts: list[int]) -> int:
    """Where a page ending at ``end`` ends as a chunk's region: at ``end``, or past the
    sentence it leaves open to the next page — cut as quotes cut it (not after "p." or
    "e.g.", nor inside ". . .": code review, 2026-12-07)."""
    if text[end:end + 1] != "\n" or text[end + 1:end + 2].isspace() or end == 0 \
            or text[end - 1] in ".!?:":
        return end
    stop = min(len(text), end + 1 + _PAGE_SENTENCE_REACH)
    spans = join_abbreviations(text, sentence_spans(text, end + 1, stop))
    if not spans or spans[0][0] != end + 1:
        return end
    close = spans[0][1]
    stopped = text[end + 1:close].rstrip("\"')]”’")[-1:] in (".", "!", "?")
    if not (stopped or close == len(text)) or (close == stop < len(text)):
        return end  # no stop within reach, or a paragraph ends first
    after = bisect_right(section_cuts, end)
    if after < len(section_cuts) and section_cuts[after] < close:
        return end  # a section starts first: the sentence is cut there anyway
    return close


def _split_long(text: str, a: int, b: int, size: int, first: int | None = None,
                items: Sequence[int] = ()) -> list[tuple[int, int]]:
    """Cut ``text[a:b]`` into pieces of at most ``size`` (the first of at most ``first``),
    where a list item starts (``items``, sorted) in the piece's second half — a list whose
    items have no full stop is one "sentence", and pandoc's list of formats was cut inside
    an item wrapped over lines, its name in one chunk and its description in the next —
    else at a line's end (a code block is cut between its lines, not inside one:
    DocBook's 2,450-character ``<xsl:choose>`` was cut at ``<xsl:when`` | ``test=…``),
    else at a space, else hard."""
    pieces: list[tuple[int, int]] = []
    limit = size if first is None else max(size // 2, min(size, first))
    while b - a > limit:
        cut = a + limit
        at = bisect_right(items, cut) - 1
        space = items[at] - 1 if at >= 0 and items[at] > a + limit // 2 else -1
        if space <= a:
            space = text.rfind("\n", a + limit // 2, cut)
        if space <= a:
            space = text.rfind(" ", a + limit // 2, cut)
        if space > a:
            cut = space
        end = cut
        while end > a and text[end - 1].isspace():
            end -= 1
        pieces.append((a, end if end > a else cut))
        a, limit = cut, size
        while a < b and text[a].isspace():
            a += 1
    if b > a:
        pieces.append((a, b))
    return pieces


def _pack(units: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Group consecutive sentence spans into chunk spans."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        j = i + 1
        while j < len(units) and units[j][1] - units[i][0] <= size:
            j += 1
        if j >= len(units) and out and units[j - 1][1] - units[i][0] < size // _TAIL:
            # The region's last sentence or two, alone past a full chunk: reaching back
            # to half a chunk (not the whole size: a near copy of the chunk before), it
            # keeps what it speaks of. Privoxy's "As of Privoxy 3.0.7 these options are
            # disabled by default." was a 58-character chunk no search for those options
            # found (review, 2026-12-07).
            while i > 0 and units[j - 1][1] - units[i - 1][0] <= size \
                    and units[j - 1][1] - units[i][0] < size // 2:
                i -= 1
        out.append((units[i][0], units[j - 1][1]))
        if j >= len(units):
            break
        # Step back over whole sentences that fit in the overlap, but always move forward;
        # and not at all when the next chunk could not reach the next sentence with them: it
        # would lie inside this one ("It can convert *from*" alone, three times, before a
        # long list: pandoc's README, review 2026-12-05).
        k = j
        while k - 1 > i and units[j - 1][1] - units[k - 1][0] <= overlap:
            k -= 1
        i = k if units[j][1] - units[k][0] <= size else j
    return out


_TAIL = 8  # a region's last chunk shorter than an eighth of the size reaches back


def _span_value(spans: Sequence[tuple[int, int, object]], starts: list[int], pos: int) -> object:
    i = bisect_right(starts, pos) - 1
    if i >= 0 and spans[i][0] <= pos < spans[i][1]:
        return spans[i][2]
    return None


def chunk_text(
    document_id: str,
    text: str,
    *,
    size: int = 800,
    overlap: int = 120,
    sections: Sequence[SectionSpan] = (),
    pages: Sequence[PageSpan] = (),
    roles: Sequence[RoleSpan] = (),
) -> list[ChunkRecord]:
    """Chunks of ``text`` in order, with page / section / one-based line of their start
    and the role spans inside them."""
    valid = _valid_roles(roles, len(text))
    clipper = _Clipper(valid)
    hidden = _Covered(text, valid)
    headings = _Covered(text, valid, "heading")
    items = sorted({a for a, _, role in valid if role == "list_item"})
    tables = _merged(text, [(a, b) for a, b, role in valid if role == "table"])
    sections = sorted(sections)
    pages = sorted(pages)
    sec_starts = [s[0] for s in sections]
    page_starts = [p[0] for p in pages]
    cuts = _regions(text, sections, pages)
    regions: list[tuple[list[tuple[int, int]], bool, object]] = []
    for a, b in pairwise(cuts):
        units: list[tuple[int, int]] = []
        titled = True  # whether every sentence of the region is a heading's
        for s, e in join_abbreviations(text, sentence_spans(text, a, b)):
            e = min(e, b)  # a closing bracket past the region is the next one's
            if hidden.covers(s, e):
                continue
            if e - s > size:
                # Its first piece leaves room for the headings above it ("Synopsis" over
                # a long listing was a chunk of its own, the listing's words in none).
                first = size - (s - units[0][0]) if units and titled else None
                units.extend(_split_long(text, s, e, size, first, items))
            else:
                units.append((s, e))
            titled = titled and headings.covers(s, e)
        regions.append((_rows_joined(text, _numbers_joined(text, units, size), size, tables),
                        titled, _span_value(sections, sec_starts, a)))
    kept: list[list[tuple[int, int]]] = []
    following: object = None  # the section of the next region with text, from the end back
    for units, titled, section in reversed(regions):
        if not (titled and _heads(section, following)):
            kept.append(units)
        if units:
            following = section
    spans = [span for units in reversed(kept) for span in _pack(units, size, overlap)]
    records: list[ChunkRecord] = []
    line, counted_to = 1, 0  # chunk starts only grow: count newlines incrementally
    for ordinal, (s, e) in enumerate(spans):
        line += text.count("\n", counted_to, s)
        counted_to = s
        body = text[s:e]
        page = _span_value(pages, page_starts, s)
        section = _span_value(sections, sec_starts, s)
        records.append(
            ChunkRecord(
                id=chunk_id(document_id, s, e, body),
                document_id=document_id,
                ordinal=ordinal,
                start_char=s,
                end_char=e,
                text=body,
                page=page if isinstance(page, int) else None,
                section=section if isinstance(section, str) else None,
                line=line,
                roles=clipper.clip(s, e),
            )
        )
    return records


def _numbers_joined(text: str, units: list[tuple[int, int]], size: int
                    ) -> list[tuple[int, int]]:
    """``units`` with a list item's number alone ("5." over the item's paragraph: an item
    that opens with a block) joined to the sentence after it, so that no chunk ends on it:
    174 of the bench's 40,769 chunks did ("…the file is overwritten.\n\n5.", the next
    chunk repeating "5." with its text: GIMP's review, 2026-12-06)."""
    out: list[tuple[int, int]] = []
    for s, e in units:
        if out and e - out[-1][0] <= size and _NUMBER.fullmatch(text[out[-1][0]:out[-1][1]].strip()):
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


_NUMBER = re.compile(r"(?:\d{1,3}|[A-Za-z]|[ivxlcdm]{1,7})[.)]")


def _rows_joined(text: str, units: list[tuple[int, int]], size: int,
                 tables: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``units`` with the sentences of one table row (a line of a ``table`` span) joined:
    ImageMagick's tables of options (48 on 29 pages) were cut between a row's sentences, a
    chunk beginning "Possible values range from 0 to 6. Default value is 4." with no
    "method=value" before it (review, 2026-12-08). A row longer than a chunk is cut as a
    long sentence is."""
    if not tables:
        return units
    starts = [a for a, _ in tables]

    def table_of(pos: int) -> int:
        i = bisect_right(starts, pos) - 1
        return i if i >= 0 and tables[i][0] <= pos < tables[i][1] else -1

    out: list[tuple[int, int]] = []
    for s, e in units:
        # A "sentence" run on over a row's end (the next opens in lower case) is cut there.
        pieces, a = [], s
        if table_of(s) >= 0:
            while (nl := text.find("\n", a, e)) >= 0:
                if text[a:nl].strip():
                    pieces.append((a, nl))
                a = nl + 1
                while a < e and text[a] in " \t":
                    a += 1
        if a < e:
            pieces.append((a, e))
        for ps, pe in pieces:
            t = table_of(ps)
            if out and t >= 0 and t == table_of(out[-1][0]) and pe - out[-1][0] <= size \
                    and "\n" not in text[out[-1][1]:ps]:
                out[-1] = (out[-1][0], pe)
            else:
                out.append((ps, pe))
    return out


def _heads(section: object, following: object) -> bool:
    """Whether a section that is only its heading heads the next section's text ("2 Usage"
    over "2.1 Main options"): then it is no chunk — as one it matched every search for its
    words and answered none (452 of 30,548 chunks of the bench's manuals; FFmpeg's review,
    2026-12-05) — since its words are in the section path of the chunks under it. A
    heading with nothing under it, not even a sub-section, stays a chunk."""
    return isinstance(section, str) and isinstance(following, str) \
        and following.startswith(section + SECTION_SEPARATOR)


def _valid_roles(roles: Sequence[RoleSpan], length: int) -> list[RoleSpan]:
    """The well-formed spans of a known role, sorted as loaders give them, outer before
    inner (a plugin's bad span is left out: a role only ranks evidence, it never changes
    text or offsets)."""
    out = [(span[0], span[1], span[2]) for span in roles
           if isinstance(span, tuple | list) and len(span) == 3 and span[2] in ROLES
           and isinstance(span[0], int) and isinstance(span[1], int)
           and 0 <= span[0] < span[1] <= length]
    out.sort(key=lambda r: (r[0], -r[1]))
    return out


class _Covered:
    """Whether a sentence lies wholly inside spans of ``role`` (hidden ones unless told;
    asked in increasing order)."""

    def __init__(self, text: str, spans: list[RoleSpan], role: str = "hidden") -> None:
        self._spans = _merged(text, [(a, b) for a, b, r in spans if r == role])
        self._i = 0

    def covers(self, s: int, e: int) -> bool:
        spans = self._spans
        while self._i < len(spans) and spans[self._i][1] <= s:
            self._i += 1
        return self._i < len(spans) and spans[self._i][0] <= s and e <= spans[self._i][1]


def _merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans joined where they touch or overlap, or only whitespace lies between them
    (two comments on consecutive lines hide the line break too)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and (a <= out[-1][1] or not text[out[-1][1]:a].strip()):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


class _Clipper:
    """The role spans overlapping each chunk, clipped to it and relative to its start, in
    one pass (chunks come in order: starts and ends never decrease)."""

    def __init__(self, spans: list[RoleSpan]) -> None:
        self._spans = spans
        self._next = 0
        self._open: list[RoleSpan] = []

    def clip(self, s: int, e: int) -> tuple[RoleSpan, ...]:
        spans = self._spans
        while self._next < len(spans) and spans[self._next][0] < e:
            self._open.append(spans[self._next])
            self._next += 1
        self._open = [span for span in self._open if span[1] > s]
        return tuple((max(a, s) - s, min(b, e) - s, role) for a, b, role in self._open
                     if a < e)
