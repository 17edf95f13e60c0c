"""What a question asks for, and whether a sentence looks like it gives that.

Apart from the ranking (:mod:`.sentence_rank`) because it is the ranking's one reading of
the question itself: a question names an entity *and* asks something about it — its
default, what happens if, what it is, whether it may, how to, a limit, since which
version, code. :func:`intent` says which (a question can ask for more than one);
:func:`answered` which of those a sentence looks like it answers ("The default is 1 GB.",
"at most 63 characters"; a quantity in its unit is :mod:`.quantities`'s); :func:`intent_score`
what that is worth, tuned on the ``tune`` split of ``bench/data/answers``;
:func:`defined_subject` and :func:`defines` the subject of a "What is X?" question and the
sentence whose subject it is.
"""

from __future__ import annotations

import re

from citewise.models import people, quantities
from citewise.models.leaning import ARGUMENT_DEFAULT
from citewise.text import content_terms

__all__ = ["EXAMPLE", "answered", "defined_subject", "defines", "intent", "intent_score"]

# The asker's own data, not a thing the documents must name: a quoted value (« … » and
# „ … “ too), or an example ("e.g. O'Brien", "for example …", ", say Portuguese, then …",
# "par exemple Apache") up to the end of its clause.
EXAMPLE = re.compile(r"(?<!\w)(?:'[^']+'|\"[^\"]+\"|‘[^’]+’|“[^”]+”|`[^`]+`|«[^»]+»|„[^“”]+[“”]"
                      r"|‚[^‘’]+[‘’])(?!\w)"
                      r"|\b(?:e\.g\.|for example|for instance|,\s*say\b"
                      # … and as the languages the query analysis knows write them
                      r"|(?i:par exemple|p\. ?ex\.|z\. ?B\.|zum Beispiel|por ejemplo|por exemplo"
                      r"|per esempio|bijvoorbeeld|bijv\.))[^?.;!]*")

# "Default" in the languages whose function words the ranking knows (French "par défaut",
# German "standardmäßig", …): the heaviest cue was English only (French review, 2026-12-04).
_DEFAULT_WORDS = (r"|\bpar d[ée]faut\b|\bstandardm[äa](?:ß|ss)ig\b|\bvoreingestellt|"
                  r"\bpor (?:defecto|omisi[óo]n|padr[ãa]o)\b|\bpredeterminad|\bdi default\b|"
                  r"\bpredefinit|\bstandaard\b")
