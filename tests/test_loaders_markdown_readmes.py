"""What a new user's review of 20 npm libraries' READMEs found (2026-12-07): a heading was
a section's name as written — a title's badges ("braces [![Donate](…)](…) [![NPM
version](…)](…)", 557 characters for cacache) in every section path and citation, an
anchor ("<a name="create"></a>") a level of its own — and a README's centred HTML title
("<h1 align="center">Picomatch</h1>") no heading at all."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

README = """<h1 align="center">Picomatch</h1>

<p align="center">
<a href="https://npmjs.org/package/picomatch">
<img src="https://img.shields.io/npm/v/picomatch.svg" alt="version"></a>
</p>

Blazing fast glob matcher.

## API [![docs](https://img.shields.io/badge/docs-ok.svg)](https://x.org) [![Cult][cult-img]][cult]

### <a name="create"></a> `ssri.create([opts]) -> <Hash>`

Returns a Hash object.

### [.isMatch](lib/picomatch.js#L183)

Returns true if a string matches.

### <a name="alone"></a>

### `fs.watch(filename[, options][, listener])`

### [`npm ci`](/commands/npm-ci)

Setext [badges](https://x.org)
------------------------------

Last.
"""


def test_a_readme_s_headings_read_as_rendered(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(README, encoding="utf-8")
    doc = load(path)
    assert doc.title == "Picomatch"
    names = [name for _, _, name in doc.sections]
    assert names == ["Picomatch", "Picomatch > API",
                     "Picomatch > API > ssri.create([opts]) -> <Hash>",
                     "Picomatch > API > .isMatch",
                     "Picomatch > API > fs.watch(filename[, options][, listener])",
                     "Picomatch > API > npm ci", "Picomatch > Setext badges"], names
    start = doc.text.index('<h1 align="center">Picomatch</h1>')
    assert any(a == start and r == "heading" for a, _, r in doc.roles), doc.roles


def test_heading_markup_edge_cases_read_as_rendered(tmp_path: Path) -> None:
    """The code review (2026-12-07): a heading inside an HTML comment was a section nobody
    sees; an image alone lost its name; a permalink's "#" stayed; a link whose address has
    parentheses left one behind; a full reference link kept its brackets."""
    path = tmp_path / "CHANGES.md"
    path.write_text("Intro.\n\n<!--\n<h2>Old section</h2>\n## Old\nold text\n-->\n\n"
                    "# ![logo](logo.png)\n\n<h2 id=\"x\"><a href=\"#x\">#</a> Anchored</h2>\n\n"
                    "## See [Foo](https://en.wikipedia.org/wiki/Foo_(bar)) here\n\n"
                    "## [Unreleased][unreleased]\n\nText.\n", encoding="utf-8")
    doc = load(path)
    assert [t for _, _, t in doc.sections] == [
        "logo", "logo > Anchored", "logo > See Foo here", "logo > Unreleased"], doc.sections
