"""The spoken answer and the picture of its first cited PDF passage (seed 001's
``audioOutput`` / ``imageOutput``), made when their URL is first fetched.

Why lazily, here: the agent loop does no I/O, and most clients never fetch either, so a
run only says where they will be (``Answer.audio`` / ``Answer.image``) and this module makes
them from the stored answer on the first ``GET`` — then keeps the file beside the data
(``media/<tenant>/<run>.wav|png``), so later fetches, on any replica sharing the folder,
are a file read.

* Speech: Debian's ``espeak-ng`` (``apt-get install espeak-ng``) writes a WAV of the
  answer's ``text_plain``; without it the request (and a run asking for ``audio``) is
  refused with ``speech_engine_missing`` (503).
* Picture: ``pypdfium2`` renders the cited page of the first PDF citation at 2x, finds the
  citation's excerpt in the page's text layer, paints it yellow and crops to the span's
  lines with a margin; the PNG is encoded here (zlib, no imaging library). The PDF is read
  from the document's source path, and only when its SHA-256 is the ingested document's: a
  document uploaded over HTTP (no file behind it), or a file changed since, is
  ``source_unavailable`` (404).
"""

from __future__ import annotations

import hashlib
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

from citewise._pdfium import PDFIUM
from citewise.answer import Answer
from citewise.errors import NotFound
from citewise.server.errors import ApiError

__all__ = ["ENGINE", "check_speech", "pdf_bytes", "pdf_source", "png_bytes", "render_citation",
           "speak"]

ENGINE = "espeak-ng"
SCALE = 2.0
HIGHLIGHT = (255, 221, 0)
MARGIN_PT = 24.0


def check_speech() -> str:
    """The speech engine's path, or ``speech_engine_missing`` (503)."""
    path = shutil.which(ENGINE)
    if path is None:
        raise ApiError(f"no speech engine: install {ENGINE} (apt-get install {ENGINE})",
                       code="speech_engine_missing", status=503, details={"engine": ENGINE})
    return path


def speak(text: str, out: Path, language: str | None = None) -> Path:
    """Write ``text`` spoken as a WAV file at ``out`` (kept: made once). Blocking."""
    if out.is_file():
        return out
    engine = check_speech()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part.wav")
    args = [engine, "--stdin", "-w", str(tmp)]
    if language:
        args[1:1] = ["-v", language.split("-")[0].lower()]
    done = subprocess.run(args, input=text.encode("utf-8"), capture_output=True, timeout=120,
                          check=False)
    if done.returncode != 0 or not tmp.is_file():
        tmp.unlink(missing_ok=True)
        raise ApiError(f"{ENGINE} failed: {done.stderr.decode(errors='replace')[:300]}",
                       code="speech_failed", status=500, details={"engine": ENGINE})
    tmp.replace(out)
    return out


def png_bytes(rgb: Any) -> bytes:
    """An RGB ``uint8`` array (height x width x 3) as a PNG file."""
    height, width = int(rgb.shape[0]), int(rgb.shape[1])
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(height))  # filter: none

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def _find(textpage: Any, excerpt: str) -> tuple[int, int] | None:
    """(first char index, count) of ``excerpt`` on the page, trying shorter heads of it
    when the text layer's spacing differs from the stored text."""
    words = excerpt.split()
    for probe in (excerpt, " ".join(words), " ".join(words[:8]), " ".join(words[:4])):
        if not probe:
            continue
        found = textpage.search(probe, match_case=False).get_next()
        if found is not None:
            return int(found[0]), int(found[1]) if probe == excerpt else len(probe)
    return None


def render_citation(pdf: bytes | Path, page: int | None, excerpt: str
                    ) -> tuple[bytes, dict[str, Any]]:
    """PNG of the region of ``excerpt`` on ``page`` (one-based; None: search every page) of
    the PDF ``pdf`` (its bytes, or a file), the excerpt highlighted; and what was rendered
    (page, box in points, highlighted). PDFium is called under its one lock
    (:data:`citewise._pdfium.PDFIUM`): an ingest may be reading a PDF with it too."""
    with PDFIUM:
        return _render_citation(pdf, page, excerpt)


def _render_citation(pdf: bytes | Path, page: int | None, excerpt: str
                     ) -> tuple[bytes, dict[str, Any]]:
    import numpy as np
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    doc = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    try:
        order = list(range(len(doc)))
        if page is not None and 1 <= page <= len(doc):
            order.remove(page - 1)
            order.insert(0, page - 1)
        for index in order:
            pg = doc[index]
            textpage = pg.get_textpage()
            found = _find(textpage, excerpt)
            if found is None and index != order[0]:
                continue
            width, height = pg.get_size()
            rects = []
            if found is not None:
                n = textpage.count_rects(found[0], found[1])
                rects = [textpage.get_rect(i) for i in range(n)]
            bitmap = pg.render(scale=SCALE, rev_byteorder=True)  # RGB(x), not pdfium's BGR(x)
            image = bitmap.to_numpy()[:, :, :3].copy()
            for left, bottom, right, top in rects:
                x0, x1 = int(left * SCALE), int(right * SCALE) + 1
                y0, y1 = int((height - top) * SCALE), int((height - bottom) * SCALE) + 1
                region = image[max(0, y0):y1, max(0, x0):x1].astype(np.uint16)
                tint = np.array(HIGHLIGHT, dtype=np.uint16)
                image[max(0, y0):y1, max(0, x0):x1] = (region * tint // 255).astype(np.uint8)
            box = (0.0, 0.0, width, height)
            if rects:
                top_pt = max(r[3] for r in rects) + MARGIN_PT
                bottom_pt = min(r[1] for r in rects) - MARGIN_PT
                box = (0.0, max(0.0, bottom_pt), width, min(height, top_pt))
                y0 = int((height - box[3]) * SCALE)
                y1 = int((height - box[1]) * SCALE)
                image = image[y0:y1]
            return png_bytes(np.ascontiguousarray(image)), {
                "page": index + 1, "box": [round(v, 2) for v in box],
                "highlighted": bool(rects), "scale": SCALE}
        raise AssertionError("unreachable: the first page is always rendered")
    finally:
        doc.close()


def pdf_bytes(path: Path, content_hash: str | None) -> bytes:
    """The cited PDF's bytes, only when they are the ingested document's (same SHA-256):
    a file changed since — or a path an upload merely named — is ``source_unavailable``."""
    data = path.read_bytes()
    if content_hash is None or hashlib.sha256(data).hexdigest() != content_hash:
        raise NotFound(f"{path} is not the file that was ingested", code="source_unavailable",
                       details={"path": str(path)})
    return data


def pdf_source(answer: Answer) -> tuple[Path, int | None, str, dict[str, Any]]:
    """The PDF file, page and excerpt of the answer's image (``answer.image`` set)."""
    assert answer.image is not None
    index = answer.image.metadata.get("citationIndex")
    if not isinstance(index, int) or not 0 <= index < len(answer.citations):
        raise NotFound("the answer has no PDF citation", code="no_image")
    c = answer.citations[index]
    doc = answer.search_documents[c.document_index - 1]
    path = Path(str(doc.document.get("path") or doc.source))
    if not path.is_file():
        raise NotFound(f"the cited PDF is not readable at {path} (uploaded documents keep "
                       "only their text)", code="source_unavailable",
                       details={"document_id": answer.image.metadata.get("documentId")})
    page = answer.image.metadata.get("page")
    return path, page if isinstance(page, int) else None, c.excerpt, answer.image.metadata
