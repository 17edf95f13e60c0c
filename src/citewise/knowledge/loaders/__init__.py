"""Document loaders: a plugin seam on the ``citewise.loaders`` entry-point group.

The built-in loaders are registered in ``pyproject.toml`` exactly like third-party ones::

    [project.entry-points."citewise.loaders"]
    text = "citewise.knowledge.loaders.text:TextLoader"

When two loaders claim one extension, a third-party loader wins over a built-in one (so a
plugin can replace a built-in), and among equals the entry-point name decides.
"""

from __future__ import annotations

import codecs
import logging
from collections.abc import Iterable
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path

from citewise.knowledge.loaders.base import LoadedDocument, Loader, PageSpan, SectionSpan

__all__ = [
    "ENTRY_POINT_GROUP",
    "HEAD_BYTES",
    "TEXT_FILE_NAMES",
    "LoadedDocument",
    "Loader",
    "LoaderRegistry",
    "PageSpan",
    "SectionSpan",
    "default_registry",
    "discover",
    "is_text",
]

ENTRY_POINT_GROUP = "citewise.loaders"
_log = logging.getLogger(__name__)

# Used only when the package metadata lacks them (a source tree run without installing).
_BUILTINS = {
    "text": "citewise.knowledge.loaders.text:TextLoader",
    "markdown": "citewise.knowledge.loaders.markdown:MarkdownLoader",
}


#: File names (before any dot, any case) that are plain text by convention though they
#: have no text extension: a project's or a Debian package's documents.
TEXT_FILE_NAMES = frozenset((
    "readme", "news", "changelog", "changes", "history", "license", "licence", "copying",
    "copyright", "authors", "contributors", "contributing", "install", "todo", "thanks",
    "notice", "faq", "bugs", "credits",
))


class LoaderRegistry:
    """Loaders by name, extension and content type."""

    def __init__(self, loaders: Iterable[Loader] = ()) -> None:
        self._by_name: dict[str, Loader] = {}
        self._by_ext: dict[str, Loader] = {}
        self._by_type: dict[str, Loader] = {}
        for loader in loaders:
            self.register(loader)

    def register(self, loader: Loader) -> None:
        """Add ``loader``; it takes over its extensions and content types."""
        self._by_name[loader.name] = loader
        for ext in loader.extensions:
            self._by_ext[ext.lower()] = loader
        for ctype in loader.content_types:
            self._by_type[ctype.lower()] = loader

    def get(self, name: str) -> Loader | None:
        return self._by_name.get(name)

    def for_path(self, path: str | Path, head: bytes | None = None) -> Loader | None:
        """The loader for this file name (longest matching extension, any case).

        A container loader (one with ``around(inner)``, such as ``.gz``) is bound to the
        loader of the name inside it (``x.md`` of ``x.md.gz``); with none, there is none.
        A conventional text file's name (:data:`TEXT_FILE_NAMES`, "NEWS.Debian") is
        plain text, unless its extension is an image's or another medium's
        ("contributors.png"). A name with no extension at all is plain text when its
        first bytes, ``head``, are text (:func:`is_text`): Debian's nginx-doc is notes
        named ``php``, ``upstream``, ``examples/drupal``, and 11 of its 13 files were
        skipped (new-user review, 2026-12-06). Without ``head``, only the conventional
        names are. Inside a container, the inner name with no extension is
        told by the container's ``peek(head)`` (the first bytes of what it holds): nginx-doc's
        ``upstream.gz`` is a text note too."""
        name = Path(path).name.lower()
        best = self._longest_extension(name)
        if best is None:
            # README, NEWS, COPYING, changelog, NEWS.Debian: plain text by convention —
            # but not an image so named: Docker's "contributors.png" failed the whole
            # ingest as a binary file, the folder's other images skipped (review,
            # 2026-12-07).
            if name.split(".", 1)[0] in TEXT_FILE_NAMES:
                known = not _media(name)  # empty or binary: the text loader says so
            else:
                known = head is not None and "." not in name.lstrip(".") and is_text(head)
            return self._by_name.get("text") if known else None
        around = getattr(best[1], "around", None)
        if callable(around):
            peek = getattr(best[1], "peek", None)
            inside = peek(head) if head is not None and callable(peek) else None
            inner = self.for_path(name[: -best[0]], head=inside)
            return None if inner is None else around(inner)
        return best[1]

    def for_file(self, path: Path) -> Loader | None:
        """:meth:`for_path`, reading the first bytes of a file with no extension."""
        loader = self.for_path(path)
        if loader is None and self._sniffable(path.name):
            if not path.is_file():  # a pipe would block the read for ever
                return None
            try:
                with path.open("rb") as f:
                    loader = self.for_path(path, head=f.read(HEAD_BYTES))
            except OSError:
                # Unreadable: read as text, the ingest says so ("unreadable_file"), not
                # that it does not read files without an extension.
                return self._by_name.get("text")
        return loader

    def _sniffable(self, name: str) -> bool:
        """Whether ``name`` has no extension, or is a container's (``.gz``) around a name
        with none: what only the file's first bytes can tell."""
        name = name.lower()
        while "." in name.lstrip("."):
            best = self._longest_extension(name)
            if best is None or not callable(getattr(best[1], "around", None)):
                return False
            name = name[: -best[0]]
        return True

    def _longest_extension(self, name: str) -> tuple[int, Loader] | None:
        """``(length, loader)`` of the longest registered extension ``name`` (lower-case)
        ends in, with something before it."""
        best: tuple[int, Loader] | None = None
        for ext, loader in self._by_ext.items():
            if name.endswith(ext) and len(name) > len(ext) and (best is None or len(ext) > best[0]):
                best = (len(ext), loader)
        return best

    def for_content_type(self, content_type: str) -> Loader | None:
        return self._by_type.get(content_type.split(";")[0].strip().lower())

    @property
    def names(self) -> list[str]:
        return sorted(self._by_name)

    @property
    def extensions(self) -> list[str]:
        return sorted(self._by_ext)


