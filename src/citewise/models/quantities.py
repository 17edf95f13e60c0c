"""Questions that ask for a quantity, and the sentences that state one.

Why apart from :mod:`.question_intent`: "How long …?", "How big …?", "How many …?" are
answered by a value in the unit asked for, and that takes more than one pattern to say —
a number in digits or words, the units of time, size and length, and a setting's stated
value ("The default is three.") that is not a quantity of another kind ("The default is one
minute" does not say how many workers run). The sentence that only names the setting
("autovacuum_naptime (integer) Specifies the minimum delay between autovacuum runs") shares
the question's words; the one after it ("The default is one minute (1min).") answers.
"How much slower …?" asks a ratio, answered by a percentage or a multiple, in no unit.
"In which year …?" asks a year, and a sentence without one does not answer it; "For how
long does it keep working?" a period, in time or in releases, not a length.
"""

from __future__ import annotations

import re

__all__ = ["HOW", "KINDS", "NUMBER", "NUMBER_WORDS", "VALUE", "YEAR", "asked", "stated",
           "states_number", "states_year"]

#: The kinds of quantity a question can ask for.
KINDS = frozenset({"duration", "period", "size", "count", "ratio"})
#: A setting's value stated as a number, whatever its unit: what answers any of them too.
VALUE = "value"
#: A number asked for as the thing the question is about ("How many …?", "What is the
#: maximum number of …?"): a sentence that states none does not answer it (:func:`asked`).
NUMBER = "number"
#: A year asked for ("In which year was …?", "What year …?"): answered by a sentence that
#: states one ("© 2006-2022 John MacFarlane"). Of the bench's 3,454 questions, 17 of the 18
#: such ask what no manual says (who founded or created something, and when), and were
#: answered with a sentence naming the thing and no year.
YEAR = "year"

_DURATION = "long|often|old|soon|frequently|quickly"
_ASKS: dict[str, re.Pattern[str]] = {
    "duration": re.compile(rf"\bhow (?:{_DURATION})\b|\bafter how long\b|\bhow much time\b"
                           r"|\bwhat (?:interval|timeout|delay|period)\b", re.I),
    "size": re.compile(r"\bhow (?:big|large)\b|\bhow much (?:memory|space|disk|data|ram)\b"
                       r"|\bwhat size\b", re.I),
    "count": re.compile(r"\bhow many\b", re.I),
    # "How long" asked of something that lasts is a time, not a length ("For how long does
    # deprecated functionality keep working?" quoted "tokens that are 6 - 8 digits long":
    # pyca/cryptography's review, 2026-12-07) — in releases too ("two major releases").
    # Within a few words, and not a length it must have to stay so ("How long does the salt
    # have to be to remain secure?": the code review, 2026-12-07).
    "period": re.compile(r"\bfor how long\b|\bhow long (?:until|before|after)\b"
                         r"|\bhow long (?:does|do|did|will|would|should|can|could|is|are)"
                         r"(?:\s+(?!to\s+be\b|be\b)[\w'’-]+){0,6}?\s+(?:take|takes|last|keep"
                         r"|stay|remain|wait|live|persist|survive|supported|maintained|valid"
                         r"|kept)\b", re.I),
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
_MOST = (r"max(?:imum)?|min(?:imum)?|largest|biggest|longest|smallest|highest|lowest|greatest"
         r"|upper|lower")
_NUMBER_ASKED = re.compile(
    r"(?:^|[.?!;:,]\s+|\b(?:and|but|so|then)\s+)(?:(?:after|up to|for|in|with|by) )?"
    r"(?:(?:roughly|approximately|about|around|exactly) )?how many\b"
    rf"|(?:^|[.?!;:,]\s+)(?:what|which)(?:['’]s| is| are| was)? (?:the )?(?:{_MOST})"
    r"(?: [\w-]+){0,2}? (?:number|length|size|count|amount|value)\b"
    r"|(?:^|[.?!;:,]\s+)(?:what|which)(?:['’]s| is| are| was)? (?:the )?default number of\b"
    r"|\b(?:upper |lower )?limit (?:on|of|for) the number of\b"
    # A port is a number: "Which port does ssh connect to …?" ("The default is 22.").
    r"|(?:^|[.?!;:,]\s+|\b(?:and|but|so|then)\s+)(?:(?:on|to|at) )?(?:what|which)"
    r"(?: (?:tcp|udp|default|standard))? port\b"
    r"(?! (?:forward|mapp|knock|scan|option|setting|flag|argument|syntax|redirect)\w*)", re.I)
# … but not a question for the thing that sets or shows it: "Which command shows, for each
# user, how many files they own?", "What is the maximum size directive called?" (the code
# review, 2026-12-07: both declined).
_NAMES_A_THING = re.compile(
    r"^\s*(?:which|what)(?: \w+)? (?:command|option|setting|directive|flag|parameter"
    r"|variable|function|method|tool|program|key|field|property)s?\b"
    r"|\b(?:called|named)\s*\??\s*$", re.I)
# … not "Which year-end report …", nor "What year format does %y produce?" (code review).
_YEAR_ASKED = re.compile(r"\b(?:which|what) year(?![\w-])(?!\s+(?:format|directive|field"
                         r"|column|specifier|placeholder|code|option|setting|value)s?\b)", re.I)
# A year, not a number that size with its unit ("2048-bit", "1500 bytes", "1800 seconds",
# "1920×1080") nor a port ("port 2049").
_YEAR_STATED = re.compile(
    r"(?<![\w.,])(?<!port )(?:1[5-9]\d\d|20\d\d)(?![\w]|[.,]\d)"
    r"(?!\s?(?:[-×x]\s?\d|-?(?:bits?|bytes?|seconds?|ms|px|pixels?|KB|MB|GB)\b))", re.I)
#: The word after "how" that says what is asked, not what it is about ("how long").
HOW = re.compile(rf"\bhow ({_DURATION}|many|much|big|large)\b", re.I)

#: Numbers in words, as manuals write them (a regular expression's alternatives).
NUMBER_WORDS = (r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
                r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty"
                r"|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million"
                r"|billion")
# A number as manuals write one, in digits or words.
_NUMBER = rf"(?:\d[\d,]*(?:\.\d+)?|{NUMBER_WORDS})"
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
          "period": f"{_TIME}|releases?|versions?",
          "count": f"{_PLURAL}|{_SIZE}|{_LENGTH}"}
