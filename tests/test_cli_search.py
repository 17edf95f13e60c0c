"""``citewise search``: the passages a query finds, on a knowledge base made by ``citewise
ingest`` — the HTTP API's JSON shape, tenant and source filters, exact offsets, and typed
one-line errors (new-user reviews, 2026-12-05, reached for it and found no such command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.cli.main import main
from citewise.server.schemas import SearchResponse


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "tents.md").write_text("# Tents\n\nAir tents daily after rain.\n\n## Poles\n\n"
                                  "Carry two spare poles on every trip.\n")
    (src / "stoves.txt").write_text("Light stoves outdoors only. Spare poles do not burn.\n")
    (src / "acme.txt").write_text("Acme carries spare poles in its canoes.\n")
    kb = tmp_path / "kb"
    for args in ([str(src / "tents.md"), str(src / "stoves.txt")],
                 [str(src / "acme.txt"), "--tenant", "acme"]):
        code, _, err = run(capsys, "ingest", *args, "--data-dir", str(kb))
        assert code == 0, err
    return kb


def test_search_prints_passages_best_first_with_their_place(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "spare poles", "--data-dir", str(data))
    assert code == 0, err
    blocks = out.split("\n[")
    assert out.startswith("[1] ") and blocks[1].startswith("2] ")
    assert "tents.md — Tents > Poles — line 5  (fused score " in blocks[0]
    assert "Carry two spare poles on every trip." in out and "Acme" not in out


def test_search_json_is_the_http_shape_with_exact_offsets(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "spare poles", "-k", "1", "--json",
                         "--source", "*.txt", "--data-dir", str(data))
    assert code == 0, err
    hits = SearchResponse.model_validate(json.loads(out)).hits
    assert len(hits) == 1 and hits[0].source.endswith("stoves.txt")
    text = Path(hits[0].source).read_text()
    assert text[hits[0].start_char:hits[0].end_char] == hits[0].text
    code, out, err = run(capsys, "search", "canoes", "--tenant", "acme", "--json",
                         "--data-dir", str(data))
    assert [h["source"].rsplit("/", 1)[-1] for h in json.loads(out)["hits"]] == ["acme.txt"]


def test_search_errors_are_one_line_with_a_code(tmp_path: Path, data: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "poles", "--data-dir", str(tmp_path / "none"))
    assert code == 2 and err.strip().endswith("[no_knowledge_base]") and not out
    code, _, err = run(capsys, "search", "poles", "-k", "0", "--data-dir", str(data))
    assert code == 2 and err.strip().endswith("[invalid_k]")
    code, _, err = run(capsys, "search", "   ", "--data-dir", str(data))
    assert code == 2 and err.strip().endswith("[empty_query]")
    # A word no passage has finds nothing by words (by meaning, the nearest passages).
    code, out, _ = run(capsys, "search", "zeppelin", "--mode", "lexical", "--data-dir", str(data))
    assert code == 0 and out == "no passage found\n"


def test_a_source_that_names_no_document_is_said_with_the_ones_named_alike(
        data: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Sphinx's review (2026-12-06): ``--source quickstart.html`` from another folder than
    the one ingested from printed "no passage found" and nothing else; the relative path
    was read from the current folder, as ingest reads it."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "search", "poles", "--source", "tents.md",
                         "--data-dir", str(data))
    assert code == 0 and out == "no passage found\n"
    assert f"no document's source is {tmp_path / 'tents.md'}" in err
    assert f"documents named tents.md: {tmp_path / 'src' / 'tents.md'}" in err
    code, out, err = run(capsys, "search", "poles", "--source", "src/tents.md",
                         "--data-dir", str(data))
    assert code == 0 and "Carry two spare poles" in out and not err
    # A document that is there but holds no match: nothing to say about its name.
    code, out, err = run(capsys, "search", "zeppelin", "--mode", "lexical", "--source",
                         "src/tents.md", "--data-dir", str(data))
    assert out == "no passage found\n" and not err


def test_search_does_not_wrap_inside_a_hyphenated_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """diffutils' review (2026-12-05) copied "--ignore-space-\\nchange" out of the output."""
    src = tmp_path / "diff.txt"
    options = [f"--ignore-{'space-' * (i % 4)}change-{i}" for i in range(40)]
    src.write_text("To ignore white space use " + ", ".join(options) + ".\n")
    code, _, err = run(capsys, "ingest", str(src), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    code, out, err = run(capsys, "search", "white space", "--full", "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    shown = {w.strip(",.") for w in out.split()}
    assert all(option in shown for option in options[:12]), out  # the passage's first lines


def test_an_html_pages_passage_says_its_element_not_a_line_of_extracted_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"line 89" of an HTML page's stored text was line 442 of the page (GIMP's review,
    2026-12-06): a page's passage says the element it is at, as a citation does."""
    page = tmp_path / "poles.html"
    page.write_text("<html><head><title>Poles</title></head><body>\n\n\n\n<h1>Poles</h1>"
                    "<p>Intro.</p>\n\n\n<h2 id='spares'>Spares</h2>\n\n<p>Carry two spare "
                    "poles on every trip.</p></body></html>")
    code, _, err = run(capsys, "ingest", str(page), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    code, out, err = run(capsys, "search", "spare poles", "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    first = out.splitlines()[0]
    assert "poles.html — Poles > Spares — #spares  (fused score " in first, first
    assert "line " not in out


def test_a_tables_rows_and_a_lists_items_are_printed_one_to_a_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Plain output ran a passage's lines together: "Loop forever When this option is
    checked … Frame rate …" read as one sentence (GIMP's and Mutt's reviews, 2026-12-06)."""
    page = tmp_path / "anim.html"
    page.write_text("<html><head><title>Playback</title></head><body><h1>Playback</h1>"
                    "<table><tr><th>Option</th><th>Meaning</th></tr>"
                    "<tr><td>Loop forever</td><td>Replays the animation without end.</td></tr>"
                    "<tr><td>Frame rate</td><td>Frames shown each second.</td></tr></table>"
                    "<p>Playback shows each frame in turn.</p>"
                    "<ul><li>Press Space to pause.</li><li>Press Home to rewind.</li></ul>"
                    "</body></html>")
    code, _, err = run(capsys, "ingest", str(page), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    code, out, err = run(capsys, "search", "frame playback", "-k", "1", "--data-dir",
                         str(tmp_path / "kb"))
    assert code == 0, err
    lines = [line.strip() for line in out.splitlines()[1:]]
    rows = [line for line in lines if line.startswith(("Loop forever", "Frame rate"))]
    assert len(rows) == 2 and "Frames shown each second." in rows[1], out
    assert "Press Space to pause." in lines and "Press Home to rewind." in lines, out


def test_a_line_laid_out_in_columns_keeps_its_spacing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Lynx's keystroke help is a two-column table in a <pre>; run together, "+ (or SPACE,
    - If the bottom of the screen informs you" read as one phrase (review, 2026-12-07)."""
    page = tmp_path / "scrolling_help.html"
    page.write_text("<html><head><title>Scrolling</title></head><body><h1>Scrolling</h1><pre>\n"
                    "   + (or SPACE,   - If the bottom of the screen informs you\n"
                    "     or CTRL-F)     that there is more to see, you may\n"
                    "                    scroll down.  It moves a page down.\n"
                    "   b (or CTRL-B)  - Scroll back up by a page.\n</pre></body></html>")
    code, _, err = run(capsys, "ingest", str(page), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    code, out, err = run(capsys, "search", "scroll screen", "-k", "1", "--data-dir",
                         str(tmp_path / "kb"))
    assert code == 0, err
    lines = [line.strip() for line in out.splitlines()[1:]]
    assert "+ (or SPACE,   - If the bottom of the screen informs you" in lines, out
    assert "or CTRL-F)     that there is more to see, you may" in lines, out
    # Two spaces after a full stop are no column: that line reads as prose; nor after a
    # comma (code review, 2026-12-07).
    assert "scroll down. It moves a page down." in lines, out
    from citewise.cli.search import _body

    prose = "It reads /etc/app.conf,  then opens the port."
    assert _body(prose, full=True) == ["    It reads /etc/app.conf, then opens the port."]
    # A description continued under its column stays under it (Wireshark's editcap help,
    # review 2026-12-07: 25 spaces were printed as 16).
    help_text = ("  -A <start time>        only read packets whose timestamp is after (or equal\n"
                 "                         to) the given time.")
    first, second = _body(help_text, full=True)
    assert second.index("to)") == first.index("only read")
    # A line as wide as the width is no longer under the margin: it wraps (review).
    from citewise.cli.search import _WIDTH

    wide = "  -A <start time>        " + "only read packets whose timestamp is after" * 2
    assert all(len(line) <= _WIDTH for line in _body(wide[:_WIDTH], full=True))


def test_a_passages_score_is_named_for_what_it_is(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """BM25's unbounded score and hybrid search's fused 0..1 were both "score"."""
    code, out, _ = run(capsys, "search", "spare poles", "--mode", "lexical", "--data-dir",
                       str(data))
    assert code == 0 and "  (BM25 " in out.splitlines()[0]
    code, out, _ = run(capsys, "search", "spare poles", "--mode", "dense", "--data-dir",
                       str(data))
    assert code == 0 and "  (cosine " in out.splitlines()[0]


def test_a_long_passage_is_cut_to_its_first_lines_unless_full(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "steps.txt"
    src.write_text("".join(f"Step {i}: tighten bolt {i}.\n" for i in range(40)))
    code, _, err = run(capsys, "ingest", str(src), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    _, cut, _ = run(capsys, "search", "tighten bolt", "-k", "1", "--data-dir", str(tmp_path / "kb"))
    _, whole, _ = run(capsys, "search", "tighten bolt", "-k", "1", "--full", "--data-dir",
                      str(tmp_path / "kb"))
    assert cut.rstrip().endswith("…") and len(cut.splitlines()) <= 14, cut
    assert "Step 39: tighten bolt 39." in whole and not whole.rstrip().endswith("…")


def test_a_long_passage_is_shown_from_the_line_the_query_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Privoxy's option entries open with field labels; the 400 characters shown were all
    "Specifies: / Type of value: / Default value: …" and never the notes that answered
    (new-user review, 2026-12-07). The view starts where the query's words are."""
    src = tmp_path / "config.txt"
    labels = "".join(f"Field {i}:\nValue {i} of the entry.\n" for i in range(16))
    src.write_text(labels + "Notes: the CA key password is shown on the CGI page.\n")
    kb = str(tmp_path / "kb")
    code, _, err = run(capsys, "ingest", str(src), "--data-dir", kb)
    assert code == 0, err
    _, out, _ = run(capsys, "search", "is the CA key password shown", "-k", "1",
                    "--data-dir", kb)
    lines = out.splitlines()
    assert lines[1] == "    …" and "the CA key password is shown on the CGI page" in lines[2], out
    _, plain, _ = run(capsys, "search", "value of the entry", "-k", "1", "--data-dir", kb)
    assert plain.splitlines()[1] == "    Field 0:", plain  # the first lines name it: from the top
    # A short passage of many lines is cut at its twelfth: the row asked for is past it.
    rows = tmp_path / "rows.txt"
    rows.write_text("".join(f"o{i} | v{i}\n" for i in range(20)) + "timeout | 300 seconds\n"
                    + "".join(f"p{i} | w{i}\n" for i in range(10)))
    code, _, err = run(capsys, "ingest", str(rows), "--data-dir", kb)
    assert code == 0, err
    _, out, _ = run(capsys, "search", "timeout seconds", "-k", "1", "--data-dir", kb)
    assert "timeout | 300 seconds" in out.splitlines()[2], out


def test_a_wrapped_line_leaves_no_word_alone_under_it() -> None:
    """A line one word too long for the width was printed with that word on a line of its
    own, which read as a line of the document (Docker's review, 2026-12-07)."""
    import textwrap

    from citewise.cli.search import _WIDTH, _body

    words = ["The", "daemon", "retries", "a", "failed", "pull", "of", "an", "image", "from",
             "the", "registry,", "then", "it", "gives", "up"]

    def alone(line: str) -> bool:  # as a plain wrap at the width prints it
        rows = textwrap.wrap(line, width=_WIDTH, initial_indent="    ",
                             subsequent_indent="    ")
        return len(rows) == 2 and " " not in rows[1].strip()

    while not alone(line := " ".join(words)):
        assert len(line) < 2 * _WIDTH
        words.insert(0, "a")
    printed = _body(line, full=True)
    assert len(printed) == 2, printed
    assert all(len(row) <= _WIDTH for row in printed), printed
    assert " " in printed[-1].strip(), printed
    assert " ".join(" ".join(printed).split()) == line
    # A line that fits is one line still, and a long word alone is not cut.
    assert _body("Restart the container.", full=True) == ["    Restart the container."]
    assert _body("x" * 120, full=True) == ["    " + "x" * 120]
