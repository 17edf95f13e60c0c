"""roff's lexical layer for the man-page renderer (:mod:`.man`): escape sequences and
request arguments.

Kept apart from the macro logic because it is a table more than code: the special
characters a page prints (``\\(em`` → —, ``\\[u00E9]`` → é), and the escapes that print
nothing in plain text (fonts, sizes, motions, colours, registers), which are dropped so
that no backslash sequence ever reaches the stored text.
"""

from __future__ import annotations

import re

__all__ = ["STRINGS", "split_args", "unescape"]

_GLYPHS = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "bu": "•", "aq": "'", "dq": '"', "lq": "“",
    "rq": "”", "oq": "‘", "cq": "’", "Lq": "“", "Rq": "”", "co": "©", "rg": "®", "tm": "™",
    "mu": "×", "di": "÷", "de": "°", "+-": "±", ">=": "≥", "<=": "≤", "!=": "≠", "==": "≡",
    "->": "→", "<-": "←", "<>": "↔", "ua": "↑", "da": "↓", "rA": "⇒", "lA": "⇐", "ti": "~",
    "ha": "^", "sl": "/", "rs": "\\", "ba": "|", "or": "|", "ga": "`", "aa": "´", "sc": "§",
    "ps": "¶", "dg": "†", "dd": "‡", "fm": "′", "sd": "″", "ct": "¢", "Po": "£", "Eu": "€",
    "eu": "€", "Ye": "¥", "pl": "+", "eq": "=", "lh": "☜", "rh": "☞", "OK": "✓", "ss": "ß",
    "'e": "é", "`e": "è", "^e": "ê", ":u": "ü", ":o": "ö", ":a": "ä", "'a": "á", "~n": "ñ",
    ",c": "ç", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "at": "@",
    "sh": "#", "Do": "$", "te": "∃", "fa": "∀", "if": "∞", "pc": "·", "ob": "○", "sq": "□",
}
# man's predefined strings, and mdoc's (``\*(Ge 1`` is "≥ 1" in ssh(1)).
STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "B": "", "I": "",
           "Ge": "≥", "Le": "≤", "Gt": ">", "Lt": "<", "Ne": "≠", "Pm": "±", "If": "∞",
           "Na": "NaN", "Ba": "|", "Am": "&", "Pi": "π", "Lq": "“", "Rq": "”", "q": '"'}
_ESCAPE = re.compile(
    r"\\(?:"
    r"(?P<font>f(?:\[[^\]]*\]|\(..|.))"
    r"|(?P<size>s(?:[+-]?\d|\([+-]?\d\d|\[[^\]]*\]|'[^']*'))"
    r"|(?P<glyph>\((?P<g2>..)|\[(?P<gn>[^\]]+)\])"
    r"|(?P<string>\*(?:\((?P<s2>..)|\[(?P<sn>[^\]]+)\]|(?P<s1>.)))"
    r"|(?P<reg>n(?:\((..)|\[[^\]]*\]|[+-]?.))"
    r"|(?P<quoted>[hvwlLDXbBoZRSxmMA]'[^']*'|[mMF](?:\[[^\]]*\]|\(..|.)|[gkzY](?:\(..|\[[^\]]*\]|.))"
    r"|(?P<num>N'(?P<code>\d+)')"
    r"|(?P<one>.)"
    r")"
)
_ONE = {"-": "-", "e": "\\", "\\": "\\", "&": "", "|": "", "^": "", " ": " ", "~": " ", "0": " ",
        "%": "", ":": "", "c": "", "'": "´", "`": "`", ".": ".", "t": "\t", "-.": "-", "/": "",
        ",": "", "d": "", "u": "", "r": "", "p": "", "a": "", "{": "", "}": "", "E": "\\"}
def unescape(text: str, strings: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        if m.group("glyph"):
            name = m.group("g2") or m.group("gn") or ""
            if name.startswith("u") and re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):
                return chr(int(name[1:], 16))
            return _GLYPHS.get(name, "")
        if m.group("string"):
            name = m.group("s2") or m.group("sn") or m.group("s1") or ""
            return strings.get(name, "")
        if m.group("num"):
            return chr(int(m.group("code")))
        one = m.group("one")
        if one is not None:
            return _ONE.get(one, one)
        return ""  # fonts, sizes, registers, motions, colours: nothing a reader reads

    return _ESCAPE.sub(sub, text)


def split_args(rest: str) -> list[str]:
    """A request's arguments as roff splits them: by spaces, ``"two words"`` quoted, ``""``
    inside quotes a quote; backslashes are left for :func:`_unescape`."""
    out: list[str] = []
    i, n = 0, len(rest)
    while i < n:
        if rest[i] in " \t":
            i += 1
            continue
        if rest[i] == '"':
            i += 1
            buf: list[str] = []
            while i < n:
                if rest[i] == '"':
                    if rest.startswith('""', i):
                        buf.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                buf.append(rest[i])
                i += 1
            out.append("".join(buf))
        else:
            j = i
            while j < n and rest[j] not in " \t":
                j += 2 if rest[j] == "\\" and rest.startswith("\\ ", j) else 1
            out.append(rest[i:j])
            i = j
    return out
