"""The formats people keep, on real files written here: source code, man pages (also
gzipped), EPUB, anything inside ``.gz`` — each loaded through the registry with section
spans whose offsets index the stored text — then a folder of them (and of the markup
formats of ``test_loaders_markup.py``) ingested."""

from __future__ import annotations

import gzip
import os
import zipfile
from pathlib import Path

import pytest
from tests._loaders import load, section, section_of
from tests.test_loaders_markup import ADOC, RST

from citewise.errors import IngestError
from citewise.knowledge.loaders import LoadedDocument, default_registry

# -- source code -----------------------------------------------------------------------------

PY = '''\
"""Stove helpers."""

import os

MAX_FLAME = 3


@functools.cache
def light(match: bool) -> str:
    return "lit" if match else "cold"


class Stove:
    """A camping stove."""

    def fuel(self) -> int:
        return 1


async def cool_down() -> None:
    pass
'''


def test_python_source_is_the_file_with_a_section_per_definition(tmp_path: Path) -> None:
    path = tmp_path / "stoves.py"
    path.write_bytes(PY.encode())
    doc = load(path)
    assert doc.text == PY  # cited by line: the stored text is the file's own
    assert doc.content_type == "text/x-python"
    assert doc.metadata["language"] == "python"
    assert doc.metadata["lines"] == PY.count("\n")
    assert [n for _, _, n in doc.sections] == ["def light", "class Stove", "def cool_down"]
    light = section(doc, "def light")
    assert light.startswith("@functools.cache\ndef light")  # its decorator comes along
    assert "def fuel" in section(doc, "class Stove")
    assert section(doc, "def cool_down").endswith("pass\n")
    assert section_of(doc, "MAX_FLAME = 3") is None  # before the first definition


NGINX_CONF = """\
##
#  File:
#    nginx.conf
##

# Sets user/group of worker processes. If group is not specified, group is assumed
# to be the same as user. Syntax: user user [group]
user www-data;

# nginx has the ability to use more than one worker process
worker_processes 4;

events {
    worker_connections 1024;
    # multi_accept on;
}
"""


def test_a_config_files_comments_are_its_prose(tmp_path: Path) -> None:
    """Debian's example nginx.conf (nginx-doc, new-user review 2026-12-06): everything it
    documents is in "#" comments, and every question about it was declined at
    answerability 0.00 — each comment line was a markdown heading to the evidence choice.
    A run of whole-line comments has the role "comment"; the text is the file's own."""
    from citewise.agent.runner import Agent
    from citewise.knowledge.base import KnowledgeBase

    path = tmp_path / "docs" / "nginx.conf"
    path.parent.mkdir()
    path.write_text(NGINX_CONF)
    doc = load(path)
    assert doc.text == NGINX_CONF and doc.content_type == "text/x-ini"
    comments = [doc.text[a:b] for a, b, role in doc.roles if role == "comment"]
    assert comments[1].startswith("# Sets user/group") and comments[1].endswith("[group]")
    assert "# multi_accept on;" in comments and "user www-data;" not in "".join(comments)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([path.parent])
        answer = Agent(kb).ask("If I leave out the group for the workers, which group do "
                               "they run as?")
    assert answer.citations, answer.text
    quote = answer.citations[0].excerpt
    assert quote == "If group is not specified, group is assumed\n# to be the same as user."
    assert NGINX_CONF[answer.citations[0].start_char:answer.citations[0].end_char] == quote


