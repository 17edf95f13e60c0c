"""Man pages (groff ``man`` and BSD ``mdoc`` sources, ``ls.1``, ``ls.1.gz``): rendered to the
text a reader of ``man`` sees.

Why a renderer of our own and not ``groff``/``mandoc``: nothing external to install or run
(a subprocess per file, a Debian package on every machine), and the stored text is built
piece by piece here, so every section span is an exact offset into it by construction.
The common macros are understood — ``.TH .SH .SS .PP/.LP/.P .TP .IP .HP .B .I .BR``
(and the other font pairs) ``.nf/.fi .EX/.EE .RS/.RE .br .sp .UR/.UE .MT/.ME .SY/.OP``,
``.ds`` strings, ``.de``/``.ig`` blocks (skipped), simple ``.if``/``.ie``/``.el`` (as
``nroff`` would: ``n`` is true) — and the mdoc ones that shape a page (``.Sh .Ss .Pp .Bl
.It .Bd .Nm .Nd .Fl .Ar .Op .Xr`` …). Font, size and motion escapes are dropped, special
characters (``\\(em``, ``\\[u00E9]``, ``\\-``) become the characters they print. Anything
else is read as text without its macro name, so an unknown macro loses formatting, never
words. ``.so`` (include another page) is shown as a reference, never followed.

The layout is plain: a heading line per ``.SH`` (the sections; ``.SS`` nests below it),
paragraphs as single lines separated by blank lines (no line filling, no justification),
a ``.TP``/``.IP`` tag on its own line with its body indented by four spaces, and
no-fill blocks (examples, synopses) line for line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from citewise.errors import IngestError
from citewise.knowledge.loaders._blocks import Blocks
from citewise.knowledge.loaders._roff import STRINGS, split_args, unescape
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan
from citewise.knowledge.loaders.text import decode_text, file_metadata

__all__ = ["ManLoader", "render_man"]

_FONT_PAIRS = {"BR", "RB", "IR", "RI", "BI", "IB"}
_FONTS = {"B", "I", "SM", "SB", "CW", "R"}
_PARAS = {"PP", "LP", "P", "HP", "Pp", "Lp"}
# mdoc macros whose name is dropped and whose arguments are text.
_MDOC_PREFIX = {"Fl": "-", "Cm": "", "Ar": "", "Pa": "", "Em": "", "Sy": "", "Li": "",
                "Ev": "", "Va": "", "Dv": "", "Er": "", "Ic": "", "No": "", "Fn": "", "Ft": "",
                "Fa": "", "Ad": "", "An": "", "Lb": "", "Ms": "", "Tn": "", "Ux": "", "St": "",
                "Cd": "", "Vt": "", "Mt": "", "Ot": "", "In": ""}
_MDOC_QUOTES = {"Dq": ("“", "”"), "Do": ("“", "”"), "Sq": ("‘", "’"), "Ql": ("‘", "’"),
                "Pq": ("(", ")"), "Op": ("[", "]"), "Oo": ("[", ""), "Brq": ("{", "}"),
                "Bq": ("[", "]"), "Aq": ("⟨", "⟩")}
_MDOC_CLOSE = {"Dc": "”", "Sc": "’", "Pc": ")", "Oc": "]", "Brc": "}", "Bc": "]", "Ac": "⟩"}
_PUNCT = re.compile(r"^[.,:;)\]?!]+$")
_INDENT = "    "
# A page has a title, a section, an include or a roff comment somewhere; a text file named
# ``notes.1`` (or a rotated log, ``syslog.1``) has none of them.
_ROFF = re.compile(r'(?m)^[.\'][ \t]*(?:TH|SH|SS|Dd|Dt|Sh|so)\b|^\.\\"')


@dataclass
class _Page(Blocks):
    """The rendered text being assembled, block by block."""

    strings: dict[str, str] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)  # the open fill-mode paragraph
    lines: list[str] = field(default_factory=list)  # the open no-fill block
    nofill: bool = False
    indent: int = 0  # .RS depth
    body: bool = False  # inside a .TP/.IP body: indented once more
    await_tag: bool = False
    await_heading: int = 0
    mdoc_list: list[str] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        return _INDENT * (self.indent + self.body)

    def flush(self, sep: str = "\n\n") -> None:
        if self.words:
            text = " ".join(" ".join(self.words).split(" ")).strip()
            text = re.sub(r"[ \t]+", " ", text).replace("\x01", "")
            self.words.clear()
            if self.await_tag:
                self.await_tag = False
                at = self.length
                self.write(self.prefix + text, "\n")
                self.mark(at, "term")  # a .TP tag: the option its body describes
                self.body = True
                return
            self.write(self.prefix + text, sep)
        if self.lines:
            block = "\n".join(self.prefix + ln if ln.strip() else "" for ln in self.lines)
            self.lines.clear()
            at = self.length
            self.write(block.rstrip(), sep)
            self.mark(at, "code")  # a no-fill block: an example, a synopsis

    def text(self, text: str) -> None:
        if self.await_heading:
            level, self.await_heading = self.await_heading, 0
            self.heading(level, text)
        elif self.nofill:
            self.lines.append(text.rstrip())
        else:
            self.words.append(text)
            if self.await_tag:
                self.flush()

    def heading(self, level: int, title: str) -> None:
        self.flush()
        self.body = False
        self.indent = 0
        title = " ".join(title.split())
        if not title:
            self.await_heading = level
            return
        start = self.write(title)
        if start is not None:
            self.headings.append((start, level, title))

    def paragraph(self) -> None:
        self.flush()
        self.body = False
        self.pending_sep = "\n\n" if self.length else ""


def render_man(source: str) -> tuple[str, str | None, list[SectionSpan]]:
    """``(text, title, sections)`` of a man page."""
    text, title, sections, _ = read_man(source)
    return text, title, sections


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
    skip_until: str | None = None
    skip_braces = 0
    else_branch = False
    for line in lines:
        if skip_until is not None:
            if line.strip().startswith(skip_until):
                skip_until = None
            continue
        if skip_braces:
            skip_braces += line.count("\\{") - line.count("\\}")
            continue
        line = re.sub(r'(?<!\\)\\".*$', "", line)  # a comment to the end of the line
        if line.startswith((".", "'")):
            request = line[1:].strip()
            if not request:
                continue
            name, _, rest = request.partition(" ")
            if not name.isalnum() and len(name) > 1 and name[:2] in ("\\}", "\\{"):
                continue
            if name in ("if", "ie", "el"):
                cond_true: bool
                if name == "el":
                    cond_true, body_text = else_branch, rest
                else:
                    cond, _, body_text = rest.strip().partition(" ")
                    cond_true = cond in ("n", "!t", "!o") or cond.startswith("!e")
                    else_branch = not cond_true
                body_text = body_text.strip()
                opens = body_text.startswith("\\{")
                if opens:
                    body_text = body_text[2:].strip()
                if not cond_true:
                    if opens:
                        skip_braces = 1 + body_text.count("\\{") - body_text.count("\\}")
                    continue
                body_text = body_text.replace("\\}", "").strip()
                if not body_text:
                    continue
                line = body_text
                if not line.startswith((".", "'")):
                    page.text(unescape(line, page.strings))
                    continue
                request = line[1:].strip()
                name, _, rest = request.partition(" ")
            title = _request(page, name, rest, title) or title
            if name in ("de", "de1", "am", "ig"):
                skip_until = ".."
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
    page.flush()
    return ("".join(page.parts), title, _sections(page.headings, page.length),
            page.role_spans())


def _request(page: _Page, name: str, rest: str, title: str | None) -> str | None:
    """Apply one request or macro; returns the page title when it sets one."""
    args = [unescape(a, page.strings) for a in split_args(rest)]
    text = " ".join(args)
    if name in ("TH", "Dt"):
        if args:
            return f"{args[0]}({args[1]})" if len(args) > 1 else args[0]
    elif name in ("SH", "Sh"):
        page.heading(1, text)
    elif name in ("SS", "Ss"):
        page.heading(2, text)
    elif name in _PARAS or name == "sp":
        page.paragraph()
    elif name == "br":
        page.flush("\n")
    elif name in ("TP", "TQ"):
        page.flush()
        page.body = False
        page.await_tag = True
    elif name == "IP":
        page.flush()
        page.body = False
        if args and args[0].strip():
            page.write(page.prefix + args[0])
            page.pending_sep = "\n"
        page.body = True
    elif name in ("RS",):
        page.flush()
        page.indent += 1 + page.body
        page.body = False
    elif name in ("RE",):
        page.flush()
        page.indent = max(0, page.indent - 1)
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
        page.strings[args[0]] = rest.partition(" ")[2].lstrip().lstrip('"')
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
        bullet = bool(page.mdoc_list and page.mdoc_list[-1])
        tag = _mdoc_inline(rest, page.strings)
        if bullet:
            page.words.append("• " + tag if tag else "•")
        elif tag:
            page.write(page.prefix + tag)
            page.pending_sep = "\n"
            page.body = True
    elif name == "Nm":
        if page.headings and page.headings[-1][2] == "SYNOPSIS":
            page.flush("\n")  # each synopsis form on its own line
        value = text or page.strings.get("\x02Nm", "")
        page.strings.setdefault("\x02Nm", text)
        page.text(_mdoc_inline(rest, page.strings) if text else value)
    elif name == "Nd":
        page.text("— " + _mdoc_inline(rest, page.strings))
    elif name in _MDOC_PREFIX or name == "Xr" or name in _MDOC_QUOTES or name in _MDOC_CLOSE or name == "Lk":
        page.text(_mdoc_inline(f"{name} {rest}", page.strings))
    # Anything else (layout requests .in .ti .ne .ad .na .hy .nh .ft .ps .ll .ta .nr .tr
    # .Dd .Os …) prints nothing.
    return None


def _mdoc_inline(rest: str, strings: dict[str, str]) -> str:
    """An mdoc line's callable macros, flattened to text (``Fl a Ar file`` → ``-a file``)."""
    out: list[str] = []
    closers: list[str] = []
    nospace = False
    prefix = ""
    xref = 0
    for tok in (unescape(a, strings) for a in split_args(rest)):
        if tok in _MDOC_PREFIX:
            prefix = _MDOC_PREFIX[tok]
            continue
        if tok in _MDOC_QUOTES:
            opening, closing = _MDOC_QUOTES[tok]
            out.append(opening + "\x01")
            if closing:
                closers.append(closing)
            continue
        if tok in _MDOC_CLOSE:
            out.append("\x01" + _MDOC_CLOSE[tok])
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
        if tok in ("Lk", "Ta", "Pf"):
            continue
        piece = prefix + tok
        prefix = ""
        if out and (nospace or _PUNCT.match(tok)):
            out[-1] += "\x01" + piece
        else:
            out.append(piece)
        nospace = False
    text = " ".join(out) + "".join("\x01" + c for c in reversed(closers))
    return re.sub(r" ?\x01 ?", "", text).strip()


