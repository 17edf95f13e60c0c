"""A sentence that names its subject only by pointing back ("If neither of these is given,
the default by=1 is assumed.") is quoted with the sentence it points at, when that one is
chosen (new-user review of R's PDF manuals, 2026-12-05): quoted alone, "The next two
arguments to seq() may be named by=value and length=value …" left out the answer, and
the answer alone says nothing a reader can follow."""

from __future__ import annotations

from pathlib import Path

from _answers import ask_over
from citewise.models.sentence_candidates import candidates

SEQ = ("The next two arguments to seq() may be named by=value and length=value, which "
       "specify a step size and a length for the sequence respectively. If neither of these "
       "is given, the default by=1 is assumed.")


def _found(text: str) -> dict[str, str]:
    return {s.text: s.quote for s in candidates([{"results": [{
        "document_index": 1, "text": text, "source": "R-intro.pdf", "title": ""}]}])}


def test_the_sentence_pointed_at_is_quoted_with_the_one_that_points() -> None:
    found = _found(SEQ)
    first, second = SEQ.split(" If neither")
    assert found[first] == SEQ  # chosen, it is quoted with the sentence that completes it
    assert found["If neither" + second] == ""  # ranked and quoted as itself
    # "To read such files" points back; "It is …" and a new subject do not.
    spread = ("It is quite common for a file exported from a spreadsheet to omit trailing "
              "empty fields. To read such files set fill = TRUE.")
    assert _found(spread)[spread.split(" To read")[0]] == spread
    plain = "The file is read line by line. Blank lines are skipped."
    assert _found(plain)["The file is read line by line."] == ""
    # "Each"/"both" point back only as "each of these" (bench/citations.py's lighthouse).
    each = "A Fresnel lens weighs less. Each lighthouse was given its own pattern."
    assert _found(each)["A Fresnel lens weighs less."] == ""
    assert _found(each.replace("Each lighthouse", "Each of these"))[
        "A Fresnel lens weighs less."] != ""
    # Not over a paragraph's end, nor past the length of one quote.
    apart = "The next two arguments may be named.\n\nIf neither of these is given, by=1."
    assert _found(apart)["The next two arguments may be named."] == ""
    long = "The next two arguments may be named " + "and so on " * 40 + ". Such is life."
    assert next(q for t, q in _found(long).items() if t.startswith("The next")) == ""


def test_an_answer_quotes_the_pair(tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"seq.md": f"# Sequences\n\n{SEQ}\n\nOther text here.\n"},
                      "Which two named arguments does seq() take?")
    assert "If neither of these is given, the default by=1 is assumed." in answer.text
    assert answer.citations and "by=value and length=value" in answer.citations[0].excerpt


def test_a_sentence_of_ten_words_that_only_points_back_is_quoted_with_its_antecedent() -> None:
    """Apache's mod_rewrite flags (bench ap07): "This is the default value if none is
    specified." (nine words) was the whole answer to how long a cookie lives when its
    lifetime is left out; the value is in the sentence it points back at."""
    cookie = ("A value of 0 indicates that the cookie will persist only for the current "
              "browser session. This is the default value if none is specified.")
    assert cookie in _found(cookie)
    # A sentence that points back but says something of its own stays itself.
    own = ("Plain VACUUM reclaims space. This form of the command can operate in parallel "
           "with normal reading and writing of the table.")
    assert "This form of the command can operate in parallel with normal reading and " \
        "writing of the table." in _found(own)
    assert own not in _found(own)
    # Nor "It is possible to …", which says something of its own, nor over a paragraph's end.
    reload = ("The daemon reads its configuration at startup. It is possible to reload the "
              "configuration without a restart.")
    assert "It is possible to reload the configuration without a restart." in _found(reload)
    apart = cookie.replace(" This is", "\n\nThis is")
    assert "This is the default value if none is specified." in _found(apart)


def test_a_bracket_cut_from_its_other_half_is_not_quoted() -> None:
    """Exim's specification (new-user review, 2026-12-05): a parenthesis of two sentences
    was split, and "(What Exim actually does … option." was quoted with no ")"."""
    text = ("Exim delivers in parallel. (What Exim actually does also depends on the "
            "remote_max_parallel option. Details are given in section 49.1.) The rest is "
            "sequential (one at a time).")
    found = _found(text)
    assert "What Exim actually does also depends on the remote_max_parallel option." in found
    assert "Details are given in section 49.1." in found
    assert "The rest is sequential (one at a time)." in found
    # A ")" that closes an interval or an item's letter is no half of a cut bracket; a
    # permalink mark inside one goes with it.
    assert "The ratio lies in [0, 1)" in _found("The ratio lies in [0, 1)")
    assert "Give the values a), b) and c)" in _found("Give the values a), b) and c)")
    assert list(_found("(Details are in section 49.1. ¶)")) == ["Details are in section 49.1."]


