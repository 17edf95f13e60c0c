""""How long …?", "How big …?", "How many …?" want the sentence stating the value in the
unit asked for, not the one naming the setting (issue #27, failure class 1). PostgreSQL's
manual answers "How long does the autovacuum daemon wait between runs?" with "The default is
one minute (1min).", after a sentence that shares every word of the question but the value;
the bundled handbook answers "How long do I have to return a tent?" with "within 60 days",
beside "Tents must be returned with all poles and pegs."."""

from __future__ import annotations

from citewise.models.quantities import asked, stated
from citewise.models.sentence_rank import Sentence, rank

NAPTIME = [
    "autovacuum_naptime (integer) Specifies the minimum delay between autovacuum runs on any "
    "given database.",
    "In each round the daemon examines the database and issues VACUUM and ANALYZE commands as "
    "needed for tables in that database.",
    "If this value is specified without units, it is taken as seconds.",
    "The default is one minute (1min).",
]
WORKERS = [
    "autovacuum_max_workers (integer) Specifies the maximum number of autovacuum processes "
    "(other than the autovacuum launcher) that may be running at any one time.",
    "The default is one minute (1min).",  # the neighbouring setting's value
    "The default is three.",
]


def _entry(texts: list[str], title: str = "19.10. Automatic Vacuuming") -> list[Sentence]:
    before = ""
    out = []
    for text in texts:
        out.append(Sentence(1, 0, text, before, "runtime-config-autovacuum.html", title, True))
        before = f"{before} {text}".strip()
    return out


def test_a_duration_question_is_answered_by_the_value_in_time() -> None:
    best = rank("How long does the autovacuum daemon wait between runs on a database?",
                _entry(NAPTIME))[0]
    assert best.sentence.text == "The default is one minute (1min)."


def test_a_count_question_is_answered_by_a_count_not_by_a_time() -> None:
    best = rank("How many autovacuum worker processes can run at the same time?",
                _entry(WORKERS))[0]
    assert best.sentence.text == "The default is three."


def test_the_handbook_return_window() -> None:
    sentences = [Sentence(1, 0, t, "", "returns-and-refunds.md", "Returns and refunds", True)
                 for t in ("Members may return any item within 60 days of delivery, used or "
                           "not.", "Items must be clean and dry.",
                           "Tents must be returned with all poles and pegs.")]
    best = rank("How long do I have to return a tent?", sentences)[0]
    assert best.sentence.text.startswith("Members may return any item within 60 days")
    # … and the refund's time, with a word between its number and its unit, for a refund.
    sentences.append(Sentence(1, 0, "Refunds are issued within 5 business days after the "
                              "returned item arrives at our warehouse.", "",
                              "returns-and-refunds.md", "Returns and refunds", True))
    best = rank("How long does a refund take once the returned item arrives?", sentences)[0]
    assert best.sentence.text.startswith("Refunds are issued within 5 business days")


def test_what_states_which_quantity() -> None:
    how_long, how_many, how_big = (asked(q) for q in (
        "How long can a user name be?", "How many listeners can one event have?",
        "How big are the buffers?"))
    assert asked("Is it safe to run gc twice?") == frozenset()
    assert stated(how_long, "Usernames are limited to 255 bytes.") == ["duration"]
    assert stated(how_long, "Refunds are issued within 5 business days.") == ["duration"]
    assert stated(how_long, "Default five seconds.") == ["duration"]
    # "How many …?" asks for a number too: any number states one (a little), a count more.
    assert stated(how_many, "By default, a maximum of `10` listeners can be registered.") == [
        "count", "number"]
    assert stated(how_many, "This value defaults to 3 if unspecified.") == ["value", "number"]
    assert stated(how_many, "The default value is 2 milliseconds.") == ["number"]  # a time
    assert stated(how_many, "514 is used by default (the standard syslog port).") == ["number"]
    assert stated(how_many, "Python 3.9 added the encoding argument.") == ["number"]
    assert stated(how_many, "Each listener is called in the order it was added.") == []
    assert stated(how_big, "The default is 1 GB.") == ["size"]
    assert stated(how_big, "The default is 0.9, which spreads the checkpoint.") == ["value"]
    assert stated(how_big, "The default is five minutes (5min).") == []


def test_how_much_more_is_answered_by_a_percentage_or_a_multiple() -> None:
    """Guile's reference (new-user review, 2026-12-07): "Roughly how much slower does Guile
    run when the debugging VM engine is used?" quoted "By default, the debugging VM engine is
    only used when entering an interactive session.", not "… by about ten percent.": a
    ratio is no duration, size or count."""
    slower = asked("Roughly how much slower does Guile run when the debugging VM is used?")
    compared = asked("How much RAM will the server need compared to the size of my zone?")
    assert "ratio" in slower and "ratio" in compared
    assert "ratio" not in asked("How many times does kdig retry a UDP query?")  # a count
    assert "ratio" not in asked("How much memory does the cache take?")
    assert stated(slower, "It is slower than the regular VM, by about ten percent.") == [
        "ratio"]
    assert stated(compared, "The estimate is 3 times the size of the zone.") == ["ratio"]
    for multiple in ("It is around 3-5 times faster.", "Memory usage almost doubles.",
                     "The output is about one percent larger.", "It shrinks text by 60–70%."):
        assert stated(slower, multiple) == ["ratio"], multiple
    assert stated(slower, "By default, the debugging VM is only used in a session.") == []
    # A count of tries, a percent sign, a formula compare nothing (the second code review).
    for other in ("Try it 3 times.", "The percent sign % starts a comment.", "set x = 2*y"):
        assert stated(slower, other) == [], other
    vm = [Sentence(1, 0, t, "", "guile.info-1", "guile", True) for t in (
        "By default, the debugging VM engine is only used when entering an interactive "
        "session.", "The debugging VM is slower than the regular VM, though, by about ten "
        "percent.")]
    best = rank("Roughly how much slower does Guile run when the debugging VM engine is used?",
                vm)[0]
    assert best.sentence.text.endswith("by about ten percent.")


def test_how_long_something_lasts_is_a_time_not_a_length() -> None:
    """pyca/cryptography's review (2026-12-07): "For how long does deprecated functionality
    keep working before it is taken out?" quoted "… tokens that are 6 - 8 digits long …" from
    another page, a length; the answer is a period of releases. "How long can a user name
    be?" still asks a length."""
    question = "For how long does deprecated functionality keep working before it is taken out?"
    asks = asked(question)
    assert "period" in asks and "duration" not in asks
    assert stated(asks, "In short, code that runs without warnings will always continue to "
                        "work for a period of two major releases.") == ["period"]
    assert stated(asks, "The HOTP algorithm generates rather short tokens that are 6 - 8 "
                        "digits long.") == []
    assert stated(asks, "Sessions are kept for 30 days.") == ["period"]
    assert "duration" in asked("How long can a user name be?")
    # … nor a length it must have to stay so (the code review, 2026-12-07).
    assert "duration" in asked("How long does the salt have to be to remain secure?")
    texts = ["The HOTP algorithm generates rather short tokens that are 6 - 8 digits long, so "
             "deprecated token lengths are possible to brute force.",
             "In short, deprecated code that runs without warnings will always continue to "
             "work for a period of two major releases."]
    sentences = [Sentence(1, 0, t, "", "api-stability.html", "API stability", True)
                 for t in texts]
    assert rank(question, sentences)[0].sentence.text == texts[1]