def _media(name: str) -> bool:
    """Whether ``name``'s extension is an image's, a sound's, a video's or a font's (a
    fixed list: the system's MIME table names ``.dif``, ``.pat`` … media, differently on
    each machine)."""
    return name.rsplit(".", 1)[-1] in _MEDIA if "." in name else False


_MEDIA = frozenset((
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "tif", "tiff", "webp", "avif", "heic",
    "xcf", "psd", "eps", "mp3", "ogg", "oga", "opus", "flac", "wav", "aac", "m4a", "mp4",
    "m4v", "mkv", "webm", "avi", "mov", "mpg", "mpeg", "ttf", "otf", "woff", "woff2", "eot",
    "pfb", "pfa"))


#: How much of a file with no extension is read to tell text from binary.
HEAD_BYTES = 8192


def is_text(head: bytes) -> bool:
    """Whether a file starting with ``head`` is text, as ``file`` and ripgrep tell: UTF-16
    with its byte-order mark; else no NUL byte, and UTF-8 (a character cut at the end of
    ``head`` allowed) or, in a legacy encoding, hardly any control characters. An empty
    file is not."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True  # UTF-16 with its byte-order mark (decode_text reads it)
    if not head or b"\0" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return True
    except UnicodeDecodeError:
        controls = sum(1 for b in head if (b < 32 and b not in _TEXT_CONTROLS) or b == 127)
        return controls * 100 <= len(head)


_TEXT_CONTROLS = frozenset(b"\t\n\r\f\x1b")  # a tab, line ends, a form feed, ANSI colours


def _instantiate(name: str, target: object) -> Loader | None:
    try:
        loader = target() if callable(target) else target
    except Exception:
        _log.exception("loader plugin %r failed to start; skipped", name)
        return None
    if not isinstance(loader, Loader):
        _log.error("loader plugin %r is not a Loader; skipped", name)
        return None
    return loader


def discover() -> LoaderRegistry:
    """A registry of every loader installed under ``citewise.loaders``."""
    found: dict[str, tuple[bool, Loader]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = ep.load()
        except Exception:
            _log.exception("loader plugin %r failed to import; skipped", ep.name)
            continue
        loader = _instantiate(ep.name, target)
        if loader is not None:
            found[ep.name] = (ep.value.startswith("citewise."), loader)
    for name, ref in _BUILTINS.items():
        if name not in found:
            module, _, attr = ref.partition(":")
            target = getattr(__import__(module, fromlist=[attr]), attr)
            loader = _instantiate(name, target)
            if loader is not None:
                found[name] = (True, loader)
    # Built-ins first, so third-party loaders registered later take over shared extensions.
    ordered = sorted(found.items(), key=lambda kv: (not kv[1][0], kv[0]))
    return LoaderRegistry(loader for _, (_, loader) in ordered)


@lru_cache(maxsize=1)
def default_registry() -> LoaderRegistry:
    """The discovered registry, built once per process."""
    return discover()
