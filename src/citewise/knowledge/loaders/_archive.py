"""Limits on what unpacks: zip containers (DOCX, EPUB, …) and gzip streams.

Why this exists: a zip or gzip file is a promise of bytes, and deflate keeps up to ~1,000
bytes of output per byte of input. A 149 KB DOCX that unpacked to a few hundred MB of XML
cost the server +1 GB of memory and 255 s of CPU before any limit of ours applied (the
upload limit counts the *packed* bytes). Every loader that opens an archive asks this
module first, so the checks are in one place and the refusals have one vocabulary:

* ``archive_bomb`` — the archive unpacks to far more than its size suggests: more members
  than :data:`MAX_MEMBERS`, a member or the whole beyond :data:`MAX_RATIO` times its packed
  size, more than a limit *and* beyond that ratio, or a header that lies about a member's
  size (the real stream is longer than declared).
* ``document_too_large`` — the archive is honest but holds more than we unpack: over
  :data:`MAX_UNPACKED_BYTES` (or the caller's ``max_bytes``) at an ordinary ratio.
* ``encrypted_file`` / ``unsupported_format`` / ``corrupt_file`` — a member we cannot read
  (encrypted, compressed with a method other than stored/deflate, damaged).

Each refusal happens before the archive is parsed, so nothing is written. Checks use the
central directory first (cheap: nothing is decompressed) and then decompress every
member once with a bounded output buffer, because :mod:`zipfile` trusts the declared
sizes and, on a full ``read()``, inflates a whole member in one call before truncating
to the declared size — a member that declares 1 MB and inflates to 1 GB would otherwise
cost that gigabyte in whatever library reads it next (python-docx, an EPUB reader).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import Any

from citewise.errors import IngestError
from citewise.sizes import size_text

__all__ = [
    "CHUNK_BYTES",
    "MAX_MEMBERS",
    "MAX_RATIO",
    "MAX_UNPACKED_BYTES",
    "RATIO_GRACE_BYTES",
    "check_zip",
    "gunzip",
    "open_zip",
    "read_member",
]

#: Most members a zip may hold. A DOCX has 10–50 parts, a large EPUB a few thousand.
MAX_MEMBERS = 10_000
#: Most bytes all members of a zip may unpack to together (also the default cap of
#: :func:`gunzip` and :func:`read_member`): the largest file ingest reads unpacked
#: (``MAX_FILE_BYTES``). Images barely compress, so only XML-heavy archives come near it;
#: parsing 64 MiB of XML costs some 500 MB of memory, the most one document may cost.
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
#: Largest unpacked/packed ratio of a member (and of the whole archive). Text and XML
#: deflate 5–20x, repetitive generated XML up to ~50x; a deflate bomb is ~1,000x.
MAX_RATIO = 100
#: A member (or archive) unpacking to less than this is never refused for its ratio: a
#: small, very regular part (an empty settings file, a page of spaces) is harmless.
RATIO_GRACE_BYTES = 1024 * 1024
#: Output bound of one decompression step, so no step holds more than this in memory.
CHUNK_BYTES = 256 * 1024

_STORED, _DEFLATED = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # PK\x03\x04 … name length, extra length
_LOCAL_MAGIC = b"PK\x03\x04"
_EOCD = struct.Struct("<4s4H2LH")  # end of central directory: … total entries (index 4) …
_EOCD_MAGIC, _LOCATOR_MAGIC, _EOCD64_MAGIC = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"


def _refuse(code: str, message: str, what: str, **details: Any) -> IngestError:
    return IngestError(f"{what}: {message}", code=code, details={"archive": what, **details})


def _too_much(what: str, unpacked: int, packed: int, limit: int, *, member: str | None = None,
              ) -> IngestError:
    """Over a size limit: a bomb when the ratio is also abnormal, else just too large."""
    ratio = unpacked / max(packed, 1)
    where = f"member {member!r}" if member is not None else "the archive"
    details: dict[str, Any] = {"limit_bytes": limit, "unpacked_bytes": unpacked,
                               "packed_bytes": packed, "ratio": round(ratio, 1)}
    if member is not None:
        details["member"] = member
    if ratio > MAX_RATIO:
        return _refuse("archive_bomb", f"{where} unpacks to over {size_text(limit)} at a "
                       f"{ratio:.0f}:1 ratio (limit {MAX_RATIO}:1)", what, **details)
    return _refuse("document_too_large", f"{where} unpacks to over {size_text(limit)}", what,
                   **details)


def _ratio_bomb(what: str, unpacked: int, packed: int, *, member: str | None = None) -> None:
    if unpacked > RATIO_GRACE_BYTES and unpacked > MAX_RATIO * max(packed, 1):
        where = f"member {member!r}" if member is not None else "the archive"
        extra = {"member": member} if member is not None else {}
        raise _refuse("archive_bomb", f"{where} unpacks {unpacked / max(packed, 1):.0f}:1 "
                      f"(limit {MAX_RATIO}:1)", what, unpacked_bytes=unpacked,
                      packed_bytes=packed, limit_ratio=MAX_RATIO, **extra)


def open_zip(data: bytes, *, what: str, max_bytes: int = MAX_UNPACKED_BYTES,
             max_members: int = MAX_MEMBERS) -> zipfile.ZipFile:
    """The zip in ``data``, checked by :func:`check_zip` (close it when done). The member
    count its end record declares is checked first: :class:`zipfile.ZipFile` builds an
    object per member before anyone can count them, so a 64 MB zip of empty members
    would cost ~1.4 million of them. Not a zip at all: ``corrupt_file``."""
    declared = _declared_members(data)
    if declared is not None and declared > max_members:
        raise _refuse("archive_bomb", f"{declared} members (limit {max_members})", what,
                      members=declared, limit_members=max_members)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise _refuse("corrupt_file", f"not a readable archive ({exc})", what) from exc
    try:
        check_zip(zf, what=what, max_bytes=max_bytes, max_members=max_members)
    except BaseException:
        zf.close()
        raise
    return zf


def _declared_members(data: bytes) -> int | None:
    """The total member count of the end-of-central-directory record (zip64's when the
    record defers to it); None when there is no readable record (zipfile will say why)."""
    tail = data[-(_EOCD.size + 0xFFFF):]  # the record, then a comment of up to 64 KiB
    at = tail.rfind(_EOCD_MAGIC)
    if at < 0 or len(tail) - at < _EOCD.size:
        return None
    total: int = _EOCD.unpack_from(tail, at)[4]
    if total != 0xFFFF:
        return total
    locator = tail[at - 20:at] if at >= 20 else b""
    if locator[:4] != _LOCATOR_MAGIC:
        return None
    (offset,) = struct.unpack_from("<Q", locator, 8)
    record = data[offset:offset + 56]
    if len(record) < 40 or record[:4] != _EOCD64_MAGIC:
        return None
    (total64,) = struct.unpack_from("<Q", record, 32)
    return int(total64)


def check_zip(zf: zipfile.ZipFile, *, what: str, max_bytes: int = MAX_UNPACKED_BYTES,
              max_members: int = MAX_MEMBERS, verify: bool = True) -> int:
    """Refuse ``zf`` unless every member can be unpacked within the limits; returns the
    total unpacked size. ``what`` starts the messages (a path or a format: ``"a.docx"``)
    and is ``details["archive"]``.

    ``verify`` (the default) also decompresses each member once, with bounded memory, to
    prove its declared size true; the archive must be backed by a seekable file object.
    """
    infos = zf.infolist()
    if len(infos) > max_members:
        raise _refuse("archive_bomb", f"{len(infos)} members (limit {max_members})", what,
                      members=len(infos), limit_members=max_members)
    total = packed = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise _refuse("encrypted_file", f"member {info.filename!r} is encrypted", what,
                          member=info.filename)
        if info.compress_type not in (_STORED, _DEFLATED):
            raise _refuse("unsupported_format", f"member {info.filename!r} uses compression "
                          f"method {info.compress_type} (only stored and deflate are read)",
                          what, member=info.filename, method=info.compress_type)
        if info.file_size > max_bytes:
            raise _too_much(what, info.file_size, info.compress_size, max_bytes,
                            member=info.filename)
        _ratio_bomb(what, info.file_size, info.compress_size, member=info.filename)
        total += info.file_size
        packed += info.compress_size
        if total > max_bytes:
            raise _too_much(what, total, packed, max_bytes)
    _ratio_bomb(what, total, packed)
    if verify:
        for info in infos:
            _verify_member(zf, info, what)
    return total


def _verify_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, what: str) -> None:
    """Inflate one member in bounded steps: its real output must be its declared size."""
    fp = zf.fp
    if fp is None:
        raise ValueError("the ZipFile is closed")
    try:
        fp.seek(info.header_offset)
        head = fp.read(_LOCAL_HEADER.size)
        fields = _LOCAL_HEADER.unpack(head)
        if fields[0] != _LOCAL_MAGIC:
            raise ValueError("bad local header")
        fp.seek(info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1])
        if info.compress_type == _STORED:
            if info.compress_size != info.file_size:
                raise ValueError("a stored member's sizes differ")
            return
        inflate = zlib.decompressobj(-zlib.MAX_WBITS)
        left = info.compress_size
        out = 0
        while left > 0 and not inflate.eof:
            data = fp.read(min(left, CHUNK_BYTES))
            if not data:
                raise ValueError("the member is truncated")
            left -= len(data)
            while data and not inflate.eof:
                out += len(inflate.decompress(data, CHUNK_BYTES))
                if out > info.file_size:
                    raise _refuse("archive_bomb", f"member {info.filename!r} unpacks to more "
                                  f"than the {info.file_size} bytes its header declares", what,
                                  member=info.filename, declared_bytes=info.file_size)
                data = inflate.unconsumed_tail
        if not inflate.eof or out != info.file_size:
            raise ValueError(f"member {info.filename!r} unpacks to {out} bytes, "
                             f"not the {info.file_size} declared")
    except IngestError:
        raise
    except (ValueError, OSError, struct.error, zlib.error) as exc:
        raise _refuse("corrupt_file", f"not a readable archive ({exc})", what,
                      member=info.filename) from exc


def read_member(zf: zipfile.ZipFile, name: str | zipfile.ZipInfo, *, what: str,
                max_bytes: int = MAX_UNPACKED_BYTES) -> bytes:
    """One member's bytes, refused (``archive_bomb`` / ``document_too_large``) if it would
    unpack to more than ``max_bytes``; read in bounded steps, so a header that lies costs
    at most ``max_bytes`` of memory. Call :func:`check_zip` on the archive first."""
    info = name if isinstance(name, zipfile.ZipInfo) else zf.getinfo(name)
    if info.file_size > max_bytes:
        raise _too_much(what, info.file_size, info.compress_size, max_bytes,
                        member=info.filename)
    parts: list[bytes] = []
    size = 0
    try:
        with zf.open(info) as member:
            while chunk := member.read(CHUNK_BYTES):
                size += len(chunk)
                if size > max_bytes:  # pragma: no cover - zipfile stops at the declared size
                    raise _too_much(what, size, info.compress_size, max_bytes,
                                    member=info.filename)
                parts.append(chunk)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise _refuse("corrupt_file", f"not a readable archive ({exc})", what,
                      member=info.filename) from exc
    return b"".join(parts)


def gunzip(data: bytes, *, max_bytes: int = MAX_UNPACKED_BYTES, what: str = "gzip") -> bytes:
    """Decompress a gzip stream (several concatenated members allowed, trailing NUL padding
    ignored) without ever holding more than ``max_bytes`` of output: past it, the data is
    refused — ``archive_bomb`` at a ratio over :data:`MAX_RATIO`, else
    ``document_too_large``. Within the cap any ratio is accepted: what one text costs
    downstream depends on its size, which the cap bounds. A damaged or truncated stream
    is ``corrupt_file``."""
    parts: list[bytes] = []
    size = 0
    pos = 0  # input consumed so far, for the ratio
    rest = data
    try:
        while True:
            inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip framing only
            member_start = len(data) - len(rest)
            offset = 0
            while not inflate.eof:
                if offset >= len(rest):
                    raise ValueError("the gzip stream is truncated")
                chunk = rest[offset:offset + CHUNK_BYTES]
                offset += len(chunk)
                while chunk and not inflate.eof:
                    out = inflate.decompress(chunk, CHUNK_BYTES)
                    size += len(out)
                    pos = member_start + offset - len(inflate.unconsumed_tail)
                    if size > max_bytes:
                        raise _too_much(what, size, pos, max_bytes)
                    parts.append(out)
                    chunk = inflate.unconsumed_tail
            rest = inflate.unused_data + rest[offset:]
            if not rest.strip(b"\x00"):
                break
            if not rest.startswith(b"\x1f\x8b"):
                raise ValueError("trailing bytes after the gzip stream")
    except IngestError:
        raise
    except (ValueError, zlib.error) as exc:
        raise _refuse("corrupt_file", f"not a readable gzip stream ({exc})", what) from exc
    return b"".join(parts)
