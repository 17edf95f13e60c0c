"""Questions that ask for a quantity, and the sentences that state one.

Why apart from :mod:`.question_intent`: "How long …?", "How big …?", "How many …?" are
answered by a value in the unit asked for, and that takes more than one pattern to say —
a number in digits or words, the units of time, size and length, and a setting's stated
value ("The default is three.") that is not a quantity of another kind ("The default is one
minute" does not say how many workers run). The sentence that only names the setting
("autovacuum_naptime (integer) Specifies the minimum delay between autovacuum runs") shares
the question's words; the one after it ("The default is one minute (1min).") answers.
"How much slower …?" asks a ratio, answered by a percentage or a multiple, in no unit.
"""

from __future__ import annotations

import re

__all__ = ["HOW", "KINDS", "NUMBER", "VALUE", "asked", "stated", "states_number"]

#: The kinds of quantity a question can ask for.
KINDS = frozenset({"duration", "size", "count", "ratio"})
#: A setting's value stated as a number, whatever its unit: what answers any of them too.
VALUE = "value"
#: A number asked for as the thing the question is about ("How many …?", "What is the
#: maximum number of …?"): a sentence that states none does not answer it (:func:`asked`).
NUMBER = "number"

_DURATION = "long|often|old|soon|frequently|quickly"
_ASKS: dict[str, re.Pattern[str]] = {
    "duration": re.compile(rf"\bhow (?:{_DURATION})\b|\bafter how long\b|\bhow much time\b"
                           r"|\bwhat (?:interval|timeout|delay|period)\b", re.I),
    "size": re.compile(r"\bhow (?:big|large)\b|\bhow much (?:memory|space|disk|data|ram)\b"
                       r"|\bwhat size\b", re.I),
    "count": re.compile(r"\bhow many\b", re.I),
}
# How much more, less, faster or bigger: a ratio or a difference, which a manual states as
# a percentage or a multiple ("by about ten percent", "3 times the size of the zone",
# "approximately ten times slower", "almost doubles"), not in a unit (Guile's review,
# 2026-12-07: "Roughly how much slower does Guile run when the debugging VM engine is
# used?" quoted "By default, the debugging VM engine is only used when …").
_COMPARATIVE = (r"slower|faster|quicker|larger|smaller|bigger|longer|shorter|higher|lower"
                r"|more|less|fewer|heavier|lighter|cheaper")
_RATIO_ASKED = re.compile(rf"\b(?:how much|by how much) (?:{_COMPARATIVE})\b|\bby how much\b"
                          r"|\bwhat (?:percentage|fraction|ratio|proportion)\b"
                          r"|\bhow (?:much|big|large)\b.*\b(?:compared (?:to|with)|than)\b", re.I)
# Only where the question's clause opens with it: "How do I control how many compile jobs
# run?" asks how (an option), and "… a deque created with a maximum length. What happens
# once it is full?" what happens.
_NUMBER_ASKED = re.compile(
    r"(?:^|[.?!;:,]\s+|\b(?:and|but|so|then)\s+)(?:(?:after|up to|for|in|with|by) )?how many\b"
    r"|(?:^|[.?!;:,]\s+)(?:what|which)(?:['’]s| is| are| was)? (?:the )?(?:max(?:imum)?"
    r"|min(?:imum)?|largest|biggest|longest|smallest|highest|lowest|greatest) "
    r"(?:number|length|size|count|amount|value)\b", re.I)
#: The word after "how" that says what is asked, not what it is about ("how long").
HOW = re.compile(rf"\bhow ({_DURATION}|many|much|big|large)\b", re.I)

# A number as manuals write one, in digits or words.
_NUMBER = (r"(?:\d[\d,]*(?:\.\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten"
           r"|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|thousand)")
_TIME = (r"ms|milliseconds?|µs|microseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?"
         r"|days?|weeks?|months?|years?")
_SIZE = r"bytes?|[kmgt]i?b|kilobytes?|megabytes?|gigabytes?|bits?"
_LENGTH = r"characters?|chars|lines?|rows?|columns?|digits?"
# Counted in anything plural ("100 connections", "`10` listeners") but a time, a "-ss" word
# ("one class") or a verb after a version or a label ("Python 3 uses", "Figure 3 shows").
_VERBS = ("uses|adds|shows|defines|requires|introduces|supports|provides|allows|means|makes"
          "|takes|gives|needs|wants|gets|sets|runs|returns|includes|contains|removes|changes"
          "|works|looks|lets|keeps|calls|becomes|comes|goes|says|tries|fails|starts|stops"
          "|follows|describes|explains|lists|specifies|is|was|has|this|as|its|does|us|yes"
          "|always|less|unless|plus")