_INTENTS: dict[str, re.Pattern[str]] = {
    "default": re.compile(
        r"\bdefaults?\b|out of the box|unless (?:i|you|configured)|if i (?:don'?t|do not) "
        r"(?:change|set|say)|fresh install|\bnormally\b|by itself|with no (?:arguments|options)"
        r"|if i just|otherwise\b|give neither|without (?:an?|any) "
        r"|\bleave (?:\w+ ){0,2}out\b|\bomit(?:ted|ting)?\b"
        # What is left unsaid, in the words people use (session 16, tune split): "without
        # saying VIRTUAL", "don't pick an MPM", "never wrote ON DELETE", "haven't changed".
        r"|\bwithout (?:saying|specifying|setting|giving|options|arguments|changing|touching"
        r"|configuring|tweaking|adjusting)\b"
        r"|\b(?:do not|don['’]?t|didn['’]?t|does not|doesn['’]?t|never) (?:pick|tell|say"
        r"|specify|give|set|change|touch|configure|write|wrote|choose|pass|add)\b"
        # What is left out, said of the value (the nginx review, 2026-12-05, and the
        # tune split): "if I don't list any", "if none is given", "give it no directory",
        # "with no unit", "if I leave the options alone", "if there's no Port line" —
        # the verbs of naming only after "if" / "when" ("the journal never mentions the
        # crash" asks no default), a value given only of an argument ("give no warning").
        r"|\b(?:if|when|unless) (?:\w+ ){0,3}(?:do not|don['’]?t|does not|doesn['’]?t"
        r"|didn['’]?t|never) (?:list|name|provide|supply|mention|include)\b"
        r"|\bnever (?:changed|configured|set|said|specified|touched|gave|passed)\b"
        r"|\bhaven['’]?t (?:changed|configured|set|said|specified|touched)\b"
        r"|\b(?:none|nothing|no \w+) (?:is|are|was|were) (?:given|set|specified|passed"
        r"|provided)\b"
        r"|\b(?:pass|passes|passed|give|gives|gave) (?:it |them )?(?:nothing\b|no (?:\w+ )?"
        r"(?:arguments?|options?|flags?|parameters?|directory|file|name|path|number)\b)"
        r"|\bwith no (?:\w+ )?(?:unit|suffix|argument|option|setting)s?\b"
        r"|\bleave (?:\w+ ){0,2}(?:alone|unset|blank|untouched)\b"
        r"|\b(?:there['’]?s|there is) no \S+ (?:line|setting|entry|option)\b"
        r"|\bhas no \S+= (?:line|setting)\b"
        r"|\bwith nothing after\b|\bonly give\b|\bon (?:its|their) own\b"
        r"|\bno \w+ (?:and|or) no\b" + _DEFAULT_WORDS, re.I),
    "consequence": re.compile(
        r"^\s*(?:what happens|will\b|does\b|do\b|is\b|are\b)|\bwhat happens\b|\bif\b|"
        r"\bwhen\b|\bwhy\b|\bwhile\b", re.I),
    "definition": re.compile(r"^\s*(?:what (?:is|are|does)|what's|which|how many|how big|"
                             r"how much|how long)\b", re.I),
    "yesno": re.compile(r"^\s*(?:can|could|is|are|does|do|will|should|may|must)\b", re.I),
    "procedure": re.compile(r"^\s*(?:how (?:do|can|should|would) (?:i|you|we)|what'?s the "
                            r"(?:safe|best|right) way|which (?:file|option|command|flag))\b|"
                            r"\bwhat (?:must|should|do|need) (?:i|you|we)\b", re.I),
    # "What is the biggest receive buffer …?" (libcurl's review, 2026-12-07) as "largest".
    "limit": re.compile(r"\b(?:longest|largest|biggest|smallest|highest|lowest"
                        r"|maximum|minimum|max|min|limit|how many|how "
                        r"long|how big|how much|which \w+ can)\b"
                        # "Can one package have two library crates?": a limit, asked yes/no.
                        r"|^\s*(?:can|may|could)\b.*\b(?:two|several|multiple|more than one)\b",
                        re.I),
    # "Since which version …?", "Which Python version added …?": a version-change note
    # ("Changed in version 3.9: The encoding argument was added.") is the answer then.
    "version": re.compile(r"\b(?:since|from|up to|until|before|after|in|as of) (?:which|what) "
                          r"(?:[\w.+-]+ ){0,2}(?:version|release)\b|^\s*(?:which|what) "
                          r"(?:[\w.+-]+ ){0,2}(?:version|release)\b", re.I),
    # Code asked for, not talked about: "the syntax for …", "code to …", but not "status
    # code", "a fenced code block", "my other code", "valid SQLite syntax".
    # "Why does …?" asks a reason: the sentence that gives one ("The reason is that
    # operator[]() silently inserts an item …", Qt's review, 2026-12-05).
    "reason": re.compile(r"^\s*(?:why\b|how come\b|what(?:['’]s| is) the (?:reason|point)\b)",
                         re.I),
    "code": re.compile(r"\b(?:examples?|snippets?|signature|command line)\b"
                       r"|\bsyntax (?:for|of|to)\b|\b(?:what|which|the|some|sample) code "
                       r"(?:do|does|should|would|for|to|that)\b|\bcode (?:snippet|sample)", re.I),
}

