"""The ingest pipeline: paths → files → loaded text → chunks → SQLite (+ outbox) → index.

One bad file never stops the rest: each failure is recorded with its typed error code.
Unchanged files (same bytes, same collection, same loader and chunking) are not even
decoded. Store writes are batched (one transaction per batch of documents, small enough
that a folder of any size streams through in bounded memory); the index is synced once at
the end of the call (see :mod:`.outbox` for why that is safe), and embedding is queued
there for the workers (:mod:`.embed_worker`). Each document is claimed while it is
written, so two ingests never both write one file. Which files are read is
:mod:`.files`' business; what happened, :mod:`.report`'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.ingest.chunking import Chunker
from citewise.knowledge.ingest.claims import DocumentClaims
from citewise.knowledge.ingest.emptied import emptied, navigation_page
from citewise.knowledge.ingest.files import expand, shown, source_for
from citewise.knowledge.ingest.outbox import fault_point
from citewise.knowledge.ingest.report import IngestFailure, IngestReport
from citewise.knowledge.loaders import HEAD_BYTES, LoaderRegistry
from citewise.knowledge.loaders.base import LoadedDocument, Loader
from citewise.sizes import size_text
from citewise.store.base import ChunkRecord, DocumentRecord, Store

__all__ = ["MAX_FILE_BYTES", "Progress", "document_id_for", "ingest_data", "ingest_paths", "prepare_document"]

Progress = Callable[[int, int], None]

MAX_FILE_BYTES = 64 * 1024 * 1024
_FLUSH_CHUNKS = 5_000
_FLUSH_DOCS = 200
#: Files claimed at a time.
_CLAIM_WINDOW = 64
# A lone UTF-16 surrogate: a str can hold one, UTF-8 (chunk ids, SQLite, JSONB) cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")


def document_id_for(tenant: str, source: str) -> str:
    """Stable document id: a hash of (tenant, absolute source)."""
    return hashlib.sha256(f"{tenant}\x00{source}".encode()).hexdigest()[:32]


@dataclass(slots=True)
class _Prepared:
    document: DocumentRecord
    chunks: list[ChunkRecord]
    is_new: bool
    #: The same bytes read again: by a newer loader, or chunked otherwise.
    reread: bool = False


def _written(report: IngestReport, p: _Prepared) -> None:
    """Count a written document in ``report``: added or updated, and re-read if so."""
    (report.added if p.is_new else report.updated).append(p.document.source)
    if p.reread:
        report.reread.append(p.document.source)


def _loader(registry: LoaderRegistry, name: Path, data: bytes | None = None) -> Loader:
    """The loader of ``name``: by its extension, and with none by ``data`` (the file's
    bytes) or, without them, by the file's first bytes (:meth:`LoaderRegistry.for_file`)."""
    loader = (registry.for_file(name) if data is None
              else registry.for_path(name, head=data[:HEAD_BYTES]))
    if loader is None:
        # One line a person reads (the ~130 extensions are in ``details``, for a program).
        kind = f"{name.suffix} files" if name.suffix else "files without an extension"
        inner = Path(name.stem).suffix
        if name.suffix.lower() == ".gz" and inner:  # it reads .gz: not what is inside
            kind = f"{inner} files (inside .gz)"
        raise IngestError(
            f"no loader for {name.name}: citewise does not read {kind} (it reads text, "
            "markdown, HTML, PDF, DOCX, EPUB, man pages, source code and more; a loader "
            "plugin can add a format)",
            code="unsupported_format",
            details={"path": str(name), "known": list(registry.extensions)},
        )
    return loader


