"""BSD ``mdoc`` callable macros on one line, flattened to the text ``mandoc`` prints
(``Fl a Ar file`` → ``-a file``, ``Op Fl v`` → ``[-v]``).

Apart from :mod:`citewise.knowledge.loaders.man` because this is a little language of its
own — macros inside a line, quotes that close at the line's end, punctuation that closes
them, spacing mode — and each rule was found by a word lost on a real page (OpenSSH's and
tmux's pages are mdoc): ``.Ux`` dropped "UNIX", ``.Sx`` every section reference, ``.Qq``
every quoted example, ``.Sm off`` spaced ``ssh://[user@]hostname[:port]`` out, ``.Ql .``
put the dot outside its quotes.
"""

from __future__ import annotations

import re

from citewise.knowledge.loaders._roff import split_args, unescape

__all__ = ["PUNCT", "inline", "is_inline", "join_lines", "reference", "standard_text"]

# Macros whose name is dropped and whose arguments are text.
_PREFIX = {"Fl": "-", "Cm": "", "Ar": "", "Pa": "", "Em": "", "Sy": "", "Li": "",
           "Ev": "", "Va": "", "Dv": "", "Er": "", "Ic": "", "No": "", "Fn": "", "Ft": "",
           "Fa": "", "Ad": "", "An": "", "Lb": "", "Ms": "", "Tn": "", "St": "",
           "Cd": "", "Vt": "", "Mt": "", "Ot": "", "In": "", "Sx": ""}
# Macros that print a fixed name (``.Ux Ns -domain`` → ``UNIX-domain``).
_NAMES = {"Ux": "UNIX", "Bx": "BSD", "Ox": "OpenBSD", "Nx": "NetBSD", "Fx": "FreeBSD",
          "Dx": "DragonFly", "Bsx": "BSD/OS", "At": "AT&T UNIX"}
_QUOTES = {"Dq": ("“", "”"), "Do": ("“", "”"), "Sq": ("‘", "’"), "Ql": ("‘", "’"),
           "Pq": ("(", ")"), "Op": ("[", "]"), "Oo": ("[", ""), "Brq": ("{", "}"),
           "Bq": ("[", "]"), "Aq": ("⟨", "⟩"), "Qq": ('"', '"'), "Qo": ('"', "")}
_CLOSE = {"Dc": "”", "Sc": "’", "Pc": ")", "Oc": "]", "Brc": "}", "Bc": "]", "Ac": "⟩",
          "Qc": '"'}
_SKIP = frozenset(("Lk", "Ta", "Pf", "Xo", "Xc"))
PUNCT = re.compile(r"^[.,:;)\]?!]+$")
_GLUE = "\x01"  # no space on this side


def is_inline(name: str) -> bool:
    """Whether ``.name …`` is a line of callable macros that prints text."""
    return name in _PREFIX or name in _NAMES or name in _QUOTES or name in _CLOSE \
        or name in ("Xr", "Lk")


def inline(rest: str, strings: dict[str, str]) -> str:
    """An mdoc line's callable macros, flattened to text. ``strings["\\x02Sm"] == "off"``:
    spacing mode is off (``.Sm off``), words are not separated."""
    out: list[str] = []
    closers: list[str] = []
    nospace = False
    prefix = ""
    xref = 0
    tail: list[str] = []  # punctuation after the last word: outside the open quotes
    nospace_all = strings.get("\x02Sm") == "off"
    for tok in (unescape(a, strings) for a in split_args(rest)):
        if tok in _PREFIX:
            prefix = _PREFIX[tok]
            continue
        if tok in _NAMES:
            tok = _NAMES[tok]
        elif tok in _QUOTES:
            opening, closing = _QUOTES[tok]
            if out and nospace_all:
                out[-1] += _GLUE + opening + _GLUE
            else:
                out.append(opening + _GLUE)
            if closing:
                closers.append(closing)
            continue
        if tok in _CLOSE:  # an explicit close: punctuation before it is inside
            out.append(_GLUE + _GLUE.join(tail) + _GLUE + _CLOSE[tok])
            tail.clear()
            continue
        if tok == "Ns":
            nospace = True
            continue
        if tok == "Xr":
            xref = 2
            continue
        if xref == 1 and re.fullmatch(r"\d\w*", tok):  # ``Xr ls 1`` → ls(1)
            out[-1] += f"({tok})"
            xref = 0
            continue
        xref = 1 if xref == 2 else 0
        if tok in _SKIP:
            continue
        piece = prefix + tok
        prefix = ""
        just_opened = bool(out) and out[-1].endswith(_GLUE) and not tail
        if closers and PUNCT.match(tok) and not just_opened:
            tail.append(piece)  # ``Op : port .`` → ``[:port].``: it may close the quote
            continue
        if tail:
            out[-1] += _GLUE + _GLUE.join(tail)
            tail.clear()
        glued = nospace or nospace_all or just_opened or PUNCT.match(tok)
        if out and glued:
            out[-1] += _GLUE + piece  # ``Ql .`` → ``‘.’``: a quote's only word
        else:
            out.append(piece)
        nospace = False
    text = (" ".join(out) + "".join(_GLUE + c for c in reversed(closers))
            + "".join(_GLUE + t for t in tail))
    return re.sub(f" ?{_GLUE} ?", "", text).strip()


def join_lines(pieces: list[tuple[str, bool]]) -> str:
    """The rendered lines of an ``.It … Xo`` … ``.Xc`` tag as one: ``(text, glued)``, glued
    when spacing mode was off before it and after the line that turned it off (``-D`` ·
    ``.Sm off`` · ``[bind_address:]`` · ``port`` → ``-D [bind_address:]port``)."""
    out = ""
    for text, glued in pieces:
        if not text:
            continue
        out += text if (glued or not out or PUNCT.match(text.split()[0])) else " " + text
    return out


# A reference's parts in the order mandoc prints them (``.%A`` authors first, ``.%D`` late).
_REFERENCE_ORDER = "ATBIJRNVUPQCDO"


def reference(parts: list[tuple[str, str]]) -> str:
    """An ``.Rs`` … ``.Re`` block as one line: "S. Lehtinen and C. Lonvick, The Secure
    Shell (SSH) Protocol Assigned Numbers, RFC 4250, January 2006." (the STANDARDS
    section of OpenSSH's pages was empty without it)."""
    authors = [v for k, v in parts if k == "A" and v]
    names = (", ".join(authors[:-1]) + " and " + authors[-1]) if len(authors) > 1 else \
        "".join(authors)
    rest = [v for key in _REFERENCE_ORDER[1:] for k, v in parts if k == key and v]
    text = ", ".join([names, *rest] if names else rest)
    return text + "." if text and not text.endswith(".") else text


def standard_text(macro: str, args: list[str], name: str) -> str:
    """``.Ex -std`` / ``.Rv -std``: the sentences they stand for."""
    who = " ".join(a for a in args if a != "-std") or name
    if macro == "Ex":
        return f"The {who} utility exits 0 on success, and >0 if an error occurs."
    return (f"The {who}() function returns the value 0 if successful; otherwise the value -1 "
            "is returned and the global variable errno is set to indicate the error.")
