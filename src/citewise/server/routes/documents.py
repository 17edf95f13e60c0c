"""``/v1/documents``: upload (multipart field ``file``, read by the loaders), list, read,
delete. Every document belongs to the caller's tenant."""

from __future__ import annotations

import asyncio
import hashlib
import re
import threading
from functools import partial
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, File, Form, Path, Query, Request, Response, UploadFile

from citewise.errors import IngestError, InvalidInput, NotFound
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.errors import PayloadTooLarge
from citewise.server.ingest_queue import BIG_BYTES
from citewise.server.schemas import (
    DocumentInfo,
    DocumentList,
    UploadResult,
    document_metadata,
)
from citewise.sizes import size_text

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase
    from citewise.store.base import DocumentRecord

__all__ = ["router"]

router = APIRouter(prefix="/v1/documents", tags=["documents"], responses=ERRORS)

DocumentId = Annotated[str, Path(min_length=1, max_length=128, description="Document id.")]
UPLOADS = "uploads"
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


MAX_NAME = 200
# The extension(s) a loader is chosen by: ".md", or two suffixes such as ".tar.gz".
_EXTENSION = re.compile(r"(?:\.[\w-]{1,16}){1,2}$")


def safe_name(filename: str | None) -> str:
    """A plain file name from what the client sent (no folders, no odd characters).

    A name over ``MAX_NAME`` characters is shortened in its stem: the extension picks the
    loader, so it is kept, and a hash of the whole name keeps two long names that differ
    only past the cut from replacing each other's document (the same name still maps to
    the same document).
    """
    name = re.split(r"[\\/]", filename or "")[-1]
    name = re.sub(r"[^\w.\- ]", "_", name).strip().lstrip(".")
    if len(name) > MAX_NAME:
        found = _EXTENSION.search(name)
        ext = found.group() if found else ""
        tag = "~" + hashlib.sha256(name.encode()).hexdigest()[:8]
        name = name[: MAX_NAME - len(tag) - len(ext)].rstrip(" .") + tag + ext
    return name or "upload"


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            lock = _locks[key] = threading.Lock()
        return lock


def display_source(source: str, root: FsPath) -> str:
    """A document's source as its uploader named it. Uploads are stored under the client's
    file name; versions before 0.2 stored them under a server path in ``uploads/``, which
    is shown by its file name too."""
    path = FsPath(source)
    return path.name if path.is_relative_to(root / UPLOADS) else source


def info(doc: DocumentRecord, root: FsPath, *, text: bool = False) -> DocumentInfo:
    """What the API says of a document (its anchors only with its text)."""
    source = display_source(doc.source, root)
    metadata = document_metadata(doc.metadata, text=text)
    return DocumentInfo(id=doc.id, collection=doc.collection, source=source, title=doc.title,
                        content_type=doc.content_type, content_hash=doc.content_hash,
                        length=len(doc.text), metadata=metadata,
                        created_at=doc.created_at, updated_at=doc.updated_at,
                        text=doc.text if text else None)


def _ingest(kb: KnowledgeBase, root: FsPath, tenant: str, name: str, data: bytes,
            collection: str, source: str | None = None) -> UploadResult:
    # The client's file name — or the relative path it gave as ``source`` — is the
    # document's source: what its citations show, and what a re-upload of the same source
    # replaces (never a path of this server). Two README.md of two folders stay two.
    src = name if source is None else _relative_source(source)
    with _lock(f"{tenant}\0{src}"):
        report = kb.ingest_bytes(name, data, source=src, collection=collection)
    if report.failed:
        failure = report.failed[0]
        raise IngestError(failure.message, code=failure.code, details={"file": src})
    doc = kb.find_source(src)
    if doc is None:  # pragma: no cover - ingest reported success
        raise IngestError("the document was not stored", code="ingest_failed")
    status = "added" if report.added else "updated" if report.updated else "unchanged"
    return UploadResult(status=status, document=info(doc, root))  # type: ignore[arg-type]


