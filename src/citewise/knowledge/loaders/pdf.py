"""PDF: the text layer of every page (pypdf), with one page span per page, and the
sections its outline names.

Pages are joined by a blank line (a line break where a sentence goes on over the page);
``pages`` maps each page's text back to its one-based page number, so a citation can say
"page 4". Running heads and feet, contents and index
pages are left out, words hyphenated at a line's end are joined, and the outline's titles
become sections (:mod:`._pdf_layout`); lines set in a monospaced font (examples, syntax)
are ``code``, a short line wholly in bold between paragraphs ("6. Unfilled lines") is a
``term`` of its own (:mod:`._pdf_fonts`); footnote marks are taken off their words and the notes
made paragraphs of their own (:mod:`._pdf_notes`). A PDF without a text layer (a scan) is an
``empty_document`` (no OCR here); an unreadable one is ``corrupt_file``; one that needs a
password is ``encrypted_file``.

Limits, because a small PDF can describe a lot of work: more than :data:`MAX_PAGES` pages
is ``document_too_large`` (counted from the page tree before any page is read), and a
stream that inflates past pypdf's own output limits (75 MB each) is ``archive_bomb``.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
from datetime import datetime
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders._decode import file_metadata
from citewise.knowledge.loaders._pdf_fonts import (
    extract_page,
    in_prose,
    line_roles,
    monospaced_body,
    numbered_titles,
    run_in_titles,
    set_apart,
)
from citewise.knowledge.loaders._pdf_layout import (
    LIGATURES,
    dehyphenate,
    drop_contents,
    headings,
    outline,
    sections,
    strip_running,
)
from citewise.knowledge.loaders._pdf_lists import bullets, list_items, moved
from citewise.knowledge.loaders._pdf_notes import apply_notes, carry_over
from citewise.knowledge.loaders._pdf_spaces import respaced
from citewise.knowledge.loaders.base import LoadedDocument, PageSpan

__all__ = ["MAX_PAGES", "PdfLoader"]

#: Most pages a PDF may have; a long technical manual has 2,000.
MAX_PAGES = 10_000

# Control characters pypdf passes through from odd fonts; NUL and friends are never text,
# nor are the C1 controls (gnuplot's manual has its bullets come out as U+0088).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_TRAILING = re.compile(r"[ \t]+(?=\n)")
_PAGE_SEP = "\n\n"


def _corrupt(path: Path, exc: BaseException) -> IngestError:
    return IngestError(
        f"{path}: not a readable PDF ({exc.__class__.__name__}: {exc})",
        code="corrupt_file",
        details={"path": str(path), "format": "pdf"},
    )


# TeX sets an accent as a glyph of its own before the letter: the text layer of gnuplot's
# manual reads "Br¨oker", "P´eter", "J´erˆome", "Fran¸cois". Each spacing accent before a
# letter becomes the letter it makes ("Bröker"), where Unicode has one.
_SPACING_ACCENTS = {"¨": "\u0308", "´": "\u0301", "ˆ": "\u0302", "˜": "\u0303",
                    "ˇ": "\u030c", "˚": "\u030a", "¸": "\u0327"}
_ACCENT_BEFORE = re.compile(r"([¨´ˆ˜ˇ˚¸])([^\W\d_])")


def _accented(m: re.Match[str]) -> str:
    joined = unicodedata.normalize("NFC", m.group(2) + _SPACING_ACCENTS[m.group(1)])
    return joined if len(joined) == 1 else m.group(0)


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", bullets(text)).translate(LIGATURES)
    text = _ACCENT_BEFORE.sub(_accented, text)
    return _TRAILING.sub("", text).strip()


def _goes_on(before: str, page: str) -> bool:
    """Whether ``page`` opens with the rest of a sentence the page ``before`` left open
    (no stop at its end, a lower-case word next): the pages are joined by a line break,
    not a paragraph's blank line, so the sentence is one ("…extended with useful support"
    / "modules.", a running head between them once; "…precedes its definition" / "(section
    7.1.2, page 45).", GNU Prolog's manual)."""
    return (before[-1:].isalnum() or before[-1:] in ",;") and (
        page[:1].islower() or _BRACKETED_WORD.match(page) is not None)