def _prepare(
    path: Path,
    *,
    known: tuple[str, str, dict[str, Any]] | None,
    tenant: str,
    collection: str,
    registry: LoaderRegistry,
    chunker: Chunker,
) -> _Prepared | None:
    """The document and chunks to write for ``path``, or None when it is unchanged."""
    _loader(registry, path)  # refused before the file is read
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read for ever
            raise IngestError("not a regular file (a pipe, socket or device)",
                              code="unsupported_path")
        size = st.st_size
        if size > MAX_FILE_BYTES:
            raise IngestError(
                f"file is {size_text(size)}, over the {size_text(MAX_FILE_BYTES)} limit",
                code="file_too_large",
            )
        data = path.read_bytes()
    except OSError as exc:
        target = _dangling(path) if isinstance(exc, FileNotFoundError) else None
        if target is not None:
            # "No such file or directory" of a file the walk just listed read as a race
            # (Debian's Sphinx builds link their scripts to /usr/share/javascript, and a
            # copy of the folder keeps the links: Knot DNS's review, 2026-12-07).
            raise IngestError(f"broken symbolic link: it points to {target}, which does not "
                              "exist", code="unreadable_file") from exc
        raise IngestError(f"cannot read file: {exc.strerror or exc}", code="unreadable_file") from exc
    return prepare_document(path, data, source=str(path), known=known, tenant=tenant,
                            collection=collection, registry=registry, chunker=chunker)


def _dangling(path: Path) -> str | None:
    """Where ``path``, a symbolic link to nothing, points (printable); None if it is none."""
    try:
        return shown(os.readlink(path)) if path.is_symlink() else None
    except OSError:  # gone or changed since: the plain message says enough
        return None


def prepare_document(
    name: Path,
    data: bytes,
    *,
    source: str,
    known: tuple[str, str, dict[str, Any]] | None,
    tenant: str,
    collection: str,
    registry: LoaderRegistry,
    chunker: Chunker,
) -> _Prepared | None:
    """The document and chunks for ``data`` (a file's bytes; ``name`` picks the loader and
    titles it) stored under ``source``, or None when that document is unchanged."""
    loader = _loader(registry, name, data)
    if len(data) > MAX_FILE_BYTES:
        raise IngestError(f"file is {size_text(len(data))}, over the {size_text(MAX_FILE_BYTES)} "
                          "limit",
                          code="file_too_large")
    doc_id = document_id_for(tenant, source)
    content_hash = hashlib.sha256(data).hexdigest()
    reread = False
    if known is not None:
        old_hash, old_collection, old_meta = known
        read_alike = (old_meta.get("loader") == loader.name
                      and str(old_meta.get("loader_version", "1")) == _version(loader)
                      and old_meta.get("chunking") == chunker.signature)
        if old_hash == content_hash and old_collection == collection and read_alike:
            return None
        reread = old_hash == content_hash and not read_alike
    try:
        loaded = loader.load(name, data)
    except IngestError:
        raise
    except Exception as exc:  # a loader bug or a corrupt file must not stop the folder
        # The same code the loaders give a file they recognise as damaged.
        raise IngestError(f"{loader.name} loader failed: {exc}", code="corrupt_file") from exc
    metadata = {**loaded.metadata, "loader": loader.name, "loader_version": _version(loader),
                "chunking": chunker.signature}
    metadata.setdefault("path", source)
    # A plugin's metadata must not break the batch's write: anything JSON cannot hold
    # (datetimes, paths, …) is stored as its string form.
    encoded = json.dumps(metadata, default=str, ensure_ascii=False)
    _refuse_surrogates(loader, loaded, encoded)
    metadata = json.loads(encoded)
    chunks = chunker.chunk(doc_id, loaded.text, sections=loaded.sections, pages=loaded.pages,
                           roles=getattr(loaded, "roles", ()))
    if not chunks:
        raise IngestError("no text to index", code="empty_document")
    document = DocumentRecord(
        id=doc_id,
        tenant=tenant,
        collection=collection,
        source=source,
        title=loaded.title,
        content_type=loaded.content_type,
        content_hash=content_hash,
        text=loaded.text,
        metadata=metadata,
    )
    return _Prepared(document, chunks, is_new=known is None, reread=reread)