def _relative_source(source: str) -> str:
    """An upload's ``source``: a relative path as the client names it (``docs/README.md``),
    with ``/`` separators, no empty, ``.`` or ``..`` part; anything else is refused."""
    parts = source.replace("\\", "/").split("/")
    if source.startswith(("/", "\\")) or any(p in ("", ".", "..") for p in parts) or any(
            ord(ch) < 32 for ch in source):
        raise InvalidInput("source must be a relative path such as docs/README.md",
                           code="invalid_source", details={"source": source[:200]})
    return "/".join(parts)


async def _reject_repeated_fields(request: Request) -> None:
    """One upload is one file: a second ``file`` part (or ``collection``) is refused, not
    silently dropped, as repeated query parameters are (``validation_error``)."""
    form = await request.form()  # the form FastAPI has already parsed: no second read
    repeated = sorted({k for k in form if len(form.getlist(k)) > 1})
    if repeated:
        raise InvalidInput(f"form field(s) given more than once: {', '.join(repeated)}",
                           code="validation_error", details={"fields": repeated})


@router.post("", status_code=201, response_model=UploadResult, summary="Upload a document",
             responses={200: {"model": UploadResult, "description": "Unchanged re-upload"}})
async def upload_document(
    request: Request, response: Response, state: State, who: Caller,
    file: Annotated[UploadFile, File(description="The document (any format a loader reads).")],
    collection: Annotated[str, Form(min_length=1, max_length=256,
                                    description="Collection to file it in.")] = "default",
    source: Annotated[str | None, Form(
        min_length=1, max_length=1024,
        description="Its relative path (docs/README.md): the document's source, instead "
                    "of the bare file name.")] = None,
) -> UploadResult:
    """Ingest one file: loaded, chunked and lexically searchable before this returns (its
    vectors follow from the embedding workers: ``GET /v1/status``). Uploading a file of the
    same name — or the same ``source`` — again replaces that document."""
    await _reject_repeated_fields(request)
    limit = state.config.max_upload_bytes
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise PayloadTooLarge(f"the file is larger than {size_text(limit)}", code="upload_too_large",
                              details={"max_bytes": limit})
    # On the document threads, in the tenant's turn (server.ingest_queue): a tenant's big
    # upload never holds the threads every other request of every tenant needs.
    result = await state.services.jobs.run(
        who.tenant, partial(_ingest, state.services.kb(who.tenant), state.services.data_dir,
                            who.tenant, safe_name(file.filename), data, collection, source),
        big=len(data) > BIG_BYTES)
    if result.status == "unchanged":  # nothing was created (as the OpenAPI document says)
        response.status_code = 200
    return result


@router.get("", response_model=DocumentList, summary="List documents")
async def list_documents(
    state: State, who: Caller,
    collection: Annotated[str | None, Query(min_length=1, max_length=256)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> DocumentList:
    kb = state.services.kb(who.tenant)
    docs = await asyncio.to_thread(kb.list_documents, collection=collection, limit=limit,
                                   offset=offset)
    return DocumentList(documents=[info(d, state.services.data_dir) for d in docs])


@router.get("/{document_id}", response_model=DocumentInfo, summary="A document")
async def get_document(
    document_id: DocumentId, state: State, who: Caller,
    text: Annotated[bool, Query(description="Include the stored text.")] = False,
) -> DocumentInfo:
    doc = await asyncio.to_thread(state.services.kb(who.tenant).get_document, document_id)
    if doc is None:
        raise NotFound(f"unknown document {document_id!r}", code="unknown_document",
                       details={"document_id": document_id})
    return info(doc, state.services.data_dir, text=text)


@router.delete("/{document_id}", status_code=204, response_class=Response,
               summary="Delete a document")
async def delete_document(document_id: DocumentId, state: State, who: Caller) -> Response:
    # A delete rewrites indexes (its document may be large): a big job, in the tenant's turn.
    deleted = await state.services.jobs.run(
        who.tenant, partial(state.services.kb(who.tenant).delete_document, document_id),
        big=True)
    if not deleted:
        raise NotFound(f"unknown document {document_id!r}", code="unknown_document",
                       details={"document_id": document_id})
    return Response(status_code=204)
