"""Stream the string fields of a JSON object while it is being generated.

A grammar-constrained model writes ``{"thought": "…", "answer": "…"}`` token by token;
:class:`JsonFieldStreamer` decodes the chosen top-level string values on the fly, so the
thought and the answer reach the user as they are produced instead of when the closing
brace arrives. Escapes (``\\n``, ``\\"``, ``\\u00e9``, surrogate pairs) are decoded
exactly, so the concatenated deltas equal ``json.loads(text)[field]``.
"""

from __future__ import annotations

import json
from collections.abc import Collection

__all__ = ["JsonFieldStreamer"]

_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t"}


class JsonFieldStreamer:
    """Feed raw text; get ``(field, decoded_text)`` pieces of the watched fields."""

    def __init__(self, fields: Collection[str]) -> None:
        self.fields = set(fields)
        self._depth = 0
        self._in_string = False
        self._expect_key = False
        self._is_key = False
        self._key: list[str] = []
        self._last_key = ""
        self._emit_field: str | None = None
        self._escape: str | None = None  # pending escape sequence, backslash included
        self._high: str | None = None  # a high surrogate waiting for its partner

    def feed(self, text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        buf: list[str] = []
        for ch in text:
            if self._in_string:
                piece = self._string_char(ch)
                if piece and self._emit_field is not None:
                    buf.append(piece)
                if not self._in_string and self._emit_field is not None:
                    if buf:
                        out.append((self._emit_field, "".join(buf)))
                        buf = []
                    self._emit_field = None
                continue
            self._structural(ch)
        if buf and self._emit_field is not None:
            out.append((self._emit_field, "".join(buf)))
        return out

    def _structural(self, ch: str) -> None:
        if ch in "{[":
            self._depth += 1
            self._expect_key = ch == "{" and self._depth == 1
        elif ch in "}]":
            self._depth -= 1
        elif ch == "," and self._depth == 1:
            self._expect_key = True
        elif ch == ":" and self._depth == 1:
            self._expect_key = False
        elif ch == '"':
            self._in_string = True
            self._is_key = self._depth == 1 and self._expect_key
            self._key = []
            if self._depth == 1 and not self._is_key and self._last_key in self.fields:
                self._emit_field = self._last_key

    def _string_char(self, ch: str) -> str:
        """Consume one character inside a string; return decoded text to emit (if any)."""
        if self._escape is not None:
            self._escape += ch
            if self._escape[1] == "u" and len(self._escape) < 6:
                return ""
            seq, self._escape = self._escape, None
            decoded = _SIMPLE.get(seq[1], "") if seq[1] != "u" else chr(int(seq[2:], 16))
            return self._text(decoded)
        if ch == "\\":
            self._escape = "\\"
            return ""
        if ch == '"':
            self._in_string = False
            if self._is_key:
                self._last_key = json.loads('"' + "".join(self._key) + '"')
            pending, self._high = self._high, None
            return pending or ""
        if self._is_key:
            self._key.append(ch)
            return ""
        return self._text(ch)

    def _text(self, decoded: str) -> str:
        if self._is_key:
            self._key.append(json.dumps(decoded)[1:-1])
            return ""
        if len(decoded) == 1 and 0xD800 <= ord(decoded) <= 0xDBFF:
            self._high = decoded
            return ""
        if self._high is not None:
            high, self._high = self._high, None
            if 0xDC00 <= ord(decoded[0]) <= 0xDFFF:
                return (high + decoded).encode("utf-16", "surrogatepass").decode("utf-16")
            return high + decoded
        return decoded
