"""How text is written before it is cut into words, for the word lists and the indexes.

Apart from :mod:`citewise.text` because both are rewrites of the text that a tokenizer
then reads (and that offsets never point into): scripts written without spaces (CJK runs,
cut into character bigrams) and names made of a letter and symbols ("C++", "C#"). Each
has a SQL twin in :mod:`citewise.knowledge.index.lexical_postgres_schema`.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CJK_CHARS", "CJK_OR_WORD", "CJK_RUN", "cjk_bigrams", "search_text", "spaced_cjk",
    "symbol_names",
]

# Scripts written without spaces between words: Han, Hiragana, Katakana (and Hangul,
# whose spaced words are long). A run of them is one \w+ "word" to the regex, so a whole
# Japanese clause would be a single term; such runs are cut into overlapping character
# bigrams instead — the usual indexing unit for CJK (as Lucene's CJKBigramFilter). Kana
# punctuation (・ ゛ ゜ ゠) is not part of a run. Non-ASCII text is NFKC-normalised first,
# so half-width katakana and full-width letters and digits meet their usual forms.
#: The CJK character ranges, as a regex class body (also used by the PostgreSQL index).
CJK_CHARS = (
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
)
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
# One pass over non-ASCII text: a CJK run, or a word without CJK characters.
CJK_OR_WORD = re.compile(f"[{CJK_CHARS}]+|[^\\W{CJK_CHARS}]+")


# "C++", "C#", "F#", "g++": a letter named by the symbols after it. A word tokenizer keeps
# the letter and drops the symbols, so a question about C++ was a question about "c" (and
# the keyword extraction dropped a one-letter word altogether): CMake's C++ questions
# quoted its C pages. Each such name is spelled as one word ("cplusplus", "csharp")
# before any tokenizer sees it — by :func:`citewise.text.terms` and its siblings, by the tantivy index
# (:func:`search_text`) and by PostgreSQL's twin of it. A digit after it is a version
# ("C++17"): a space keeps it a word of its own. The letter must stand alone ("dc++",
# "issue#3" are left as they are), and so must the symbols ("C+++", "C##"). Spelled before
# NFKC: full-width "Ｃ＋＋" is still "c".
# Every class is ASCII, as in the SQL twin (whose [[:alnum:]] follows the database's
# locale): "我用C++编程" is spelled too, a CJK character before the letter being no letter
# of its name.
_SYMBOL_NAME = re.compile(r"(?<![A-Za-z0-9_+#])([A-Za-z])(\+\+|#)(?![A-Za-z_+#])")
_SPELLED = {"++": "plusplus", "#": "sharp"}
_DIGITS = frozenset("0123456789")


def _spell(m: re.Match[str]) -> str:
    after = m.string[m.end() : m.end() + 1]
    return m.group(1) + _SPELLED[m.group(2)] + (" " if after in _DIGITS else "")


def symbol_names(text: str) -> str:
    """``text`` with "C++", "C#" and the like spelled as one word each ("Cplusplus",
    "Csharp"). For word lists and search indexes only: offsets into it mean nothing."""
    if "+" not in text and "#" not in text:
        return text
    return _SYMBOL_NAME.sub(_spell, text)


def cjk_bigrams(run: str) -> list[str]:
    """A run of CJK characters as its overlapping bigrams (a lone character as itself)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def spaced_cjk(text: str, *, unigrams: bool = False) -> str:
    """``text`` with every CJK run replaced by its bigrams between spaces (``unigrams``:
    and its characters too, so that a one-character query finds it): what a word
    tokenizer (tantivy's) then indexes as :func:`citewise.text.terms` would. For search indexes only:
    offsets into it mean nothing."""
    if text.isascii():
        return text

    def cut(m: re.Match[str]) -> str:
        run = m.group()
        grams = cjk_bigrams(run)
        if unigrams and len(run) > 1:
            grams += list(run)
        return " " + " ".join(grams) + " "

    return CJK_RUN.sub(cut, unicodedata.normalize("NFKC", text))


def search_text(text: str, *, unigrams: bool = False) -> str:
    """``text`` as the tantivy index reads it, indexing and querying alike: symbol names
    spelled (:func:`symbol_names`), CJK runs spaced (:func:`spaced_cjk`)."""
    return spaced_cjk(symbol_names(text), unigrams=unigrams)