# What a sentence that answers each kind of question tends to contain.
_ANSWERS: dict[str, re.Pattern[str]] = {
    # "more optimizations than the default" compares with the default, does not state it.
    "default": re.compile(r"(?<!than the )(?<!than its )(?<!from the )\bdefaults?\b"
                          r"|\bby default\b|\bnormally\b|\bunless\b|"
                          r"\bif (?:not|no|omitted|unset|neither)\b"
                          # What a manual says of a value left out: "When not specified, the
                          # string is … limited to 32 characters", "If the alpha component is
                          # not specified then '0xff' is assumed" (HAProxy's and FFmpeg's
                          # reviews, 2026-12-05).
                          # Not "even if this option is not set": that says what it does.
                          r"|\b(?:is|are|when|if) not specified\b|\bunspecified\b"
                          r"|\bif (?:left out|omitted)\b|\b(?:is|are) assumed\b"
                          rf"|\A{ARGUMENT_DEFAULT}"  # "max-allow-wait : … = 4"
                          + _DEFAULT_WORDS, re.I),
    "consequence": re.compile(r"\b(?:if|when|unless|will|cannot|can't|not|never|only|"
                              r"causes?|results? in|prevents?|removes?|discards?|fails?|"
                              r"since|because|so that|therefore)\b", re.I),
    "definition": re.compile(r"\b(?:is|are|means|refers to|called|consists? of|contains?|"
                             r"determines?|specif(?:y|ies))\b", re.I),
    "yesno": re.compile(r"\b(?:can|cannot|can't|may|must|not|never|only|always|does|will|"
                        r"allowed|disallowed|safe)\b", re.I),
    "procedure": re.compile(r"\b(?:use|run|set|specify|give|pass|add|put|enable|with the|"
                            r"option|must|only if|need to|have to|"
                            r"to (?:prevent|avoid|make|keep|get))\b", re.I),
    # "up to" a number, not "set up to launch", "up to you", "up to date".
    "limit": re.compile(r"\d|\b(?:only|at most|at least|cannot exceed|maximum|minimum|"
                        r"limit(?:ed)?)\b|\bup to (?:about |around )?(?:[`'\"“(]?\d|(?:the "
                        r"(?:max|limit)|a (?:max|total)|twice|double|half|triple|several|many|"
                        rf"{quantities.NUMBER_WORDS})\b)", re.I),
    "reason": re.compile(r"\bbecause\b|\bthe reason\b|\bdue to\b|\bso that\b|\bin order to\b"
                         r"|\bsince (?!version|\d)|\bas a result\b|\b(?:this|that) is why\b"
                         r"|\bcaused by\b", re.I),
}

# Why one would do something, not how: "Logging to stdout is useful when Postfix runs in a
# container", "This can, for example, be useful to remove all build products." A "how do
# I" question wants the sentence that says what to set or run.
_WHY = re.compile(r"\b(?:is|are|be)\s+(?:[\w,]+\s+){0,3}?(?:useful|handy|helpful|convenient)"
                  r"\s+(?:when|if|for|to|in)\b", re.I)
_WHY_WEIGHT = 0.2
# Only the cues that held up: a default question wants the sentence stating the default
# (the kind that failed worst), a limit question a number. The cues for consequences,
# yes/no, definitions and procedures matched too many sentences that answer something else
# ("If …", "may", "is") and were worth nothing on the tune split.
_INTENT_WEIGHT = {"default": 0.45, "consequence": 0.0, "definition": 0.0, "yesno": 0.0,
                  "procedure": 0.0, "limit": 0.15,
                  # A reason for a "why" question (tune: +2 of 11 why-questions, 2026-12-05).
                  "reason": 0.15,
                  # A value in the unit asked for, or a setting's value (:mod:`.quantities`).
                  "duration": 0.3, "period": 0.3, "size": 0.3, "count": 0.3, "ratio": 0.3,
                  quantities.VALUE: 0.3,
                  # Any number at all, asked for one (tune: 22 → 24 right of the 36 such
                  # questions answered, 2026-12-07, on the captured rankings; more did not
                  # help there).
                  quantities.NUMBER: 0.07,
                  # A year for "In which year …?", as a number for "How many …?".
                  quantities.YEAR: 0.07,
                  # … and a name for "Who created …?" (:mod:`.people`).
                  people.PERSON: 0.07}


