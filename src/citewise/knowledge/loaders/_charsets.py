"""Choosing the legacy encoding of bytes that are not UTF-8, among charset-normalizer's guesses.

charset-normalizer's ranking cannot be taken as is for Western text: its mess and coherence
measures hardly separate code pages that agree on ASCII and differ only in a few accented
letters, so Latin-1 French comes first as cp1257 ("Noėl ą Paris"), Italian as cp1258
("Peṛ") and a short German line even as Urdu (cp1006). Every citation quotes the decoded
text, so one wrong letter per word is a wrong document. Its candidates (and cp1252, which
it may leave out) are therefore ranked again by how many characters of each decoding are
implausible in written text:

* accented letters that no single language's alphabet explains together (cp1252 read as
  cp1257 gives ė, ą and é side by side; Czech read as cp1252 gives ø, ì and ù);
* a case flip inside a word ("ðÒÉ×ÅÔ" is koi8-r Russian read as cp1252);
* a symbol or digit between two letters ("by³o" is cp1250 Polish read as cp1252);
* two scripts joined in one word ("Sch" + an Arabic letter + "ne" is German read as cp1006);
* a combining accent on a consonant ("Peṛ" is Italian read as cp1258);
* control, private-use and unassigned characters.

The fewest wins; a tie goes to cp1252, the most common legacy encoding by far, and then to
charset-normalizer's order, which stays the judge among non-Latin scripts (Cyrillic, Greek,
CJK, ...) that the alphabets above do not tell apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

__all__ = ["implausibility", "pick"]

_WESTERN = "cp1252"

# Enough text to tell code pages apart; a large file is judged on a slice so that scoring
# stays a fixed cost on top of charset-normalizer's own (sampled) pass.
_SAMPLE_BYTES = 16_384
_MAX_CHARS = 4_096  # non-ASCII characters scored per candidate

_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

# Lower-case letters beyond ASCII, per language (or group of languages sharing them), for
# every language some legacy code page charset-normalizer proposes was made for.
_ALPHABETS: tuple[frozenset[str], ...] = tuple(frozenset(a) for a in (
    # cp1252 / Latin-1 / Latin-9
    "àâæçéèêëîïôœùûüÿ",  # French
    "äöüß",  # German
    "áéíñóúü",  # Spanish, Irish
    "àçèéíïòóúü",  # Catalan
    "àèéìíîòóùú",  # Italian
    "àáâãçéêíóôõúü",  # Portuguese
    "áäéèëêíïóöôúûü",  # Dutch, Afrikaans
    "æøåéóòôü",  # Danish, Norwegian
    "åäöéü",  # Swedish
    "äöåšž",  # Finnish
    "áðéíóúýþæö",  # Icelandic
    "áðíóúýæø",  # Faroese
    "çë",  # Albanian
    "äöüõšž",  # Estonian
    # cp1250 / ISO 8859-2, -16
    "ąćęłńóśźż",  # Polish
    "áčďéěíňóřšťúůýž",  # Czech
    "áäčďéíĺľňóôŕšťúýž",  # Slovak
    "áéíóöőúüű",  # Hungarian
    "čćđšž",  # Croatian, Bosnian, Serbian, Slovene
    "ăâîșțşţ",  # Romanian
    # cp1254, cp1257, ISO 8859-3, -4, -10, -14
    "çğıİöşüâîû",  # Turkish
    "ąčęėįšųūž",  # Lithuanian
    "āčēģīķļņšūž",  # Latvian
    "ĉĝĥĵŝŭ",  # Esperanto
    "ċġħżàèìòù",  # Maltese
    "âêîôûŵŷáéíóúàèìòùäëïöü",  # Welsh (without its rare ý, which Turkish read as cp1252 has)
    "áčđŋšŧž",  # Northern Sami
    # cp1258 has a few toned vowels; it writes the other tones as combining marks
    "àáâăèéêíóôơùúưđ\u0300\u0301\u0303\u0309\u0323",  # Vietnamese
))
_VOWELS = frozenset("aeiouyăâêôơư")
# Letters by category that Western text uses as symbols ("1ª", "nº", "5 µm").
_LETTER_SYMBOLS = frozenset("ªºµ")
# Non-ASCII punctuation that real words contain: apostrophes, hyphens, Catalan "l·l".
_IN_WORD = frozenset("’‘´·\u00ad\u2010\u2011–—")
_BAD_CATEGORIES = frozenset({"Cc", "Co", "Cn", "Cs"})
# Scripts written next to Latin words without a space ("Tシャツ", "iPhone的").
_EAST_ASIAN = frozenset(
    {"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"}
)


def pick(data: bytes, candidates: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The most plausible ``(text, encoding)`` of ``data``.

    ``candidates`` are ``(encoding, full text)`` in charset-normalizer's order. cp1252 joins
    them when it decodes ``data``, ahead of them so that it wins ties.
    """
    options = list(candidates)
    try:
        western = data.decode(_WESTERN)
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D are undefined in cp1252
        pass
    else:
        options.insert(0, (_WESTERN, western))
    if len({text for _, text in options}) == 1:
        encoding, text = options[0]
        return text, encoding
    sample = _sample(data)
    scores: dict[str, int] = {}

    def score(option: int) -> int:
        snippet = sample.decode(options[option][0], "replace")
        if snippet not in scores:
            scores[snippet] = implausibility(snippet)
        return scores[snippet]

    encoding, text = options[min(range(len(options)), key=lambda i: (score(i), i))]
    return text, encoding