# A bracket and a lower-case word in it: "(section 7.1.2, page 45)", "(e.g. grep)", not
# "(a)" nor "(continued)" (code review, 2026-12-07).
_BRACKETED_WORD = re.compile(r"[(\[](?:[a-z]{2,}\s|e\.g\.|i\.e\.)")


def _info(info: Any, attr: str) -> str | None:
    """One document-info field; a malformed one (bad date, odd encoding) is just absent."""
    try:
        value = getattr(info, attr)
    except Exception:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value).strip() or None if value is not None else None


class PdfLoader:
    """``.pdf`` files."""

    name = "pdf"
    # 2: C1 controls dropped, running heads and feet left out, the outline's sections;
    # 3: contents and index pages left out; 4: TeX's spacing accents joined to their
    # letters; 5: words hyphenated at a line's end joined where the document spells them
    # whole; 6: lines set in a monospaced font are ``code`` (:mod:`._pdf_fonts`); 7: FOP's
    # chapter heads, numbered titles and functions' bookmarks, ligatures, a name in the code
    # font inside a sentence, a sentence over a page break; 8: the printed page labels;
    # 9: heads and feet that carry the page's printed number, footnote marks and notes,
    # appendices' titles, an index's letter headings, a kept hyphen on one line, run-in
    # titles in bold; 10: a foot that is the page's printed label ("i"); 11: without an
    # outline, numbered run-in titles are its sections; 12: a "Medium" face is bold;
    # 13: a bold line with a section number is a title after any line, before any; a
    # note's mark glued to its first word is set apart ("6 For completeness"); 14: an
    # underscore of a title may be a space in the text, a title's first line on its page
    # wins, bulleted lists (LaTeX's U+0088 bullet too), a sentence over a page break that
    # goes on with a bracket; 15: words a page runs together spaced as PDFium reads them,
    # an even page's foot "28 Chapter 4. Source packages"; 16: only the spaces between
    # words taken, and after the footnotes are set apart; an appendix's foot; a list item
    # ends at a title or a short line; 17: and before a bracket
    version = "17"
    extensions: tuple[str, ...] = (".pdf",)
    content_types: tuple[str, ...] = ("application/pdf",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        from pypdf import PdfReader
        from pypdf.errors import LimitReachedError

        if not data.lstrip()[:5].startswith(b"%PDF-"):
            raise _corrupt(path, ValueError("no %PDF- header"))
        # pypdf logs (not raises) on recoverable damage; keep that out of the user's logs.
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                raise IngestError(
                    f"{path}: the PDF is password-protected",
                    code="encrypted_file",
                    details={"path": str(path)},
                )
            count = len(reader.pages)
            if count > MAX_PAGES:
                raise IngestError(
                    f"{path}: {count} pages (limit {MAX_PAGES})", code="document_too_large",
                    details={"path": str(path), "format": "pdf", "pages": count,
                             "limit_pages": MAX_PAGES},
                )
            extracted = [extract_page(page) for page in reader.pages]
            mono = [frozenset(_clean(line) for line in fonts.mono) - {""}
                    for _, fonts in extracted]
            bold = [frozenset(_clean(line) for line in fonts.bold) - {""}
                    for _, fonts in extracted]
            entries = outline(reader)
            labels = _page_labels(reader, count)
            noted, mono, bold = respaced(
                data, [apply_notes(_clean(raw), fonts.notes) for raw, fonts in extracted],
                mono, bold)
            page_texts = carry_over(dehyphenate(drop_contents(strip_running(
                noted, entries, labels))), [fonts.notes for _, fonts in extracted])
            if monospaced_body(page_texts, mono):  # a typewritten document: no code in it
                mono = [frozenset()] * len(mono)
            mono = [in_prose(t, code) for t, code in zip(page_texts, mono, strict=True)]
            page_texts = [set_apart(t, code) for t, code in zip(page_texts, mono, strict=True)]
            titled = [run_in_titles(t, b) for t, b in zip(page_texts, bold, strict=True)]
            page_texts, terms = [t for t, _ in titled], [found for _, found in titled]
            info = reader.metadata
            page_texts, titles = headings(page_texts, entries or numbered_titles(page_texts,
                                                                                 terms))
            starts: dict[int, set[int]] = {}
            for page, a, _, _ in titles:
                starts.setdefault(page, set()).add(a)
            listed = [list_items(t, starts.get(n, ())) for n, t in enumerate(page_texts, 1)]
            page_texts, items = [t for t, _, _ in listed], [i for _, i, _ in listed]
            titles = [(page, moved(a, listed[page - 1][2]), moved(b, listed[page - 1][2]), name)
                      for page, a, b, name in titles]
        except IngestError:
            raise
        except LimitReachedError as exc:  # pypdf's decompression/size limits
            raise IngestError(
                f"{path}: the PDF unpacks to more than is read ({exc})", code="archive_bomb",
                details={"path": str(path), "format": "pdf"},
            ) from exc
        except Exception as exc:  # pypdf raises many kinds on damaged input
            raise _corrupt(path, exc) from exc

        parts: list[str] = []
        pages: list[PageSpan] = []
        pos = 0
        last_code = False  # whether the page before ended with a line of code
        for number, page_text in enumerate(page_texts, start=1):
            if not page_text:
                continue  # a blank page has no span: nothing on it can be cited
            if parts:
                goes_on = not last_code and _goes_on(parts[-1], page_text)
                sep = "\n" if goes_on else _PAGE_SEP
                parts.append(sep)
                pos += len(sep)
            parts.append(page_text)
            last_code = page_text.rsplit("\n", 1)[-1].strip() in mono[number - 1]
            pages.append((pos, pos + len(page_text), number))
            pos += len(page_text)
        text = "".join(parts)
        if not text.strip():
            raise IngestError(
                f"{path}: the PDF has no text layer (scanned pages are not supported)",
                code="empty_document",
                details={"path": str(path), "pages": len(page_texts)},
            )

        found, roles = sections(len(text), pages, titles)
        start_of = {number: a for a, _, number in pages}
        roles += [(start_of[n] + a, start_of[n] + b, "list_item")
                  for n, spans in enumerate(items, start=1) if n in start_of for a, b in spans]
        roles = sorted([*roles, *line_roles(text, pages, mono, roles),
                        *line_roles(text, pages, terms, roles, role="term")])
        meta: dict[str, Any] = {**file_metadata(path, data, ""), "page_count": len(page_texts)}
        if labels:
            meta["page_labels"] = labels
        title: str | None = None
        if info is not None:
            title = _info(info, "title")
            if title is not None and _placeholder_title(title):
                title = None  # what a tool writes when nobody named the document
            for key, attr in (
                ("author", "author"),
                ("subject", "subject"),
                ("producer", "producer"),
                ("created", "creation_date"),
                ("document_modified", "modification_date"),
            ):
                value = _info(info, attr)
                if value:
                    meta[key] = value
        if title is None:
            first = text.split("\n", 1)[0].strip()
            title = first if 0 < len(first) <= 120 else path.stem
        return LoadedDocument(
            text=text, content_type="application/pdf", title=title, metadata=meta, pages=pages,
            sections=found, roles=roles,
        )


#: The longest page label kept ("A-12", "xiv"); a longer one is no label a reader sees.
_LABEL_CHARS = 24


def _page_labels(reader: Any, count: int) -> dict[str, str]:
    """The pages whose printed label is not their number ("iv" for the 4th page of the
    front matter, "1" for the 9th), as ``{"4": "iv", "9": "1"}``: a citation says the page
    a reader finds in the viewer and in the book. Empty without a ``/PageLabels`` tree
    (pypdf then labels every page by its number) or when the tree cannot be read."""
    try:
        labels = list(reader.page_labels)
    except Exception:  # a damaged /PageLabels tree: the numbers are still right
        return {}
    if len(labels) != count:
        return {}
    return {str(n): label for n, label in enumerate(labels, start=1)
            if isinstance(label, str) and label != str(n) and 0 < len(label) <= _LABEL_CHARS
            and label.isprintable()}


#: Titles PDF producers write when the author gave none (reportlab: "untitled", Word:
#: "Microsoft Word - report.docx" keeps the file's name and is fine).
_PLACEHOLDER_TITLES = frozenset({"untitled", "untitled document", "no title", "title",
                                 "document", "(anonymous)", "anonymous"})


def _placeholder_title(title: str) -> bool:
    return title.strip().lower() in _PLACEHOLDER_TITLES