def _sections(headings: list[tuple[int, int, str]], end: int) -> list[SectionSpan]:
    spans: list[SectionSpan] = []
    top = ""
    for i, (start, level, name) in enumerate(headings):
        if level == 1:
            top = name
        path = name if level == 1 or not top else f"{top} > {name}"
        stop = headings[i + 1][0] if i + 1 < len(headings) else end
        if stop > start:
            spans.append((start, stop, path))
    return spans


class ManLoader:
    """Man pages: ``.1`` … ``.9`` (also ``.3p``, ``.1ssl`` …, ``.man``), and ``.gz`` copies
    through the gzip loader."""

    name = "man"
    version = "2"  # 2: role spans
    extensions: tuple[str, ...] = (
        *(f".{n}" for n in range(1, 10)), ".man", ".mdoc", ".n",
        ".1p", ".3p", ".3pm", ".1ssl", ".3ssl", ".5ssl", ".7ssl", ".3x", ".8x", ".3type",
        ".2type", ".3const", ".3head",
    )
    content_types: tuple[str, ...] = ("text/troff", "application/x-troff-man")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        source, encoding = decode_text(path, data)
        meta = file_metadata(path, data, encoding)
        if not _ROFF.search(source):
            # Named like a man page (``notes.1``) but no roff in it: plain text as is.
            return LoadedDocument(text=source, content_type="text/plain", title=path.stem,
                                  metadata=meta)
        text, title, sections, roles = read_man(source)
        if not text.strip():
            raise IngestError(f"{path}: the man page renders to no text",
                              code="empty_document", details={"path": str(path)})
        return LoadedDocument(text=text, content_type="text/troff", title=title or path.stem,
                              metadata=meta, sections=sections, roles=roles)
