"""Vim's help format: read with its sections and items, without its markup (new-user review
over Vim 9.0's help, 2026-12-04: a help file had its version line for a title, no sections,
``*tag*`` / ``|link|`` / ``>`` markup in every quote, and a column heading over a dashed
rule made ten of Vim's files reStructuredText, reflowed)."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load, section_of

from citewise.agent.runner import Agent
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.loaders._vim_help import looks_like_vim_help

# A plugin's help file, written for this test in the format of Vim's own.
KETTLE = """*kettle.txt*\tFor Vim version 9.0.  Last change: 2026 Dec 04


\t\t  KETTLE PLUGIN MANUAL\t  by Nobody in Particular


Kettle\t\t\t\t\t\t\t*kettle*

1. Commands\t\t\t|kettle-commands|
2. Options\t\t\t|kettle-options|

==============================================================================
1. Commands\t\t\t\t\t\t*kettle-commands*

:Boil\t\t\tBoil the water in the current buffer's kettle.  Asks
\t\t\tfirst when the kettle is nearly empty.

:Boil!\t\t\tBoil without asking, even when the kettle is nearly
\t\t\tempty.  See |'kettlesize'|.

\t\t\t\t\t\t\t*E990* *E991*
:Pour {cup}\t\tPour the kettle into {cup}.  Fails with E990 when
\t\t\tthe kettle is cold.

:Cool[!]
CTRL-K c\t\t\t\t\t\t*CTRL-K_c* *E992*
\t\tLet the kettle cool down.  Without [!] it asks first.

To pour into two cups, use a mapping like this: >
\tnnoremap <Leader>p :Pour left<CR>:Pour right<CR>
<
key\t\teffect\t~
-------------------------------------------
gk\t\tboil the kettle under the cursor
gK\t\tpour it

==============================================================================
2. Options\t\t\t\t\t\t*kettle-options*

\t\t\t\t\t\t*'kettlesize'* *'ks'*
'kettlesize' 'ks'\tnumber\t(default 17)
\t\t\tglobal
\tHow many litres of water the kettle holds.  The value must be more
\tthan 0.

 vim:tw=78:ts=8:noet:ft=help:norl:
"""


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "kettle.txt"
    path.write_text(KETTLE, encoding="utf-8")
    return path


def test_a_help_file_is_told_by_its_first_line_or_its_modeline() -> None:
    assert looks_like_vim_help(KETTLE)
    assert looks_like_vim_help("Some notes.\n\n vim:tw=78:ts=8:ft=help:norl:\n")
    assert not looks_like_vim_help("Title\n=====\n\nA *bold* word and a |pipe| here.\n")


def test_markup_title_and_sections(tmp_path: Path) -> None:
    doc = load(_write(tmp_path))
    assert doc.content_type == "text/x-vim-help"  # not rST: "key effect ~" over a rule
    assert doc.title == "Kettle"
    text = doc.text
    # The version line and the modeline are gone; anchors, link bars, example markers and
    # the column heading's "~" never reach a quote.
    assert "Last change" not in text and "vim:tw" not in text
    for markup in ("*kettle", "|kettle", "|'kettlesize'|", " >\n", "\n<", "~"):
        assert markup not in text, markup
    assert "See 'kettlesize'." in text
    # Numbered headings open sections; a command or an option is an item under one.
    assert section_of(doc, "Boil without asking") == "1. Commands > :Boil!"
    assert section_of(doc, "Pour the kettle into") == "1. Commands > :Pour {cup}"
    assert section_of(doc, "How many litres") == "2. Options > 'kettlesize' 'ks'"
    # An entry named on lines of their own, its text indented below them.
    assert section_of(doc, "Let the kettle cool") == "1. Commands > :Cool[!]"
    # Anchors label the entry below them, and open its section: "E991" finds ":Pour".
    assert section_of(doc, "E990 E991") == "1. Commands > :Pour {cup}"
    assert section_of(doc, "CTRL-K_c E992") == "1. Commands > :Cool[!]"
    assert "CTRL-K_c E992\n\n:Cool[!]\nCTRL-K c\n" in text  # the entry's own, above it
    roles = {text[a:b]: role for a, b, role in doc.roles}
    assert roles["KETTLE PLUGIN MANUAL\t  by Nobody in Particular"] == "notice"
    assert roles["E990 E991"] == "heading"  # an anchor line labels the item after it
    assert roles[":Boil!"] == "term" and roles["'kettlesize' 'ks'"] == "term"
    assert roles[":Cool[!]"] == "term" and roles["CTRL-K c"] == "term"
    assert roles["\tnnoremap <Leader>p :Pour left<CR>:Pour right<CR>"[1:]] == "code"
    assert roles["key\t\teffect"] == "heading"
    # The table of contents' lines are no items.
    assert not any(name.endswith("2. Options") and ">" in name for _, _, name in doc.sections)


def test_an_answer_names_the_command_it_quotes(tmp_path: Path) -> None:
    path = _write(tmp_path)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert not kb.ingest([path]).failed
        answer = Agent(kb).ask("How can I boil the kettle without being asked first?")
        assert answer.citations, answer.text
        first = answer.citations[0]
        stored = kb.document_text(str(answer.search_documents[0].document["id"]))
        assert stored is not None and first.start_char is not None
        assert stored[first.start_char:first.end_char] == first.excerpt
        assert first.excerpt.startswith("Boil without asking"), first.excerpt
        # "!" ends the command's name as it would a sentence: the term is said with it.
        assert answer.text.startswith(":Boil!: Boil without asking"), answer.text


def test_indented_columns_are_a_table(tmp_path: Path) -> None:
    path = tmp_path / "evim.txt"
    path.write_text("*evim.txt*\tFor Vim version 9.0.\n\nEasy Vim\n\nThese are set:\n\n"
                    "\t:set hidden\t\tKeep invisible buffers loaded\n"
                    "\t:set backup\t\tKeep backup files\n\nAnd then more prose.\n",
                    encoding="utf-8")
    doc = load(path)
    [(a, b)] = [(a, b) for a, b, role in doc.roles if role == "table"]
    assert doc.text[a:b] == ":set hidden\t\tKeep invisible buffers loaded\n\t:set backup\t\tKeep backup files"


def test_a_first_paragraph_is_no_title_and_a_modeline_after_words_goes(tmp_path: Path) -> None:
    """Review of the loader (2026-12-04): change.txt's title was the first line of its
    first paragraph, which a blank line then split; usr_*.txt end with "Copyright: see
    |manual-copyright|  vim:tw=78:…:ft=help:norl:", and the modeline stayed."""
    path = tmp_path / "change.txt"
    path.write_text("*change.txt*\tFor Vim version 9.0.\n\n\n\t\t  VIM REFERENCE MANUAL\n\n"
                    "This file describes commands that delete or change text.  In this\n"
                    "context, changing text means deleting the text and replacing it.\n\n"
                    "Copyright: see |manual-copyright|  vim:tw=78:ts=8:noet:ft=help:norl:\n",
                    encoding="utf-8")
    doc = load(path)
    assert doc.title == "change"  # the file's name: no line stands alone as a title
    assert "In this\ncontext, changing text" in doc.text
    assert doc.text.rstrip().endswith("Copyright: see manual-copyright")


def test_prose_tables_and_long_lines_are_no_items(tmp_path: Path) -> None:
    """A tab inside a sentence that goes on from the line above, a line of contents with an
    anchor after its link, and a "<Tab>>" that is a "greater than" in a table are no items
    and open no example; a line of 200,000 characters is read in one pass (the patterns
    are linear: this file would take hours if one were not)."""
    long = "x" + " " * 100_000 + "\ty" + "b" * 100_000
    path = tmp_path / "arabic.txt"
    path.write_text("*arabic.txt*\tFor Vim version 9.0.\n\nArabic\n\n"
                    "3. Simple changes\t\t|simple-change|\t\t*changing*\n\n"
                    "To use it a number of special\nfeatures are required.\tCharacters go here.\n\n"
                    "\tchar\tmeaning\n\tx\t\t\t\t>\n"
                    "Not an example, at the margin.\n\n" + long + "\n", encoding="utf-8")
    doc = load(path)
    assert doc.sections == []
    assert not any(role == "code" for _, _, role in doc.roles)
    assert doc.text.endswith("b" * 100_000)