def _refuse_surrogates(loader: Loader, loaded: LoadedDocument, metadata_json: str) -> None:
    """Refuse, as this file's failure, strings no UTF-8 text can hold (lone surrogates).

    Otherwise they raise ``UnicodeEncodeError`` while chunk ids are hashed or rows are
    written, outside any one file's handling, and abort the whole batch. The built-in
    loaders never hand any over (the JSON loader replaces escaped ones); a loader that
    does has produced unusable text, which is reported like a loader that crashed.
    """
    fields = (
        ("text", loaded.text),
        ("title", loaded.title or ""),
        ("section names", "\n".join(str(s[2]) for s in loaded.sections)),
        ("metadata", metadata_json),
    )
    for what, value in fields:
        found = _SURROGATE.search(value)
        if found is not None:
            raise IngestError(
                f"{loader.name} loader produced {what} that is not valid Unicode (unpaired "
                f"surrogate U+{ord(found.group()):04X} at offset {found.start()})",
                code="corrupt_file",
            )


def ingest_data(
    name: str,
    data: bytes,
    *,
    source: str,
    store: Store,
    tenant: str,
    collection: str,
    registry: LoaderRegistry,
    chunker: Chunker,
    local: bool = False,
) -> IngestReport:
    """Write one document given as bytes (an upload) under ``source`` (index sync not
    included); the same report as :func:`ingest_paths`, keyed by ``source``."""
    report = IngestReport()
    doc_id = document_id_for(tenant, source)
    claims = DocumentClaims(store, tenant, local=local)
    claims.wait_for(doc_id)  # another upload of this source is being written: after it
    try:
        known = store.get_document_versions(tenant, [doc_id]).get(doc_id)
        try:
            prepared = prepare_document(Path(name), data, source=source, known=known,
                                        tenant=tenant, collection=collection,
                                        registry=registry, chunker=chunker)
        except IngestError as exc:
            report.failed.append(IngestFailure(source, exc.code, exc.message))
            return report
        if prepared is None:
            report.unchanged.append(source)
            return report
        store.replace_documents([(prepared.document, prepared.chunks)])
        _written(report, prepared)
        report.chunks_written += len(prepared.chunks)
        return report
    finally:
        claims.release_all()


def ingest_paths(
    paths: Iterable[str | Path],
    *,
    store: Store,
    tenant: str,
    collection: str,
    registry: LoaderRegistry,
    chunker: Chunker,
    progress: Progress | None = None,
    exclude: Iterable[Path] = (),
    on_file: Callable[[str], None] | None = None,
    local: bool = False,
    walked: bool = False,
) -> IngestReport:
    """Write every changed file's document and chunks to ``store`` (index sync not
    included). Folders in ``exclude`` are not walked. A file emptied since it was ingested
    (zero bytes) has its document deleted (``removed``): its text is gone from the disk,
    and must not go on being quoted; any other file that fails to load keeps its document.

    Each document is *claimed* in the store while it is read and written (see
    :mod:`citewise.store.work`): a file another ingest is writing right now is put off
    to the end and done after that ingest released it — then, normally, it is unchanged —
    so two ingests of one folder never both write (nor queue the embedding of) one file.
    ``on_file(path)`` is told each file as its turn comes (progress displays); ``local``:
    the store is a file of this machine (a dead process's claims are taken back at once)."""
    report = IngestReport()
    paths = list(paths)
    # Given by name, not met in a walk (``walked``: a watcher's changed files were).
    named = set() if walked else {str(Path(source_for(p))) for p in paths}
    files = expand(paths, registry, report, exclude)
    total = len(files)
    if progress is not None:
        progress(0, total)
    claims = DocumentClaims(store, tenant, local=local)
    batch = _Batch(store, report, claims)
    done = 0
    try:
        deferred: list[Path] = []
        for i in range(0, total, _CLAIM_WINDOW):
            window = files[i : i + _CLAIM_WINDOW]
            held = claims.take([document_id_for(tenant, str(p)) for p in window])
            versions = store.get_document_versions(tenant, sorted(held))
            for path in window:
                doc_id = document_id_for(tenant, str(path))
                if doc_id not in held:
                    deferred.append(path)
                    continue
                if on_file is not None:
                    on_file(str(path))
                _one(path, doc_id, versions, store=store, tenant=tenant,
                     collection=collection, registry=registry, chunker=chunker,
                     report=report, batch=batch, walked=str(path) not in named)
                done += 1
                if progress is not None:
                    progress(done, total)
        batch.flush()
        for path in deferred:  # holding no claim now: no two ingests wait on each other
            doc_id = document_id_for(tenant, str(path))
            claims.wait_for(doc_id)
            if on_file is not None:
                on_file(str(path))
            versions = store.get_document_versions(tenant, [doc_id])
            _one(path, doc_id, versions, store=store, tenant=tenant, collection=collection,
                 registry=registry, chunker=chunker, report=report, batch=batch,
                 walked=str(path) not in named)
            batch.flush()
            done += 1
            if progress is not None:
                progress(done, total)
    finally:
        claims.release_all()
    return report


