"""``citewise docs list | show REF | rm REF… | stats``: the documents of a knowledge base.

The same operations, on the same calls, as the HTTP documents routes
(``server/routes/documents.py``: ``GET /v1/documents``, ``GET /v1/documents/{id}``,
``DELETE /v1/documents/{id}``), with the same JSON shapes under ``--json``
(``DocumentList``, ``DocumentInfo``), for one tenant (``--tenant``, like ``ingest`` and
``ask``). Reading commands open the store alone — listing documents must not load an
embedding model or finish another process's embedding — and never create a knowledge base;
``rm`` opens the knowledge base, because a deletion has to reach the search indexes too.

A document is named by its id (``docs list`` shows them) or by the path it was ingested
from, so ``citewise docs rm notes/old.md`` works as people expect. An unknown one is one
line ``error: … [unknown_document]`` and a non-zero exit; ``rm`` checks every name before
it deletes anything, so a typo among several deletes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from typing import TYPE_CHECKING, Any

from citewise.cli.common import DB_NAME, ENV_TENANT, add_data_dir, data_dir, database_url

if TYPE_CHECKING:
    from citewise.server.schemas import DocumentInfo
    from citewise.store.base import DocumentRecord, Store

__all__ = ["register"]

_PAGE = 500  # documents read per store call (each carries its text)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("docs", help="list, show, remove documents; knowledge-base stats")
    # Also before the action (`citewise docs --data-dir D stats`), as `ask` and `ingest`
    # take it right after the command (Click's review, 2026-12-05: "invalid choice: 'D'").
    add_data_dir(p, tenant=True)
    ds = p.add_subparsers(dest="docs_command", metavar="ACTION", required=True)

    ls = ds.add_parser("list", help="the documents, one per line: id, collection, type, "
                                    "length, source")
    ls.add_argument("--collection", default=None, help="only this collection's documents")
    ls.add_argument("--limit", type=int, default=None, metavar="N",
                    help="at most N documents (default: all)")
    ls.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N")
    ls.set_defaults(func=list_docs)

    show = ds.add_parser("show", help="one document: its record, sections, and with --text "
                                      "the stored text every citation offset indexes")
    show.add_argument("ref", metavar="ID|PATH")
    show.add_argument("--text", action="store_true", help="include the stored text")
    show.add_argument("--text-only", action="store_true",
                      help="print the stored text alone, as citations index it (for grep)")
    show.set_defaults(func=show_doc)

    rm = ds.add_parser("rm", help="delete documents (chunks, index entries and vectors)")
    rm.add_argument("refs", nargs="+", metavar="ID|PATH")
    rm.set_defaults(func=remove_docs)

    st = ds.add_parser("stats", help="documents, chunks and characters, by collection and "
                                     "content type")
    st.set_defaults(func=stats)

    for q in (ls, show, rm, st):
        q.add_argument("--json", action="store_true", help="print JSON (the HTTP API's shapes)")
        add_data_dir(q, tenant=True)


def _tenant(args: argparse.Namespace) -> str:
    from citewise.store.base import check_tenant

    return check_tenant(getattr(args, "tenant", None) or os.environ.get(ENV_TENANT)
                        or "default")


def _store(args: argparse.Namespace) -> Store:
    """The store, never created by a reading command."""
    from citewise.cli.common import open_store
    from citewise.errors import NotFound

    if database_url(args) is None and not (data_dir(args) / DB_NAME).exists():
        raise NotFound(f"no knowledge base in {data_dir(args)}; run `citewise ingest PATH` "
                       "first", code="no_knowledge_base")
    return open_store(args)


def _info(doc: DocumentRecord, *, text: bool = False) -> DocumentInfo:
    from citewise.server.schemas import DocumentInfo, document_metadata

    return DocumentInfo(id=doc.id, collection=doc.collection, source=doc.source,
                        title=doc.title, content_type=doc.content_type,
                        content_hash=doc.content_hash, length=len(doc.text),
                        metadata=document_metadata(doc.metadata, text=text),
                        created_at=doc.created_at,
                        updated_at=doc.updated_at, text=doc.text if text else None)


def _documents(store: Store, tenant: str, *, collection: str | None = None, offset: int = 0,
               limit: int | None = None) -> Iterator[DocumentRecord]:
    """Documents in store order, a page at a time (memory stays one page of texts)."""
    from citewise.errors import InvalidInput

    if offset < 0 or (limit is not None and limit < 0):
        raise InvalidInput("--limit and --offset must be 0 or more", code="invalid_range")
    left = limit
    while left is None or left > 0:
        size = _PAGE if left is None else min(_PAGE, left)
        page = store.list_documents(tenant, collection=collection, limit=size, offset=offset)
        yield from page
        if len(page) < size:
            return
        offset += len(page)
        if left is not None:
            left -= len(page)


def _resolve(store: Store, tenant: str, ref: str) -> DocumentRecord | None:
    """The document with id ``ref``, else the one ingested from that source or path (made
    absolute as ingest makes a file's source)."""
    return (store.get_document(tenant, ref)
            or store.find_document_by_source(tenant, ref)
            or store.find_document_by_source(tenant, os.path.abspath(os.path.expanduser(ref))))


def _by_name(store: Store, tenant: str, ref: str) -> DocumentRecord | None:
    """The one document whose file is named ``ref`` (a bare name), or whose path ends with
    it (a relative path, as ``eval``'s questions name documents): ``docs show
    gimp-tool-text.html`` from another folder than ingest's found nothing (GIMP's review),
    nor ``docs show scalc/guide/wildcards.html`` (LibreOffice's, 2026-12-06). None when no
    document or several are named so, and for an absolute path."""
    if os.path.isabs(ref):
        return None
    named = store.sources_named(tenant, ref, limit=2)
    return store.find_document_by_source(tenant, named[0]) if len(named) == 1 else None


_SHOWN = 3  # documents of the same name an unknown document's error lists
_ALIKE = 99  # how many of them it counts


def _unknown(refs: list[str], store: Store | None = None, tenant: str = "") -> Exception:
    """Documents not found; with the store, the sources of documents of the same file
    name are named (the one to give, when it is meant: a path is read from the current
    folder)."""
    from citewise.errors import NotFound

    said = ", ".join(repr(r) for r in refs)
    alike = [src for r in refs for src in store.sources_named(
        tenant, os.path.basename(r.rstrip("/")) or r, limit=_ALIKE + 1)] if store is not None \
        else []
    # Twenty READMEs named alike listed three, with no word of the other seventeen (a new
    # user's review, 2026-12-07): the count says how many the name leaves to choose from.
    more = "" if len(alike) <= _SHOWN else (
        f", and {len(alike) - _SHOWN}{'+' if len(alike) > _ALIKE else ''} more")
    hint = f" (documents of that name: {', '.join(alike[:_SHOWN])}{more})" if alike else ""
    return NotFound(f"unknown document{'s' if len(refs) > 1 else ''} {said}{hint}",
                    code="unknown_document",
                    details={"documents": refs, "alike": alike[:_ALIKE]})


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def list_docs(args: argparse.Namespace) -> int:
    tenant = _tenant(args)
    with closing(_store(args)) as store:
        docs = _documents(store, tenant, collection=args.collection, offset=args.offset,
                          limit=args.limit)
        if args.json:
            from citewise.server.schemas import DocumentList

            listed = DocumentList(documents=[_info(d) for d in docs])
            _print_json(listed.model_dump(mode="json"))
            return 0
        # Tab-separated under a header row (scripts read --json, or skip the first line);
        # the title last, so a column's place never moves (Wireshark's review, 2026-12-06:
        # a list of file names alone).
        sys.stdout.write("id\tcollection\ttype\tchars\tsource\ttitle\n")
        for d in docs:
            title = " ".join((d.title or "").split())
            sys.stdout.write(f"{d.id}\t{d.collection}\t{d.content_type}\t{len(d.text)}\t"
                             f"{d.source}\t{title}\n")
    return 0


def show_doc(args: argparse.Namespace) -> int:
    tenant = _tenant(args)
    with closing(_store(args)) as store:
        doc = _resolve(store, tenant, args.ref) or _by_name(store, tenant, args.ref)
        if doc is None:
            raise _unknown([args.ref], store, tenant)
        chunks = store.get_document_chunks(tenant, doc.id)
    w = sys.stdout.write
    if args.text_only:
        w(doc.text + ("" if doc.text.endswith("\n") else "\n"))
        return 0
    if args.json:
        _print_json(_info(doc, text=args.text).model_dump(mode="json"))
        return 0
    for label, value in (("id", doc.id), ("source", doc.source), ("title", doc.title),
                         ("collection", doc.collection), ("content type", doc.content_type),
                         ("length", f"{len(doc.text)} characters"), ("chunks", len(chunks)),
                         ("sha256", doc.content_hash), ("created", doc.created_at),
                         ("updated", doc.updated_at)):
        if value is not None:
            w(f"{label + ':':<14}{value}\n")
    sections = list(dict.fromkeys(c.section for c in chunks if c.section))
    if sections:
        w("sections:\n" + "".join(f"  {s}\n" for s in sections))
    meta = {k: v for k, v in (doc.metadata or {}).items() if k not in ("path", "chunking")}
    anchors = meta.pop("anchors", None) if not args.text else None
    if isinstance(anchors, dict):  # ~48 KB on one line for a page of Python's reference
        meta["anchors"] = f"{len(anchors)} element ids (shown with --text)"
    labels = meta.pop("page_labels", None) if not args.text else None
    if isinstance(labels, dict):  # a book's: one per page past its front matter
        meta["page_labels"] = f"{len(labels)} pages printed with another number (shown with --text)"
    if meta:
        w("metadata:\n" + "".join(f"  {k}: {json.dumps(v, ensure_ascii=False, default=str)}\n"
                                  for k, v in sorted(meta.items())))
    if args.text:
        w("\n" + doc.text + ("" if doc.text.endswith("\n") else "\n"))
    return 0


def remove_docs(args: argparse.Namespace) -> int:
    from citewise.cli.common import open_kb

    with open_kb(args, must_exist=True) as kb:
        found: dict[str, DocumentRecord] = {}
        missing: list[str] = []
        for ref in args.refs:
            doc = _resolve(kb.store, kb.tenant, ref)
            if doc is None:
                missing.append(ref)
            else:
                found.setdefault(doc.id, doc)
        if missing:  # checked first: nothing is deleted (and a name alone removes none)
            raise _unknown(missing, kb.store, kb.tenant)
        removed = [doc for doc in found.values() if kb.delete_document(doc.id)]
    if args.json:
        _print_json({"removed": [{"id": d.id, "source": d.source} for d in removed]})
    else:
        for d in removed:
            sys.stderr.write(f"removed {d.id} {d.source}\n")
    return 0


def stats(args: argparse.Namespace) -> int:
    tenant = _tenant(args)
    by_collection: Counter[str] = Counter()
    by_type: Counter[str] = Counter()
    characters = 0
    with closing(_store(args)) as store:
        for d in _documents(store, tenant):
            by_collection[d.collection] += 1
            by_type[d.content_type] += 1
            characters += len(d.text)
        chunks = store.count_chunks(tenant)
    result = {"tenant": tenant, "documents": sum(by_collection.values()), "chunks": chunks,
              "characters": characters, "collections": dict(sorted(by_collection.items())),
              "content_types": dict(by_type.most_common())}
    if args.json:
        _print_json(result)
        return 0
    w = sys.stdout.write
    w(f"tenant:      {tenant}\ndocuments:   {result['documents']}\nchunks:      {chunks}\n"
      f"characters:  {characters}\n")
    for title, counts in (("collections", by_collection), ("content types", by_type)):
        if counts:
            w(f"{title}:\n" + "".join(f"  {n:>7}  {k}\n" for k, n in counts.most_common()))
    return 0
