"""Plain text's numbered headings as sections, the text unchanged (offsets still index the
file): mutt's manual as Debian ships it (DocBook rendered to text), zsh's and zlib's FAQs.
Found by a new-user review (2026-12-05): none of mutt's 946 chunks had a section, and a
variable's "Default: 5" could not be tied to its variable."""

from __future__ import annotations

from pathlib import Path

from tests._sections import section_at

from citewise.knowledge.loaders.text import TextLoader

MUTT = """The Mutt E-Mail Client

Table of Contents

1. Introduction
2. Getting Started
3. Configuration

Chapter\xa09.\xa0Reference

Table of Contents

1. Command-Line Options
3. Configuration Variables

3.\xa0Configuration Variables

3.163.\xa0mail_check

Type:\xa0number
Default:\xa05

This variable configures how often (in seconds) mutt should look for new mail.

3.164.\xa0mail_check_recent

Type:\xa0boolean
Default:\xa0yes

When set, Mutt will only notify you about new mail that has been received since the
last time you opened the mailbox.

1. Configure the server.

The steps above are numbered sentences, not headings.
"""


def _load(tmp_path: Path, name: str, text: str) -> tuple[str, list[tuple[int, int, str]]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = TextLoader().load(path, path.read_bytes())
    return doc.text, doc.sections


def test_a_manuals_numbered_headings_are_its_sections(tmp_path: Path) -> None:
    text, sections = _load(tmp_path, "manual.txt", MUTT)
    assert text == MUTT  # not rewritten


    ref = "Chapter 9. Reference > 3. Configuration Variables"
    assert section_at(text, sections, "Default:\xa05") == f"{ref} > 3.163. mail_check"
    assert section_at(text, sections, "only notify you about new mail") == f"{ref} > 3.164. mail_check_recent"
    # A table of contents' lines and a numbered sentence are no headings.
    assert section_at(text, sections, "The steps above are numbered") == f"{ref} > 3.164. mail_check_recent"
    assert not [p for _, _, p in sections if "Getting Started" in p or "Configure the" in p]


def test_a_faqs_numbered_questions_are_its_sections(tmp_path: Path) -> None:
    faq = ("Chapter 1:  Introducing zsh and how to install it\n\n1.1: Sources of information\n\n"
           "  Information can be found in the manual.\n\n1.2: What is it?\n\n  Zsh is a UNIX "
           "command interpreter (shell).\n\n1.5: What's the latest version?\n\n  Zsh 5.9 is "
           "the latest production version.\n")
    text, sections = _load(tmp_path, "FAQ.txt", faq)
    at = text.index("Zsh 5.9")
    assert [p for a, b, p in sections if a <= at < b] == [
        "Chapter 1: Introducing zsh and how to install it > 1.5: What's the latest version?"]


def test_text_without_three_numbered_headings_has_no_sections(tmp_path: Path) -> None:
    _, sections = _load(tmp_path, "notes.txt", "Notes\n\n1. Intro\n\nSome text.\n\n2. More\n\nx\n")
    assert sections == []


RULE = "-" * 72
VALGRIND = f"""

Valgrind FAQ
Release 3.19.0 11 Apr 2022
~~~~~~~~~~~~~~~~~~~~~~~~~~

Table of Contents
1. Background
2. Compiling, installing and configuring

{RULE}
1. Background
{RULE}

1.1. How do you pronounce "Valgrind"?
The "Val" as in the word "value". The "grind" is pronounced with a short
'i' -- ie. "grinned" (rhymes with "tinned") rather than "grined".

Don't feel bad: almost everyone gets it wrong at first.
{RULE}

1.2. Where does the name "Valgrind" come from?
From Nordic mythology.

{RULE}
2. Compiling, installing and configuring
{RULE}

2.1. When building Valgrind, 'make' dies partway with an assertion
failure, something like this:

    % make: expand.c:489: allocated_variable_append:

It's probably a bug in 'make'.

{RULE}

2.2. Programs run OK on Valgrind, but at exit produce a bunch of errors
involving __libc_freeres and then die with a segmentation fault.

When the program exits, Valgrind runs the procedure __libc_freeres.

{RULE}

2.3. Some steps:

2.4 Build it.
2.5 Install it.
""".replace("?\n", "? \n")  # its lines end in a space


def test_a_faqs_questions_over_their_answers_are_its_sections(tmp_path: Path) -> None:
    # Valgrind's FAQ: questions open their answer's paragraph or run over lines, and its
    # 72-dash rules under a sentence made it rST (every question glued to its answer, the
    # last sentence of an answer a section title, "1. Background" the file's title).
    path = tmp_path / "FAQ.txt"
    path.write_text(VALGRIND, encoding="utf-8")
    doc = TextLoader().load(path, path.read_bytes())
    assert doc.content_type == "text/plain" and doc.text == VALGRIND
    assert doc.title == "Valgrind FAQ"
    text, sections = doc.text, doc.sections
    assert section_at(text, sections, "Don't feel bad") == (
        '1. Background > 1.1. How do you pronounce "Valgrind"?')
    assert section_at(text, sections, "probably a bug") == (
        "2. Compiling, installing and configuring > 2.1. When building Valgrind, 'make' "
        "dies partway with an assertion failure, something like this:")
    # A question stated as a short paragraph, in a file with questions, heads its answer.
    assert section_at(text, sections, "When the program exits").endswith(
        "2.2. Programs run OK on Valgrind, but at exit produce a bunch of errors involving "
        "__libc_freeres and then die with a segmentation fault.")
    # The question is a heading (context for its answer, no quote); its answer is not.
    headings = [text[a:b] for a, b, role in doc.roles if role == "heading"]
    assert '1.1. How do you pronounce "Valgrind"?' in headings
    assert not [h for h in headings if "Val\" as in" in h or "Build it" in h]


def test_numbered_paragraphs_are_no_headings_without_a_numbered_chapter(tmp_path: Path) -> None:
    # Numbered steps opening paragraphs, under no numbered heading: sentences, not questions.
    steps = ("Setup\n\n1.1. Download the archive and check its signature\nwith gpg --verify.\n\n"
             "1.2. Unpack it where you like:\n  tar xf x.tgz\n\n1.3. Run the installer as "
             "root?\nNo, as yourself.\n\n2.1. Run it:\n  x\n")
    _, sections = _load(tmp_path, "steps.txt", steps)
    assert sections == []


def test_rows_between_rules_and_a_manuals_steps_are_no_headings(tmp_path: Path) -> None:
    """A review of the change (2026-12-05): a table's rows between rules ("1.0    Initial
    release") and a manual's steps ending in ":" under numbered chapters were read as
    headings; a step ending in ":" is a question's form only in a FAQ."""
    rows = "Versions\n\n" + "".join(f"-----\n{v}    {t}\n" for v, t in (
        ("1.0", "Initial release"), ("1.1", "Bug fixes"), ("1.2", "More fixes"),
        ("2.0", "Rewrite"))) + "-----\n"
    assert _load(tmp_path, "versions.txt", rows)[1] == []
    steps = ("1. Installation\n\nSome text.\n\n1.1 Download the tarball and unpack it as "
             "follows:\n  tar xf x.tgz\n\n1.2 Run make:\n  make\n\n2. Usage\n\nText.\n\n"
             "3. Removal\n\nMore text.\n")
    _, sections = _load(tmp_path, "install.txt", steps)
    assert [s[2] for s in sections] == ["1. Installation", "2. Usage", "3. Removal"]


def test_a_step_indented_under_its_section_is_no_chapter(tmp_path: Path) -> None:
    """libcurl's FAQ (review, 2026-12-07): its chapters start their lines ("1. Philosophy"),
    its questions are indented ("  1.15 How do I port libcurl to my OS?"), and the steps of
    an answer, indented as the questions are ("  1. copy a suitable lib/config-*.h file
    …"), were read as chapters: the answer's chunks lost their question. A heading set
    deeper than most of its level's is text; a two-digit number aligned either way is not
    deeper."""
    faq = ("FAQ\n\n1. Philosophy\n\n  1.1 What is cURL?\n\n  Text.\n\n"
           "  1.15 How do I port libcurl to my OS?\n\n  Here's a rough step-by-step:\n\n"
           "  1. copy a suitable lib/config-*.h file as a start to lib/config-[youros].h\n\n"
           "  2. edit lib/config-[youros].h to match your OS and setup\n\n"
           "  4. compile lib/*.c and make them into a library\n\n\n"
           "2. Install Related Problems\n\n  2.1 configure fails\n\n  Text.\n\n"
           "3. Usage Problems\n\n  3.1 curl: (1) SSL is disabled\n\n  Text.\n\n"
           "4. Running Problems\n\n  4.2 Why do I get problems?\n\n  Text.\n")
    text, sections = _load(tmp_path, "FAQ", faq)
    assert [s[2] for s in sections if " > " not in s[2]] == [
        "1. Philosophy", "2. Install Related Problems", "3. Usage Problems",
        "4. Running Problems"]
    assert section_at(text, sections, "2. edit").endswith("1.15 How do I port libcurl to my OS?")
    # One set deeper whose number goes on from a kept heading's is one (libjxr's spec:
    # "   13 JXRDecApp …" after "12 Encoder …" and its options "1 -v", "2 -t"; code review).
    spec = ("".join(f"{n} Part {n}\n\nText.\n\n" for n in range(10, 13))
            + "1 -v   Verbose mode\n\nText.\n\n2 -t   Timing\n\nText.\n\n"
            "   13 Decoder\n\nText.\n\n14 Info\n\nText.\n")
    titles = [s[2] for s in _load(tmp_path, "spec.txt", spec)[1]]
    assert "13 Decoder" in titles and titles[-1] == "14 Info"
    aligned = "".join(f"{n:>2}. Part {n}\n\nText.\n\n" for n in range(7, 12))
    assert len(_load(tmp_path, "aligned.txt", aligned)[1]) == 5
    flush = "".join(f"{n}. Part {n}\n\nText.\n\n" for n in range(7, 12))
    assert len(_load(tmp_path, "flush.txt", flush)[1]) == 5


def test_a_title_ending_in_an_exclamation_over_a_long_rule_is_still_rst() -> None:
    from citewise.knowledge.loaders.rst import looks_like_rst

    text = ("Hello, world!\n" + "=" * 78 + "\n\nIntro.\n\nUsage\n-----\n\nRun it.\n\n"
            "Notes\n-----\n\nMore.\n")
    assert looks_like_rst(text)
    assert not looks_like_rst(text.replace("Hello, world!", "Hello, world."))