def _sample(data: bytes) -> bytes:
    """A slice from the first non-ASCII byte's word on, cut at a space or line break, which
    no multi-byte encoding uses inside a character."""
    if len(data) <= _SAMPLE_BYTES:
        return data
    first = _HIGH_BYTE.search(data)
    start = 0 if first is None else _after_break(data, 0, first.start())
    end = start + _SAMPLE_BYTES
    if end >= len(data):
        return data[start:]
    cut = _after_break(data, start, end)
    return data[start:cut if cut > start else end]


def _after_break(data: bytes, start: int, end: int) -> int:
    return max(data.rfind(b"\n", start, end), data.rfind(b" ", start, end)) + 1


def implausibility(text: str) -> int:
    """How many non-ASCII characters of ``text`` are unlikely in real writing (see above)."""
    bad = 0
    latin: Counter[str] = Counter()  # accented letters (lower case) and Latin combining marks
    scripts: Counter[str] = Counter()  # letters and marks of other scripts, by script
    for n, match in enumerate(_NON_ASCII.finditer(text)):
        if n == _MAX_CHARS:
            break
        i = match.start()
        c = match.group()
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        category = unicodedata.category(c)
        if category in _BAD_CATEGORIES or c == "\ufffd":
            bad += 1
        elif category[0] == "L" and c not in _LETTER_SYMBOLS:
            script = _script(c)
            if script == "LATIN":
                latin[_letter_key(c)] += 1
            else:
                scripts[script] += 1
            case_flip = (c.isupper() and before.islower()) or (
                c.islower() and after.isupper() and after.isascii()
            )
            bad += case_flip or _joins_scripts(script, before) or _joins_scripts(script, after)
        elif category[0] == "M":
            script = _script(c)
            if script == "COMBINING":  # Latin combining accents: Vietnamese tones
                latin[c] += 1
                bad += before.lower() not in _VOWELS
            else:
                scripts[script] += 1
                bad += _script(before) != script  # marks stack: Hebrew letter, dagesh, vowel
        elif category[0] in "PSN" and c not in _IN_WORD and _in_word(before, after):
            bad += 1
    # One language's alphabet, or one other script, should explain every letter.
    explained = max(
        max(sum(latin[k] for k in alphabet) for alphabet in _ALPHABETS),
        max(scripts.values(), default=0),
    )
    return bad + latin.total() + scripts.total() - explained


def _letter_key(c: str) -> str:
    lower = c.lower()
    return lower if len(lower) == 1 else c  # "İ".lower() is two code points


def _script(c: str) -> str:
    if c.isascii():
        return "LATIN"
    words = unicodedata.name(c, "UNKNOWN").split()
    word = words[1] if words[0] in ("HALFWIDTH", "FULLWIDTH") and len(words) > 1 else words[0]
    return "EAST_ASIAN" if word in _EAST_ASIAN else word


def _in_word(before: str, after: str) -> bool:
    # Chinese and Japanese put no spaces between words: their punctuation sits between letters.
    return all(
        c.isalpha() and c not in _LETTER_SYMBOLS and _script(c) != "EAST_ASIAN"
        for c in (before, after)
    )


def _joins_scripts(script: str, neighbour: str) -> bool:
    if script == "EAST_ASIAN" or not neighbour.isalpha() or neighbour in _LETTER_SYMBOLS:
        return False
    other = _script(neighbour)
    return other != script and other != "EAST_ASIAN"
