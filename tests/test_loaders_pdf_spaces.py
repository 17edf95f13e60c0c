"""Words a PDF's text layer runs together are spaced again (Debian Policy Manual's review,
2026-12-07): pypdf puts a space where a gap between glyphs is as wide as the font's space
glyph, and where that width is wrong — the glyph numbered 32 of an ``Identity-H`` font, as
XeLaTeX writes it, is no space — the justified lines, whose word gaps are narrowest, came
out as "Thesinglelinesynopsisshouldbekeptbrief" (1,827 of 3,350 long lines). Such a page
is read by PDFium too, and its lines taken as PDFium spaces them."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.pdf import PdfLoader

LINES = ["Every package has a version number recorded in its control file.",
         "The single line synopsis should be kept brief and certainly short.",
         "Manual pages should be installed compressed using the usual tool."]


def _tight_pdf(lines: list[str], gap: int = 250) -> bytes:
    """A one-page PDF whose words stand ``gap`` thousandths of an em apart (a TJ offset),
    in a font whose space glyph is wider (600): a justified line, as pypdf misreads it."""
    def shown(line: str) -> str:
        words = line.split()
        return "[" + "".join(f"({w})-{gap}" for w in words[:-1]) + f"({words[-1]})] TJ"

    body = "BT /F1 10 Tf 72 720 Td 14 TL " + " T* ".join(map(shown, lines)) + " ET"
    widths = " ".join("600" if code == 32 else "500" for code in range(32, 127))
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(body)} >>\nstream\n{body}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /FirstChar 32 /LastChar 126 "
        f"/Widths [{widths}] >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{obj}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{at:010d} 00000 n \n" for at in offsets).encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return out


def test_words_a_page_runs_together_are_spaced_as_pdfium_reads_them(tmp_path: Path) -> None:
    from pypdf import PdfReader

    data = _tight_pdf(LINES)
    (tmp_path / "policy.pdf").write_bytes(data)
    squashed = PdfReader(tmp_path / "policy.pdf").pages[0].extract_text()
    assert "Everypackagehasaversionnumber" in squashed  # what pypdf reads
    doc = PdfLoader().load(tmp_path / "policy.pdf", data)
    assert doc.text == "\n".join(LINES)
    # Gaps as wide as a space were read right, and stay as pypdf read them.
    wide = _tight_pdf(LINES, gap=600)
    assert PdfLoader().load(tmp_path / "wide.pdf", wide).text == "\n".join(LINES)


def test_only_spaces_between_words_are_taken_and_code_keeps_its_own() -> None:
    """PDFium also sets a space at a wide kern ("KOMA -Script" in scrguide's PDF); only a
    space before a letter or digit that follows a letter, a digit or a stop is taken, and a
    line in the code font stays as pypdf read it (code review, 2026-12-07)."""
    from citewise.knowledge.loaders._pdf_spaces import _merged, _respaced_page

    assert _merged("KOMA-Scriptprovidesthecommandforeverychapter",
                   "KOMA -Script provides the command for every chapter") == (
        "KOMA-Script provides the command for every chapter")
    assert _merged("Alternately,youcantype”exit”.", "Alternately, you can type ”exit”.") == (
        "Alternately, you can type”exit”.")
    assert _merged("ﬁlesarekept", "files are kept") == "ﬁlesarekept"  # other characters
    assert _merged("plus(+)andminus(-)signs", "plus (+) and minus (-) signs") == (
        "plus (+) and minus (-) signs")
    text = "Everypackagehasaversionnumber.\nmake install DESTDIR=/tmp/stage"
    other = "Every package has a version number.\nmake install DESTDIR = /tmp/stage"
    code = frozenset({"make install DESTDIR=/tmp/stage"})
    spaced, changed = _respaced_page(text, other, code)
    assert spaced == "Every package has a version number.\nmake install DESTDIR=/tmp/stage"
    assert changed == {"Everypackagehasaversionnumber.": "Every package has a version number."}
