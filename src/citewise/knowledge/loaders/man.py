"""Man pages (groff ``man`` and BSD ``mdoc`` sources, ``ls.1``, ``ls.1.gz``): rendered to the
text a reader of ``man`` sees.

Why a renderer of our own and not ``groff``/``mandoc``: nothing external to install or run
(a subprocess per file, a Debian package on every machine), and the stored text is built
piece by piece here, so every section span is an exact offset into it by construction.
The common macros are understood — ``.TH .SH .SS .PP/.LP/.P .TP .IP .HP .B .I .BR``
(and the other font pairs) ``.nf/.fi .EX/.EE .RS/.RE .br .sp .UR/.UE .MT/.ME .SY/.OP``,
``.ds`` strings, a page's own macros (``.de``, expanded: :mod:`._roff_macros`), ``.ig``
blocks (skipped), simple ``.if``/``.ie``/``.el`` (as ``nroff`` would: ``n`` is true; string
and number comparisons) — and the mdoc ones that shape a page (``.Sh .Ss .Pp .Bl
.It .Bd .Nm .Nd .Fl .Ar .Op .Xr`` …). Font, size and motion escapes are dropped, special
characters (``\\(em``, ``\\[u00E9]``, ``\\-``) become the characters they print. Anything
else is read as text without its macro name, so an unknown macro loses formatting, never
words. ``.so`` (include another page) is shown as a reference, never followed.

The layout is plain: a heading line per ``.SH`` (the sections; ``.SS`` nests below it, and
an item's tag — ``.TP``/``.IP``, mdoc's ``.It`` — below that: "OPTIONS > --partial"),
paragraphs as single lines separated by blank lines (no line filling, no justification),
a ``.TP``/``.IP`` tag on its own line with its body indented by four spaces, and
no-fill blocks (examples, synopses) line for line.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path

from citewise.knowledge.loaders._blocks import section_spans
from citewise.knowledge.loaders._decode import decode_text, rendered
from citewise.knowledge.loaders._man_page import Page as _Page
from citewise.knowledge.loaders._mdoc import (
    PUNCT,
    inline,
    is_inline,
    join_lines,
    reference,
    standard_text,
)
from citewise.knowledge.loaders._roff import STRINGS, split_args, unescape
from citewise.knowledge.loaders._roff_macros import Macros, condition
from citewise.knowledge.loaders._tbl import Table
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["ManLoader", "render_man"]

_FONT_PAIRS = {"BR", "RB", "IR", "RI", "BI", "IB"}
_FONTS = {"B", "I", "SM", "SB", "CW", "R"}
_PARAS = {"PP", "LP", "P", "HP", "Pp", "Lp"}
# A page has a title, a section, an include or a roff comment somewhere; a text file named
# ``notes.1`` (or a rotated log, ``syslog.1``) has none of them.
_ROFF = re.compile(r'(?m)^[.\'][ \t]*(?:TH|SH|SS|Dd|Dt|Sh|so)\b|^\.\\"')


def render_man(source: str) -> tuple[str, str | None, list[SectionSpan]]:
    """``(text, title, sections)`` of a man page."""
    text, title, sections, _ = read_man(source)
    return text, title, sections


_NAME = re.compile(r"[^\\]+")  # a request's name, up to an escape glued to it


def read_man(source: str) -> tuple[str, str | None, list[SectionSpan], list[RoleSpan]]:
    """``(text, title, sections, roles)`` of a man page's roff source."""
    page = _Page(strings=dict(STRINGS))
    title: str | None = None
    raw_lines = source.replace("\r\n", "\n").split("\n")
    lines: list[str] = []
    for line in raw_lines:  # a trailing backslash joins the next line
        if lines and lines[-1].endswith("\\") and not lines[-1].endswith("\\\\"):
            lines[-1] = lines[-1][:-1] + line
        else:
            lines.append(line)
    in_block = False  # an ignored block (``.ig``): skipped to its ".."
    defining: tuple[str, list[str], bool, str] | None = None  # a ``.de`` body being read
    macros = Macros(len(source))
    skip_braces = 0
    elses: list[bool] = []  # what each open ``.ie``'s ``.el`` does: roff pairs them so
    chain = 0  # conditions in a row on one line (".if n .if n …": a hostile page's)
    from_condition = False
    xo: list[tuple[str, bool]] | None = None
    table: Table | None = None
    queue = deque(lines)  # a macro's expansion and a condition's request go back in front
    while queue:
        line = queue.popleft()
        if in_block:
            in_block = _ENDS_BLOCK.match(line) is None
            continue
        chain, from_condition = (chain + 1 if from_condition else 0), False
        if defining is not None:
            if not (_ENDS_BLOCK.match(line) if defining[3] == "." else
                    line.lstrip(".' \t").split()[:1] == [defining[3]]):
                defining[1].append(line)
            else:
                macros.define(defining[0], defining[1], append=defining[2])
                defining = None
            continue
        if skip_braces:
            skip_braces += line.count("\\{") - line.count("\\}")
            continue
        line = re.sub(r'(?<!\\)\\".*$', "", line)  # a comment to the end of the line
        # A table or an ``.It … Xo`` tag left open ends at the next section, not never.
        closes = line.startswith(_ENDS_OPEN)
        if table is not None:
            if not closes and not line.startswith(".TE"):
                table.feed(line)
                continue
            page.flush()
            table.write(page, page.prefix)
            table = None
            if not closes:
                continue
        if line.startswith(".TS"):
            page.flush()
            table = Table(page.strings)
            continue
        if xo is not None:  # an ``.It … Xo`` tag goes on to its ``.Xc``
            if closes or _gather(page, xo, line):
                _item(page, join_lines(xo))
                xo = None
            if not closes:
                continue
        if line.startswith((".It ", "'It ")) and "Xo" in line.split():
            page.flush()
            page.body = False
            xo = [(inline(" ".join(w for w in line[3:].split() if w != "Xo"), page.strings),
                   False)]
            continue
        if line.startswith((".", "'")):
            request = line[1:].strip()
            if not request:
                continue
            name, _, rest = request.partition(" ")
            if (named := _NAME.match(name)) is not None and named.end() < len(name):
                # A request's name ends at an escape too: ".el\{\" (pod2man's preamble) is
                # an .el; read as another request, its troff branch won, and every page
                # quoted ``this'' (OpenSSL's review, 2026-12-07).
                name, rest = named.group(), f"{name[named.end():]} {rest}".rstrip(" ")
            if not name.isalnum() and len(name) > 1 and name[:2] in ("\\}", "\\{"):
                continue
            if name in ("if", "ie", "el"):
                cond_true: bool
                if name == "el":
                    cond_true, body_text = (elses.pop() if elses else False), rest
                elif (read := condition(rest, page.strings)) is not None:
                    cond_true, body_text = read  # "'\\*(lq'\"'", "!\"\\$2\"\"", "\\n(.$>1"
                else:
                    cond, _, body_text = rest.strip().partition(" ")
                    # nroff, not troff; and groff (register .g), as man(1) renders it:
                    # mawk(1) defines its quotes as \(lq \(rq only "if \n(.g".
                    cond_true = (cond in ("n", "!t", "!o", "\\n(.g", "\\n[.g]")
                                 or cond.startswith("!e"))
                if name == "ie":
                    elses.append(not cond_true)
                body_text = body_text.strip()
                opens = body_text.startswith("\\{")
                if opens:
                    body_text = body_text[2:].strip()
                if not cond_true:
                    if opens:
                        skip_braces = 1 + body_text.count("\\{") - body_text.count("\\}")
                    continue
                body_text = body_text.replace("\\}", "").strip()
                if body_text and chain < _CHAIN:
                    queue.appendleft(body_text)  # read as a line of its own: a request,
                    from_condition = True  # a nested condition, a macro's call, or text
                continue
            if name in ("de", "de1", "am") and rest.split():
                words = rest.split()
                defining = (words[0], [], name == "am", words[1] if len(words) > 1 else ".")
                continue
            if name not in _OWN and not is_inline(name) and (
                    body := macros.expand(name, rest)) is not None:
                queue.extendleft(reversed(body))
                continue
            title = _request(page, name, rest, title) or title
            if name in ("de", "de1", "am", "ig"):
                in_block = True
            continue
        if not line.strip():
            if page.nofill:
                page.lines.append("")
            else:
                page.paragraph()
            continue
        if line[0] in " \t" and not page.nofill:
            page.flush("\n")  # a line starting with a space breaks the line
        page.text(unescape(line.replace("\\}", ""), page.strings))
    if table is not None:
        page.flush()
        table.write(page, page.prefix)
    if xo is not None:
        _item(page, join_lines(xo))
    page.flush()
    return ("".join(page.parts), title,
            section_spans(sorted([*page.headings, *page.terms]), page.length),
            page.role_spans())