def _one(
    path: Path, doc_id: str, versions: dict[str, tuple[str, str, dict[str, Any]]], *,
    store: Store, tenant: str, collection: str, registry: LoaderRegistry, chunker: Chunker,
    report: IngestReport, batch: _Batch, walked: bool = False,
) -> None:
    """Read, prepare and queue for writing one claimed file (``walked``: met in a walk)."""
    try:
        prepared = _prepare(path, known=versions.get(doc_id), tenant=tenant,
                            collection=collection, registry=registry, chunker=chunker)
    except IngestError as exc:
        if (exc.code == "empty_document" and doc_id in versions and emptied(path)
                and store.delete_document(tenant, doc_id)):
            report.removed.append(str(path))
        elif exc.code == "empty_document" and walked and navigation_page(
                path, versions.get(doc_id)):
            report.skipped.append(shown(path))
            report.skip_reasons[shown(path)] = "pages with no text beyond navigation or scripts"
            if doc_id in versions and store.delete_document(tenant, doc_id):
                report.removed.append(str(path))
        else:
            report.failed.append(IngestFailure(str(path), exc.code, exc.message))
        batch.done_with(doc_id)
        return
    if prepared is None:
        report.unchanged.append(str(path))
        batch.done_with(doc_id)
    else:
        batch.add(prepared)


class _Batch:
    """Prepared documents waiting to be written together (one transaction per batch)."""

    def __init__(self, store: Store, report: IngestReport, claims: DocumentClaims) -> None:
        self.store = store
        self.report = report
        self.claims = claims
        self.pending: list[_Prepared] = []
        self.chunks = 0
        self.idle: list[str] = []  # claimed, nothing to write: released with the batch

    def add(self, prepared: _Prepared) -> None:
        self.pending.append(prepared)
        self.chunks += len(prepared.chunks)
        if self.chunks >= _FLUSH_CHUNKS or len(self.pending) >= _FLUSH_DOCS:
            self.flush()

    def done_with(self, doc_id: str) -> None:
        self.idle.append(doc_id)
        if len(self.idle) >= _CLAIM_WINDOW:
            self.claims.release(self.idle)
            self.idle = []

    def flush(self) -> None:
        if self.pending:
            self.store.replace_documents([(p.document, p.chunks) for p in self.pending])
            fault_point("ingest:after_batch")
            for p in self.pending:
                _written(self.report, p)
            self.report.chunks_written += self.chunks
        self.claims.release([p.document.id for p in self.pending] + self.idle)
        self.pending, self.chunks, self.idle = [], 0, []


def _version(loader: Loader) -> str:
    """The loader's rendering version (``Loader.version``, "1" when it has none): a
    document read by an older one is read again though its bytes did not change."""
    return str(getattr(loader, "version", "1"))