# A number (not after a comma: a list of numbers is no quantity, and reading one from
# every comma of "1,2,3,…" took seconds), a closing quote or backtick before a space
# ("`10` listeners", not "Python 3's"), a unit ("5 seconds", "128-bit").
_AMOUNT = rf"(?<![\w.,]){_NUMBER}(?:[`'\"”](?=\s))?(?:\s|-)?"
# A time or a size may have a word between ("5 business days", "16 more bytes"); a count's
# unit is any plural, and "10 most recent tags" would make most numbers counts. "One" is no
# count ("If one wants …", "one process").
_GAP = {"duration": r"(?:[a-z]+\s)?", "period": r"(?:[a-z]+\s)?", "size": r"(?:[a-z]+\s)?",
        "count": r"(?<!\bone\s)"}
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
# A number in digits — not a manual page's section ("shadow(5)") nor a version or a
# section's number ("1.5.0", "11.8.1"), checked by :func:`states_number` — or in words
# ("only a single", not "a single event"), or one that says there is no limit
# ("unlimited", "no hard limit", "limited only by available memory"), or one relative to
# something else ("as many threads as there are cores": Clang's review, 2026-12-07, was
# declined for "How many backend threads does a ThinLTO link start?"; "The default
# concurrency number is the number of CPU's", bench ce05), a limit's constant ("PATH_MAX",
# "isize::MAX") or a complexity ("O(N·log(N)) comparisons") — not "Maximum number of
# redirects allowed.", which names the setting.
_DIGITS = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)*")
_IN_WORDS = re.compile(
    rf"\b(?:{NUMBER_WORDS}|(?:hundred|thousand|million|billion|dozen)s|dozen|once|twice|thrice"
    r"|none|unlimited|infinite|arbitrar\w*)\b|\b(?:only|just|exactly) (?:a )?single\b"
    r"|\bno (?:hard |upper |fixed |built-in )?(?:limit|maximum)\b|\bnot limited\b"
    r"|\blimited only by\b|\bas (?:many|much|few|little)\b[^.;]*\bas\b"
    r"|\b(?:is|are|equals?|to|as) the (?:total )?(?:number|size) of\b", re.I)
_AS_NAMED = re.compile(r"\b[A-Z][A-Z0-9]*_(?:MAX|MIN|SIZE|LEN|LENGTH|LIMIT|COUNT)\b|::MAX\b"
                       r"|\bO\([^)]{1,40}\)|\b(?:last|first|up to|at most|at least) [A-Z]\b")


