"""A lead-in quoted as the answer ("… by running the command cargo fix:") is quoted with
the one line of code it introduces: without it the answer stops at the colon (CMake and
Rust reviews; 14 of the bench's labels are such lead-ins). The code is a claim of its
own, cited and verified, and its excerpt is the code, not the fences around it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests._answers import ask_over

from citewise.models.sentence_candidates import candidates

LEAD = "We can automatically apply that suggestion using the rustfix tool by running the command cargo fix:"

PAGE = f"""# Fixing warnings

The rustfix tool is included with Rust installations and can automatically fix compiler
warnings that have a clear way to correct the problem.

{LEAD}

```
$ cargo fix
```

When we look at src/main.rs again, we will see that cargo fix has changed the code.
"""


def _result(text: str, roles: list[list[Any]]) -> list[dict[str, Any]]:
    return [{"results": [{"document_index": 1, "text": text, "source": "a.md",
                          "title": "A", "roles": roles}]}]


def _lead(text: str, roles: list[list[Any]]) -> str:
    (lead,) = [s for s in candidates(_result(text, roles)) if s.text.endswith(":")]
    return lead.code


def test_a_lead_in_carries_the_one_line_of_code_after_it() -> None:
    lead = "To run the program with every warning on, give the compiler this option:"
    for block in ("gcc -Wall prog.c", "```sh\ngcc -Wall prog.c\n```"):
        text = f"{lead}\n\n{block}\n\nThen read the warnings."
        at = text.index(block)
        assert _lead(text, [[at, at + len(block), "code"]]) == "gcc -Wall prog.c", block
    # Up to three lines that each stand alone: commands, each quoted (WeeChat's review,
    # 2026-12-06: "… with these commands:" was quoted without its two). A program (a
    # line going on into the next, an indented one) or four lines: an example to read.
    for block in ("gcc -Wall prog.c\ngcc -Wextra prog.c",
                  "/secure set relay mypassword\n/set relay.network.password \"${sec.data}\""):
        text = f"{lead}\n\n{block}\n\nThen read the warnings."
        at = text.index(block)
        assert _lead(text, [[at, at + len(block), "code"]]) == block
    for block in ("int main() {\n  return 0;\n}", "a\nb\nc\nd",
                  "for f in *.c; do\n  gcc $f\ndone", "cc -o x \\\n  x.c"):
        text = f"{lead}\n\n{block}\n\nThen read the warnings."
        at = text.index(block)
        assert _lead(text, [[at, at + len(block), "code"]]) == "", block
    text = f"{lead}\n\nThe option is -Wall, which turns on most warnings."
    assert _lead(text, []) == ""  # prose after it
    text = f"{lead}\n\ngcc -Wall prog.c"
    at = text.index("gcc")
    assert _lead(text, [[at, len(text), "code"]]) == ""  # the passage may cut it off
    text = f"{lead}\n\nprint(sys.argv[1])\n\nThen read the warnings."
    at = text.index("print")
    block = "print(sys.argv[1])"
    assert _lead(text, [[at, at + len(block), "code"]]) == ""  # "[1]" would be a marker


def test_the_answer_quotes_the_code_and_cites_it_without_fences(tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"fixing.md": PAGE},
                      "Which command applies the suggestion using rustfix?")
    assert answer.text == f"{LEAD} [1]\n\n`$ cargo fix` [1]"
    assert [c.excerpt for c in answer.citations] == [LEAD, "$ cargo fix"]
    assert [c.status for c in answer.claims] == ["supported", "supported"]
    code = answer.citations[1]
    assert code.start_char is not None and PAGE[code.start_char:code.end_char] == "$ cargo fix"
    assert not answer.issues


def test_items_listed_without_bullets_are_quoted_one_by_one(tmp_path: Path) -> None:
    # cppreference lists strcpy_s's runtime checks as a <ul> without full stops: stored one
    # item a line, no bullets, they were one sentence to the splitter and quoted as one
    # ("src or dest is a null pointer destsz is zero or greater than RSIZE_MAX …"; new-user
    # review, 2026-12-04).
    page = ("<html><body><main><h1>strcpy, strcpy_s</h1><p>Same as strcpy, except that the "
            "following errors are detected at runtime and call the currently installed "
            "constraint handler function:</p><ul><li>src or dest is a null pointer</li>"
            "<li>destsz is zero or greater than RSIZE_MAX</li><li>overlap would occur between "
            "the source and the destination strings</li></ul><p>The behavior is undefined if "
            "the strings overlap.</p></main></body></html>")
    answer = ask_over(tmp_path, {"strcpy.html": page},
                      "Which runtime error does strcpy_s detect for a zero destsz?")
    first = answer.citations[0]
    assert first.excerpt == "destsz is zero or greater than RSIZE_MAX"
    assert answer.claims[0].text == "destsz is zero or greater than RSIZE_MAX"
    assert "null pointer" not in answer.text


def test_a_tables_rows_are_quoted_one_by_one(tmp_path: Path) -> None:
    # GLib's enum tables (gtk-doc): a row without a full stop ran into the next one, and
    # "G_KEY_FILE_NONE | No flags, default behaviour | G_KEY_FILE_KEEP_COMMENTS | Use this
    # flag …" was one quote (new-user review, 2026-12-05).
    page = ("<html><body><main><h1>Key-value file parser</h1><h3>enum GKeyFileFlags</h3>"
            "<p>Flags which influence the parsing.</p><table><tr><td>G_KEY_FILE_NONE</td>"
            "<td>No flags, default behaviour</td></tr><tr><td>G_KEY_FILE_KEEP_COMMENTS</td>"
            "<td>Use this flag if you plan to write the contents of the key file back to a "
            "file; otherwise all comments will be lost.</td></tr></table></main></body></html>")
    answer = ask_over(tmp_path, {"keyfile.html": page},
                      "Which key file flag keeps the comments when I write the file back?")
    first = answer.citations[0]
    assert first.excerpt.startswith("G_KEY_FILE_KEEP_COMMENTS"), first.excerpt
    assert "G_KEY_FILE_NONE" not in first.excerpt and "No flags" not in answer.text


def test_a_code_block_is_its_code_without_its_fences() -> None:
    from citewise.grounding.claims import unfenced

    block = "```sh\n  gcc -Wall prog.c\n```"
    assert block[slice(*unfenced(block, 0, len(block)))] == "gcc -Wall prog.c"
    assert unfenced(block, 0, len(block) - 3) == (0, len(block) - 3)  # its closing cut off
    assert unfenced("~~~\n\n~~~", 0, 9) == (0, 9)  # nothing inside
    prose = "One line.\nTwo lines.\nThree."
    assert unfenced(prose, 0, len(prose)) == (0, len(prose))


def test_a_labelled_quote_is_cited_by_the_sentence_it_quotes(tmp_path: Path) -> None:
    # Erlang's ets reference (new-user review, 2026-12-05): the answer "protected: Other
    # processes can only read the table. [1]" was cited by "Any process can read or write
    # to the table.\n\nprotected" — as like the claim in words, and holding its label — and
    # the claim was "supported". A quote is cited by the window that holds it word for word.
    page = ("<html><body><main><h1>ets</h1><h3>new(Name, Options)</h3><p>Creates a new "
            "table.</p><dl><dt>public</dt><dd><p>Any process can read or write to the table."
            "</p></dd><dt>protected</dt><dd><p>The owner process can read and write to the "
            "table. Other processes can only read the table. This is the default setting for "
            "the access rights.</p></dd><dt>private</dt><dd><p>Only the owner process can "
            "read or write to the table.</p></dd></dl></main></body></html>")
    answer = ask_over(tmp_path, {"ets.html": page},
                      "If I don't pass any access option to ets:new, who can read and write "
                      "the table?")
    assert answer.claims and answer.citations, answer.text
    for occurrence in answer.citations:
        assert occurrence.claim_index is not None
        claim = answer.claims[occurrence.claim_index].text
        quoted = claim.split(": ", 1)[-1] if ": " in claim[:40] else claim
        excerpt = " ".join((occurrence.excerpt or "").split())
        assert " ".join(quoted.split()) in excerpt, (claim, excerpt)


def test_a_tables_first_row_is_cut_the_same_whatever_precedes_the_table() -> None:
    from citewise.sentences import row_starts

    for intro in ("Use a | b pipes.\n", "Plain intro.\n"):
        text = intro + "Table 1: Flags\nG_NONE | No flags\nG_KEEP | Keep"
        a = text.index("Table 1")
        assert row_starts(text, [(a, len(text), "table")]) == {text.index("G_KEEP")}, intro


def test_a_lead_in_is_quoted_with_the_commands_it_introduces(tmp_path: Path) -> None:
    """WeeChat's user guide (review 2026-12-06): "It is highly recommended to set a
    password for relay, with these commands:" was the whole answer, its two commands not
    quoted. Each command is a claim of its own, cited and verified at its offsets."""
    lead = "It is highly recommended to set a password for relay, with these commands:"
    page = (f"# Relay\n\n## Password\n\n{lead}\n\n```\n/secure set relay mypassword\n"
            "/set relay.network.password \"${sec.data.relay}\"\n```\n\nThis password is used "
            "for irc and weechat protocols.\n")
    answer = ask_over(tmp_path, {"relay.md": page}, "how do I set a password on the relay")
    assert answer.text.startswith(
        f"{lead} [1]\n\n- `/secure set relay mypassword` [1]\n"
        "- `/set relay.network.password \"${sec.data.relay}\"` [1]"), answer.text
    cited = [(c.excerpt, page[c.start_char:c.end_char]) for c in answer.citations
             if c.start_char is not None]
    assert ("/secure set relay mypassword", "/secure set relay mypassword") in cited
    assert all(c.status == "supported" for c in answer.claims[:3]), answer.claims


def test_a_sentence_the_code_completes_carries_it_too() -> None:
    """Asymptote's manual (a PDF) sets its commands on lines of their own inside the
    sentence: "To uninstall all Asymptote files installed from a source distribution, use
    the command" / "make uninstall". The quote stopped before the command (review,
    2026-12-07)."""
    lead = "To uninstall all Asymptote files installed from a source distribution, use the command"
    text = f"{lead}\n\nmake uninstall\n\nThis removes the files the install wrote."
    at = text.index("make uninstall")
    roles = [[at, at + len("make uninstall"), "code"]]
    (first,) = [s for s in candidates(_result(text, roles)) if s.text == lead]
    assert first.code == "make uninstall"
    # A list item, a caption or a version ends in a word that leaves nothing open: the code
    # after it is no part of it (code review, 2026-12-07).
    for said in ("- The zlib development headers installed", "This feature was added in "
                 "version 3", "Figure 3 The overall architecture of the ingest pipeline"):
        other = f"{said}\n\nmake uninstall\n\nThis removes the files the install wrote."
        at = other.index("make uninstall")
        found = [s for s in candidates(_result(other, [[at, at + 14, "code"]]))
                 if s.text.endswith(said.split()[-1])]
        assert found and all(s.code == "" for s in found), said
    # A sentence with its full stop introduces nothing: the code is an example of its own.
    done = f"{lead} below.\n\nmake uninstall\n\nThis removes the files the install wrote."
    at = done.index("make uninstall")
    (said,) = [s for s in candidates(_result(done, [[at, at + 14, "code"]]))
               if s.text.startswith("To uninstall")]
    assert said.code == ""


def test_an_answer_written_as_a_list_keeps_the_code_its_lead_in_introduces(
        tmp_path: Path) -> None:
    """Two quotes without a full stop make the answer a list, and a lead-in's commands were
    left out of it: "- To uninstall all Asymptote files …, use the command [1]" and no
    `make uninstall` (Asymptote's review, 2026-12-07). Each command is an item under its
    lead-in, cited and verified like the prose answer's."""
    from citewise.grounding.claims import plain_text
    from citewise.models.quote_writing import Quote, render

    lead = "To uninstall all Asymptote files installed from a source distribution, use the command"
    other = "To compile and install from the source release, execute the commands:"
    text = "".join(render([
        Quote(1.0, 1, other, code="./configure\nmake all\nmake install"),
        Quote(0.9, 1, lead, code="make uninstall")]))
    assert text == (f"- {other} [1]\n  - `./configure` [1]\n  - `make all` [1]\n"
                    f"  - `make install` [1]\n- {lead} [1]\n  - `make uninstall` [1]")
    assert "make uninstall" in plain_text(text).split("\n")
    # Over a real knowledge base, each command is a claim, verified at its offsets.
    from citewise import Agent, KnowledgeBase
    from citewise.models.scripted import ScriptedModel, call

    page = (f"# Installation\n\n{other}\n\n```\n./configure\nmake all\nmake install\n```\n\n"
            f"The files go under /usr/local.\n\n{lead}\n\n```\nmake uninstall\n```\n\n"
            "Nothing else is left behind.\n")
    (tmp_path / "install.md").write_text(page, encoding="utf-8")
    question = "How do I install and uninstall from source?"
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "install.md"])
        model = ScriptedModel([call("search_knowledge", query=question, k=5), text])
        answer = Agent(kb, model=model, provenance=False).ask(question)
    claims = [(c.text, c.status) for c in answer.claims]
    assert ("make uninstall", "supported") in claims and ("./configure", "supported") in claims
    assert all(status == "supported" for _, status in claims) and not answer.issues, claims