# "What is a crate?" is answered by "A crate is the smallest amount of code …", not by
# "A crate can come in one of two forms …" (the Rust book's review, 2026-12-04): the
# sentence whose subject, before its verb "is", is the thing the question asks about.
_WHAT_IS = re.compile(r"^\s*what(?:'s|\s+is|\s+are)\s+(?:a|an|the)?\s*(?P<subject>[^?]{1,60})\?\s*\Z",
                      re.I)
_COPULA = re.compile(r"\s(?:is|are|means|refers to|stands for)\s", re.I)
_SUBJECT_WORDS = 8


def defines(text: str, subject: frozenset[str]) -> bool:
    """Whether ``text`` says what ``subject`` is: its words before "is" (at most a few)
    are the subject's ("The type affinity of a column is …" for "type affinity for a
    column in SQLite")."""
    m = _COPULA.search(text)
    if m is None or len(text[:m.start()].split()) > _SUBJECT_WORDS:
        return False
    lead = set(content_terms(text[:m.start()]))
    # … and most of them: "Aliases are expanded …" does not say what "the safe way to
    # define aliases in scripts" is.
    return bool(lead) and lead <= subject and 2 * len(lead) >= len(subject)


# The word itself, or a phrase that says nothing else ("unless told otherwise", "out of
# the box"), not a paraphrase of "left unset".
_SAYS_DEFAULT = re.compile(r"\bdefaults?\b|\bunless\b[^?.,;]{0,30}\botherwise\b"
                           r"|\bout of the box\b" + _DEFAULT_WORDS, re.I)


def intent(question: str) -> frozenset[str]:
    """The kinds of answer ``question`` asks for (a question can ask for more than one).
    A how-to question asks for a default only in that word: "How can I change a couple
    of settings … without touching its original unit file?" asks how, and "Defaults to
    0, i.e. no file descriptors may be stored …" was quoted first for it (systemd's
    review, 2026-12-05), as "by itself", "without a password" and "like a fresh install"
    read as defaults in how-to questions of three other manuals."""
    asked = {name for name, pattern in _INTENTS.items() if pattern.search(question)}
    asked |= quantities.asked(question)
    if people.asked(question):
        asked.add(people.PERSON)
    if {"procedure", "default"} <= asked and not _SAYS_DEFAULT.search(question):
        asked.discard("default")
    return frozenset(asked)


def answered(asks: frozenset[str], text: str) -> list[str]:
    """The kinds of answer asked for (``asks``, from :func:`intent`) that ``text`` looks
    like it gives: "The default is 1 GB." for a default question."""
    named = [people.PERSON] if people.PERSON in asks and people.names_someone(text) else []
    return [a for a in asks if a in _ANSWERS and _ANSWERS[a].search(text)] + quantities.stated(
        asks, text) + named


def intent_score(asks: frozenset[str], answers: list[str], text: str) -> float:
    """What ``text`` is worth for what the question asks: the weight of each kind it
    answers, less a little when a how-to question meets a sentence saying why."""
    why = _WHY_WEIGHT if "procedure" in asks and _WHY.search(text) else 0.0
    return sum(_INTENT_WEIGHT[a] for a in answers) - why


def defined_subject(question: str) -> frozenset[str]:
    """The terms of what a "What is X?" question asks to define (empty otherwise)."""
    m = _WHAT_IS.match(question)
    return frozenset(content_terms(m.group("subject"))) if m else frozenset()