_PLURAL = rf"(?!(?:{_TIME}|{_VERBS})\b)[a-z][\w-]*(?<!s)s"
# "How long can a user name be?" asks a length: "limited to 255 bytes".
_UNITS = {"duration": f"{_TIME}|{_LENGTH}|{_SIZE}", "size": f"{_SIZE}|{_LENGTH}",
          "count": f"{_PLURAL}|{_SIZE}|{_LENGTH}"}
# A number (not after a comma: a list of numbers is no quantity, and reading one from
# every comma of "1,2,3,…" took seconds), a closing quote or backtick before a space
# ("`10` listeners", not "Python 3's"), a unit ("5 seconds", "128-bit").
_AMOUNT = rf"(?<![\w.,]){_NUMBER}(?:[`'\"”](?=\s))?(?:\s|-)?"
# A time or a size may have a word between ("5 business days", "16 more bytes"); a count's
# unit is any plural, and "10 most recent tags" would make most numbers counts. "One" is no
# count ("If one wants …", "one process").
_GAP = {"duration": r"(?:[a-z]+\s)?", "size": r"(?:[a-z]+\s)?", "count": r"(?<!\bone\s)"}
_STATES = {kind: re.compile(rf"{_AMOUNT}{_GAP[kind]}(?:{units})(?![\w-])", re.I)
           for kind, units in _UNITS.items()}
# A percentage, or a multiple that compares ("3 times the size", "ten times slower", not
# "try it 3 times"), or a word for one.
_STATES["ratio"] = re.compile(
    rf"(?<![\w.,]){_NUMBER}(?:\s?[–-]\s?{_NUMBER})?\s?(?:%|percent\b|per cent\b"
    rf"|times (?:the|as|more|less|{_COMPARATIVE})\b)"
    r"|\b(?:twice|thrice|doubles?|doubled|triples?|tripled|halves|halved)\b", re.I)
_UNIT_OF = {kind: re.compile(units, re.I) for kind, units in _UNITS.items()}
# A number stated as a setting's value: "The default is typically 100 …", "defaults to 20",
# "(default: 20)", "limited to 255", "a maximum of `10`" — and the word after it.
_VALUE = re.compile(
    r"\b(?:defaults?(?: value)?(?: is| to| of)?|default (?:value )?is|(?:maximum|minimum|limit)"
    r" (?:is|of)|limited to|up to|set to|at (?:most|least))\s*(?:[:=]\s*)?"
    r"(?:(?:typically|usually|normally|currently|about|around|approximately)\s+)?"
    rf"[`'\"“(]*{_NUMBER}(?![\w.-]*\w)[`'\"”)]*(?:\s|-)?(?P<unit>[\w-]*)", re.I)
_ANY_UNIT = re.compile(rf"(?:{_TIME}|{_SIZE}|{_LENGTH})\Z", re.I)
# Any number, or a word that says there is none to give ("unlimited", "no limit"), or one
# relative to something else ("as many threads as there are cores": Clang's review,
# 2026-12-07, was declined for "How many backend threads does a ThinLTO link start?").
_ANY_NUMBER = re.compile(
    r"(?<![\w.])\d|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|million|unlimited|infinite"
    r"|arbitrar\w*|no (?:limit|maximum|upper)|as (?:many|much|few|little)\b[^.;]*\bas)\b",
    re.I)


def asked(question: str) -> frozenset[str]:
    """The kinds of quantity ``question`` asks for, and :data:`VALUE` with any of them."""
    kinds = {kind for kind, pattern in _ASKS.items() if pattern.search(question)}
    if _RATIO_ASKED.search(question):
        kinds.add("ratio")
    number = {NUMBER} if _NUMBER_ASKED.search(question) else set()
    return frozenset(kinds | {VALUE} | number) if kinds else frozenset(number)


def states_number(text: str) -> bool:
    """Whether ``text`` states any number (in digits or words), or that there is no limit:
    what a question asking for a number (:data:`NUMBER`) needs of its answer. "Docker
    images have intermediate layers …" does not say how many a Docker image can have."""
    return _ANY_NUMBER.search(text) is not None


def stated(asks: frozenset[str], text: str) -> list[str]:
    """Which of the quantities asked for (``asks``, from :func:`asked`) ``text`` states: a
    number in an asked kind's unit, else a setting's value unless it is a time, size or
    length of a kind not asked ("The default is three." for how many, not "The default is
    one minute."); and :data:`NUMBER` beside them when a number is asked and ``text`` states
    any."""
    number = [NUMBER] if NUMBER in asks and states_number(text) else []
    kinds = [kind for kind in sorted(asks & KINDS) if _STATES[kind].search(text)]
    if kinds or VALUE not in asks:
        return kinds + number
    for m in _VALUE.finditer(text):
        unit = m.group("unit")
        if not _ANY_UNIT.match(unit) or any(
                _UNIT_OF[kind].fullmatch(unit) for kind in asks & KINDS if kind in _UNIT_OF):
            return [VALUE, *number]
    return number
