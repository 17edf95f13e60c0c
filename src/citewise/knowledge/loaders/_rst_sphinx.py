"""What Sphinx adds to reStructuredText, as its HTML shows it: the roles, directives and
fields docutils does not know, and the text a reader sees for each.

Why apart from :mod:`.rst`: these are tables of Sphinx's vocabulary (which directives hold
no prose, how a version note or an info field is labelled), which grow with each Sphinx
project read; the doctree walk that uses them stays one concept in :mod:`.rst`.
"""

from __future__ import annotations

import re

__all__ = ["INFO_FIELDS", "LABELS", "METADATA", "NO_PROSE", "PREFIXES", "SHOWN_AS_WRITTEN",
           "TEST_CODE", "field_label", "reference_text", "sphinx_classes", "unknown_role"]

_ROLE = re.compile(r"^:[\w:.+-]+:`(?P<body>.*)`$", re.S)
_TARGET = re.compile(r"^(?P<title>.*?)\s*<[^<>]*>$", re.S)
#: Directives that hold no prose (a table of contents, an autodoc target, a setting): dropped.
NO_PROSE = frozenset((
    "toctree", "autosummary", "automodule", "autoclass", "autofunction", "automethod",
    "autoattribute", "autodata", "autoexception", "autoprogram", "literalinclude", "highlight",
    "index", "tabularcolumns", "currentmodule", "py:currentmodule", "module", "py:module",
    "sectionauthor", "moduleauthor", "codeauthor", "only", "ifconfig", "graphviz", "digraph",
    "plot", "mermaid", "uml", "todolist", "include", "raw",
))


# A reference as written: "`NumPy style`_", "foo_", a footnote's "[#]_" or "[1]_".
_REFERENCE = re.compile(r"\A(?:`(?P<text>[^`<]+?)\s*(?:<[^<>]*>)?`__?|(?P<word>\w[\w.-]*)__?"
                        r"|(?P<note>\[[^\]]+\])_)\Z")


def reference_text(raw: str) -> str:
    """A reference docutils could not resolve, as Sphinx shows it: "`NumPy style`_" is
    "NumPy style", "foo_" "foo", a footnote's "[#]_" "[#]" (a directive's body is parsed
    alone, its targets elsewhere: 20 places of Sphinx's own sources kept their markup)."""
    return _REFERENCE.sub(r"\g<text>\g<word>\g<note>", raw)


# Sphinx's "class" is its Python domain's (".. class:: sphinx.builders.dummy.DummyBuilder"),
# docutils' sets a class attribute (".. class:: special") and shows nothing: a Sphinx
# source's builders were all lost (Sphinx's review, 2026-12-07). A dotted, called or
# capitalised name is Python's, and any name in a file written for Sphinx; never inside a
# literal block (autodoc's page shows ".. class:: Noodle" as an example).
_CLASS_LINE = re.compile(r"^([ \t]*\.\.[ \t]+)class::([ \t]+\S.*)$")
_PYTHONIC = re.compile(r"[ \t]+(?:\S*[.(]|[A-Z])")
_SPHINX = re.compile(r":(?:ref|doc|func|meth|class|mod|attr|term|confval):`|^\.\. (?:toctree|"
                     r"py:|versionadded|versionchanged|autoclass|automodule|seealso)",
                     re.MULTILINE)
_LITERAL_OPENER = re.compile(r"(?:::[ \t]*$)|^[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode|"
                             r"parsed-literal|highlight)::")
#: Directives whose argument Sphinx shows as written: reST's own domain.
SHOWN_AS_WRITTEN = frozenset(("rst:directive", "rst:directive:option", "rst:role"))


def sphinx_classes(source: str) -> str:
    """``source`` with each ``.. class::`` Sphinx means as ``.. py:class::`` (see above)."""
    if "class::" not in source:
        return source
    sphinx = _SPHINX.search(source) is not None
    lines = source.split("\n")
    literal: int | None = None  # the indentation a literal block's lines are deeper than
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if literal is not None and (not line.strip() or indent > literal):
            continue
        literal = None
        m = _CLASS_LINE.match(line)
        if m and (sphinx or _PYTHONIC.match(m.group(2))):
            lines[i] = f"{m.group(1)}py:class::{m.group(2)}"
        elif _LITERAL_OPENER.search(line):
            literal = indent
    return "\n".join(lines)


def unknown_role(raw: str) -> str:
    """The text a Sphinx role shows: ``:ref:`Title <x>``` → Title, ``:func:`~a.b``` → b."""
    m = _ROLE.match(raw)
    if m is None:
        return raw
    body = m.group("body")
    target = _TARGET.match(body)
    if target is not None and target.group("title"):
        return target.group("title")
    if body.startswith("~"):
        return body[1:].rsplit(".", 1)[-1]
    return body.lstrip("!")


def field_label(name: str) -> str:
    """A field's label as Sphinx shows it: ``param timeout`` → "Parameter timeout";
    any other field's name as written ("Author")."""
    kind, _, rest = name.partition(" ")
    label = INFO_FIELDS.get(kind.lower())
    if label is None:
        return name
    return label.format(rest).strip()


#: Sphinx's info fields in a signature's description (``:param x:``, ``:rtype:``), labelled
#: as its HTML shows them.
INFO_FIELDS = {
    **dict.fromkeys(("param", "parameter", "arg", "argument", "key", "keyword", "kwarg",
                     "kwparam"), "Parameter {}"),
    **dict.fromkeys(("type", "vartype"), "Type of {}"),
    **dict.fromkeys(("raises", "raise", "except", "exception"), "Raises {}"),
    **dict.fromkeys(("var", "ivar", "cvar"), "Variable {}"),
    **dict.fromkeys(("returns", "return"), "Returns {}"),
    "rtype": "Return type {}",
}

#: Version notes' labels: ``.. versionchanged:: 3.9`` reads "Changed in version 3.9: …".
LABELS = {"versionadded": "New in version", "versionchanged": "Changed in version",
          "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
#: Boxes Sphinx titles by their directive: "See also: …", the todo extension's "Todo: …".
PREFIXES = {"seealso": "See also: ", "todo": "Todo: "}
#: The doctest extension's blocks: shown as code (``testcode``, ``testoutput``) or not at all.
TEST_CODE = frozenset(("testcode", "testoutput", "testsetup", "testcleanup"))
#: A page's settings for Sphinx, written as a field list at its top: nobody reads them.
METADATA = frozenset(("tocdepth", "orphan", "nosearch", "nocomments", "hide-toc"))