@pytest.mark.parametrize(
    ("name", "body", "sections"),
    [
        ("main.go", "package main\n\n// Serve runs it.\nfunc Serve() {\n}\n\n"
                    "type Tent struct {\n\tPoles int\n}\n\nfunc (t *Tent) Pitch() {}\n",
         ["func Serve", "type Tent", "func Pitch"]),
        ("lib.rs", "use std::io;\n\n#[derive(Debug)]\npub struct Tent {\n    poles: u8,\n}\n\n"
                   "impl Tent {\n    fn new() -> Self { Tent { poles: 2 } }\n}\n\n"
                   "pub fn pitch() {}\n",
         ["struct Tent", "impl Tent", "fn pitch"]),
        ("app.ts", "import x from 'y';\n\nexport function pitch(n: number) {\n  return n;\n}\n\n"
                   "export const fold = async (t: Tent) => {\n};\n\nclass Tent {}\n",
         ["function pitch", "fold", "class Tent"]),
        ("config.toml", "title = \"x\"\n\n[server]\nport = 80\n\n[[plugins]]\nname = \"a\"\n",
         ["[server]", "[[plugins]]"]),
        ("ci.yaml", "# CI\nname: build\non:\n  push: {}\njobs:\n  test:\n    runs-on: x\n",
         ["name", "on", "jobs"]),
        ("schema.sql", "-- tents\nCREATE TABLE tents (id int);\n\n"
                       "create index if not exists tents_id on tents (id);\n",
         ["tents", "tents_id"]),
        ("run.sh", "#!/bin/sh\nset -e\n\nbuild() {\n  make\n}\n\nfunction deploy {\n  :\n}\n",
         ["build", "function deploy"]),
    ],
)
def test_other_languages_have_top_level_sections(tmp_path: Path, name: str, body: str,
                                                 sections: list[str]) -> None:
    path = tmp_path / name
    path.write_text(body)
    doc = load(path)
    assert doc.text == body
    assert [n for _, _, n in doc.sections] == sections


def test_binary_named_like_source_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "video.ts"  # an MPEG transport stream, not TypeScript
    path.write_bytes(b"\x47\x00\x11\x10" * 400)
    with pytest.raises(IngestError) as err:
        load(path)
    assert err.value.code == "binary_file"


# -- man pages -------------------------------------------------------------------------------

MAN = r""".\" Manual page for pitch(1)
.TH PITCH 1 "2026-01-01" "outfit 2.1" "User Commands"
.SH NAME
pitch \- put up a tent
.SH SYNOPSIS
.B pitch
[\fB\-f\fR]
.RI [ tent ]
.SH DESCRIPTION
.B pitch
raises the tent named
.IR tent ,
or the default one.
It needs two poles \(em never fewer.
.PP
A second paragraph with \*(lqquotes\*(rq and caf\[u00E9].
.SS Options
.TP
.BR \-f ", " \-\-force
Pitch even in the rain.
.TP
.B \-q
Say nothing.
.IP \(bu 2
A bullet item.
.IP 2.
A numbered item.
.IP "\fB\-\-quiet\fP"
Say even less.
.SH EXAMPLES
.nf
pitch \-f mytent
pitch \-q
.fi
.de XX
never shown
..
.SH "SEE ALSO"
.BR fold (1)
"""


def _check_man(doc: LoadedDocument) -> None:
    assert doc.content_type == "text/troff"
    assert doc.title == "PITCH(1)"
    text = doc.text
    assert "\\" not in text and ".TP" not in text and "never shown" not in text
    assert "pitch - put up a tent" in text
    assert "pitch [-f] [tent]" in text
    assert "pitch raises the tent named tent, or the default one." in text
    assert "two poles — never fewer." in text
    assert "“quotes” and café." in text
    assert "-f, --force\n    Pitch even in the rain." in text
    assert "-q\n    Say nothing." in text
    assert "•\n    A bullet item." in text
    assert "pitch -f mytent\npitch -q" in text
    assert "fold(1)" in text
    # An item's tag is a sub-section (a citation names the option); a bullet is none, nor
    # is a number.
    assert [n for _, _, n in doc.sections] == [
        "NAME", "SYNOPSIS", "DESCRIPTION", "DESCRIPTION > Options",
        "DESCRIPTION > Options > -f, --force", "DESCRIPTION > Options > -q",
        "DESCRIPTION > Options > --quiet", "EXAMPLES", "SEE ALSO"]
    assert section(doc, "DESCRIPTION > Options > -f, --force") == (
        "-f, --force\n    Pitch even in the rain.\n\n")
    assert section(doc, "DESCRIPTION > Options > -q").endswith(
        "•\n    A bullet item.\n\n2.\n    A numbered item.\n\n")
    assert section(doc, "EXAMPLES") == "EXAMPLES\n\npitch -f mytent\npitch -q\n\n"


