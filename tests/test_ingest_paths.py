"""Which files an ingest reads, and which documents a prune may remove: a folder that
cannot be read, or a file name that is not UTF-8, is a failure of its own — it neither
stops the rest nor looks like a deletion."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.knowledge.base import KnowledgeBase
from test_cli import cli


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "france.txt").write_text("Paris is the capital of France.\n")
    (root / "sub" / "lemur.txt").write_text("Lemurs live only on Madagascar.\n")
    return root


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as opened:
        yield opened


def _unreadable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """As ``chmod 000 folder`` for a non-root user (the suite may run as root)."""
    real_scandir, real_lstat = os.scandir, os.lstat

    def denied(path: Any) -> None:
        raise PermissionError(13, "Permission denied", os.fspath(path))

    def scandir(path: Any = ".") -> Any:
        return denied(path) if Path(os.fspath(path)) == folder else real_scandir(path)

    def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(os.fspath(path)).parent == folder:
            denied(path)
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "lstat", lstat)


def test_prune_keeps_the_documents_of_a_folder_it_cannot_read(
        kb: KnowledgeBase, docs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(kb.ingest([docs]).added) == 2
    _unreadable(monkeypatch, docs / "sub")
    report = kb.ingest([docs], prune=True)
    assert report.removed == []  # lemur.txt is still there, only unreadable
    assert [(f.path, f.code) for f in report.failed] == [(str(docs / "sub"),
                                                          "unreadable_folder")]
    assert report.unchanged == [str(docs / "france.txt")]
    monkeypatch.undo()
    assert kb.find_document(docs / "sub" / "lemur.txt") is not None
    (docs / "sub" / "lemur.txt").unlink()  # gone for real: now it is pruned
    assert kb.ingest([docs], prune=True).removed == [str(docs / "sub" / "lemur.txt")]


def test_a_file_name_that_is_not_utf8_fails_alone(kb: KnowledgeBase, docs: Path) -> None:
    bad = os.fsencode(docs) + b"/caf\xe9.txt"
    with open(bad, "wb") as f:
        f.write(b"Coffee is served all day.\n")
    report = kb.ingest([docs])  # used to raise UnicodeEncodeError, storing nothing
    assert sorted(Path(p).name for p in report.added) == ["france.txt", "lemur.txt"]
    assert [(f.path, f.code) for f in report.failed] == [
        (f"{docs}/caf\\xe9.txt", "unsupported_file_name")]
    assert kb.ingest([os.fsdecode(bad)]).failed[0].code == "unsupported_file_name"


def test_cli_reports_every_failed_file_with_its_path(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "a.txt").write_bytes(b"\x00\x01" * 64)
    (folder / "b.txt").write_text("")
    proc = cli("ingest", str(folder), data_dir=tmp_path / "data")
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2  # nothing went in
    assert len(lines) == 2 and "Traceback" not in proc.stderr
    assert str(folder / "a.txt") in lines[0] and "[binary_file]" in lines[0]
    assert str(folder / "b.txt") in lines[1] and "[empty_document]" in lines[1]
    assert "0 added" in proc.stdout and "2 failed" in proc.stdout
    (folder / "c.txt").write_text("Some text at last.\n")
    proc = cli("ingest", str(folder), data_dir=tmp_path / "data")
    assert proc.returncode == 1 and "1 added" in proc.stdout  # some went in


def test_a_pipe_in_a_folder_fails_alone_instead_of_blocking(kb: KnowledgeBase,
                                                             docs: Path) -> None:
    os.mkfifo(docs / "pipe.txt")  # reading it would wait for a writer for ever
    report = kb.ingest([docs])
    assert sorted(report.added) == [str(docs / "france.txt"), str(docs / "sub" / "lemur.txt")]
    assert [(f.path, f.code) for f in report.failed] == [(str(docs / "pipe.txt"),
                                                          "unsupported_path")]


def test_symlinked_folders_are_followed_once(kb: KnowledgeBase, docs: Path,
                                             tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "owl.txt").write_text("Owls hunt at night.\n")
    (docs / "linked").symlink_to(elsewhere, target_is_directory=True)
    (docs / "sub" / "up").symlink_to(docs, target_is_directory=True)  # a loop
    report = kb.ingest([docs])
    assert sorted(report.added) == sorted([str(docs / "france.txt"),
                                           str(docs / "sub" / "lemur.txt"),
                                           str(docs / "linked" / "owl.txt")])
    assert report.failed == []


def test_the_knowledge_base_s_own_folder_is_not_ingested(tmp_path: Path) -> None:
    # `citewise --data-dir ./kb ingest .` read its own index files as documents (and
    # failed on them every time).
    (tmp_path / "notes.md").write_text("# Notes\n\nThe garage code is 4711.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        first = kb.ingest([tmp_path])
        again = kb.ingest([tmp_path])
    assert first.added == [str(tmp_path / "notes.md")] and first.failed == []
    assert again.unchanged == [str(tmp_path / "notes.md")] and again.failed == []
    assert not [s for s in first.skipped + again.skipped if "/kb/" in s]
    # Given by name (`citewise ingest ./kb`), it is refused with its reason, not "0 added".
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        itself = kb.ingest([tmp_path / "kb", tmp_path / "kb" / "citewise.db"])
    assert [(f.path, f.code) for f in itself.failed] == [
        (str(tmp_path / "kb"), "data_directory"), (str(tmp_path / "kb" / "citewise.db"), "data_directory")]
    assert itself.added == [] and itself.skipped == []


def test_a_file_emptied_since_its_ingest_is_removed(kb: KnowledgeBase, docs: Path) -> None:
    # Blanking a file (to redact it) left its old text quoted and "verified" for ever.
    kb.ingest([docs])
    (docs / "france.txt").write_text("")
    report = kb.ingest([docs])
    assert report.removed == [str(docs / "france.txt")] and report.failed == []
    assert kb.find_document(docs / "france.txt") is None
    assert kb.search("capital of France") == []
    assert kb.check_consistency().ok  # the indexes let go of it too
    again = kb.ingest([docs])  # still empty, nothing stored for it: an empty file fails
    assert [(f.path, f.code) for f in again.failed] == [(str(docs / "france.txt"),
                                                         "empty_document")]


def test_a_sphinx_builds_sources_and_assets_and_dependencies_are_left_out(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Python's HTML docs folder holds every page twice (``_sources/x.rst.txt``) plus the
    site's scripts: ingested whole, each answer was found twice; CMake's general index was
    a 285,000-character document of links. The pages are read; a
    ``_static`` outside a Sphinx build is a folder like any other."""
    html = tmp_path / "html"
    (html / "_sources").mkdir(parents=True)
    (html / "_static").mkdir()
    (html / "node_modules" / "pkg").mkdir(parents=True)
    (html / "searchindex.js").write_text("Search.setIndex({})\n")
    (html / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n")
    (html / "json.html").write_text("<html><body><p>Dumps encode JSON.</p></body></html>")
    for generated in ("genindex.html", "genindex-A.html", "search.html", "py-modindex.html"):
        (html / generated).write_text("<html><body><p>json module, [1], [2]</p></body></html>")
    (html / "_sources" / "json.rst.txt").write_text("Dumps encode JSON.\n")
    (html / "_static" / "basic.css").write_text("body { margin: 0 }\n")
    (html / "node_modules" / "pkg" / "README.md").write_text("A dependency.\n")
    site = tmp_path / "site" / "_static"
    site.mkdir(parents=True)
    (site / "notes.md").write_text("Static notes stay.\n")
    report = kb.ingest([html, site.parent])
    names = sorted(Path(p).name for p in report.added)
    assert names == ["json.html", "notes.md"], names
    assert sorted(Path(p).name for p in report.left_out) == [
        "_sources", "_static", "genindex-A.html", "genindex.html", "node_modules",
        "objects.inv", "py-modindex.html", "search.html", "searchindex.js"]
    assert "9 generated, asset or dependency paths not read" in report.summary()
    assert report.skipped == []  # objects.inv is left out as the build's, not "no loader"
    # A file named in the call is read wherever it is.
    again = kb.ingest([html / "_sources" / "json.rst.txt"])
    assert [Path(p).name for p in again.added] == ["json.rst.txt"]


def test_a_sphinx_builds_highlighted_code_and_downloads_are_left_out(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Tornado's HTML docs hold the package's code as 33 highlighted pages under
    ``_modules/`` (viewcode), 65 % of the stored text, its docstrings again in raw
    reStructuredText: 6 of 30 first quotes came from them in a new-user review
    (2026-12-07); cryptography's ``_downloads/`` holds the scripts its pages show."""
    html = tmp_path / "html"
    (html / "_modules" / "tornado").mkdir(parents=True)
    (html / "_downloads" / "abc123").mkdir(parents=True)
    (html / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n")
    (html / "locks.html").write_text("<html><body><p>A lock for coroutines.</p></body></html>")
    (html / "_modules" / "tornado" / "locks.html").write_text(
        "<html><body><pre>class Lock(object):\n    \"\"\"A lock for ``coroutines``.\"\"\"</pre>"
        "</body></html>")
    (html / "_downloads" / "abc123" / "generate_arc4.py").write_text("print('vectors')\n")
    report = kb.ingest([html])
    assert sorted(Path(p).name for p in report.added) == ["locks.html"]
    assert sorted(Path(p).name for p in report.left_out) == [
        "_downloads", "_modules", "objects.inv"]


def test_a_generated_sites_stylesheets_and_scripts_are_left_out(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """The Debian Administrator's Handbook (Publican) had its seven stylesheets ingested
    beside its pages (new-user review, 2026-12-04). A site whose index page names the tool
    that made it keeps its pages only; a folder of code with a hand-written page keeps its
    scripts."""
    book = tmp_path / "book"
    (book / "Common_Content" / "css").mkdir(parents=True)
    (book / "index.html").write_text(
        '<html><head><meta name="generator" content="publican v4.3.2" /></head>'
        "<body><p>The book.</p></body></html>")
    (book / "apt.html").write_text("<html><body><p>APT installs packages.</p></body></html>")
    (book / "Common_Content" / "css" / "common.css").write_text("body { margin: 0 }\n")
    (book / "search.js").write_text("function search() { return 1; }\n")

    def site(name: str, index: str, script: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "index.html").write_text(index)
        (folder / script).write_text("export const x = 1;\n")
        return folder

    doxygen = site("api", "<!-- Generated by Doxygen 1.9.1 -->\n<html><body><p>The encoder "
                   "API.</p></body></html>", "dynsections.js")
    app = site("app", "<html><body><p>My app.</p></body></html>", "main.js")
    # A page made by a site builder or a word processor is no documentation build.
    blog = site("blog", '<html><head><meta name="Generator" content="Microsoft Word 15">'
                "</head><body>Hi</body></html>", "widget.js")
    report = kb.ingest([book, doxygen, app, blog])
    assert sorted(Path(p).name for p in report.added) == [
        "apt.html", "index.html", "index.html", "index.html", "index.html", "main.js",
        "widget.js"]
    assert sorted(Path(p).name for p in report.left_out) == [
        "common.css", "dynsections.js", "search.js"]


def test_a_generated_sites_assets_are_left_out_without_its_index_page(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Doxygen's manual copied without its index page (new-user review, 2026-12-06): every
    page names the tool, but only an ``index.html`` was asked, and jQuery and the
    table-of-contents script were 413 of 1,141 chunks, search hits for 14 of 38 questions.
    Pages that name no tool keep their scripts beside them."""
    manual = tmp_path / "manual"
    manual.mkdir()
    for name in ("config.html", "faq.html"):
        (manual / name).write_text(
            '<html><head><meta name="generator" content="Doxygen 1.9.4"/></head><body><p>'
            f"The {name} page.</p></body></html>")
    (manual / "jquery.js").write_text("function jQuery() { return 1; }\n")
    (manual / "doxygen_manual.css").write_text("body { margin: 0 }\n")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.html").write_text("<html><body><p>My notes.</p></body></html>")
    (notes / "app.js").write_text("export const x = 1;\n")
    # One page a converter made beside a project's code is no site (code review).
    code = tmp_path / "code"
    code.mkdir()
    (code / "CHANGELOG.html").write_text(
        '<html><head><meta name="generator" content="pandoc"/></head><body><p>1.2: fixes.'
        "</p></body></html>")
    (code / "main.js").write_text("export const y = 2;\n")
    report = kb.ingest([manual, notes, code])
    assert sorted(Path(p).name for p in report.added) == [
        "CHANGELOG.html", "app.js", "config.html", "faq.html", "main.js", "todo.html"]
    assert sorted(Path(p).name for p in report.left_out) == ["doxygen_manual.css", "jquery.js"]


def test_a_scribble_sites_assets_are_left_out_above_its_pages_folders(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Racket's manuals (Scribble, no ``<meta name="generator">``) share their stylesheets
    and scripts one level above ``guide/`` and ``reference/``, and the redirect scripts
    one level beside: 10 of 29 documents were the site's assets, three of them empty files
    that failed the ingest, and JavaScript was quoted as an answer (new-user review,
    2026-12-06). A project's scripts beside its README stay, docs folder or not."""
    site = tmp_path / "racket"
    for folder in ("guide", "reference", "local-redirect"):
        (site / folder).mkdir(parents=True)
    page = ('<html><head><link rel="stylesheet" href="../scribble.css"/><script '
            'type="text/javascript" src="../scribble-common.js"></script><script '
            'src="../local-redirect/local-redirect.js"></script></head><body><p>'
            "{} </p></body></html>")
    (site / "guide" / "symbols.html").write_text(page.format("Symbols are case-sensitive."))
    (site / "reference" / "tcp.html").write_text(page.format("Creates a listening server."))
    for name in ("scribble.css", "scribble-common.js", "manual-racket.js", "doc-site.css"):
        (site / name).write_text("" if name.startswith("doc-site") else "var x = 1;\n")
    (site / "local-redirect" / "local-redirect.js").write_text("var y = 2;\n")
    (site / "local-redirect" / "local-user-redirect.js").write_text("")
    (site / "guide" / "finger.png").write_bytes(b"\x89PNG\r\n")
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "README.md").write_text("# App\n\nMy app.\n")
    (project / "app.js").write_text("export const z = 3;\n")
    (project / "docs" / "index.html").write_text(page.format("The app's manual."))
    # A web app's own scripts beside its generated API pages, which do not link to them,
    # are the app's code (code review, 2026-12-06).
    webapp = tmp_path / "webapp"
    (webapp / "api-docs").mkdir(parents=True)
    (webapp / "static" / "js").mkdir(parents=True)
    (webapp / "api-docs" / "index.html").write_text(
        "<!-- Generated by Doxygen 1.9.4 -->\n<html><body><p>The API.</p></body></html>")
    (webapp / "static" / "js" / "checkout.js").write_text("export const pay = 1;\n")
    (webapp / "static" / "style.css").write_text("body { margin: 0 }\n")
    report = kb.ingest([site, project, webapp])
    assert not report.failed
    assert sorted(Path(p).name for p in report.added) == [
        "README.md", "app.js", "checkout.js", "index.html", "index.html", "style.css",
        "symbols.html", "tcp.html"]
    assert sorted(Path(p).name for p in report.left_out) == [
        "doc-site.css", "local-redirect.js", "local-user-redirect.js", "manual-racket.js",
        "scribble-common.js", "scribble.css"]


def test_a_stylesheet_above_a_docbook_site_and_its_man_page_is_left_out(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Privoxy's documentation keeps ``p_doc.css`` above its DocBook user manual and FAQ
    and its man2html manual page (which names no generator): the stylesheet was ingested
    and was search's first hit for a question about screen examples (new-user review,
    2026-12-07). Most folders below it are a generated site's, so it is that site's."""
    root = tmp_path / "privoxy"
    docbook = ('<html><head><meta name="GENERATOR" content="Modular DocBook HTML Stylesheet '
               'Version 1.79"><link rel="STYLESHEET" href="../p_doc.css"></head><body><p>{}'
               "</p></body></html>")
    for folder, text in (("faq", "Privoxy filters ads."), ("user-manual", "Port 8118."),
                         ("man-page", None)):
        (root / folder).mkdir(parents=True)
        page = docbook.format(text) if text else (
            "<html><body><p>privoxy - Privacy Enhancing Proxy</p><p>This document was "
            "created by man2html.</p></body></html>")
        (root / folder / f"{folder}.html").write_text(page)
    (root / "p_doc.css").write_text("body { background: #eee }\n")
    (root / "user-manual" / "p_doc.css").symlink_to(root / "p_doc.css")
    # Beside the pages' folders, a folder of scripts is the site's only if every page
    # sampled is a generated one's (a hand-made page uses it too: the app's code).
    beside = tmp_path / "beside"
    for folder, made in (("docs1", True), ("docs2", True), ("app", False)):
        (beside / folder).mkdir(parents=True)
        head = '<meta name="generator" content="Sphinx 7.2">' if made else ""
        (beside / folder / "page.html").write_text(
            f'<html><head>{head}<script src="../static/app.js"></script></head><body><p>'
            f"{folder} page.</p></body></html>")
    (beside / "static").mkdir()
    (beside / "static" / "app.js").write_text("export const run = 1;\n")
    report = kb.ingest([root, beside])
    assert sorted(Path(p).name for p in report.added) == [
        "app.js", "faq.html", "man-page.html", "page.html", "page.html", "page.html",
        "user-manual.html"]
    assert sorted(Path(p).name for p in report.left_out) == ["p_doc.css", "p_doc.css"]
    assert "2 generated, asset or dependency paths not read" in report.summary()


def test_a_sphinx_sites_static_folder_below_its_pages_is_left_out(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    """Knot DNS's manual as Debian ships it has no ``objects.inv``, and its pages name
    Docutils as their generator ("Created using Sphinx" is in the footer): the stylesheets
    and scripts of ``_static/`` below the pages were 8 documents, ``sphinx_highlight.js``
    search's hits for a question, and the broken links to /usr/share/javascript failed
    the ingest (new-user review, 2026-12-07). Sphinx's pages load its scripts from
    ``_static/`` in their head; a hand-made page's own scripts folder below it stays."""
    manual = tmp_path / "knot"
    (manual / "_static").mkdir(parents=True)
    head = ('<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />'
            '<link rel="stylesheet" href="_static/pygments.css" type="text/css" />'
            '<script data-url_root="./" id="documentation_options" '
            'src="_static/documentation_options.js"></script>'
            '<script src="_static/doctools.js"></script><script src="_static/js/theme.js">'
            '</script>')
    for name, text in (("configuration.html", "Knot reads knot.conf."),
                       ("operation.html", "Run knotc reload.")):
        (manual / name).write_text(f"<html><head>{head}</head><body><p>{text}</p></body></html>")
    (manual / "_static" / "pygments.css").write_text(".hll { background: #ffc }\n")
    (manual / "_static" / "documentation_options.js").write_text("var DOCUMENTATION_OPTIONS = {};\n")
    (manual / "_static" / "jquery.js").symlink_to("/usr/share/javascript/none/jquery.js")
    # The user's own scripts beside the Sphinx pages, which no page loads, stay — though
    # "static/" and "js/" are in the pages' "_static/js/…" (code review, 2026-12-07).
    (manual / "static").mkdir()
    (manual / "static" / "demo.js").write_text("export const demo = 1;\n")
    (manual / "js").mkdir()
    (manual / "js" / "widget.js").write_text("export const widget = 1;\n")
    app = tmp_path / "app"
    (app / "js").mkdir(parents=True)
    (app / "index.html").write_text('<html><head><script src="js/app.js"></script></head>'
                                    "<body><p>My app.</p></body></html>")
    (app / "js" / "app.js").write_text("export const app = 1;\n")
    # A hand-made page without an index, over its scripts' folder: they stay.
    notes = tmp_path / "notes"
    (notes / "js").mkdir(parents=True)
    (notes / "todo.html").write_text('<html><head><script src="js/todo.js"></script></head>'
                                     "<body><p>My notes.</p></body></html>")
    (notes / "js" / "todo.js").write_text("export const todo = 1;\n")
    report = kb.ingest([manual, app, notes])
    assert not report.failed, report.failed
    assert sorted(Path(p).name for p in report.added) == [
        "app.js", "configuration.html", "demo.js", "index.html", "operation.html", "todo.html",
        "todo.js", "widget.js"]
    assert sorted(Path(p).name for p in report.left_out) == [
        "documentation_options.js", "jquery.js", "pygments.css"]


def test_a_broken_symbolic_link_is_said_to_be_one(kb: KnowledgeBase, tmp_path: Path) -> None:
    """"cannot read file: No such file or directory" of a file the walk had just listed
    (Knot DNS's review, 2026-12-07): the error says the link is broken and where it points."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("# Notes\n\nKeep backups.\n")
    (docs / "gone.md").symlink_to(tmp_path / "elsewhere" / "gone.md")
    report = kb.ingest([docs])
    assert [Path(p).name for p in report.added] == ["notes.md"]
    [(source, error)] = [(Path(f.path).name, f) for f in report.failed]
    assert source == "gone.md" and error.code == "unreadable_file"
    assert f"broken symbolic link: it points to {tmp_path / 'elsewhere' / 'gone.md'}" in str(
        error.message), error


def test_a_link_into_a_folder_is_an_address_that_starts_there() -> None:
    """Root-relative and absolute addresses count; a folder's name inside another's path
    does not (code reviews, 2026-12-07)."""
    from citewise.knowledge.ingest.files import _link_into

    static = _link_into("_static")
    for page in (b'<script src="_static/a.js">', b"<link href='../_static/a.css'>",
                 b'<script src="/_static/a.js">', b'<link href="https://docs.example/_static/a.css">'):
        assert static.search(page), page
    assert not _link_into("static").search(b'<script src="_static/a.js">')
    assert not _link_into("js").search(b'<script src="_static/js/theme.js">')


NAV_ONLY = ("<html><head><title>Search</title><script>search()</script></head><body>"
            "<nav><a href='index.html'>Home</a> <a href='tools.html'>Tools</a></nav>"
            "<div id='results'></div></body></html>")


def test_a_page_of_navigation_only_met_in_a_folder_is_skipped_not_failed(
        kb: KnowledgeBase, docs: Path) -> None:
    """ImageMagick's site (review, 2026-12-08): its search.html, navigation and a script,
    failed every ingest of the folder ("no readable text in the page"), which then exited
    1 though every page with text went in. Met in a walk it is skipped, said why; named on
    its own, it still fails; and so does a stored page that lost its text."""
    (docs / "search.html").write_text(NAV_ONLY)
    report = kb.ingest([docs])
    assert report.failed == [] and len(report.added) == 2
    assert report.skipped == [str(docs / "search.html")]
    assert report.skip_reason(str(docs / "search.html")) == (
        "pages with no text beyond navigation or scripts")
    assert "1 skipped (1 pages with no text beyond navigation or scripts)" in report.summary()
    named = kb.ingest([docs / "search.html"])
    assert [f.code for f in named.failed] == ["empty_document"] and named.skipped == []
    (docs / "page.html").write_text("<html><body><p>Lemurs sleep by day.</p></body></html>")
    assert kb.ingest([docs]).added == [str(docs / "page.html")]
    (docs / "page.html").write_text(NAV_ONLY)
    lost = kb.ingest([docs])
    assert [(f.path, f.code) for f in lost.failed] == [(str(docs / "page.html"),
                                                        "empty_document")]


def test_a_stored_page_a_newer_reader_finds_only_navigation_in_goes(
        kb: KnowledgeBase, docs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HTML loader 70 reads a Sphinx toctree as navigation: a guide's index page of
    chapter links, its bytes unchanged, now gives no text. Its stored document (the
    chapter titles) goes, said as removed and why; an edited page keeps failing."""
    from citewise.errors import IngestError
    from citewise.knowledge.loaders.html import HtmlLoader

    (docs / "guide.html").write_text("<html><body><h1>Guide</h1><div class='toctree-wrapper'>"
                                     "<ul><li><a href='a.html'>Install</a></li></ul></div>"
                                     "<p>Read the chapters in order.</p></body></html>")
    kb.ingest([docs])
    assert kb.find_document(docs / "guide.html") is not None

    def nothing(self: HtmlLoader, path: Path, data: bytes) -> None:
        raise IngestError(f"{path}: no readable text in the page", code="empty_document")

    monkeypatch.setattr(HtmlLoader, "version", "newer")
    monkeypatch.setattr(HtmlLoader, "load", nothing)
    report = kb.ingest([docs])
    assert report.removed == [str(docs / "guide.html")] and report.failed == []
    assert report.skipped == [str(docs / "guide.html")]
    assert kb.find_document(docs / "guide.html") is None and kb.check_consistency().ok
