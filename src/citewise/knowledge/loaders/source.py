"""Source code and configuration files, stored as the file's own text.

Code is cited by line: the stored text is the decoded file exactly as
:mod:`citewise.knowledge.loaders.text` decodes it (no reflowing, no comment stripping), so
line N of the stored text is line N of the file and an excerpt is a verbatim slice of it.

Sections are the top-level definitions a reader navigates by — a Python ``def``/``class``,
a Go ``func``/``type``, a Rust ``fn``/``struct``/``impl``, a ``[table]`` of a TOML or INI
file, a top-level YAML key, a ``CREATE TABLE`` … — found by one anchored regex per
language on lines that start at column 0. That is a heuristic, not a parser: it costs
nothing, never fails on a file that does not compile, and is wrong only in the harmless
direction (a missed definition is folded into the section above it). A section starts at
the definition's first line, taking along the decorators, attributes and comment lines
right above it, and runs to the start of the next; text before the first has none.

A run of whole-line comments is the file's prose — in a configuration file often all the
documentation there is ("# If group is not specified, group is assumed to be the same as
user.", Debian's example nginx.conf) — and has the role ``comment``, so an answer may quote
it; its markers stay in the text, which is the file's own. So is a block comment that
starts a line (``/* … */``, a Javadoc or Doxygen comment with its `` * `` lines) and a
docstring (a triple-quoted string that is a statement of its own): without its closing
marker, which ends no sentence.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders._source_blocks import BLOCK_MARK, DOCSTRING_OPEN, blocks
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["BLOCK_MARK", "DOCSTRING_OPEN", "LANGUAGES", "LINE_COMMENT", "SourceLoader",
           "comments", "definitions"]

# extension -> language name (metadata, content type "text/x-<language>").
LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".go": "go", ".rs": "rust",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp",
    ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".cs": "csharp",
    ".swift": "swift", ".rb": "ruby", ".php": "php", ".pl": "perl", ".pm": "perl",
    ".lua": "lua", ".r": "r", ".jl": "julia", ".dart": "dart", ".ex": "elixir",
    ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".clj": "clojure",
    ".el": "elisp", ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell",
    ".ps1": "powershell", ".bat": "batch", ".cmd": "batch",
    ".sql": "sql", ".proto": "protobuf", ".graphql": "graphql", ".gql": "graphql",
    ".tf": "terraform", ".hcl": "terraform", ".css": "css", ".scss": "css", ".less": "css",
    ".vue": "vue", ".svelte": "svelte", ".cmake": "cmake", ".mk": "make", ".gradle": "groovy",
    ".groovy": "groovy",
    ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".conf": "ini", ".properties": "ini",
    ".yaml": "yaml", ".yml": "yaml",
}

_C_FAMILY = (
    # A function definition: a return type and name at column 0, the opening brace to come
    # (not a prototype ending in ";"), or a struct/class/enum/namespace block.
    r"(?:(?:struct|class|union|enum|namespace)\s+([A-Za-z_]\w*)[^;]*$"
    r"|(?!(?:if|for|while|switch|return|else|do|typedef)\b)[A-Za-z_][\w\s\*&:<>,~]*?"
    r"\b([A-Za-z_~][\w:~]*)\s*\([^;]*$)"
)
_JAVA_LIKE = (
    r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|data|"
    r"inline|partial|export|default)\s+)*"
    r"(?:class|interface|enum|record|object|trait|struct|fun|func|def|protocol|extension)"
    r"\s+([A-Za-z_]\w*)"
)
_JS = (
    r"(?:export\s+)?(?:default\s+)?(?:(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)"
    r"|(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)"
    r"|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s*)?"
    r"(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>))"
)
_PATTERNS: dict[str, str] = {
    "python": r"(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)",
    "javascript": _JS, "vue": _JS, "svelte": _JS,
    "typescript": _JS[:-1] + r"|(?:declare\s+)?(?:abstract\s+)?(?:interface|type|enum|namespace)"
                  r"\s+([A-Za-z_$][\w$]*))",
    "go": r"(?:func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|type\s+([A-Za-z_]\w*))",
    "rust": r"(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern\s+\"\w+\")\s+)*"
            r"(?:fn|struct|enum|trait|impl(?:<[^>]*>)?|mod|union|macro_rules!)\s+([A-Za-z_][\w:<>, ]*)",
    "c": _C_FAMILY, "cpp": _C_FAMILY,
    "java": _JAVA_LIKE, "kotlin": _JAVA_LIKE, "scala": _JAVA_LIKE, "csharp": _JAVA_LIKE,
    "swift": _JAVA_LIKE, "dart": _JAVA_LIKE, "groovy": _JAVA_LIKE,
    "ruby": r"(?:class|module|def)\s+([A-Za-z_][\w:.?!]*)",
    "php": r"(?:(?:abstract|final)\s+)?(?:function|class|interface|trait)\s+([A-Za-z_]\w*)",
    "perl": r"sub\s+([A-Za-z_]\w*)",
    "lua": r"(?:local\s+)?function\s+([A-Za-z_][\w.:]*)",
    "elixir": r"(?:defmodule|def|defp|defmacro)\s+([A-Za-z_][\w.?!]*)",
    "shell": r"(?:function\s+([A-Za-z_][\w:-]*)|([A-Za-z_][\w:-]*)\s*\(\s*\))",
    "sql": r"(?i:create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?(?:unique\s+)?"
           r"(?:table|view|materialized\s+view|function|procedure|index|trigger|type|schema|"
           r"sequence)\s+(?:if\s+not\s+exists\s+)?([\w.\"`]+))",
    "protobuf": r"(?:message|service|enum)\s+([A-Za-z_]\w*)",
    "graphql": r"(?:type|input|interface|enum|union|scalar|schema|query|mutation)\s*([A-Za-z_]\w*)?",
    "terraform": r"((?:resource|data|module|variable|output|provider|locals)\b[^{]*)\{",
    "toml": r"(\[\[?[^\]\n]+\]\]?)",
    "ini": r"(\[[^\]\n]+\])",
    "yaml": r"([A-Za-z_\"'][^:#\n]*?):(?:\s|$)",
}
# Lines that belong to the definition below them.
_LEAD = re.compile(r"^(?:@|#\[|\s*//|\s*#|\s*/?\*|\s*--|\s*;;)")


def definitions(text: str, language: str) -> list[tuple[int, str]]:
    """``(start offset, name)`` of the top-level definitions of ``text``, in order."""
    pattern = _PATTERNS.get(language)
    if pattern is None:
        return []
    rx = re.compile(pattern)
    lines: list[tuple[int, str]] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        lines.append((pos, raw.rstrip("\r\n")))
        pos += len(raw)
    found: list[tuple[int, str]] = []
    for i, (_start, line) in enumerate(lines):
        if not line or line[0].isspace() or line.startswith(("#", "//", "/*", "*", "--")):
            continue
        m = rx.match(line)
        if m is None:
            continue
        name = next((g for g in m.groups() if g), None) or line.strip()
        j = i
        while j > 0 and lines[j - 1][1].strip() and _LEAD.match(lines[j - 1][1]):
            j -= 1  # decorators, attributes, doc comments right above
        at = lines[j][0]
        if found and at <= found[-1][0]:
            continue  # a second match inside the same lead block
        found.append((at, f"{_kind(line, language)}{' '.join(name.split())}".strip()))
    return found


def _kind(line: str, language: str) -> str:
    """``"def "``, ``"class "`` … as written, so a section reads like the code."""
    if language in ("toml", "ini", "yaml", "terraform"):
        return ""
    m = re.search(r"\b(def|class|func|fn|function|type|struct|enum|trait|impl|mod|interface|"
                  r"module|sub|message|service|record|object)\b", line)
    if m is None:
        return ""
    return f"{m.group(1)} "


def section_spans(text: str, defs: list[tuple[int, str]]) -> list[SectionSpan]:
    spans: list[SectionSpan] = []
    for i, (start, name) in enumerate(defs):
        end = defs[i + 1][0] if i + 1 < len(defs) else len(text)
        if end > start:
            spans.append((start, end, name))
    return spans


# A whole-line comment's marker, per language (none: no line comments worth telling).
_HASH, _SLASHES = r"#(?![!\[])", r"//+"
_COMMENT_MARKS: dict[str, str] = {
    **dict.fromkeys(("python", "ruby", "perl", "r", "julia", "elixir", "shell", "toml", "yaml",
                     "cmake", "make", "powershell", "graphql"), _HASH),
    **dict.fromkeys(("javascript", "typescript", "go", "rust", "c", "cpp", "java", "kotlin",
                     "scala", "csharp", "swift", "dart", "groovy", "protobuf"), _SLASHES),
    "ini": r"[#;]", "terraform": rf"{_HASH}|{_SLASHES}", "php": rf"{_HASH}|{_SLASHES}",
    "sql": r"--+", "lua": r"--+(?!\[\[)", "haskell": r"--+", "erlang": r"%", "elisp": r";",
    "clojure": r";", "batch": r"(?i:rem\b|::)",
}
#: Any language's line-comment marker, repeated ("##", "///", ";;"): what starts a comment
#: line's text, for the evidence choice (``citewise.models.sentence_comments``).
LINE_COMMENT = f"(?:{'|'.join(dict.fromkeys(_COMMENT_MARKS.values()))})+"


def comments(text: str, language: str) -> list[RoleSpan]:
    """The runs of whole-line comments of ``text`` (from the first marker to the end of the
    run's last line) and its block comments and docstrings that start a line (from the
    opening marker to the end of their text: :func:`._source_blocks.blocks`), each with a
    letter in it: ``(start, end, "comment")``. A line comment inside a block is the
    block's ("# Arguments" in a docstring)."""
    boxed = [(a, b) for a, b in blocks(text, language) if _has_letter(text, a, b)]
    ends = [b for _, b in boxed]
    found = list(boxed)
    mark = _COMMENT_MARKS.get(language)
    if mark is not None:
        for m in re.finditer(
                rf"(?m)^[ \t]*(?:{mark})[^\r\n]*(?:\r?\n[ \t]*(?:{mark})[^\r\n]*)*", text):
            start = m.start() + len(m.group()) - len(m.group().lstrip())
            i = bisect_right(ends, start)  # the first block ending after this run starts
            if _has_letter(text, start, m.end()) and not (
                    i < len(boxed) and boxed[i][0] < m.end()):
                found.append((start, m.end()))
    return [(a, b, "comment") for a, b in sorted(found)]


def _has_letter(text: str, a: int, b: int) -> bool:
    return any(c.isalpha() for c in text[a:b])


class SourceLoader:
    """Source code and configuration files (``.py``, ``.go``, ``.toml``, ``.yaml``, …)."""

    name = "source"
    version = "3"  # 2: whole-line comments have the role "comment"; 3: block comments too
    extensions: tuple[str, ...] = tuple(LANGUAGES)
    content_types: tuple[str, ...] = tuple(sorted({f"text/x-{v}" for v in LANGUAGES.values()}))

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        text, encoding = decode_text(path, data)
        language = LANGUAGES.get(path.suffix.lower(), "text")
        meta = file_metadata(path, data, encoding)
        meta["language"] = language
        meta["lines"] = text.count("\n") + (not text.endswith("\n"))
        return LoadedDocument(
            text=text,
            content_type=f"text/x-{language}",
            title=path.name,
            metadata=meta,
            sections=section_spans(text, definitions(text, language)),
            roles=comments(text, language),
        )