# A block's end: "..", or with blanks after the control character (".  ." closes the
# ".  am URL" of util-linux's pages, written by Asciidoctor: fstab(5) rendered empty).
_ENDS_BLOCK = re.compile(r"\s*[.'][ \t]*\.(?!\S)")
_ENDS_OPEN = (".SH", ".Sh", ".SS", ".Ss", ".It ", ".El")
# The macros a page's own definition does not replace: what makes its structure (the
# renderer's sections, items, indents, fills). Old pod2man pages define ``.Sh`` as a bold
# paragraph; Tk's ``.OP`` and Tcl's ``.MT``, pages' own, are theirs to define.
_OWN = frozenset(("TH", "Dt", "SH", "Sh", "SS", "Ss", "IX", "sp", "br", "TP", "TQ", "IP", "RS",
                  "RE", "nf", "fi", "Bd", "Ed", "ds", "so", "Bl", "El", "It", "Nm",
                  *_PARAS, *_FONT_PAIRS, *_FONTS))
_CHAIN = 32  # conditions nested on one line at most (real pages nest a few)



def _gather(page: _Page, xo: list[tuple[str, bool]], line: str) -> bool:
    """Render a line of an ``.It … Xo`` tag into ``xo``; True at its ``.Xc``."""
    after_sm = page.strings.pop("\x02Sm0", None) is not None
    glued = page.strings.get("\x02Sm") == "off" and not after_sm
    if not line.startswith((".", "'")):
        xo.append((unescape(line, page.strings), glued))
        return False
    name, _, rest = line[1:].strip().partition(" ")
    if name == "Xc":
        return True
    if name == "Sm":
        _request(page, name, rest, None)
        page.strings["\x02Sm0"] = "1"  # the line after ``.Sm off`` is still spaced
        return False
    words = f"{name} {rest}".split()
    end = words[-1:] == ["Xc"]
    xo.append((inline(" ".join(words[:-1] if end else words), page.strings), glued))
    return end


