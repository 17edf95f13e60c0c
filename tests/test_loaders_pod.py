"""POD (Perl's documentation format): commands and formatting codes never reach a quote,
``=headN`` lines are sections — a FAQ's questions among them — and verbatim paragraphs are
code (new-user review, session 18: ``perlfaq4.pod`` was refused as ``unsupported_format``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.errors import IngestError
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.loaders.pod import PodLoader, inline, read_pod

FAQ = """=encoding utf8

=head1 NAME

kitchenfaq - Questions about the kitchen module

=head1 DESCRIPTION

=head2 How do I keep the kettle from boiling dry?

Call C<< $kettle->guard >> before you light it. The guard stops the flame when
the water is gone. See L<kettle/"Safety"> and L<the manual|kitchen>.

    my $kettle = Kettle->new;
    $kettle->guard;

=begin html

<p>This is for the web only.</p>

=end html

=for comment Nobody reads this.

=head2 Which pans can I use?

=over 4

=item cast iron

Heat it slowly, E<lt>200 degreesE<gt>.

=item *

Steel, if it is B<flat>.X<steel>

=back

=cut

sub not_documentation { 1 }

=head1 AUTHOR

Someone.
"""


def _doc() -> tuple[str, str | None, list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    return read_pod(FAQ)


def test_commands_and_codes_print_what_perldoc_shows() -> None:
    text, title, _, _ = _doc()
    assert title == "kitchenfaq - Questions about the kitchen module"
    assert "Call $kettle->guard before you light it." in text
    assert 'See "Safety" in kettle and the manual.' in text
    assert "Heat it slowly, <200 degrees>." in text
    assert "• Steel, if it is flat." in text
    for absent in ("=head", "=item", "C<", "L<", "E<", "web only", "Nobody reads",
                   "not_documentation", "=cut"):
        assert absent not in text, absent


def test_headings_are_sections_and_verbatim_paragraphs_code() -> None:
    text, _, sections, roles = _doc()

    def section_of(phrase: str) -> str:
        at = text.index(phrase)
        return [n for a, b, n in sections if a <= at < b][-1]

    assert section_of("The guard stops the flame") == (
        "DESCRIPTION > How do I keep the kettle from boiling dry?")
    assert section_of("Heat it slowly") == "DESCRIPTION > Which pans can I use? > cast iron"
    assert section_of("Someone.") == "AUTHOR"
    code = text.index("my $kettle = Kettle->new;\n$kettle->guard;")
    assert any(a <= code < b and role == "code" for a, b, role in roles)
    term = text.index("cast iron")
    assert any(a == term and role == "term" for a, b, role in roles)


def test_nested_and_escaped_codes() -> None:
    assert inline("B<bold I<and italic>> C<< $a <=> $b >> E<0x41>E<65>E<eacute>") == (
        "bold and italic $a <=> $b AAé")
    assert inline("L<http://example.org/x> L<\"Local\"> Z<>X<idx>end") == (
        'http://example.org/x "Local" end')


def test_a_pod_file_is_ingested_searched_and_quoted_exactly(tmp_path: Path) -> None:
    page = tmp_path / "kitchenfaq.pod"
    page.write_text(FAQ, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        report = kb.ingest([page])
        assert report.added == [str(page)] and not report.failed
        [hit, *_] = kb.search("kettle boiling dry guard flame")
        record = kb.find_document(page)
        assert record is not None and hit.text in record.text
        assert "C<<" not in hit.text


def test_a_pod_file_without_text_is_refused() -> None:
    with pytest.raises(IngestError) as exc:
        PodLoader().load(Path("empty.pod"), b"=pod\n\n=cut\n")
    assert exc.value.code == "empty_document"


# As Perl's own manual writes it (perl-doc 5.36, a new user's review, 2026-12-04): two blank
# lines before a command, index entries after a heading, switches and variables as items,
# aliases stacked, numbered items, a list inside an item.
MANUAL = """=head1 NAME
X<operator> X<operators>

perlmini - Perl mini manual

=head1 DESCRIPTION


=head2 Additive Operators
X<additive operator>

Binary "+" returns the sum of two numbers.

=head2 Command Switches

=over 5

=item B<-l>[I<octnum>]
X<-l> X<$/> X<$\\>

enables automatic line-ending processing.

=item $LIST_SEPARATOR

=item $"
X<$">

When an array is interpolated, its elements are joined with this.

=item B<-x>

Tells Perl that the program is embedded.

=over 4

=item B<-x> I<directory>

Changes to the directory first.

=back

Leading garbage is discarded.

=back

Switches may be clustered.

They come in six forms:

=over 4

=item 5.

A sigil, followed solely by digits.

=item 6.

A caret-named variable.

=back
"""


def test_a_perl_manuals_commands_headings_and_items() -> None:
    text, title, sections, roles = read_pod(MANUAL)

    def section_of(phrase: str) -> str:
        at = text.index(phrase)
        return [n for a, b, n in sections if a <= at < b][-1]

    assert title == "perlmini - Perl mini manual"  # not "NAME  " (the index entries)
    assert "=head" not in text and "X<" not in text
    assert section_of('Binary "+" returns') == "DESCRIPTION > Additive Operators"
    assert all(name == name.strip() and "  " not in name for _, _, name in sections)
    # An item names its section; two names stacked are one; a nested list is nested.
    assert section_of("enables automatic") == "DESCRIPTION > Command Switches > -l[octnum]"
    assert section_of("When an array is interpolated") == (
        'DESCRIPTION > Command Switches > $LIST_SEPARATOR, $"')
    assert section_of("Changes to the directory") == (
        "DESCRIPTION > Command Switches > -x > -x directory")
    # After a nested list, its item's section again; after the list, the heading's.
    assert section_of("Leading garbage") == "DESCRIPTION > Command Switches > -x"
    assert section_of("Switches may be clustered.") == "DESCRIPTION > Command Switches"
    # Numbered items keep their numbers ("six forms … 5 and 6"), and name no section.
    assert "5. A sigil, followed solely by digits." in text
    assert "6. A caret-named variable." in text
    assert section_of("A sigil") == "DESCRIPTION > Command Switches"
    term = text.index("-l[octnum]")
    assert any(a == term and role == "term" for a, b, role in roles)
