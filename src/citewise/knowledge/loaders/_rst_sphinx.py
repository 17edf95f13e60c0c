"""What Sphinx adds to reStructuredText, as its HTML shows it: the roles, directives and
fields docutils does not know, and the text a reader sees for each.

Why apart from :mod:`.rst`: these are tables of Sphinx's vocabulary (which directives hold
no prose, how a version note or an info field is labelled), which grow with each Sphinx
project read; the doctree walk that uses them stays one concept in :mod:`.rst`.
"""

from __future__ import annotations

import re

__all__ = ["INFO_FIELDS", "LABELS", "METADATA", "NO_PROSE", "PREFIXES", "TEST_CODE",
           "field_label", "unknown_role"]

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