def test_man_page_renders_to_text_with_sections(tmp_path: Path) -> None:
    path = tmp_path / "pitch.1"
    path.write_text(MAN)
    _check_man(load(path))


def test_gzipped_man_page(tmp_path: Path) -> None:
    path = tmp_path / "pitch.1.gz"
    path.write_bytes(gzip.compress(MAN.encode()))
    doc = load(path)
    _check_man(doc)
    assert doc.metadata["compression"] == "gzip"
    assert doc.metadata["filename"] == "pitch.1.gz"
    assert doc.metadata["size_bytes"] == len(MAN.encode())


def test_mdoc_page(tmp_path: Path) -> None:
    path = tmp_path / "fold.8"
    path.write_text(".Dd January 1, 2026\n.Dt FOLD 8\n.Os\n.Sh NAME\n.Nm fold\n"
                    ".Nd fold a tent\n.Sh SYNOPSIS\n.Nm\n.Op Fl q\n.Ar tent\n"
                    ".Sh DESCRIPTION\nSee\n.Xr pitch 1 .\n")
    doc = load(path)
    assert doc.title == "FOLD(8)"
    assert "fold — fold a tent" in doc.text
    assert "fold [-q] tent" in doc.text
    assert "See pitch(1)." in doc.text
    assert [n for _, _, n in doc.sections] == ["NAME", "SYNOPSIS", "DESCRIPTION"]


def test_file_named_like_a_man_page_without_roff_is_text(tmp_path: Path) -> None:
    path = tmp_path / "release.1"
    path.write_text("Release notes, version one.\n")
    doc = load(path)
    assert doc.text == "Release notes, version one.\n"
    assert doc.content_type == "text/plain"


def test_system_man_pages_render(tmp_path: Path) -> None:
    """Real pages as Debian ships them, where the machine has any."""
    pages = sorted(Path("/usr/share/man/man1").glob("*.1.gz"))[:40]
    if not pages:
        pytest.skip("no man pages installed")
    for page in pages:
        doc = load(page)
        assert doc.text.strip()
        assert doc.sections and doc.sections[0][2] == "NAME", page


# -- EPUB ------------------------------------------------------------------------------------

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
   media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:1</dc:identifier>
    <dc:title>The Outfitter's Year</dc:title>
    <dc:creator>A. Walker</dc:creator>
    <dc:language>en</dc:language>
  </metadata>
  <manifest>
    <item id="c2" href="text/ch%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
    <item id="img" href="cover.png" media-type="image/png"/>
  </manifest>
  <spine><itemref idref="cover"/><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""


