"""Routing: how much a question names each retrieved document, by its title and file name.

Apart from the ranking (:mod:`.sentence_rank`) because it is about documents, not
sentences: it is computed once per document of a ranking and every sentence of the
document shares it. A question names an entity — a setting, a command, a page — and the
sentence that answers it is on that entity's page more often than on a page that merely
mentions it; but a page named by two of its three name words is a look-alike, not the
page named (std::stable_sort for a question about std::sort).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from citewise.text import content_terms

__all__ = ["document_terms", "routing"]

_NAME_SPLIT = re.compile(r"[-_.\s/]+")
# A name in code as a question writes it ("std::sort", "os.path.join", "pg_dump",
# "operator[]"), and a page's title up to its site's name ("std::sort - cppreference.com").
_IDENTIFIER = re.compile(r"[A-Za-z_~][\w~]*(?:(?:::|\.|->)[A-Za-z_~][\w~]*)*(?:\(\)|\[\])?")
_SITE_SEPARATOR = re.compile(r" [-–—|:] ")


def document_terms(title: str, source: str) -> frozenset[str]:
    """The content terms of a document's title and of its file name's parts — and, for a
    file named as every project names one ("README.md", "index.html"), of its folder's
    name: twenty npm libraries' READMEs, each in its package's folder, told no library
    from another, and "Does node-fetch reject …?" was answered from lru-cache's (review,
    2026-12-07)."""
    path = PurePosixPath(source) if source else None
    stem = path.stem if path is not None else ""
    parts = [title, *_NAME_SPLIT.split(stem)]
    folder = path.parent.name if path is not None else ""
    if stem.split(".")[0].lower() in _GENERIC_NAMES and folder.lower() not in _GENERIC_FOLDERS \
            and not _MADE_UP.search(folder):
        parts += _NAME_SPLIT.split(folder)
    return frozenset(content_terms(" ".join(parts)))


_GENERIC_NAMES = frozenset(("readme", "index", "main", "default", "home", "intro",
                            "introduction", "overview", "about", "contents", "toc"))
# Folders named for what they hold, not whose it is ("html/index.html", "docs/README.md"),
# and names a program made up ("tmpab12cd", "upload-3f9a2c"): no name of a document.
_GENERIC_FOLDERS = frozenset(("", "html", "htm", "doc", "docs", "documentation", "src",
                              "source", "sources", "lib", "dist", "build", "_build", "site",
                              "public", "www", "en", "latest", "current", "stable", "api",
                              "static", "out", "output", "tmp", "temp", "data", "files",
                              "content", "pages", "md", "markdown", "manual", "manuals",
                              "guide", "help", "share", "usr", "uploads", "upload"))
_MADE_UP = re.compile(r"\d{3}|^tmp|(?=[0-9a-f]*\d)[0-9a-f]{6}", re.I)


def routing(question: str, q_terms: Sequence[str], names: Mapping[str, frozenset[str]],
            titles: Mapping[str, str]) -> dict[str, float]:
    """Per source, how much the question names it (0–1): its distinctive name words (those
    not in every retrieved document's name) that the question has, two of them being
    enough. Where the question names a page in code exactly as it is titled
    ("std::sort", "cmake_minimum_required"), every other page is routed at most half as
    much, and where that page's name words are some of another's (std::stable_sort),
    every word of that one counts. (Routing the named page fully as well lost as much as
    it gained on the bench: a question naming std::unique_ptr is answered on its
    operator= page.)"""
    n = len(names)
    if n < 2:
        return {}
    df: dict[str, int] = {}
    for terms in names.values():
        for t in terms:
            df[t] = df.get(t, 0) + 1
    distinct = {source: frozenset(t for t in terms if df[t] < n)
                for source, terms in names.items()}
    # A page the question names in code, exactly as titled ("std::sort": sort.html), and
    # its look-alikes, named by the same words and more (stable_sort.html): two of three
    # name words were routing enough, and the question about std::sort quoted
    # std::stable_sort's "The order of equal elements is guaranteed to be preserved."
    # (cppreference review, 2026-12-04). Names in prose are left as they were: Opus's
    # "Encoder related CTLs" answers questions that name its "Opus Encoder".
    idents = _identifiers(question)
    exact = {source for source, title in titles.items()
             if idents and distinct.get(source) and _title_names(title) & idents}
    whole = [distinct[source] for source in exact]
    asked = set(q_terms)
    out: dict[str, float] = {}
    for source, distinctive in distinct.items():
        hit = [t for t in distinctive if t in asked]
        if not hit:
            continue
        if any(d < distinctive for d in whole):
            out[source] = len(hit) / len(distinctive)
        else:
            out[source] = min(1.0, len(hit) / max(1, min(2, len(distinctive))))
        if exact and source not in exact:
            out[source] = min(out[source], _NOT_THE_NAMED)
    return out


_NOT_THE_NAMED = 0.5


def _identifiers(question: str) -> frozenset[str]:
    """The names in code a question writes: with a scope, a dot or an underscore, each
    also without a call's "()" ("cmake_minimum_required()" names its page)."""
    names = [m.lower() for m in _IDENTIFIER.findall(question) if any(c in m for c in ":._[(")]
    return frozenset(names) | frozenset(m.removesuffix("()") for m in names)


def _title_names(title: str) -> frozenset[str]:
    """The names a title gives its page: the title before its site's name ("std::sort -
    cppreference.com"), each of the names it lists ("qsort, qsort_s", "std::find,
    std::find_if"), and each of those without its outer scopes, as a question writes it
    ("vector::at" names "std::vector::at"). Whitespace is collapsed first (a PDF's /Title
    is not), so the search is linear."""
    text = " ".join(title.split())
    cut = _SITE_SEPARATOR.search(text)
    names = {n.strip() for n in (text[:cut.start()] if cut else text).lower().split(", ")}
    scoped = {name.split("::", k)[k] for name in names for k in range(1, name.count("::"))}
    return frozenset(names | scoped)
