"""What a new user's review of Perl's own manual found (perl-doc's POD pages, 2026-12-07).

A question naming a command-line switch the manual does not describe ("What does the -Z
command-line switch do?") was answered with another switch's description: the name was
lower-cased like every other word, and "z" is a word of many passages."""

from __future__ import annotations

from pathlib import Path

from _answers import ask_over
from citewise.grounding.declines import is_decline
from citewise.models.answerability import unnamed

PERLRUN = """=head1 NAME

perlrun - how to execute the Perl interpreter

=head2 Command Switches

=over 5

=item B<-c>

causes Perl to check the syntax of the program and then exit without
executing it.

=item B<-i>[I<extension>]

specifies that files processed by the C<E<lt>E<gt>> construct are to be
edited in-place.

=item B<-s>

enables rudimentary switch parsing for switches on the command
line after the program name but before any filename arguments.

=item B<-z>

is not a real switch here, but its letter is in lower case.

=back
"""


def _seen(text: str) -> list[dict[str, object]]:
    return [{"results": [{"text": text, "section": "Command Switches"}]}]


def test_a_switch_no_passage_writes_is_unnamed_in_its_own_case() -> None:
    seen = _seen("-s enables rudimentary switch parsing. -i[extension] edits in place. "
                 "Give -c:v copy. The \u2212l switch, typeset. -Wall warns about all. "
                 "--line-length-limit=10000 -z is lower case.")
    assert unnamed("What does the -Z command-line switch do?", seen) == ["-Z"]
    for question in ("What does the -s switch do?", "What is the -i option for?",
                     "Can I use the -c flag with copy?", "What does option -l do?",
                     "What does the -z switch do?", "What does --line-length-limit set?"):
        assert unnamed(question, seen) == [], question
    # A switch glued to its argument is written ("-Wall" writes "-W", "-Idirectory" "-I");
    # "--line-length" is not "--line-length-limit"; the asker's example, a hyphen inside a
    # word, a sum and a negation in a formula are no switch (code review, 2026-12-07).
    assert unnamed("Is -W an option?", seen) == []
    assert unnamed("Is -I an option?", seen) == ["-I"]
    assert unnamed("Is -I an option?", _seen("-Idirectory adds a directory to @INC.")) == []
    assert unnamed("And the --line-length option?", seen) == ["--line-length"]
    # Only a switch the question calls one, not the asker's own: the search does not look
    # for "-R", and "grep -r and grep -R" was declined over passages that never wrote it
    # (bench gi13), "an option called --dry-run" over argparse's manual (bench py18).
    assert unnamed("What's the difference between grep -Q and grep -R?", seen) == []
    assert unnamed("I added an option called --dry-run; where is its value?", seen) == []
    # A word of one letter ("a", "I", "sed's") is no variable (the second code review).
    assert unnamed("What does the -a option do to a file in sed's manual?", seen) == ["-a"]
    assert unnamed("What does the -I option do when I run it?", seen) == ["-I"]
    assert unnamed("Does it take a file, e.g. -Q foo?", seen) == []
    assert unnamed("Does e-mail work with x - y?", seen) == []
    for formula in ("What is the value of -x when x is negative?", "How do I compute e^-x?",
                    "Is (-y) the same as 0 - y?", "What does -q + 1 give?"):
        assert unnamed(formula, seen) == [], formula


def test_a_question_about_a_switch_the_manual_lacks_is_declined(tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"perlrun.pod": PERLRUN},
                      "What does the -Z command-line switch do?")
    assert is_decline(answer.text) and not answer.citations, answer.text
    assert "-Z" in answer.text
    (tmp_path / "again").mkdir()
    answer = ask_over(tmp_path / "again", {"perlrun.pod": PERLRUN},
                      "What does the -s switch do?")
    assert answer.citations and "rudimentary switch parsing" in answer.citations[0].excerpt


PERLRUN_CASES = """=head1 NAME

perlrun - how to execute the Perl interpreter

=head2 Command Switches

=over 5

=item B<-C [I<number/list>]>

The -C switch controls some of the Perl Unicode features.

In Perls earlier than 5.8.1 the -C switch was a Win32-only switch that enabled the use of
Unicode-aware "wide system call" Win32 APIs.

=item B<-c>

causes Perl to check the syntax of the program and then exit without
executing it.

=item B<-s>

enables rudimentary switch parsing for switches on the command
line after the program name but before any filename arguments.

=back
"""


def test_a_one_letter_switch_is_matched_in_its_own_case(tmp_path: Path) -> None:
    """"What does perl's -c switch do?" quoted "-C"'s entry, "the -C switch was …": every
    index lower-cases "-C" and drops its dash, so "c" and "switch" were both its words."""
    answer = ask_over(tmp_path, {"perlrun.pod": PERLRUN_CASES}, "What does perl's -c switch do?")
    assert answer.citations, answer.text
    assert "check the syntax" in answer.citations[0].excerpt, answer.citations[0].excerpt
    (tmp_path / "upper").mkdir()
    answer = ask_over(tmp_path / "upper", {"perlrun.pod": PERLRUN_CASES},
                      "What does perl's -C switch do?")
    assert answer.citations and "-C switch" in answer.citations[0].excerpt, answer.text


def test_a_switch_s_letter_the_question_also_writes_as_a_word_is_kept() -> None:
    """"Compile C code with gcc -c" asks about C too: "c" stays a word of every sentence
    that writes C (the code review, 2026-12-07)."""
    from citewise.models.sentence_rank import _own_case, _switch_letters

    assert _switch_letters("How do I compile C code to an object file with gcc -c?") == {}
    # The pronoun and the article are no letters (the second code review).
    assert _switch_letters("How do I make grep ignore case with -i?") == {"i": ("-i",)}
    assert _switch_letters("Does ls -a show a hidden file?") == {"a": ("-a",)}
    letters = _switch_letters("What does perl's -c switch do?")
    assert letters == {"c": ("-c",)}
    assert "c" not in _own_case(["c", "switch"], "the -C switch", letters)
    assert "c" in _own_case(["c", "caus"], "-c causes Perl to check", letters)
