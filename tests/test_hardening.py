"""Hardening from the attack run of issue #25 (findings 3 and 5–12): each test builds the
attack against real files, stores and servers and shows it refused, typed, with nothing
written — and that the ordinary case still works."""

from __future__ import annotations

import base64
import gzip
import io
import json
import logging
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time
import zipfile
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import docx
import httpx
import pytest
import sqlalchemy as sa

from citewise.errors import IngestError, UsageError
from citewise.knowledge.loaders import _archive
from citewise.knowledge.loaders._archive import check_zip, gunzip, read_member
from citewise.knowledge.loaders.docx import MAX_PARAGRAPHS, DocxLoader
from citewise.server import ServerConfig
from citewise.server.auth import create_key
from citewise.server.testing import serve
from citewise.store import schema
from citewise.store.base import FeedbackRecord
from citewise.store.sqlite import SQLiteStore
from test_server import make_app

# -- finding 3: what unpacks ------------------------------------------------------------

_HEAD = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w='
         b'"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
_TAIL = b"</w:body></w:document>"


def _docx_with_body(body: bytes) -> bytes:
    """A real DOCX (python-docx's template) whose ``word/document.xml`` body is ``body``."""
    template = io.BytesIO()
    docx.Document().save(template)
    src = zipfile.ZipFile(io.BytesIO(template.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in src.infolist():
            if info.filename == "word/document.xml":
                z.writestr("word/document.xml", _HEAD + body + _TAIL)
            else:
                z.writestr(info, src.read(info.filename))
    return out.getvalue()


def _bomb_docx() -> bytes:
    """About 149 KB that unpack to ~50 MB of XML in 1.4 million paragraphs: the upload
    that cost the server +1 GB RSS and 255 s."""
    return _docx_with_body(b"<w:p><w:r><w:t>a</w:t></w:r></w:p>" * 1_400_000)


def _code(exc: pytest.ExceptionInfo[IngestError]) -> str:
    return exc.value.code


@pytest.mark.slow
def test_docx_bomb_is_refused_fast_and_nothing_is_written(tmp_path: Path) -> None:
    from citewise import KnowledgeBase

    data = _bomb_docx()
    assert 120_000 < len(data) < 180_000
    path = tmp_path / "docs" / "bomb.docx"
    path.parent.mkdir()
    path.write_bytes(data)
    start = time.monotonic()
    with pytest.raises(IngestError) as exc:
        DocxLoader().load(path, data)
    assert time.monotonic() - start < 2.0
    assert _code(exc) == "archive_bomb"
    assert exc.value.details["member"] == "word/document.xml"
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        report = kb.ingest([path])
        assert [f.code for f in report.failed] == ["archive_bomb"]
        assert kb.list_documents() == []


def test_an_ordinary_docx_still_loads() -> None:
    body = b"".join(b"<w:p><w:r><w:t>Paragraph %d of the handbook.</w:t></w:r></w:p>" % i
                    for i in range(2000))
    doc = DocxLoader().load(Path("ok.docx"), _docx_with_body(body))
    assert doc.text.startswith("Paragraph 0 of the handbook.\n\nParagraph 1")
    assert doc.text.count("\n\n") == 1999


def test_docx_paragraph_count_is_bounded() -> None:
    # Honest compression (distinct numbers), so only the paragraph bound can refuse it.
    body = b"".join(b"<w:p><w:r><w:t>%d</w:t></w:r></w:p>" % i
                    for i in range(MAX_PARAGRAPHS + 1))
    start = time.monotonic()
    with pytest.raises(IngestError) as exc:
        DocxLoader().load(Path("many.docx"), _docx_with_body(body))
    assert _code(exc) == "document_too_large"
    assert exc.value.details["paragraphs"] == MAX_PARAGRAPHS + 1
    assert time.monotonic() - start < 10


def test_pdf_page_count_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PdfWriter

    from citewise.knowledge.loaders import pdf

    writer = PdfWriter()
    for _ in range(4):
        writer.add_blank_page(612, 792)
    buf = io.BytesIO()
    writer.write(buf)
    monkeypatch.setattr(pdf, "MAX_PAGES", 3)
    with pytest.raises(IngestError) as exc:
        pdf.PdfLoader().load(Path("long.pdf"), buf.getvalue())
    assert _code(exc) == "document_too_large" and exc.value.details["pages"] == 4
    monkeypatch.setattr(pdf, "MAX_PAGES", 4)
    with pytest.raises(IngestError) as exc:  # within the bound: read, and blank
        pdf.PdfLoader().load(Path("long.pdf"), buf.getvalue())
    assert _code(exc) == "empty_document"


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipFile:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return zipfile.ZipFile(io.BytesIO(buf.getvalue()))


def test_zip_member_count_ratio_and_size_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    many = _zip({f"m{i}": b"x" for i in range(_archive.MAX_MEMBERS + 1)})
    with pytest.raises(IngestError) as exc:
        check_zip(many, what="many.zip")
    assert _code(exc) == "archive_bomb" and exc.value.details["members"] == 10_001

    dense = _zip({"zeros": bytes(4 << 20)})  # 4 MiB of zeros: ~1000:1
    with pytest.raises(IngestError) as exc:
        check_zip(dense, what="dense.zip")
    assert _code(exc) == "archive_bomb"
    assert exc.value.details["limit_ratio"] == 100

    small = _zip({"zeros": bytes(512 << 10)})  # under the grace size: any ratio
    assert check_zip(small, what="small.zip") == 512 << 10

    # Honest (stored) but over the cap: too large, not a bomb.
    monkeypatch.setattr(_archive, "MAX_UNPACKED_BYTES", 1 << 20)
    big = _zip({"a": bytes(600 << 10), "b": bytes(600 << 10)}, zipfile.ZIP_STORED)
    with pytest.raises(IngestError) as exc:
        check_zip(big, what="big.zip", max_bytes=1 << 20)
    assert _code(exc) == "document_too_large"
    assert check_zip(big, what="big.zip", max_bytes=2 << 20) == 1200 << 10


def test_open_zip_counts_members_before_zipfile_builds_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for i in range(_archive.MAX_MEMBERS + 1):
            z.writestr(f"m{i}", b"")
    many = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(many)) as zf:
        assert len(zf.infolist()) == 10_001

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("ZipFile was built for an archive refused by its end record")

    monkeypatch.setattr(zipfile, "ZipFile", never)
    with pytest.raises(IngestError) as exc:
        _archive.open_zip(many, what="many.zip")
    assert _code(exc) == "archive_bomb" and exc.value.details["members"] == 10_001
    monkeypatch.undo()
    with _archive.open_zip(_zip_bytes({"a": b"x"}), what="one.zip") as zf:
        assert zf.read("a") == b"x"
    with pytest.raises(IngestError) as exc:
        _archive.open_zip(b"PK\x03\x04 not really", what="junk.zip")
    assert _code(exc) == "corrupt_file"


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _lying(size: int) -> bytes:
    """A zip whose headers say ``word/document.xml`` unpacks to ``size`` bytes, while its
    deflate stream really unpacks to 2 MiB (CRC set for the truncated data, as an attacker
    would: zipfile cannot tell)."""
    real = b"<w:p/>" * ((2 << 20) // 6)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", real)
    data = bytearray(buf.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0]
    crc = zlib.crc32(real[:size])
    struct.pack_into("<L", data, info.header_offset + 14, crc)  # local header
    struct.pack_into("<L", data, info.header_offset + 22, size)
    central = bytes(data).rindex(b"PK\x01\x02")
    struct.pack_into("<L", data, central + 16, crc)
    struct.pack_into("<L", data, central + 24, size)
    return bytes(data)


def test_zip_header_that_lies_about_a_size_is_a_bomb() -> None:
    data = _lying(40_000)
    zf = zipfile.ZipFile(io.BytesIO(data))
    assert len(zf.read("word/document.xml")) == 40_000  # zipfile itself is fooled
    with pytest.raises(IngestError) as exc:
        check_zip(zf, what="liar.zip")
    assert _code(exc) == "archive_bomb"
    assert exc.value.details["declared_bytes"] == 40_000


def test_zip_encrypted_and_exotic_members_are_typed() -> None:
    zf = _zip({"a.txt": b"hello" * 100})
    zf.infolist()[0].flag_bits |= 0x1
    with pytest.raises(IngestError) as exc:
        check_zip(zf, what="e.zip")
    assert _code(exc) == "encrypted_file"
    bz = _zip({"a.txt": b"hello" * 100}, zipfile.ZIP_BZIP2)
    with pytest.raises(IngestError) as exc:
        check_zip(bz, what="b.zip")
    assert _code(exc) == "unsupported_format"


def test_read_member_is_capped() -> None:
    data = random.Random(3).randbytes(4000)
    zf = _zip({"a.xml": data})
    assert read_member(zf, "a.xml", what="z") == data
    with pytest.raises(IngestError) as exc:
        read_member(zf, "a.xml", what="z", max_bytes=100)
    assert _code(exc) == "document_too_large"


def test_gunzip_caps_output() -> None:
    text = b"the refund takes 14 days\n" * 1000
    assert gunzip(gzip.compress(text), max_bytes=len(text)) == text
    assert gunzip(gzip.compress(b"one ") + gzip.compress(b"two") + bytes(8)) == b"one two"
    bomb = gzip.compress(bytes(40 << 20), compresslevel=9)  # ~40 KB -> 40 MiB
    start = time.monotonic()
    with pytest.raises(IngestError) as exc:
        gunzip(bomb, max_bytes=8 << 20)
    assert time.monotonic() - start < 1.0
    assert _code(exc) == "archive_bomb"
    assert exc.value.details["unpacked_bytes"] <= (8 << 20) + _archive.CHUNK_BYTES
    honest = random.Random(25).randbytes(2 << 20)  # 2 MiB that do not compress
    with pytest.raises(IngestError) as exc:
        gunzip(gzip.compress(honest), max_bytes=1 << 20)
    assert _code(exc) == "document_too_large"
    for damaged in (gzip.compress(text)[:-20], b"not gzip at all", gzip.compress(text) + b"xx"):
        with pytest.raises(IngestError) as exc:
            gunzip(damaged)
        assert _code(exc) == "corrupt_file"


# -- servers --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One server without auth (``auth=none``) and its data directory."""
    data = tmp_path_factory.mktemp("hardening")
    with serve(make_app(data, auth="none")) as base:
        yield base, data


def _ask(base: str) -> dict[str, Any]:
    r = httpx.post(f"{base}/v1/ask", json={"question": "quick secret question"}, timeout=60)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _error_code(r: httpx.Response) -> str:
    code: str = r.json()["error"]["code"]
    return code


# -- finding 5: auto mode fails closed ---------------------------------------------------


@pytest.mark.slow
def test_auto_mode_stays_closed_after_the_last_key_is_revoked(tmp_path: Path) -> None:
    from citewise.server.app import auth_required

    with serve(make_app(tmp_path, key_cache_s=0.2)) as url:
        assert httpx.get(f"{url}/v1/threads").status_code == 200  # loopback, never a key
        with SQLiteStore(tmp_path / "citewise.db") as store:
            record, key = create_key(store, "acme")
        time.sleep(0.3)
        own = {"Authorization": f"Bearer {key}"}
        assert httpx.get(f"{url}/v1/threads", headers=own).status_code == 200
        with SQLiteStore(tmp_path / "citewise.db") as store:
            assert store.revoke_api_key("acme", record.id)
        time.sleep(0.3)
        anon = httpx.get(f"{url}/v1/threads")
        assert anon.status_code == 401 and _error_code(anon) == "missing_api_key"
        revoked = httpx.get(f"{url}/v1/threads", headers=own)
        assert revoked.status_code == 401 and _error_code(revoked) == "invalid_api_key"
    with SQLiteStore(tmp_path / "citewise.db") as store:
        assert auth_required(ServerConfig(host="127.0.0.1", data_dir=tmp_path), store) is True
        assert auth_required(ServerConfig(host="::1", data_dir=tmp_path), store) is True
        assert auth_required(ServerConfig(auth="none", data_dir=tmp_path), store) is False
    with serve(make_app(tmp_path)) as url:  # a restart does not reopen it either
        assert httpx.get(f"{url}/v1/threads").status_code == 401
    with serve(make_app(tmp_path, auth="none")) as url:  # --no-auth is the one way
        assert httpx.get(f"{url}/v1/threads").status_code == 200


# -- findings 6, 7, 10: feedback -----------------------------------------------------------


def test_one_token_posted_20_times_at_once_stores_one_rating(
        open_server: tuple[str, Path]) -> None:
    base, data = open_server
    answer = _ask(base)
    token = answer["trajectory"]["feedback_token"]
    barrier = threading.Barrier(20)

    def post(i: int) -> int:
        with httpx.Client(base_url=base, timeout=60) as client:
            barrier.wait()
            return client.post("/v1/feedback", json={"token": token, "rating": i % 4}).status_code

    with ThreadPoolExecutor(20) as pool:
        statuses = sorted(pool.map(post, range(20)))
    assert statuses == [201] + [409] * 19
    with SQLiteStore(data / "citewise.db") as store:
        assert len(store.list_feedback("default", run_id=answer["run_id"])) == 1


def _feedback(run_id: str, document_index: int | None = None,
              snippet_index: int | None = None) -> FeedbackRecord:
    return FeedbackRecord(id=0, tenant="t", run_id=run_id, rating=2,
                          document_index=document_index, snippet_index=snippet_index,
                          comment=None, created_at=datetime.now(UTC))


def test_the_store_refuses_a_second_rating_of_a_target(store: Any) -> None:
    store.add_feedback(_feedback("r1"))
    store.add_feedback(_feedback("r1", 1))
    store.add_feedback(_feedback("r1", 1, 0))
    store.add_feedback(_feedback("r2"))  # another run
    for target in ((None, None), (1, None), (1, 0)):
        with pytest.raises(UsageError) as exc:
            store.add_feedback(_feedback("r1", *target))
        assert exc.value.code == "feedback_already_recorded"
    assert len(store.list_feedback("t")) == 4
    store.add_feedback(_feedback("r1", 2))  # the store still writes afterwards


def test_submissions_racing_in_threads_store_one_rating(store: Any) -> None:
    from citewise.grounding.feedback import FeedbackAlreadyRecorded, FeedbackService

    service = FeedbackService(store, b"k" * 32)
    token = service.issue_token("run-1", "t", 1)
    barrier = threading.Barrier(20)

    def submit(i: int) -> str:
        barrier.wait()
        try:
            service.submit(token, i % 4, 1)
        except FeedbackAlreadyRecorded:
            return "refused"
        return "stored"

    with ThreadPoolExecutor(20) as pool:
        outcomes = sorted(pool.map(submit, range(20)))
    assert outcomes == ["refused"] * 19 + ["stored"]
    assert len(store.list_feedback("t", run_id="run-1")) == 1


def test_migration_keeps_the_first_rating_of_each_target(store: Any, tmp_path: Path) -> None:
    url = getattr(store, "url", None)
    target = (url.render_as_string(hide_password=False) if url is not None
              else f"sqlite:///{tmp_path / 'c.db'}")
    reopen = type(store)
    store.close()
    engine = sa.create_engine(target)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    fb = schema.feedback
    with engine.begin() as c:  # as a database from before m004, raced into duplicates
        c.execute(sa.text("DROP INDEX ux_feedback_target"))
        c.execute(sa.text("DELETE FROM _migrations WHERE name = 'm004_feedback_once_per_target'"))
        for rating, document in ((3, None), (1, None), (2, None), (0, 1), (1, 1)):
            c.execute(sa.insert(fb).values(tenant="t", run_id="r", rating=rating,
                                           document_index=document, created_at=when))
    engine.dispose()
    again = reopen(url if url is not None else tmp_path / "c.db")
    try:
        assert "m004_feedback_once_per_target" in again.applied_migrations
        assert [(f.rating, f.document_index) for f in again.list_feedback("t")] == [(3, None),
                                                                                   (0, 1)]
        with pytest.raises(UsageError):
            again.add_feedback(_feedback("r"))
    finally:
        again.close()


def test_every_seq_a_route_accepts_is_one_the_store_can_read(store: Any) -> None:
    from citewise.server.routes.runs import MAX_SEQ

    assert store.read_events("t", "no-run", after=MAX_SEQ) == []
    if getattr(store, "url", None) is not None:  # PostgreSQL's INTEGER ends there
        with pytest.raises(sa.exc.DataError):
            store.read_events("t", "no-run", after=MAX_SEQ + 1)


_SECRET_RACE = """
import sys, time
from pathlib import Path
from citewise.grounding.feedback import get_or_create_secret
target, start = sys.argv[1], float(sys.argv[2])
if target.startswith("postgresql"):
    from citewise.store.postgres import PostgresStore
    store = PostgresStore(target)
else:
    from citewise.store.sqlite import SQLiteStore
    store = SQLiteStore(Path(target))
store.set_setting("ready", "1")
while time.time() < start:
    time.sleep(0.001)
print(get_or_create_secret(store).hex())  # the secret this process signs with
store.close()
"""


def _race_for_the_secret(target: str, processes: int = 8) -> set[str]:
    start = time.time() + 6
    procs = [subprocess.Popen([sys.executable, "-c", _SECRET_RACE, target, str(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(processes)]
    seen: set[str] = set()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        seen.add(out.strip())
    return seen


@pytest.mark.slow
def test_eight_processes_creating_the_secret_at_once_share_one(store: Any,
                                                               tmp_path: Path) -> None:
    url = getattr(store, "url", None)
    target = (url.render_as_string(hide_password=False) if url is not None
              else str(tmp_path / "c.db"))
    store.close()  # the processes make the store's first secret
    secrets_seen = _race_for_the_secret(target)
    assert len(secrets_seen) == 1 and "" not in secrets_seen


def test_add_setting_is_insert_if_absent(store: Any) -> None:
    assert store.add_setting("k", "first") == "first"
    assert store.add_setting("k", "second") == "first"
    assert store.get_setting("k") == "first"


def test_signature_with_altered_unused_bits_is_refused(tmp_path: Path) -> None:
    from citewise.grounding.feedback import FeedbackService, FeedbackTokenInvalid

    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    with SQLiteStore(tmp_path / "c.db") as store:
        service = FeedbackService(store, b"s" * 32)
        token = service.issue_token("run-1", "t", 2)
        service.verify(token)
        head, sig = token.rsplit(".", 1)
        assert len(sig) == 43  # 256 bits in 258: the last character's 2 low bits are unused
        last = alphabet.index(sig[-1])
        for low in (1, 2, 3):
            forged = f"{head}.{sig[:-1]}{alphabet[last ^ low]}"
            assert base64.urlsafe_b64decode(forged.rsplit(".", 1)[1] + "=") == \
                base64.urlsafe_b64decode(sig + "=")  # the same bytes, another spelling
            with pytest.raises(FeedbackTokenInvalid):
                service.verify(forged)
        with pytest.raises(FeedbackTokenInvalid):
            service.verify(f"{head}.{sig}=")


# -- finding 8: /a2a parse and size errors -------------------------------------------------


def test_a2a_deep_json_is_a_parse_error_and_big_chunked_body_a_413(
        open_server: tuple[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    base, _ = open_server
    caplog.set_level(logging.INFO)
    with httpx.Client(base_url=base, timeout=30) as http:
        for depth in (65, 1000, 100_000):
            body = ('{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":'
                    + "[" * depth + "]" * depth + "}}")
            r = http.post("/a2a", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 200, r.text
            err = r.json()["error"]
            assert err["code"] == -32700, (depth, err)
            assert err["data"][0]["metadata"]["code"] == "parse_error"
        ok = ('{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"x","deep":'
              + "[" * 60 + "]" * 60 + "}}")
        r = http.post("/a2a", content=ok, headers={"content-type": "application/json"})
        assert r.json()["error"]["code"] == -32001  # parsed: an unknown task

        def chunks() -> Iterator[bytes]:
            yield b'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"x":"'
            for _ in range(80):
                yield b"a" * 16384
            yield b'"}}'

        r = http.post("/a2a", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413 and _error_code(r) == "payload_too_large"
        assert http.get("/healthz").status_code == 200
    crashed = [rec for rec in caplog.records if rec.exc_info or rec.levelno >= logging.ERROR]
    assert crashed == []


# -- finding 9: numbers both backends store -----------------------------------------------


def test_the_specs_last_event_id_pattern_is_the_seq_range() -> None:
    # "[0-9]{0,10}" let schemathesis send 9096772354, a value the spec allowed and the
    # route refused (422 invalid_last_event_id for a schema-valid request).
    import re

    from citewise.server.openapi import generate
    from citewise.server.routes.runs import MAX_SEQ

    params = generate()["paths"]["/v1/runs/{run_id}/events"]["get"]["parameters"]
    pattern = re.compile(next(p for p in params if p["name"] == "Last-Event-ID")
                         ["schema"]["pattern"])
    for n in (0, 7, 999_999_999, 1_000_000_000, 2_099_999_999, 2_147_483_599, MAX_SEQ,
              MAX_SEQ + 1, 2_199_999_999, 9_096_772_354):
        assert bool(pattern.match(str(n))) == (n <= MAX_SEQ), n
    assert pattern.match("") and not pattern.match("-1") and not pattern.match("1e3")


def test_seq_bounds_are_what_an_integer_column_holds(open_server: tuple[str, Path]) -> None:
    base, _ = open_server
    run_id = _ask(base)["run_id"]
    with httpx.Client(base_url=base, timeout=30) as http:
        url = f"/v1/runs/{run_id}/events"
        for bad in ("2147483648", "99999999999"):
            r = http.get(url, params={"after": bad})
            assert r.status_code == 422 and _error_code(r) == "validation_error", r.text
            r = http.get(url, headers={"Last-Event-ID": bad})
            assert r.status_code == 422, r.text
            assert _error_code(r) in {"invalid_last_event_id", "validation_error"}
        r = http.get(url, headers={"Last-Event-ID": "2147483648"})
        assert _error_code(r) == "invalid_last_event_id"
        for good in ({"params": {"after": "2147483647"}},
                     {"headers": {"Last-Event-ID": "2147483647"}}):
            r = http.get(url, **good)  # type: ignore[arg-type]
            assert r.status_code == 200 and "event:" not in r.text  # nothing after it
    spec = json.loads((Path(__file__).parent.parent / "schemas" / "openapi.json").read_text())
    params = spec["paths"]["/v1/runs/{run_id}/events"]["get"]["parameters"]
    after = next(p for p in params if p["name"] == "after")
    bound = after["schema"].get("maximum") or next(
        s["maximum"] for s in after["schema"]["anyOf"] if "maximum" in s)
    assert bound == 2**31 - 1


# -- finding 11: failed authentication is rate-limited per address -------------------------


def test_failed_auth_is_limited_per_address_and_valid_keys_go_on(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "citewise.db") as store:
        _, key = create_key(store, "acme")
        _, other = create_key(store, "acme", "second")
    app = make_app(tmp_path, auth="keys", key_cache_s=30, auth_failure_rate_per_s=0.5,
                   auth_failure_burst=5)
    with serve(app) as base:
        lookups: list[str] = []
        real_store = app.state.citewise.services.store
        original = real_store.get_api_key_by_hash

        def counted(digest: str) -> Any:
            lookups.append(digest)
            return original(digest)

        real_store.get_api_key_by_hash = counted
        own = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base, timeout=30) as http:
            assert http.get("/v1/threads", headers=own).status_code == 200  # known now
            codes = [http.get("/v1/threads", headers={"X-API-Key": f"cwk_guess{i}"})
                     for i in range(40)]
            assert [r.status_code for r in codes[:5]] == [401] * 5
            assert {r.status_code for r in codes[5:]} == {429}
            assert _error_code(codes[-1]) == "auth_rate_limited"
            assert int(codes[-1].headers["Retry-After"]) >= 1
            assert len(lookups) == 1 + 5  # refused attempts cost no lookup
            assert http.get("/v1/threads", headers=own).status_code == 200  # unaffected
            assert http.get("/healthz").status_code == 200
        # Another address (127.0.0.2 is loopback too) with a key not seen before.
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=base, timeout=30, transport=transport) as elsewhere:
            assert elsewhere.get("/v1/threads",
                                 headers={"X-API-Key": other}).status_code == 200
            assert elsewhere.get("/v1/threads",
                                 headers={"X-API-Key": "cwk_wrong"}).status_code == 401


# -- finding 12: serve on a busy port ------------------------------------------------------


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "citewise.cli.main", "serve", "--port", str(port),
             "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0].endswith(
        "[address_in_use]"), proc.stderr
    assert "serving" not in proc.stderr and proc.stdout == ""



def test_serve_takes_the_failed_auth_rate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    from citewise.cli.main import main
    from citewise.server.config import ENV_CONFIG

    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: None)
    monkeypatch.setenv(ENV_CONFIG, "")  # recorded, so what serve sets is undone after
    monkeypatch.delenv(ENV_CONFIG)
    data = ["--data-dir", str(tmp_path), "--port", "0"]
    assert main(["serve", "--auth-failure-rate", "2.5", "--workers", "2", *data]) == 0
    assert ServerConfig.model_validate_json(os.environ[ENV_CONFIG]).auth_failure_rate_per_s == 2.5
    assert main(["serve", "--auth-failure-rate", "-1", *data]) == 2
    assert capsys.readouterr().err.endswith("error: --auth-failure-rate: input should be "
                                            "greater than or equal to 0 [invalid_option]\n")


def test_sizes_in_messages_read_as_people_read_them() -> None:
    from citewise.sizes import size_text

    assert [size_text(n) for n in (0, 1, 1023, 1024, 1536, 64 << 20, 100 << 20, 5 << 50)] == [
        "0 bytes", "1 byte", "1023 bytes", "1 KiB", "1.5 KiB", "64 MiB", "100 MiB",
        "5120 TiB"]
