"""An answer quoting a definition names the term it defines.

New-user review of the zsh 5.9 manual (texinfo HTML, 2026-12-04): a reference's entries
are ``<dt>`` terms over ``<dd>`` descriptions, and the quote was the description alone —
"Which prompt escape shows the time with seconds?" was answered "Current time of day in
24-hour format, with seconds." without the ``%*`` it describes. The answer now reads
"%*: Current time of day …", and verification cites the term with the sentence where the
label carries words the sentence lacks. The citation stays verbatim at its offsets.
"""

from __future__ import annotations

from pathlib import Path

from citewise import Agent, KnowledgeBase

ZSH = """<html><body><h3>13.2.4 Date and time</h3>
<dl compact="compact">
<dt><span><code>%D</code></span></dt>
<dd><p>The date in yy-mm-dd format.</p></dd>
<dt><span><code>%T</code></span></dt>
<dd><p>Current time of day, in 24-hour format.</p></dd>
<dt><span><code>%*</code></span></dt>
<dd><p>Current time of day in 24-hour format, with seconds.</p></dd>
</dl></body></html>"""

GUCS = """<html><body><h2>20.4. Resource Consumption</h2>
<div class="variablelist"><dl class="variablelist">
<dt><span class="term"><code class="varname">shared_buffers</code> (<code class="type">integer</code>)
</span></dt>
<dd><p>Sets the amount of memory the database server uses for shared memory buffers. The
default is typically 128 megabytes.</p></dd>
<dt><span class="term"><code class="varname">temp_buffers</code> (<code class="type">integer</code>)
</span></dt>
<dd><p>Sets the maximum amount of memory used for temporary buffers within each database
session. The default is eight megabytes.</p></dd>
</dl></div></body></html>"""