def _item(page: _Page, tag: str) -> None:
    """An ``.It`` list item: its tag on a line, the body indented below it; a bullet."""
    bullet = bool(page.mdoc_list and page.mdoc_list[-1])
    if bullet:
        page.words.append("• " + tag if tag else "•")
    elif tag:
        page.term(tag)  # what the item describes: an option, a keyword


def _request(page: _Page, name: str, rest: str, title: str | None) -> str | None:
    """Apply one request or macro; returns the page title when it sets one."""
    # A macro's arguments are read twice by roff: ``\\-`` in one is ``\-`` ("-").
    args = [unescape(a.replace("\\\\", "\\"), page.strings) for a in split_args(rest)]
    text = " ".join(args)
    if name in ("TH", "Dt"):
        if args:
            return f"{args[0]}({args[1]})" if len(args) > 1 else args[0]
    elif name in ("SH", "Sh"):
        page.heading(1, text)
    elif name in ("SS", "Ss"):
        page.heading(2, text)
    elif name == "IX" and len(args) > 1 and args[0] == "Subsection":
        page.subheading(args[1])
    elif name in _PARAS or name == "sp":
        page.paragraph(margin=name in ("PP", "LP", "P", "HP"))
    elif name == "br":
        page.flush("\n")
    elif name in ("TP", "TQ"):
        page.flush()
        page.body = False
        page.await_tag = True
    elif name == "IP":
        page.flush()
        page.body = False
        tag = args[0].strip() if args else ""
        if len(tag) > 1 and any(c.isalpha() for c in tag):
            page.term(tag)  # an option, as rsync(1), curl(1) and less(1) write theirs
        elif tag:  # a bullet ("o", "•") or a number: no term
            page.write(page.prefix + tag)
            page.pending_sep = "\n"
        page.body = True
    elif name in ("RS",) and page.term_pending():
        page.indented_term()  # DocBook's ".PP" term ".RS 4" description
    elif name in ("RS",):  # indent from where the text is, back there at its .RE
        page.flush()
        page.saved.append((page.indent, page.body))
        page.indent += 1 + page.body
        page.body = False
    elif name in ("RE",):
        page.flush()
        page.indent, page.body = page.saved.pop() if page.saved else (0, False)
    elif name in ("nf", "EX", "Bd") and (name != "Bd" or "-literal" in args or "-unfilled" in args):
        page.flush()
        page.nofill = True
    elif name in ("fi", "EE", "Ed"):
        page.flush()
        page.nofill = False
    elif name in _FONT_PAIRS:
        page.text("".join(args))
    elif name in _FONTS:
        if args:
            page.text(text)
    elif name in ("UR", "MT"):
        page.strings["\x02url"] = text
    elif name in ("UE", "ME"):
        url = page.strings.pop("\x02url", "")
        page.text(f"<{url}>{''.join(args)}" if url else "".join(args))
    elif name == "SY":
        page.flush("\n")
        page.text(text)
    elif name == "OP":
        page.text(f"[{text}]")
    elif name == "ds" and args:
        # Read now: ``.ds Sd \fISed\fP`` is printed as "Sed" wherever ``\*(Sd`` stands.
        # One leading quote is roff's mark of a value that starts with blanks, not the
        # value's: pod2man's ".ds L\" \"\"" is one quote ("" read as none, its C<> names
        # lost their quotes).
        value = rest.partition(" ")[2].lstrip()
        page.strings[args[0]] = unescape(value[1:] if value.startswith('"') else value,
                                         page.strings)
    elif name == "so":
        page.text(f"See {text}.")
    elif name in ("Bl",):
        page.flush()
        page.mdoc_list.append("-bullet" if "-bullet" in args else "")
    elif name in ("El",):
        page.flush()
        page.body = False
        if page.mdoc_list:
            page.mdoc_list.pop()
    elif name == "It":
        page.flush()
        page.body = False
        _item(page, inline(rest, page.strings))
    elif name == "Nm":
        if page.headings and page.headings[-1][2] == "SYNOPSIS":
            page.flush("\n")  # each synopsis form on its own line
        name_ = page.strings.get("\x02Nm", "")
        if args and all(PUNCT.match(a) for a in args):  # ``.Nm ,``: the name, then ","
            page.text(name_ + "".join(args))
        else:
            page.strings.setdefault("\x02Nm", text)
            page.text(inline(rest, page.strings) if text else name_)
    elif name == "D1":  # a one-line display: a line of its own
        page.flush()
        page.text(inline(rest, page.strings))
        page.flush("\n")
    elif name == "Dl":  # a one-line literal display: an example command
        page.flush()
        was, page.nofill = page.nofill, True
        page.text(inline(rest, page.strings))
        page.flush()
        page.nofill = was
    elif name == "Sm":  # spacing mode: ``.Sm off`` … ``.Sm on`` (no argument toggles)
        off = page.strings.get("\x02Sm") == "off"
        page.strings["\x02Sm"] = rest.split()[0] if rest.split() else ("on" if off else "off")
    elif name == "Rs":  # a bibliographic reference, ``.%A`` … lines to its ``.Re``
        page.ref = []
    elif name.startswith("%") and page.ref is not None:
        page.ref.append((name[1:], text))
    elif name == "Re" and page.ref is not None:
        page.text(reference(page.ref))
        page.ref = None
    elif name in ("Ex", "Rv"):
        page.text(standard_text(name, args, page.strings.get("\x02Nm", "")))
    elif name == "Nd":
        page.text("— " + inline(rest, page.strings))
    elif is_inline(name):
        page.text(inline(f"{name} {rest}", page.strings))
    # Anything else (layout requests .in .ti .ne .ad .na .hy .nh .ft .ps .ll .ta .nr .tr
    # .Dd .Os …) prints nothing.
    return None