def test_what_can_happen_is_quoted_with_the_sentence_saying_what() -> None:
    """SCons' user guide (new-user review, 2026-12-07): "One drawback to using time stamps
    exactly like Make is that if an input file's time stamp suddenly becomes older than a
    target file, the target file will not be rebuilt. This can happen if an old copy of a
    source file is restored from a backup archive, for example." The second says when
    what the first says happens; chosen, the first is quoted with it."""
    drawback = ("One drawback to using time stamps exactly like Make is that if an input "
                "file's time stamp suddenly becomes older than a target file, the target "
                "file will not be rebuilt.")
    when = "This can happen if an old copy of a source file is restored from a backup."
    assert _found(f"{drawback} {when}")[drawback] == f"{drawback} {when}"
    later = "This usually happens when a file is copied back from an older checkout by hand."
    assert _found(f"{drawback} {later}")[drawback] == f"{drawback} {later}"
    assert _found(f"{drawback} This makes builds slow.")[drawback] == ""


KNOT = ("rrsig-lifetime\n\nA validity period of newly issued signatures.\n\nNote: The RRSIG's "
        "signature inception time is set to 90 minutes in the past. This time period is not "
        "counted to the signature lifetime.\n\nDefault: 14d (14 days)\n\nrrsig-refresh\n\n"
        "A period how long at least before a signature expiration the signature will be "
        "refreshed.\n\nDefault: 7d (7 days)")


def _entries(text: str) -> list[tuple[int, int, str]]:
    """Each option's name a heading, as Knot's Sphinx reference has them."""
    return [(text.index(n), text.index(n) + len(n), "heading")
            for n in ("rrsig-lifetime", "rrsig-refresh")]


def test_an_entrys_default_under_a_note_is_quoted_from_the_entrys_first_sentence() -> None:
    """Knot DNS's reference (new-user review, 2026-12-07; bench kn20): "Default: 14d (14
    days)" ends rrsig-lifetime's entry under a note, and was quoted with the note's last
    sentence ("This time period is not counted to the signature lifetime."), which says
    nothing of what the option is: the entry's first sentence, ranked and quoted with its
    default, answers "For how long are newly created RRSIG signatures valid?"."""
    found = {s.text: s for s in candidates([{"results": [{
        "document_index": 1, "text": KNOT, "source": "reference.html", "title": "",
        "roles": [list(r) for r in _entries(KNOT)]}]}])}
    entry = KNOT[KNOT.index("A validity"):KNOT.index("\n\nrrsig-refresh")]
    assert entry in found and entry.endswith("Default: 14d (14 days)")
    # A default right under the entry's one paragraph is quoted with it as before.
    assert ("A period how long at least before a signature expiration the signature will "
            "be refreshed.\n\nDefault: 7d (7 days)") in found
    # Past the length of one quote, the default stays with the sentence before it.
    long = KNOT.replace("Note: The", "Note: " + "More is said here. " * 20 + "The")
    texts = {s.text for s in candidates([{"results": [{
        "document_index": 1, "text": long, "source": "reference.html", "title": "",
        "roles": [list(r) for r in _entries(long)]}]}])}
    assert ("This time period is not counted to the signature lifetime.\n\nDefault: 14d "
            "(14 days)") in texts
    # A paragraph about warnings is no note (the code review, 2026-12-07).
    upper = KNOT.replace("Note: The RRSIG's", "CAUTION: The RRSIG's")
    assert any(s.text.startswith("A validity period") and s.text.endswith("(14 days)")
               for s in candidates([{"results": [{
                   "document_index": 1, "text": upper, "source": "reference.html",
                   "title": "", "roles": [list(r) for r in _entries(upper)]}]}]))
    warned = KNOT.replace("Note: The RRSIG's", "Warning messages say the RRSIG's")
    texts = {s.text for s in candidates([{"results": [{
        "document_index": 1, "text": warned, "source": "reference.html", "title": "",
        "roles": [list(r) for r in _entries(warned)]}]}])}
    assert ("This time period is not counted to the signature lifetime.\n\nDefault: 14d "
            "(14 days)") in texts