BOOLEANS = ("<html><body><main><h1>Configuration Files</h1><h2>Configuration File Syntax</h2>"
            "<p>Configuration files are read with Python's ConfigParser module.</p><p>For "
            "on/off switch settings (booleans), the following values are recognized:</p>"
            "<table><tr><td>On:</td><td>\"true\", \"yes\", \"on\", \"1\"</td></tr><tr><td>Off:"
            "</td><td>\"false\", \"no\", \"off\", \"0\", \"\" (no value)</td></tr></table><p>"
            "List values can be comma- or colon-delimited.</p><h2>Other</h2><p>Another "
            "paragraph about the stylesheet setting and its delimiters.</p></main></body></html>")


def test_a_lead_in_is_quoted_with_the_short_table_it_introduces(tmp_path: Path) -> None:
    """Docutils' configuration page (new-user review, 2026-12-07, du07): "For on/off switch
    settings (booleans), the following values are recognized:" was the whole answer to
    which values mean off, the two rows under it never quoted. The rows are its items,
    each cited alone."""
    answer = ask_over(tmp_path, {"config.html": BOOLEANS},
                      "Which values switch a boolean setting off in a config file?")
    off = 'Off: | "false", "no", "off", "0", "" (no value)'
    assert f"- {off} [1]" in answer.text, answer.text
    assert off in [c.excerpt for c in answer.citations]
    # A table that is a page of its own (longer than a list to quote) stays a passage.
    rows = "".join(f"<tr><td>k{i}:</td><td>value number {i}</td></tr>" for i in range(12))
    long = BOOLEANS.replace("</tr></table>", f"</tr>{rows}</table>")
    lead = "For on/off switch settings (booleans), the following values are recognized:"
    found = [s for s in candidates(_result(*_stored(tmp_path, long))) if s.text == lead]
    assert found and found[0].items == ()
    # A header row is no item, and a row with an empty last cell is one (code review).
    header = ("<tr><th>Setting</th><th>Values</th></tr><tr><td>On:</td>")
    texts = _stored(tmp_path, BOOLEANS.replace("<tr><td>On:</td>", header).replace(
        "</table>", "<tr><td>Unset:</td><td></td></tr></table>"))
    (found,) = [s for s in candidates(_result(*texts)) if s.text == lead]
    assert found.items[0].startswith("On: |") and len(found.items) == 3, found.items
    # A table whose rows all read as titles keeps them all (the second code review).
    modes = "Debug Mode | Enabled\nVerbose Mode | Disabled\nQuiet Mode | Disabled\n"
    lead = "The logging modes that the daemon understands are these ones:"
    text = f"{lead}\n\n{modes}\nMore text after."
    at = text.index("Debug")
    rows = [[at, at + len(modes) - 1, "table"]]
    (found,) = [s for s in candidates(_result(text, rows)) if s.text == lead]
    assert found.items == ("Debug Mode | Enabled", "Verbose Mode | Disabled",
                           "Quiet Mode | Disabled")


def _stored(tmp_path: Path, page: str) -> tuple[str, list[list[Any]]]:
    """``page``'s text and role spans as the HTML loader stores them."""
    from citewise.knowledge.loaders.html import HtmlLoader

    doc = HtmlLoader().load(tmp_path / "long.html", page.encode())
    return doc.text, [list(r) for r in doc.roles]
