"""How likely the retrieved passages answer the question at all: the extractive model's
abstention score.

Why apart from the ranking (:mod:`.sentence_rank`): ranking orders sentences *relative to
each other*, so the best of unrelated passages still comes first; whether to answer at
all needs an absolute score, calibrated on the ``tune`` split of ``bench/data/answers``
(``extractive.ANSWERABLE``), and checks the ranking cannot make — that the thing the
question names exists in the passages, and that a question asking for a number, a year or
a person is answered by a sentence that states or names one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from citewise.knowledge.retrieve.query import detect_language
from citewise.models import people, quantities
from citewise.models.question_intent import EXAMPLE, intent
from citewise.models.sentence_rank import SHORTLIST, Scored, stated_text
from citewise.models.switches import DASHES, named_switches, writes
from citewise.text import APOSTROPHES

__all__ = ["UNMENTIONED", "answerability", "named", "unnamed", "unstated"]

#: What a word of the question that no document contains, and that carries the question's
#: meaning (:mod:`.absent_words`), takes off the answerability: "Which git command encrypts
#: a repository?" over a manual that never says "encrypt". Set with ``absent_words``'s
#: salience on the ``tune`` split of ``bench/data/answers`` (bench/README.md): unanswerable
#: questions declined 70 → 81 %, answerable ones 0.9 → 1.8 %.
UNMENTIONED = 0.15


def answerability(question: str, scored: Sequence[Scored],
                  observations: Sequence[dict[str, Any]],
                  unmentioned: Sequence[str] = ()) -> float:
    """How likely the retrieved passages answer ``question``, roughly 0..1: the best
    semantic similarity of a shortlisted sentence to the question (the lexical share when
    the embedder is missing), and 0 when the question names something — a product, a
    company, a tool (a capitalised word inside the question) — that no passage mentions:
    "InnoDB's buffer pool" is not answered by PostgreSQL's shared buffers (nor is a
    question naming a file, identifier or function, "cmd.exe", "bm25()", that none of them
    contains). A passage's document title and section count as mentions. A word of the
    question that no document contains (``unmentioned``, from :mod:`.absent_words`) takes
    :data:`UNMENTIONED` off. A question that asks for a number or a year and whose best
    sentence states none, or who made something and whose best sentence names no one
    (:func:`unstated`), is 0 too."""
    # The best sentence as the answer quotes it: with the default line above it when a
    # default is asked (rsyslog's "type: integer | default: 20000 | …" over "Specifies the
    # maximum number of messages …" states a number, bench rs30).
    if not scored or unnamed(question, observations) or unstated(
            question, stated_text(scored[0].sentence, intent(question))):
        return 0.0
    short = scored[:SHORTLIST]
    penalty = UNMENTIONED if unmentioned else 0.0
    if any("similarity" in x.parts for x in short):
        return max(0.0, max(x.parts.get("similarity", 0.0) + _LEXICAL_SUPPORT * x.parts["lexical"]
                            for x in short) - penalty)
    return max(0.0, max(x.parts["lexical"] for x in short) - penalty)


def unstated(question: str, best: str) -> str | None:
    """What ``question`` asks for that its ``best`` sentence does not state: a number
    ("What is the maximum number of layers a Docker image can have?" over "Docker images
    have intermediate layers that increase reusability …"), a year ("In which year was
    the C programming language created?" over "Example languages are CXX, C, …") or a
    person (:mod:`.people`: "Who created the Erlang language?"); else None. The ranking
    already prefers a sentence that states it (:data:`.quantities.NUMBER`,
    :data:`.quantities.YEAR`, :data:`.people.PERSON`), so none at the top means the
    passages do not give it. On the ``tune`` split of ``bench/data/answers`` (with the
    ranking's preference), numbers: unanswerable questions declined 217 → 225 of 324,
    answerable ones 29 → 32 of 1,144 (two of the three had been answered wrong); years,
    persons and ports then: 232 → 241 of 334, and 34 → 35 of 1,184 (answered wrong)."""
    asks = quantities.asked(question)
    if quantities.NUMBER in asks and not quantities.states_number(best):
        return quantities.NUMBER
    if quantities.YEAR in asks and not quantities.states_year(best):
        return quantities.YEAR
    if people.asked(question) and not people.names_someone(best):
        return people.PERSON
    return None


def unnamed(question: str, observations: Sequence[dict[str, Any]]) -> list[str]:
    """What ``question`` names (:func:`named`) that no passage of ``observations`` mentions,
    as the question writes it: the reason :func:`answerability` is 0, which a decline
    says ("Ctrl-Z" over a manual that says "control-Z": Maxima's review, 2026-12-06)."""
    cased = " ".join(f"{r.get('title') or ''} {r.get('section') or ''} {r.get('text', '')}"
                     for o in observations for r in o.get("results", []))
    # A link's scheme mentions nothing: "HTTPS" was "mentioned" by every https:// URL of
    # MkDocs' pages (new-user review, 2026-12-04); the host and path still count. A
    # typographic apostrophe is the typed one: "L'Hospital" is "L’Hospital".
    cased = " ".join(_SCHEME.sub(" ", _apostrophes(cased)).split())  # a name over lines
    seen = cased.lower()
    headed = _apostrophes(" ".join(f"{r.get('title') or ''} {r.get('section') or ''}"
                                   for o in observations for r in o.get("results", []))).lower()
    question = _apostrophes(question)
    titled = {m.group(1).lower(): m.group(1) for m in _TITLE_PLURAL.finditer(question)}
    members = {m.group().lower(): m.groups() for m in _MEMBER.finditer(question)}
    instances = {m.group(): m.groups() for m in _INSTANCE.finditer(question)}

    def mentioned(name: str) -> bool:
        if name in titled:
            return _titled_mentioned(titled[name], seen, cased)
        if name in instances and _mentioned(instances[name][1], seen) and _names_class(
                instances[name][0].capitalize(), cased):
            return True
        if (chord := _chord_mentioned(name, seen)) is not None:
            return chord
        if _mentioned(name, seen) or any(
                _mentioned(spelled, seen) for spelled in _SPELLED_OUT.get(name, ())):
            return True
        if "::" in name:
            # A path's parts named apart, its member as a heading or title: rustdoc's String
            # page has "pub fn len(&self)" under "std::string::String", never "String::len"
            # (new-user review, 2026-12-05: "Does String::len() count characters?" was
            # declined at 0.0). Not "format" anywhere for "std::format".
            *scope, member = [part for part in name.split("::") if part]
            return _mentioned(member, headed) and all(_mentioned(p, seen) for p in scope)
        return name in members and all(_mentioned(part.lower(), seen)
                                       for part in members[name])

    missing = dict.fromkeys(name for name in named(question) if not mentioned(name))
    out = [written.group(0) if (written := re.search(re.escape(name), question, re.I))
           else name for name in missing]
    return out + _unmentioned_switches(question, cased)


_NAMED_SWITCH = re.compile(r"\b(?:switch|option|flag|argument|parameter)(?:es|s)?\b", re.I)
_CALLED = re.compile(r"\b(?:called|named)\s*\Z", re.I)


def _unmentioned_switches(question: str, cased: str) -> list[str]:
    """The switches ``question`` names that no passage writes — a one-letter switch in its
    own case ("-Z" is not "-z"), a long one whole ("--line-length" is not
    "--line-length-limit"); not a letter the question also uses as a variable ("the value
    of -x when x is negative"). Perl's manual was asked "What does the -Z command-line
    switch do?" and quoted "-s"'s description (review, 2026-12-07): the name is lower-cased
    everywhere else, and "z" is a word of many passages."""
    text = cased.translate(DASHES)
    out: list[str] = []
    for switch, start, end in named_switches(question):
        if switch in out:
            continue
        # Only a switch the question calls one: the search does not look for "-R" (its
        # words are letters), so "grep -r and grep -R", "rsync -a", "like mkdir -p" may
        # find passages that never write it (bench gi13, mp05, tc23: declined); nor the
        # asker's own ("an option called --dry-run", bench py18).
        near = question[max(0, start - 40):end + 40]
        if _NAMED_SWITCH.search(near) is None or _CALLED.search(question, 0, start):
            continue
        # Better a quote than a question declined that the manual answers: "-Wall" writes
        # "-W" too (switches.writes).
        if not writes(text, switch):
            out.append(switch)
    return out


def _apostrophes(text: str) -> str:
    return text.translate(APOSTROPHES)


def _chord_mentioned(name: str, seen: str) -> bool | None:
    """Whether a key chord the question names ("ctrl-z") is in ``seen`` as a manual may
    write it — "control-Z", "Ctl-Z", "Ctrl+Z", "^Z", "C-z" (Maxima's and Racket's manuals,
    reviews of 2026-12-06: "Ctrl-C" declined a question the first passage answered) — but
    not "cd" for "Ctrl-D" nor "control a" for "Ctrl-A" (code review); "Ctrl" alone ("Ctrl+Q"
    stops there) is mentioned by "Ctrl", "Ctl" or a chord of "control". None for a name
    that is no chord."""
    if name in ("ctrl", "ctl"):
        return re.search(r"(?<![a-z0-9])(?:ctrl|ctl)(?![a-z0-9])|(?<![a-z0-9])control[-+]\w",
                         seen) is not None
    chord = _CHORD.fullmatch(name)
    if chord is None:
        return None
    key = re.escape(chord.group(1))
    return re.search(rf"(?:(?<![a-z0-9])(?:ctrl|ctl|control|c)[-+]|\^){key}(?![a-z0-9])",
                     seen) is not None


_CHORD = re.compile(r"(?:ctrl|ctl|control)[-+](\w)")

_SCHEME = re.compile(r"\b(?:https?|ftps?|wss?)://", re.I)
# A class's member named with it ("Jsoup.clean", "Path.resolve"): an API reference names
# them apart — the class's page and the member's section — so both parts mentioned are a
# mention (the Javadoc review, 2026-12-04: "What does Jsoup.clean return?" was declined).
# A class in title case and a member in lower case: not a file name ("cmd.exe", "README.md").
_MEMBER = re.compile(r"(?<![\w.])([A-Z][a-z][A-Za-z0-9]*)\.([a-z]\w*[a-z0-9])(?![\w.])")
# … or with an instance of the class as code names it ("response.elapsed", "session.proxies"):
# a mention when the passages name the class as one ("the Response object", "class
# requests.Response") and the member (Requests' review, 2026-12-05: declined at 0.0).
_INSTANCE = re.compile(r"(?<![\w.])([a-z][a-z0-9]{2,})\.([a-z]\w*[a-z0-9])(?![\w.(])")


def named(question: str) -> list[str]:
    """The things ``question`` names that a passage must mention to answer it, lower-cased:
    capitalised words, identifiers (``max_size``, ``maxSize``) and ``name()`` calls — but
    not the asker's own data (a quoted value, what follows "e.g." / "for example" /
    ", say"), nor units and general abbreviations ("10 GB", "a big ISO", "the CPU");
    "LUKS-encrypted" names LUKS. Words in title case that follow each other are one name
    ("Time Machine", "Secure Boot"): a manual that says "time" and "machine" apart does
    not mention it. German capitalises every noun, so a German question's capitalised
    words name something only when more than their first letter is a capital
    ("PostgreSQL", "NTP")."""
    examples = [m.span() for m in EXAMPLE.finditer(question)]
    nouns = detect_language(question) == "de"
    whole = [] if nouns else list(_PHRASE.finditer(question))
    phrases = [m.span(1) for m in whole]
    names: list[str] = []
    for m in [*whole, *_NAME.finditer(question),
              *_IDENTIFIER.finditer(question), *_CALL.finditer(question),
              *_CAMEL.finditer(question)]:
        if any(a <= m.start(1) < b for a, b in examples):
            continue
        if m.re is _NAME and any(a <= m.start(1) < b for a, b in phrases):
            continue  # a word of a name of several
        if nouns and m.re is _NAME:
            # "Webserver", "Soft-Limit": nouns; "NFSv4-Server", "LDAP-Verzeichnis" name
            # NFSv4 and LDAP.
            names.extend(part.lower() for part in m.group(1).split("-")
                         if _INNER_CAPITAL.search(part) and part.upper() not in _GENERIC)
            continue
        if m.re is _IDENTIFIER and _PLACEHOLDER_FILE.fullmatch(m.group(1)):
            continue  # the asker's own file: "python script.py", "my_app.py"
        name = _MODIFIED.sub("", _POSSESSIVE.sub("", m.group(1)))
        if name.upper() not in _GENERIC and name.lower() not in _COMMON_CAPITALS:
            names.append(name.lower())
    return names


def _mentioned(name: str, seen: str, exact: bool = False) -> bool:
    """``name`` occurs in ``seen`` as a word of its own, either of them plural, or followed
    by a version ("python3", "LC_ALL" for "LC_") — not inside another word: "Redis" is not
    mentioned by "redistribute", nor "Mac" by "Time Machine". An ``exact`` name is not read
    as a plural. An identifier's underscore may be a space: a PDF typeset with LaTeX draws
    ``\\_`` as a rule, not a character, so gnuplot's manual reads "GPVAL ERRMSG" for
    ``GPVAL_ERRMSG`` (new-user review, 2026-12-04); a dot or hyphen inside it may be left
    out or be a space ("X.509": "X509")."""
    plural = not exact and len(name) > 3 and name.endswith("s")
    stem = re.escape(name[:-1] if plural else name).replace("_", r"[_\s]")
    stem = _JOINT.sub(r"[.\\-\\s]?", stem)
    return re.search(rf"(?<![a-z0-9]){stem}(?:e?s)?(?![a-z])", seen) is not None


# A dot or hyphen inside a name may be written or not: "X.509" is mentioned by the
# "X509-certificates" of Erlang's SSH manual (new-user review, 2026-12-04), "Wi-Fi" by
# "WiFi", "e-mail" by "email".
_JOINT = re.compile(r"(?<=[a-z0-9])\\[.-](?=[a-z0-9])")


def _names_class(name: str, cased: str) -> bool:
    """Whether ``cased`` names ``name`` as a class: "class requests.Response", "the Response
    object", "Response.json()"."""
    return re.search(rf"\bclass\s+(?:\w+\.)*{name}\b|\b{name}(?:\s+(?:object|class|instance)s?\b"
                     rf"|\.\w)", cased) is not None


def _titled_mentioned(name: str, seen: str, cased: str) -> bool:
    """A title-case name ending in "s": itself in any case, or its singular in title case
    too. "Macs" is mentioned by "Mac", but "Windows" is not by HAProxy's "initial window
    size" (new-user review, 2026-12-03)."""
    return _mentioned(name.lower(), seen, exact=True) or re.search(
        rf"(?<![A-Za-z0-9]){re.escape(name[:-1])}(?![a-z])", cased) is not None


# An interface's abbreviation, as a manual spells it out: the Sphinx tutorial's "uploading
# whole directories to GitLab using only the web interface is not yet implemented" answers
# "can I drag a whole folder into the GitLab web UI?", which was declined at 0.00 because
# no passage says "UI" (new-user review, 2026-12-06; FreedomBox's "web UI" question too).
# Not "interface" alone: a network's interfaces are no user interface ("Does FRR have a web
# UI?" over "configure the interface eth0").
_UI = ("user interface", "web interface", "graphical interface")
_CLI = ("command line", "command-line")
_SPELLED_OUT = {"ui": _UI, "uis": _UI, "gui": ("graphical",), "guis": ("graphical",),
                "cli": _CLI, "clis": _CLI}
_LEXICAL_SUPPORT = 0.15  # a short question's cosine is low even when its words are there
# A capitalised word that does not start the question or a sentence of it — not "I" and
# its contractions ("when I'm done", "I'd", "I've": the asker, not a thing named).
_NAME = re.compile(r"(?<![.?!]\s)(?<!^)\b(?!I(?:['’](?:m|d|ll|ve|s))?\b)"
                   r"([A-Z][\w.'’-]*[A-Za-z0-9])")
# Two or more words in title case in a row, past the question's first word: one name —
# words, not identifiers ("JavaScript", not "SimpleAsyncHTTPClient"), nor a hyphenated
# word's part: "pure-Python SimpleAsyncHTTPClient" was a name no page mentions, and
# Tornado's question declined (new-user review, 2026-12-07).
_TITLE_WORD = r"[A-Z][a-z][a-z0-9]*(?:[A-Z][a-z][a-z0-9]*)?"
_PHRASE = re.compile(rf"(?<![.?!]\s)(?<!^)(?<![\w-])({_TITLE_WORD}(?: {_TITLE_WORD})+)\b")
# A file name, domain or identifier ("cmd.exe", "pg_hba.conf", "max_wal_size"), or a name
# in a namespace ("threads::shared", "std::fs"). Not a version ("2.39") nor an
# abbreviation ("e.g."): a letter first, parts of 2+ chars.
# A hyphen is part of the name ("syslog-ng.conf" was "ng.conf" in a decline: rsyslog's
# review, 2026-12-07).
_IDENTIFIER = re.compile(r"(?<![\w.:])(?<!\w-)([^\W\d_](?:\w+(?:-\w+)*|(?:-\w+)+)"
                         r"(?:(?:[._]|::)\w{2,}(?:-\w+)*)+)")
# A function named with its parentheses ("bm25()"): a lower-case name too.
# A file of the asker's, named the way examples name one: a placeholder word or "my…"
# before a program's or a data file's extension ("script.py", "my_app.py", "data.csv").
# Click's review (2026-12-05): "why doesn't completion work when I run my script with
# python script.py?" was declined at 0.00 because no page says "script.py". A product's own
# file ("setup.py", "pg_hba.conf", "my.cnf", "main.cf", "input.conf") is still a name the
# passages must mention.
_PLACEHOLDER_FILE = re.compile(r"(?i:my[_-]?\w*|script|app|main|test|foo|bar|baz|example"
                               r"|sample|demo|hello(?:[_-]?world)?|data|input|output|file"
                               r"|prog|program)\.(?:py|js|ts|rb|pl|sh|c|cpp|go|rs|java|tcl"
                               r"|txt|csv|json|ya?ml|xml|html?|md|log)")
_CALL = re.compile(r"(?<![\w.])([^\W\d]\w*)\(\)")
# An identifier in camel case from a lower-case word ("maxFileSize", "openTempFile"): a
# name as much as a capitalised one. rsyslog's review (2026-12-07) asked for imfile's
# "maxFileSize", which it has not, and was told the default of another setting. Not a
# unit nor a brand written so ("kHz", "mAh", "iPhone", "macOS", "reST": one lower-case
# letter, or capitals alone after it).
_CAMEL = re.compile(r"(?<![\w.:'’-])([a-z]{2,}[A-Z][a-z][A-Za-z0-9]*)\b")
_INNER_CAPITAL = re.compile(r"^.[\w.'’-]*[A-Z0-9]")
_POSSESSIVE = re.compile(r"['’]s$")
# A word in title case ending in "s" ("Windows", "Jenkins", "Macs"): its singular counts as
# a mention only in title case too (_titled_mentioned). "GPUs" and "URLs" are plurals.
_TITLE_PLURAL = re.compile(r"\b([A-Z][a-z]+s)\b")
# "LUKS-encrypted", "FAT32-formatted": the name is the part before the participle. Not
# "-style" ("JavaScript-style" still names JavaScript, as "like Perforce" names Perforce).
_MODIFIED = re.compile(r"(?<=[A-Z0-9])-[a-z]+ed$")
# Words English capitalises that name no product, tool or company: a language, a people,
# a script, a day, a month. "can I write vertical text for Japanese with the text tool"
# was declined at 0.00 over GIMP's manual, which says "East-Asian" (review 2026-12-06);
# such a word is weighed as any other word no document has (:mod:`.absent_words`).
_COMMON_CAPITALS = frozenset({
    "english", "french", "german", "spanish", "italian", "portuguese", "dutch", "russian",
    "chinese", "japanese", "korean", "arabic", "hebrew", "hindi", "greek", "turkish",
    "polish", "swedish", "norwegian", "danish", "finnish", "czech", "hungarian", "romanian",
    "thai", "vietnamese", "indonesian", "persian", "ukrainian", "latin", "cyrillic",
    "european", "american", "british", "asian", "african", "indian", "canadian", "australian",
    "mexican", "brazilian", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "january", "february", "march", "april", "june", "july", "august",
    "september", "october", "november", "december"})
# Units and abbreviations every manual may leave unsaid.
_GENERIC = frozenset({"KB", "MB", "GB", "TB", "PB", "KIB", "MIB", "GIB", "TIB", "ISO",
                      "ID", "OK", "CPU", "RAM", "OS", "PC"})
