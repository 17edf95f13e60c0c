"""Block comments and docstrings of a source file: where each one's prose is, in one pass.

Apart from :mod:`.source` because telling a comment or a docstring from code is the one
part of reading a source file that can go wrong on a file that is not what it seems: a
pattern that looks for the closing marker from every line that opens one reads a file of
unclosed ``/*`` lines again and again, and a string's closing triple quote on a line of
its own looks like an opening one (an SQL query assigned over three lines), making the code
after it prose up to the next triple quote. So a
C-style comment is found by scanning on from where the last one closed, and a Python
docstring by the tokenizer: a triple-quoted string that is a statement of its own.
"""

from __future__ import annotations

import io
import re
import tokenize

__all__ = ["BLOCK_LANGUAGES", "BLOCK_MARK", "DOCSTRING_OPEN", "blocks"]

#: Languages whose block comments (``/* … */``) are prose when they start a line.
BLOCK_LANGUAGES = frozenset((
    "javascript", "typescript", "go", "rust", "c", "cpp", "java", "kotlin", "scala", "csharp",
    "swift", "dart", "groovy", "protobuf", "php", "css", "sql", "vue", "svelte", "terraform"))
#: A block comment's marker at a line's start (``/**``, ``/*!``, `` * ``).
BLOCK_MARK = r"(?:/\*+!?|\*+(?!/))"
#: A docstring's opening quotes, with a string prefix.
DOCSTRING_OPEN = r"[rRuUbB]{0,2}(?:\"\"\"|''')"

_OPENER = re.compile(r"(?m)^[ \t]*/\*")
_STATEMENT_START = frozenset((tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                              tokenize.ENCODING))


def blocks(text: str, language: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each block comment or docstring of ``text`` that starts a line:
    from its opening marker to the end of its text, without the closing marker."""
    if language == "python":
        found = _docstrings(text)
    elif language in BLOCK_LANGUAGES:
        found = []
        pos = 0
        while (m := _OPENER.search(text, pos)) is not None:
            close = text.find("*/", m.end())
            if close < 0:
                break  # unclosed: no later opener closes either
            found.append((m.end() - 2, close))
            pos = close + 2
    else:
        return []
    return [(a, len(text[a:b].rstrip()) + a) for a, b in found]


def _docstrings(text: str) -> list[tuple[int, int]]:
    """Triple-quoted strings that are a statement of their own (a module's, a class's or a
    function's docstring; a bare string used as a comment). A file the tokenizer cannot
    read to its end keeps those found before."""
    starts = [0]
    starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")
    out: list[tuple[int, int]] = []
    previous: int | None = None
    pending: tuple[int, int] | None = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL):
                continue
            if pending is not None and tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                out.append(pending)
            pending = None
            if (tok.type == tokenize.STRING and (previous is None or previous in _STATEMENT_START)
                    and re.match(DOCSTRING_OPEN, tok.string)):
                start = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1] - 3  # before the closing quotes
                pending = (start, end)
            previous = tok.type
    except (tokenize.TokenError, SyntaxError):
        pass
    return out
