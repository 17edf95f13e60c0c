"""Files that give no text: emptied since their ingest, or a site's page of navigation.

Apart from the pipeline because each is a judgement about the file, not about writing it:
a file emptied (zero bytes) since it was ingested is a deletion of its text, and its
document goes; a page met in a folder walk with no text beyond its navigation and scripts
(ImageMagick's ``search.html``) is no document and no failure either — every ingest of
that site exited 1 for it (review, 2026-12-08). Stored, its bytes unchanged, a page in
which a newer reader finds only navigation (a Sphinx toctree, since HTML loader 70) loses
its document too. Named on its own, or edited since it was stored, such a page still
fails (``empty_document``) and a stored document stays.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

__all__ = ["emptied", "navigation_page"]

_PAGES = frozenset((".html", ".htm", ".xhtml"))


def emptied(path: Path) -> bool:
    """Whether ``path`` is a file of zero bytes."""
    try:
        return path.stat().st_size == 0
    except OSError:
        return False


def navigation_page(path: Path, known: tuple[str, str, dict[str, Any]] | None) -> bool:
    """Whether ``path``, a page of markup that gave no text, is one to skip: not emptied,
    and not stored (``known``: its stored ``(content_hash, collection, metadata)``) or
    stored with the bytes it has now."""
    if path.suffix.lower() not in _PAGES or emptied(path):
        return False
    if known is None:
        return True
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == known[0]
    except OSError:
        return False