def _ask(tmp_path: Path, name: str, html: str, question: str) -> tuple[str, Agent, object]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / name).write_text(html, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask(question)
        text = kb.document_text(answer.search_documents[0].document["id"]) or ""
    return text, answer, None


def test_the_answer_names_the_prompt_escape_it_quotes(tmp_path: Path) -> None:
    text, answer, _ = _ask(tmp_path, "Prompt-Expansion.html", ZSH,
                           "Which prompt escape shows the time of day with seconds?")
    assert "%*: Current time of day in 24-hour format, with seconds." in answer.text
    codes = {i.code for i in answer.issues}
    assert not codes & {"unsupported_claim", "no_answer_in_sources", "off_topic_evidence"}
    first = answer.citations[0]
    assert "with seconds" in first.excerpt
    doc = answer.search_documents[first.document_index - 1]
    base = doc.snippets[first.snippet_index or 0].source.start_char  # type: ignore[union-attr]
    assert text[base + first.start_char:base + first.end_char] == first.excerpt


def test_a_term_with_words_of_its_own_is_cited_with_its_sentence(tmp_path: Path) -> None:
    _, answer, _ = _ask(tmp_path, "runtime-config-resource.html", GUCS,
                        "What does the temp_buffers setting control?")
    assert answer.text.startswith("temp_buffers (integer): ")
    assert answer.citations
    # The label's own words ("temp_buffers", "integer") are borne out by the term line.
    assert "temp_buffers" in answer.citations[0].excerpt
    assert not {i.code for i in answer.issues} & {"unsupported_claim", "no_answer_in_sources"}


CMAKE = """<html><body><section><h2>Options</h2>
<dl class="std option"><dt class="sig sig-object std" id="cmdoption-cmake-fresh">
<span class="sig-name descname"><span class="pre">--fresh</span></span></dt>
<dd><div class="versionadded"><p><span class="versionmodified added">New in version
3.24.</span></p></div>
<p>Perform a fresh configuration of the build tree. This removes any existing
CMakeCache.txt file and associated CMakeFiles/ directory, and recreates them from
scratch.</p></dd></dl>
<dl class="std option"><dt class="sig sig-object std" id="cmdoption-cmake-trace">
<span class="sig-name descname"><span class="pre">--trace</span></span></dt>
<dd><p>Put cmake in trace mode. It prints a trace of all calls made and from where.</p></dd>
</dl></section></body></html>"""


def test_a_later_sentence_that_leans_on_the_term_is_named_with_it(tmp_path: Path) -> None:
    """CMake's manual (new-user review, 2026-12-04): "This removes any existing
    CMakeCache.txt file …", two sentences under ``--fresh``, was the whole answer to "how do
    I reconfigure from scratch?" — the option the user needs was never said."""
    _, answer, _ = _ask(tmp_path, "cmake.1.html", CMAKE,
                        "How do I throw away CMakeCache.txt and CMakeFiles and recreate them "
                        "from scratch?")
    assert answer.citations, answer.text
    assert "--fresh: " in answer.text and "This removes any existing" in answer.text, answer.text


def test_the_term_is_not_said_of_a_paragraph_after_its_definition(tmp_path: Path) -> None:
    """Review of the change above: "It is safe to combine any of the options above …", a
    paragraph after the definition list, was answered as "--trace: It is safe …"."""
    after = CMAKE.replace("</dl></section>", "</dl><p>It is safe to combine any of the "
                          "options above with a preset of your own.</p></section>")
    _, answer, _ = _ask(tmp_path, "cmake.1.html", after,
                        "Is it safe to combine the options above with a preset of my own?")
    assert "It is safe to combine" in answer.text, answer.text
    assert "--trace: It is safe" not in answer.text and "--fresh: It is" not in answer.text


CLICK = """<html><body><section><h2>Built-in Types</h2>
<dl>
<dt><code class="docutils literal notranslate"><span class="pre">str</span></code> / <a
class="reference internal"
href="api.html#click.STRING"><code class="xref py py-data docutils literal notranslate"><span
class="pre">click.STRING</span></code></a>:</dt><dd><p>The default parameter type which
indicates unicode strings.</p></dd>
<dt><code class="docutils literal notranslate"><span class="pre">bool</span></code> / <a
class="reference internal"
href="api.html#click.BOOL"><code class="xref py py-data docutils literal notranslate"><span
class="pre">click.BOOL</span></code></a>:</dt><dd><p>A parameter that accepts boolean values.
This is automatically used for boolean flags.</p></dd>
</dl></section></body></html>"""


def test_a_term_ending_in_a_colon_gets_no_second_one(tmp_path: Path) -> None:
    """Click's manual (new-user review, 2026-12-05): Sphinx's definition terms end in their
    own colon, and the answer read "bool / click.BOOL:: A parameter that accepts …"."""
    _, answer, _ = _ask(tmp_path, "parameters.html", CLICK,
                        "What kind of values does the click.BOOL type accept?")
    assert "bool / click.BOOL: A parameter that accepts boolean values." in answer.text, \
        answer.text
    assert "::" not in answer.text
    assert not {i.code for i in answer.issues} & {"unsupported_claim", "no_answer_in_sources"}


LILYPOND = """<html><body><h2>3.3 Music fragment options</h2><dl compact="compact">
<dt><code>ragged-right</code></dt>
<dd><p>Produce ragged-right lines with natural spacing.</p></dd>
<dt> <code>line-width</code></dt>
<dt> <code>line-width=<var>size</var>\\<var>unit</var></code></dt>
<dd><p>Set line width to size (expressed in unit).</p></dd>
</dl></body></html>"""


def test_two_terms_over_one_description_are_named_apart(tmp_path: Path) -> None:
    """LilyPond's review (2026-12-06): "line-width line-width=size\\unit: Set line width …"
    ran a term's two spellings together as one name."""
    _, answer, _ = _ask(tmp_path, "music-fragment-options.html", LILYPOND,
                        "How do I set the line width of a music snippet?")
    assert "line-width, line-width=size\\unit: Set line width to size (expressed in unit)." \
        in answer.text, answer.text
    assert not {i.code for i in answer.issues} & {"unsupported_claim", "no_answer_in_sources"}
    assert answer.citations[0].excerpt == "Set line width to size (expressed in unit)."


RESOURCES = """<html><body><h2>Environment Variables</h2><table>
<tr><td>MAGICK_MAP_LIMIT</td><td>Set maximum amount of memory map in bytes to allocate for the
pixel cache. When this limit is exceeded, the image pixels are cached to disk.</td></tr>
<tr><td>MAGICK_THREAD_LIMIT</td><td>Set maximum parallel threads. Many algorithms run in
parallel. Use this environment variable to set the maximum number of threads that are
permitted to run in parallel.</td></tr>
</table></body></html>"""

TARGETS = """<html><body><h2>Targets</h2><table><tr><th>Attribute</th><th>Description</th>
<th>Required</th></tr><tr><td>onMissingExtensionPoint</td><td>What to do if this target
tries to extend a missing extension-point. (<q>fail</q>, <q>warn</q>, <q>ignore</q>).
<em>since Ant 1.8.2</em>.</td><td>No; not allowed unless extensionOf is present, defaults
to <q>fail</q>.</td></tr></table></body></html>"""


def test_a_rows_later_sentence_is_named_by_the_rows_first_cell(tmp_path: Path) -> None:
    """ImageMagick's review (2026-12-06): "Use this environment variable to set the maximum
    number of threads …" was the answer to "which environment variable …", the row's
    MAGICK_THREAD_LIMIT never named."""
    _, answer, _ = _ask(tmp_path, "resources.html", RESOURCES,
                        "Which environment variable sets the most threads that may run in "
                        "parallel?")
    assert answer.text.startswith("MAGICK_THREAD_LIMIT: Use this environment variable"), \
        answer.text
    assert not {i.code for i in answer.issues} & {"unsupported_claim", "no_answer_in_sources"}
    assert "Use this environment variable to set the maximum" in answer.citations[0].excerpt


def test_a_first_cell_far_back_names_no_sentence_that_would_not_verify(tmp_path: Path) -> None:
    """Named by a first cell three sentences back, Ant's answer became an unsupported claim
    and the answer a decline (bench an07): such a sentence is quoted as it stands."""
    _, answer, _ = _ask(tmp_path, "targets.html", TARGETS,
                        "What does onMissingExtensionPoint default to if I leave it out?")
    assert "defaults to “fail”" in answer.text and not answer.text.startswith(
        "onMissingExtensionPoint:"), answer.text
    assert not {i.code for i in answer.issues} & {"unsupported_claim", "no_answer_in_sources"}


def test_a_term_that_reads_as_a_list_bullet_keeps_it(tmp_path: Path) -> None:
    """Lynx's keystroke help has a term "+ or - (jump)"; its "+" was taken for a list
    bullet twice: the quote began "or - (jump)", and the answer's Markdown line "+ or - …"
    would read as a list item (review, 2026-12-07). The term is quoted whole and set in
    code, and the plain text keeps its "+"."""
    (tmp_path / "follow_help.html").write_text(
        "<html><head><title>Following links</title></head><body><h1>Suffixes</h1><dl>"
        "<dt>g (go)</dt><dd>If the number entered is followed by a g, the link is made "
        "current but not activated.</dd><dt>+ or - (jump)</dt><dd>Finally, a user may add a "
        "+ or - suffix to a number command to indicate jumping forward or back relative to "
        "the current link or page.</dd><dt>RETURN (activate)</dt><dd>Without a suffix, the "
        "link with that number is activated.</dd></dl></body></html>")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "follow_help.html"])
        answer = Agent(kb).ask(
            "How do I jump forward relative to the current link with a number command?")
    assert answer.text.startswith("`+ or - (jump)`: Finally, a user may add"), answer.text
    assert answer.text_plain.startswith("+ or - (jump): Finally, a user may add")
    assert [c.status for c in answer.claims] == ["supported"]
