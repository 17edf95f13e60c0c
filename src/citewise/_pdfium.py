"""The one lock every call into PDFium takes.

PDFium (``pypdfium2``) is not safe to call from two threads at once, and two parts of
citewise call it: the PDF loader, which re-reads a page whose words its text layer runs
together (ingest reads files on worker threads), and the picture of a cited PDF passage
that the HTTP server renders on a thread of its own. Apart from both because neither
should import the other.
"""

from __future__ import annotations

import threading

__all__ = ["PDFIUM"]

#: Held around each use of a PDFium document or page.
PDFIUM = threading.Lock()