# "One" that counts nothing: a pronoun ("If one wants …", "no one", "the one that …") or
# "one or more", which says no number of things (Knot DNS's "one or more zones" answered
# "What is the maximum number of zones one server can host?", bench kn32).
# Not "Only one can be active", "Exactly one of the options", "a one-byte header" (the code
# review, 2026-12-07): "one" after "only" or before a hyphen counts.
_ONE_UNCOUNTED = re.compile(
    r"\b(?:no|any|every|each|the|this|that|which|some|another|other|such)\s+one\b(?![-\w])"
    r"|\bone\s+(?:or more|another)\b|\bone['’]s\b"
    r"|(?:^|\b(?:if|when|where|unless|as|so|then|that)\s+|[,;]\s*)one\s+(?:can|could|may"
    r"|might|must|should|would|will|wants?|needs?|does)\b", re.I)


def asked(question: str) -> frozenset[str]:
    """The kinds of quantity ``question`` asks for, and :data:`VALUE` with any of them;
    :data:`NUMBER` too when what it asks for is a number ("How many …?", "What is the maximum
    number of …?"), :data:`YEAR` when a year ("In which year …?")."""
    kinds = {kind for kind, pattern in _ASKS.items() if pattern.search(question)}
    if "period" in kinds:
        kinds.discard("duration")
    if _RATIO_ASKED.search(question):
        kinds.add("ratio")
    number = {NUMBER} if _NUMBER_ASKED.search(question) and not _NAMES_A_THING.search(
        question) else set()
    if _YEAR_ASKED.search(question):
        number.add(YEAR)
    return frozenset(kinds | {VALUE} | number) if kinds else frozenset(number)


def states_number(text: str) -> bool:
    """Whether ``text`` states any number (in digits or words), or that there is no limit:
    what a question asking for a number (:data:`NUMBER`) needs of its answer. "Docker
    images have intermediate layers …" does not say how many a Docker image can have."""
    return _states_number(text, _ONE_UNCOUNTED.sub(" ", text))


def _states_number(text: str, counted: str) -> bool:
    """:func:`states_number`, given ``counted``: ``text`` without the "one"s that count
    nothing (:data:`_ONE_UNCOUNTED`), which :func:`stated` needs too."""
    if _IN_WORDS.search(counted) is not None or _AS_NAMED.search(text) is not None:
        return True
    return any(m.group().count(".") < 2 and not (
        text[m.start() - 1:m.start()] == "(" and text[m.start() - 2:m.start() - 1].isalnum()
        and text[m.end():m.end() + 1] == ")") for m in _DIGITS.finditer(text))


def states_year(text: str) -> bool:
    """Whether ``text`` states a year ("since 2006", "© 2006-2022"): what a question
    asking for one (:data:`YEAR`) needs of its answer — not a version ("2.42.2"), a number
    with its unit ("2048-bit", "1500 bytes") nor a port ("port 2049")."""
    return _YEAR_STATED.search(text) is not None


def stated(asks: frozenset[str], text: str) -> list[str]:
    """Which of the quantities asked for (``asks``, from :func:`asked`) ``text`` states: a
    number in an asked kind's unit, else a setting's value unless it is a time, size or
    length of a kind not asked ("The default is three." for how many, not "The default is
    one minute."); and :data:`NUMBER` or :data:`YEAR` beside them when a number or a year
    is asked and ``text`` states one."""
    # "at least one of the headers" is no amount (bench ap10, "How long is it fresh?"):
    # written once for the number and the units asked, each candidate of every such question.
    counted = _ONE_UNCOUNTED.sub(" ", text) if NUMBER in asks or asks & KINDS else text
    number = [NUMBER] if NUMBER in asks and _states_number(text, counted) else []
    if YEAR in asks and states_year(text):
        number.append(YEAR)
    if not asks & KINDS:
        return number  # no unit asked (VALUE comes with one): every candidate asks this
    text = counted
    kinds = [kind for kind in sorted(asks & KINDS) if _STATES[kind].search(text)]
    if kinds or VALUE not in asks:
        return kinds + number
    for m in _VALUE.finditer(text):
        unit = m.group("unit")
        if not _ANY_UNIT.match(unit) or any(
                _UNIT_OF[kind].fullmatch(unit) for kind in asks & KINDS if kind in _UNIT_OF):
            return [VALUE, *number]
    return number
