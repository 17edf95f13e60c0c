""""What is X?" wants the sentence that says what X is, and a default question the one that
states the default (new-user review of the Rust book, 2026-12-04): "What is a crate?" was
answered by "A crate can come in one of two forms …" over "A crate is the smallest amount
of code …", and the release profile's default optimisation level by "we set opt-level to
1, Cargo will apply more optimizations than the default" over the sentence that says it
is 3."""

from __future__ import annotations

from citewise.models.sentence_rank import Sentence, rank

TITLE = "Packages and Crates"


def _s(text: str, rank_: int = 0) -> Sentence:
    return Sentence(1, rank_, text, "", "ch07-01-packages-and-crates.html", TITLE, True)


def test_what_is_x_prefers_the_sentence_whose_subject_is_x() -> None:
    sentences = [
        _s("A crate can come in one of two forms: a binary crate or a library crate."),
        _s("A crate is the smallest amount of code that the Rust compiler considers at a "
           "time.", 1),
        _s("Crates can contain modules, and the modules may be defined in other files.", 2),
    ]
    best = rank("What is a crate?", sentences)[0]
    assert best.sentence.text.startswith("A crate is the smallest")
    # Not for a question whose subject the sentence only mentions.
    aliases = [_s("Aliases are expanded when a function definition is read."),
               _s("To be safe, always put alias definitions on a separate line.", 1)]
    best = rank("What's the safe way to define aliases in scripts?", aliases)[0]
    assert best.sentence.text.startswith("To be safe")


def test_than_the_default_states_no_default() -> None:
    sentences = [
        _s("Because we set opt-level to 1, Cargo will apply more optimizations than the "
           "default, but not as many as in a release build."),
        _s("That is why the opt-level for the release profile is 3 by default.", 1),
    ]
    best = rank("How much optimization does Cargo apply to a release build by default?",
                sentences)[0]
    assert best.sentence.text.startswith("That is why")


def test_can_it_have_two_asks_for_the_limit() -> None:
    # "Can one package have two library crates?" was answered by "… it has two crates: a
    # binary and a library" over the sentence stating the limit (0.116 behind).
    sentences = [
        _s("If a package contains src/main.rs and src/lib.rs, it has two crates: a binary "
           "and a library, both with the same name as the package."),
        _s("A package can contain as many binary crates as you like, but at most only one "
           "library crate.", 1),
    ]
    best = rank("Can one package have two library crates?", sentences)[0]
    assert best.sentence.text.startswith("A package can contain")