def _xhtml(title: str, body: str) -> str:
    return (f'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>{title}</title></head><body>{body}</body></html>")


def write_epub(path: Path, *, extra: dict[str, bytes] | None = None) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("OEBPS/content.opf", OPF, compress_type=zipfile.ZIP_DEFLATED)
        zf.writestr("OEBPS/cover.xhtml", _xhtml("Cover", '<img src="cover.png"/>'))
        zf.writestr("OEBPS/cover.png", b"\x89PNG\r\n\x1a\n")
        zf.writestr("OEBPS/text/ch1.xhtml", _xhtml("One", "<h1>Spring</h1><p>Thaw comes.</p>"
                                                  "<h2>Boots</h2><p>Wax them twice.</p>"))
        zf.writestr("OEBPS/text/ch 2.xhtml", _xhtml("Two", "<p>Opening words.</p>"
                                                   "<h2>Tents</h2><p>Air them daily.</p>"))
        for name, data in (extra or {}).items():
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


def test_epub_chapters_in_spine_order(tmp_path: Path) -> None:
    path = tmp_path / "year.epub"
    write_epub(path)
    doc = load(path)
    assert doc.title == "The Outfitter's Year"
    assert doc.metadata["author"] == "A. Walker"
    assert doc.metadata["language"] == "en"
    assert doc.metadata["chapters"] == 2  # the cover has no text
    text = doc.text
    assert text.index("Thaw comes.") < text.index("Air them daily.")  # spine, not manifest
    assert [n for _, _, n in doc.sections] == ["Spring", "Spring > Boots", "Two",
                                               "Two > Tents"]
    assert section(doc, "Spring > Boots") == "Boots\n\nWax them twice."  # not the joint
    assert section(doc, "Two") == "Opening words.\n\n"
    assert section(doc, "Two > Tents") == "Tents\n\nAir them daily."
    # Each chapter's role spans, shifted to where the chapter starts in the book's text.
    assert [(doc.text[a:b], r) for a, b, r in doc.roles] == [
        ("Spring", "heading"), ("Boots", "heading"), ("Tents", "heading")]


def test_epub_bomb_and_damage_are_typed(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.epub"
    write_epub(bomb, extra={"OEBPS/pad.xhtml": b"\0" * (20 * 1024 * 1024)})
    with pytest.raises(IngestError) as err:
        load(bomb)
    assert err.value.code == "archive_bomb"
    broken = tmp_path / "broken.epub"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(IngestError) as err:
        load(broken)
    assert err.value.code == "corrupt_file"


# -- anything inside .gz ---------------------------------------------------------------------


def test_markdown_inside_gzip(tmp_path: Path) -> None:
    path = tmp_path / "notes.md.gz"
    body = "# Notes\n\nDry the tent.\n\n## Later\n\nFold it.\n"
    path.write_bytes(gzip.compress(body.encode()))
    doc = load(path)
    assert doc.text == body
    assert doc.content_type == "text/markdown"
    assert doc.title == "Notes"
    assert section(doc, "Notes > Later") == "## Later\n\nFold it.\n"
    assert default_registry().for_path("backup.tar.gz") is None  # nothing reads a tar
    assert default_registry().for_path("x.gz") is None


def test_gzip_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.txt.gz"
    path.write_bytes(gzip.compress(b"a" * (80 * 1024 * 1024), compresslevel=1))
    assert path.stat().st_size < 1024 * 1024
    with pytest.raises(IngestError) as err:
        load(path)
    assert err.value.code == "archive_bomb"
    empty = tmp_path / "fstab.5.gz"  # the inner loader's error names the file on disk
    empty.write_bytes(gzip.compress(b".TH FSTAB 5\n"))
    with pytest.raises(IngestError) as err:
        load(empty)
    assert err.value.code == "empty_document"
    assert err.value.message.startswith(f"{empty}: ") and "fstab.5:" not in err.value.message
    damaged = tmp_path / "damaged.md.gz"
    damaged.write_bytes(gzip.compress(b"# x\n\nhello\n")[:-6])
    with pytest.raises(IngestError) as err:
        load(damaged)
    assert err.value.code == "corrupt_file"


# -- a folder of them ------------------------------------------------------------------------


def test_folder_ingest_reads_the_new_formats(tmp_path: Path) -> None:
    from citewise.knowledge.base import KnowledgeBase

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.rst").write_text(RST)
    (folder / "guide.adoc").write_text(ADOC)
    (folder / "stoves.py").write_text(PY)
    (folder / "pitch.1.gz").write_bytes(gzip.compress(MAN.encode()))
    write_epub(folder / "year.epub")
    (folder / "notes.md.gz").write_bytes(gzip.compress(b"# Notes\n\nDry the tent.\n"))
    (folder / "bomb.txt.gz").write_bytes(gzip.compress(b"a" * (80 * 1024 * 1024), 1))
    (folder / "backup.tar.gz").write_bytes(gzip.compress(b"not read"))
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([folder])
        assert len(report.added) == 6, report.to_dict()
        assert report.skipped == [str(folder / "backup.tar.gz")]
        assert [(Path(f.path).name, f.code) for f in report.failed] == [
            ("bomb.txt.gz", "archive_bomb")]
        for doc in kb.list_documents():
            for chunk in kb.store.get_document_chunks(kb.tenant, doc.id):
                assert doc.text[chunk.start_char:chunk.end_char] == chunk.text
        hits = kb.search("Wax them twice", k=3)
        assert hits and hits[0].source.endswith("year.epub")
        hits = kb.search("pitch even in the rain", k=3)
        assert hits and hits[0].source.endswith("pitch.1.gz")


def test_text_files_without_an_extension_are_read_binaries_skipped(tmp_path: Path) -> None:
    # Most of /usr/share/doc and of every project: README, NEWS.Debian.gz, COPYING; and
    # notes named for what they are about: Debian's nginx-doc is "php", "upstream",
    # "examples/drupal", and 11 of its 13 files were skipped (new-user review, 2026-12-06).
    from citewise.knowledge.base import KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "README").write_text("The tent packs into its own pocket.\n")
    (docs / "NEWS.Debian.gz").write_bytes(gzip.compress(b"Version 2 drops the old poles.\n"))
    (docs / "COPYING").write_text("Copying and sharing are permitted.\n")
    (docs / "upstream").write_text("# ip_hash keeps a returning client on the same backend.\n")
    (docs / "latin1").write_bytes("Caf\xe9 tents are r\xe9sistant to wind.\n".encode("latin-1"))
    (docs / "program").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    (docs / "empty").write_bytes(b"")
    os.mkfifo(docs / "pipe")  # never opened: a read would wait for a writer for ever
    (docs / "wide").write_bytes("\ufeffWide tents need three poles.\n".encode("utf-16-le"))
    (docs / "pictures.bin.gz").write_bytes(gzip.compress(b"\x00\x01"))
    # a note with no extension, gzipped as Debian ships them (nginx-doc's upstream.gz)
    (docs / "fastcgi.gz").write_bytes(gzip.compress(b"fastcgi_pass hands the request on.\n"))
    (docs / "blob.gz").write_bytes(gzip.compress(b"\x7fELF\x00\x00"))
    (docs / "fake.gz").write_text("not gzip at all\n")
    registry = default_registry()
    assert registry.for_path("notes.gz") is None  # by its name alone: not known
    assert registry.for_file(docs / "fastcgi.gz").name == "gzip:text"  # type: ignore[union-attr]
    packed = (docs / "fastcgi.gz").read_bytes()  # an upload's bytes
    assert registry.for_path("notes.gz", head=packed) is not None
    assert registry.for_path("notes.gz", head=packed[:9]) is None  # its header: nothing inside yet
    assert registry.for_path("README.Debian") is registry.get("text")
    assert registry.for_path("upstream") is None  # by its name alone: not known
    assert registry.for_file(docs / "upstream") is registry.get("text")
    assert registry.for_path("readme-tool.py") is not None
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([docs])
        assert sorted(Path(p).name for p in report.added) == [
            "COPYING", "NEWS.Debian.gz", "README", "fastcgi.gz", "latin1", "upstream", "wide"]
        for name in ("program", "empty", "pipe"):
            assert report.skip_reason(str(docs / name)) == "no loader for files without an extension"
        for name in ("blob.gz", "fake.gz"):  # a binary inside, or no gzip stream at all
            assert report.skip_reason(str(docs / name)) == (
                "no loader for files without an extension (inside .gz)")
        assert report.skip_reason(str(docs / "pictures.bin.gz")) == (
            "no loader for .bin files (inside .gz)")
        assert kb.search("old poles")[0].source.endswith("NEWS.Debian.gz")
        assert kb.search("returning client backend")[0].source.endswith("upstream")
        assert kb.search("hands the request on")[0].source.endswith("fastcgi.gz")
        assert kb.search("résistant")[0].source.endswith("latin1")
        assert kb.search("three poles")[0].source.endswith("wide")
        # Given by name, a binary is refused as before, with its code.
        bad = kb.ingest([docs / "program"])
        assert [f.code for f in bad.failed] == ["unsupported_format"]


def test_a_builds_generated_scripts_are_left_out_said_so(tmp_path: Path) -> None:
    # Read as text now that files with no extension are: autotools' configure is megabytes
    # of generated shell (a review of the change, 2026-12-06).
    from citewise.knowledge.base import KnowledgeBase

    project = tmp_path / "project"
    project.mkdir()
    (project / "README").write_text("Build it with make.\n")
    (project / "configure.ac").write_text("AC_INIT([tent], [1.0])\n")
    for name in ("configure", "install-sh", "depcomp"):
        (project / name).write_text("#! /bin/sh\n# generated\necho $0\n")
    other = tmp_path / "notes"
    other.mkdir()
    (other / "configure").write_text("Configure the tent before the trip.\n")  # no autotools
    (other / "Makefile").write_text("all:\n\techo tent\n")  # a hand-written one: read
    # an out-of-tree build folder: configure's log, and what it wrote
    build = tmp_path / "build"
    build.mkdir()
    (build / "config.log").write_text("This file contains any messages produced by compilers\n")
    for name in ("config.status", "libtool"):
        (build / name).write_text("#! /bin/sh\n# Generated by configure.\necho $0\n")
    (build / "Makefile").write_text("all:\n\techo built\n")  # generated or not: read
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([project, other, build])
    assert sorted(Path(p).parent.name + "/" + Path(p).name for p in report.added) == [
        "build/Makefile", "notes/Makefile", "notes/configure", "project/README"]
    assert sorted(Path(p).name for p in report.left_out) == [
        "config.status", "configure", "depcomp", "install-sh", "libtool"]


def test_an_unreadable_file_without_an_extension_is_said_unreadable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Not "citewise does not read files without an extension" (a review of the change).
    from citewise.knowledge.base import KnowledgeBase

    secret = tmp_path / "notes"
    secret.write_text("Private notes.\n")
    real_open = Path.open

    def refuse(self: Path, *args: object, **kwargs: object) -> object:
        if self.name == "notes":
            raise PermissionError(13, "Permission denied")
        return real_open(self, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", refuse)
    assert default_registry().for_file(secret) is default_registry().get("text")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([secret])
    assert [f.code for f in report.failed] == ["unreadable_file"]


def test_a_loader_that_renders_differently_reads_unchanged_files_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # After an upgrade that fixed a loader (the HTML loader's permalink marks), a re-ingest
    # kept every unchanged page as the old version had rendered it.
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.loaders.html import HtmlLoader

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.html").write_text("<html><body><main><p>Tents dry fast.</p></main></body></html>")
    (docs / "notes.md").write_text("# Notes\n\nStoves burn gas.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert len(kb.ingest([docs]).added) == 2
        assert len(kb.ingest([docs]).unchanged) == 2  # same bytes, same loader: skipped
        monkeypatch.setattr(HtmlLoader, "version", "99", raising=False)
        again = kb.ingest([docs])
        assert [Path(p).name for p in again.updated] == ["page.html"]
        assert [Path(p).name for p in again.unchanged] == ["notes.md"]
        doc = kb.find_source(str(docs / "page.html"))
        assert doc is not None and doc.metadata["loader_version"] == "99"
        assert len(kb.ingest([docs]).unchanged) == 2