class ManLoader:
    """Man pages: ``.1`` … ``.9`` (also ``.3p``, ``.1ssl`` …, ``.man``), and ``.gz`` copies
    through the gzip loader."""

    name = "man"
    # 2: role spans; 3: mdoc names (.Ux), spacing mode (.Sm); 4: an .It tag is a term,
    # groff conditions (.g) true; 5: item tags (.TP, .It) are sub-sections; 6: an .IP tag
    # that names something is a term and a sub-section too; 7: a .PP after an item's body
    # is the section's again; 8: a block closed by ".  ." ends there (util-linux's pages),
    # DocBook's ".PP" term ".RS 4" body is an item too (systemd's), "T}:T{" table cells;
    # 9: such a term may end with its arguments' ellipsis ("mask UNIT..."); 10: a page's
    # own macros (.de) are expanded, string conditions read, a heading fills again; 11 the
    # expansion bounded by what it writes, .el paired with its .ie, Tk's .OP a page's own; 12
    # pod2man's ".el\\{" read as an .el and its strings as nroff's, =head3 as sections
    version = "12"
    # Debian names a package's pages by their section and a suffix: Tcl's are ".3tcl"
    # (Tcl's review, 2026-12-05: all 823 were refused), Perl modules' ".3perl".
    extensions: tuple[str, ...] = (
        *(f".{n}" for n in range(1, 10)), ".man", ".mdoc", ".n",
        ".1p", ".3p", ".3pm", ".1ssl", ".3ssl", ".5ssl", ".7ssl", ".3x", ".8x", ".3type",
        ".2type", ".3const", ".3head", ".3tcl", ".3tk", ".ntcl", ".3perl", ".3t", ".0p",
        ".1posix", ".3posix", ".3readline", ".3ncurses", ".5edit", ".7edit",
    )
    content_types: tuple[str, ...] = ("text/troff", "application/x-troff-man")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        source, encoding = decode_text(path, data)
        # Named like a man page (``notes.1``) but no roff in it: plain text as is.
        return rendered(path, data, source, encoding, read_man if _ROFF.search(source) else None,
                        content_type="text/troff", title=path.stem)
