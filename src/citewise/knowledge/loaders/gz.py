"""Any supported format inside gzip: ``notes.md.gz`` loads as markdown, ``ls.1.gz`` as a man
page.

People keep compressed copies (Debian ships every man page and changelog as ``.gz``), and
the format of what is inside is named by the suffix before ``.gz``. So this is a
*container* loader: the registry, on finding it for a name, asks :meth:`GzipLoader.around`
for a loader bound to the inner name's loader (``LoaderRegistry.for_path``), and a name
whose inner suffix no loader reads (``backup.tar.gz``) has no loader at all — a folder
ingest skips it as it skips any unknown file instead of failing it.

Decompression goes through :func:`citewise.knowledge.loaders._archive.gunzip`, which never
holds more than the limit: a tiny file that inflates past it is refused as
``archive_bomb`` (or ``document_too_large`` at an ordinary ratio) before anything is
parsed, so a bomb costs no memory and writes nothing.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from citewise.errors import IngestError
from citewise.knowledge.loaders._archive import gunzip
from citewise.knowledge.loaders._decode import file_metadata
from citewise.knowledge.loaders.base import LoadedDocument, Loader

__all__ = ["MAX_GUNZIPPED_BYTES", "Gunzipped", "GzipLoader"]

#: Most bytes a ``.gz`` file may unpack to: the size limit of an uncompressed file
#: (``knowledge.ingest.MAX_FILE_BYTES``), so compression is no way around it.
MAX_GUNZIPPED_BYTES = 64 * 1024 * 1024


def _inner_name(path: Path) -> Path:
    name = path.name
    return path.with_name(name[:-3] if name.lower().endswith(".gz") else name)


class Gunzipped:
    """The loader of one inner format, reading it from a gzip stream."""

    def __init__(self, inner: Loader) -> None:
        self.inner = inner
        self.name = f"gzip:{inner.name}"
        #: What it renders is the inner loader's (see ``Loader.version``).
        self.version = str(getattr(inner, "version", "1"))
        self.extensions: tuple[str, ...] = tuple(f"{e}.gz" for e in inner.extensions)
        self.content_types: tuple[str, ...] = ()

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        inner_path = _inner_name(path)
        raw = gunzip(data, max_bytes=MAX_GUNZIPPED_BYTES, what="gzip")
        # The inner loader sees the inner name (its suffix picks the dialect, its stem the
        # title); the metadata still names the file that is on disk.
        try:
            loaded = self.inner.load(inner_path, raw)
        except IngestError as err:  # said of the file on disk, not of a name it never had
            message = err.message.replace(str(inner_path), str(path))
            raise IngestError(message, code=err.code, details=err.details) from None
        meta = dict(loaded.metadata)
        real = file_metadata(path, data, "")
        meta.pop("modified", None)
        meta.update({k: v for k, v in real.items() if k != "size_bytes"})
        meta["size_bytes"] = len(raw)
        meta["compression"] = "gzip"
        meta["compressed_bytes"] = len(data)
        loaded.metadata = meta
        return loaded


class GzipLoader:
    """``.gz`` files whose inner name (``x.md`` of ``x.md.gz``) another loader reads."""

    name = "gzip"
    extensions: tuple[str, ...] = (".gz",)
    # application/gzip says nothing about what is inside: an upload is picked by its name.
    content_types: tuple[str, ...] = ()

    def around(self, inner: Loader) -> Loader:
        """This container bound to the loader of what is inside."""
        return Gunzipped(inner)

    def peek(self, head: bytes) -> bytes | None:
        """The first bytes (``HEAD_BYTES`` at most) of what the gzip stream starting with
        ``head`` holds, or None when ``head`` is no gzip stream: how the registry tells a
        text note with no extension inside (``upstream.gz``)."""
        from citewise.knowledge.loaders import HEAD_BYTES

        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
        except zlib.error:
            return None

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Used only when called directly: the inner loader from the default registry."""
        from citewise.knowledge.loaders import HEAD_BYTES, default_registry

        inner = default_registry().for_path(_inner_name(path),
                                            head=self.peek(data[:HEAD_BYTES]))
        if inner is None or isinstance(inner, GzipLoader):
            raise IngestError(
                f"{path.name}: no loader for what is inside the gzip file",
                code="unsupported_format", details={"path": str(path)},
            )
        return Gunzipped(inner).load(path, data)
