"""The ``citewise`` command, run for real in a subprocess: ingest, ask, quickstart and
every error path (one line on stderr, non-zero exit, no traceback, nothing written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent
TOPICS = [
    ("aurora", "Auroras appear when charged particles from the Sun strike the upper atmosphere."),
    ("basalt", "Basalt forms when lava rich in iron and magnesium cools quickly at the surface."),
    ("compost", "Compost heaps need a mix of green and brown material and regular turning."),
    ("dolphins", "Bottlenose dolphins sleep with one half of the brain at a time."),
    ("espresso", "An espresso shot is brewed by forcing hot water through finely ground coffee."),
    ("fjords", "Fjords are long narrow inlets carved by glaciers and later flooded by the sea."),
    ("glass", "Soda-lime glass is made by melting sand, soda ash and limestone together."),
    ("honey", "Honey keeps for years because its low water content stops microbes growing."),
    ("ink", "Iron gall ink darkens as it oxidises on the page after writing."),
    ("jade", "The name jade covers two minerals, jadeite and nephrite."),
    ("kelp", "Giant kelp can grow up to half a metre in a single day."),
    ("lichen", "A lichen is a partnership between a fungus and an alga or cyanobacterium."),
    ("magnets", "Neodymium magnets lose strength when heated above their Curie temperature."),
    ("nettles", "Stinging nettles inject formic acid and histamine through hollow hairs."),
    ("opals", "Opals show colours because silica spheres inside them diffract light."),
    ("peat", "Peat bogs store more carbon per hectare than most forests."),
    ("quartz", "Quartz crystals vibrate at a steady frequency under an electric field."),
    ("rye", "Rye bread stays moist longer because rye flour holds more water."),
    ("saffron", "Saffron is harvested by hand from the stigmas of crocus flowers."),
    ("tides", "Spring tides happen when the Sun and the Moon line up with the Earth."),
]


def cli(*args: str, data_dir: Path | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "citewise", *args]
    if data_dir is not None:
        cmd += ["--data-dir", str(data_dir)]
    env = {**os.environ, "CITEWISE_DATA_DIR": str(data_dir or "/nonexistent-citewise")}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    for i, (name, sentence) in enumerate(TOPICS):
        ext = ".md" if i % 2 else ".txt"
        body = f"# {name.title()}\n\nSome background on {name}.\n{sentence}\nMore notes follow.\n"
        (folder / f"{name}{ext}").write_text(body, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Path:
    data = tmp_path_factory.mktemp("data")
    proc = cli("ingest", str(corpus), data_dir=data, check=True)
    assert "20" in proc.stdout
    return data


def test_ask_json_validates_and_cites_verbatim(kb_dir: Path) -> None:
    proc = cli("ask", "Why does honey keep for years?", "--json", data_dir=kb_dir, check=True)
    answer = json.loads(proc.stdout)
    schema = json.loads((ROOT / "schemas" / "answer.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(answer)
    assert answer["citations"], answer
    assert "low water content" in answer["text"]
    for c in answer["citations"]:
        doc = answer["search_documents"][c["document_index"] - 1]
        text = Path(doc["source"]).read_text(encoding="utf-8")
        for snip in doc["snippets"]:
            s = snip["source"]
            assert text[s["start_char"]:s["end_char"]] == snip["text"]
        assert text[c["start_char"]:c["end_char"]] == c["excerpt"]
    assert Path(answer["search_documents"][answer["citations"][0]["document_index"] - 1]
                ["source"]).name == "honey.md"


def test_ask_streams_steps_to_stderr_and_sources_to_stdout(kb_dir: Path) -> None:
    proc = cli("ask", "How do fjords form?", data_dir=kb_dir, check=True)
    assert "→ search_knowledge" in proc.stderr
    assert "· thought:" in proc.stderr
    assert "carved by glaciers" in proc.stdout
    assert "Sources:" in proc.stdout
    assert "fjords.md:4" in proc.stdout  # file:line of the quoted sentence


def test_steps_and_answer_keep_their_order_in_one_log(kb_dir: Path) -> None:
    """``citewise ask … 2>&1 | less`` (Wireshark's review, 2026-12-07): stdout, a pipe, is
    written at exit, so the run's closing line on stderr came before the answer, and in a
    log of several asks one's steps ran on after another's answer. The answer is flushed
    before anything else goes to stderr (a user's shell sets no PYTHONUNBUFFERED)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.run([sys.executable, "-m", "citewise", "--data-dir", str(kb_dir), "ask",
                           "How do fjords form?"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, timeout=120, check=True)
    log = proc.stdout
    assert log.index("→ search_knowledge") < log.index("carved by glaciers") \
        < log.index("(thread ")


def test_a_decline_is_an_answer_exit_status_0(kb_dir: Path) -> None:
    """The README's contract: a question the documents do not answer is answered so, with
    exit status 0 like any answer; a script reads the decline from ``--json``'s issues."""
    proc = cli("ask", "How do I configure middleware in Django?", "--json", data_dir=kb_dir)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert not answer["citations"]
    assert "no_answer_in_sources" in [i["code"] for i in answer["issues"]]
    proc = cli("ask", "How do I configure middleware in Django?", data_dir=kb_dir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("The documents do not answer this question")


def test_data_dir_before_the_command(kb_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CITEWISE_DATA_DIR": "/nonexistent-citewise"}
    before = subprocess.run(
        [sys.executable, "-m", "citewise", "--data-dir", str(kb_dir), "ask", "-q", "--json",
         "Why does honey keep for years?"], capture_output=True, text=True, env=env, timeout=120)
    assert before.returncode == 0, before.stderr
    assert "low water content" in json.loads(before.stdout)["text"]
    # Given on both sides, the command's own option wins: an empty data dir has no KB.
    both = subprocess.run(
        [sys.executable, "-m", "citewise", "--data-dir", str(kb_dir), "ask", "--json",
         "Why does honey keep for years?", "--data-dir", str(tmp_path / "empty")],
        capture_output=True, text=True, env=env, timeout=120)
    assert both.returncode != 0
    assert "[no_knowledge_base]" in both.stderr and "Traceback" not in both.stderr, both.stderr
    assert not (tmp_path / "empty").exists()


def test_thread_follow_up(kb_dir: Path) -> None:
    first = json.loads(cli("ask", "What is saffron?", "--json", data_dir=kb_dir,
                           check=True).stdout)
    second = json.loads(cli("ask", "How is it harvested?", "--json", "--thread",
                            first["thread_id"], data_dir=kb_dir, check=True).stdout)
    assert second["thread_id"] == first["thread_id"]
    assert "stigmas of crocus flowers" in second["text"]


def test_reingest_unchanged_changes_nothing(kb_dir: Path, corpus: Path) -> None:
    db = kb_dir / "citewise.db"
    before = db.stat().st_size
    proc = cli("ingest", str(corpus), data_dir=kb_dir, check=True)
    assert "unchanged" in proc.stdout
    assert db.stat().st_size == before


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("ingest", "/definitely/missing/path"), "path_not_found"),
        (("ask", "   "), "empty_question"),
        (("ask", "anything", "--thread", "thread_does_not_exist"), "unknown_thread"),
        (("ask", "anything", "--output-schema", '{"type": "object", "properties": {'),
         "invalid_output_schema"),
    ],
)
def test_error_paths_are_one_line(kb_dir: Path, args: tuple[str, ...], code: str) -> None:
    db = kb_dir / "citewise.db"
    before = db.read_bytes()
    proc = cli(*args, data_dir=kb_dir)
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"[{code}]" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert db.read_bytes() == before
    if code == "invalid_output_schema":  # where the JSON breaks off, not only that it does
        assert "line 1 column 35" in proc.stderr, proc.stderr


def test_binary_and_empty_files_are_refused(tmp_path: Path) -> None:
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02\xff" * 64)
    proc = cli("ingest", str(binary), data_dir=tmp_path / "data")
    assert proc.returncode != 0
    assert "[binary_file]" in proc.stderr
    assert proc.stderr.count("\n") == 1
    empty = tmp_path / "empty.md"
    empty.write_text("")
    proc = cli("ingest", str(empty), data_dir=tmp_path / "data")
    assert proc.returncode != 0
    assert "[empty_document]" in proc.stderr


def test_a_folder_of_files_no_loader_reads_is_no_success(tmp_path: Path) -> None:
    # Tcl's review (2026-12-05): a folder of pages named "x.3zz" said "0 added … 1 skipped"
    # and exited 0, so a script went on with an empty knowledge base.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.3zz").write_text(".TH page 3zz\n.SH NAME\npage \\- a page\n")
    proc = cli("ingest", str(docs), data_dir=tmp_path / "data")
    assert proc.returncode == 2, proc.stderr
    assert "skipped: " in proc.stderr and "nothing was ingested" in proc.stderr
    (docs / "notes.md").write_text("# Notes\n\nSome text.\n")
    proc = cli("ingest", str(docs), data_dir=tmp_path / "data")
    assert proc.returncode == 0, proc.stderr  # one read is a success; the skip is said


def test_many_skipped_files_are_named_a_few_a_reason(tmp_path: Path) -> None:
    """Graphviz's review (2026-12-06): a manual's 157 images were 157 "skipped:" lines above
    the summary that counts them. A few of each reason are named, then how many more."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe guide.\n")
    for n in range(7):
        (docs / f"shape{n}.gif").write_bytes(b"GIF89a")
    (docs / "logo.svg").write_text("<svg/>")
    proc = cli("ingest", str(docs), data_dir=tmp_path / "data")
    assert proc.returncode == 0, proc.stderr
    named = [line for line in proc.stderr.splitlines() if line.startswith("skipped: ")]
    assert sorted(named[:-1]) == [f"skipped: {docs / 'logo.svg'} (no loader for .svg files)"] + [
        f"skipped: {docs / f'shape{n}.gif'} (no loader for .gif files)" for n in range(3)]
    assert named[-1] == "skipped: … and 4 more (no loader for .gif files; --verbose names them)"
    assert "8 skipped (7 no loader for .gif files; 1 no loader for .svg files)" in proc.stdout
    # --verbose names every one, and no "… and N more"
    proc = cli("ingest", "--verbose", str(docs), data_dir=tmp_path / "data")
    assert proc.returncode == 0, proc.stderr
    named = [line for line in proc.stderr.splitlines() if line.startswith("skipped: ")]
    assert sorted(named) == [f"skipped: {docs / 'logo.svg'} (no loader for .svg files)"] + [
        f"skipped: {docs / f'shape{n}.gif'} (no loader for .gif files)" for n in range(7)]


def test_ask_without_knowledge_base(tmp_path: Path) -> None:
    proc = cli("ask", "hello?", data_dir=tmp_path / "nothing-here")
    assert proc.returncode != 0
    assert "[no_knowledge_base]" in proc.stderr
    assert not (tmp_path / "nothing-here").exists()


def test_quickstart(tmp_path: Path) -> None:
    proc = cli("quickstart", data_dir=tmp_path, check=True)
    assert "5 business days" in proc.stdout
    assert "→ search_knowledge" in proc.stderr
    assert "returns-and-refunds.md" in proc.stdout


def test_quickstart_is_the_same_from_any_installation(tmp_path: Path) -> None:
    # An earlier version stored the samples under the path of the installation that ran
    # it; from another virtual environment it added a second copy and could cite the old
    # (maybe deleted) path. Now the samples have install-independent names.
    from importlib.resources import files

    from citewise.knowledge.base import KnowledgeBase

    old = tmp_path / "old-venv" / "site-packages" / "citewise" / "samples" / "handbook"
    old.mkdir(parents=True)
    sample = files("citewise").joinpath("samples", "handbook", "returns-and-refunds.md")
    (old / "returns-and-refunds.md").write_bytes(sample.read_bytes())
    with KnowledgeBase.open(tmp_path / "quickstart") as kb:
        assert not kb.ingest([old]).failed
    first = cli("quickstart", data_dir=tmp_path, check=True)
    assert "1 removed" in first.stderr and "old-venv" not in first.stdout
    assert "samples/handbook/returns-and-refunds.md" in first.stdout
    second = cli("quickstart", data_dir=tmp_path, check=True)
    assert "0 added, 0 updated, 6 unchanged" in second.stderr
    with KnowledgeBase.open(tmp_path / "quickstart") as kb:
        sources = sorted(d.source for d in kb.list_documents())
    assert len(sources) == 6 and all(s.startswith("samples/handbook/") for s in sources)


def test_explain_and_feedback(kb_dir: Path) -> None:
    answer = json.loads(cli("ask", "What are opals made of?", "--json", data_dir=kb_dir,
                            check=True).stdout)
    turtle = cli("explain", answer["run_id"], data_dir=kb_dir, check=True).stdout
    import rdflib

    graph = rdflib.Graph().parse(data=turtle, format="turtle")
    derived = {str(o) for o in graph.objects(None, rdflib.URIRef(
        "http://www.w3.org/ns/prov#wasDerivedFrom"))}
    doc_id = answer["search_documents"][answer["citations"][0]["document_index"] - 1][
        "document"]["id"]
    assert f"urn:citewise:document:{doc_id}" in derived
    jsonld = cli("explain", answer["run_id"], "--format", "json-ld", data_dir=kb_dir,
                 check=True).stdout
    assert json.loads(jsonld)
    token = answer["trajectory"]["feedback_token"]
    ok = cli("feedback", "--token", token, "--rating", "3", "--document", "1",
             "--comment", "spot on", data_dir=kb_dir)
    assert ok.returncode == 0, ok.stderr
    again = cli("feedback", "--token", token, "--rating", "2", "--document", "1",
                data_dir=kb_dir)
    assert again.returncode != 0
    assert "[feedback_already_recorded]" in again.stderr
    forged = cli("feedback", "--token", token[:-3] + "AAA", "--rating", "1", data_dir=kb_dir)
    assert forged.returncode != 0
    assert "[feedback_token_invalid]" in forged.stderr
    unknown = cli("explain", "run_nope", data_dir=kb_dir)
    assert "[unknown_run]" in unknown.stderr


def test_tenant_option_keeps_tenants_apart(corpus: Path, tmp_path: Path) -> None:
    data = tmp_path / "kb"
    cli("ingest", str(corpus), "--tenant", "acme", data_dir=data, check=True)
    mine = cli("ask", "Why do auroras appear?", "--json", "--quiet", "--tenant", "acme",
               data_dir=data, check=True)
    answer = json.loads(mine.stdout)
    assert answer["citations"] and "charged particles" in answer["text"]
    other = cli("ask", "Why do auroras appear?", "--json", "--quiet", data_dir=data)
    assert json.loads(other.stdout)["citations"] == []  # the default tenant has nothing


def test_sources_say_where_in_the_file_as_the_format_allows(tmp_path: Path) -> None:
    # A line of text extracted from a PDF or a web page is no line of the file: the
    # sources printed "manual.pdf:5" for a sentence on page 3.
    import io

    from citewise import Agent
    from citewise.cli.common import print_answer
    from citewise.knowledge.base import KnowledgeBase
    from test_loaders_formats import _write_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    _write_pdf(docs / "travel.pdf")
    (docs / "hotel.html").write_text(
        "<html><body><main><h1>Hotels</h1><p>Breakfast is included in the hotel rate.</p>"
        "</main></body></html>")
    (docs / "notes.md").write_text("# Notes\n\nTaxi rides are reimbursed with a receipt.\n")
    # A page without headings: its title (ImageMagick's webp.html was a bare path); a text
    # file's first line is no title to show (code review, 2026-12-08).
    (docs / "parking.txt").write_text("Parking at the airport is reimbursed for three days.\n")
    (docs / "shuttle.html").write_text(
        "<html><head><title>Shuttle Options</title></head><body><p>The airport shuttle is "
        "reimbursed for trips before 6 am.</p></body></html>")
    (docs / "fares.py").write_text('import math\n\n\ndef fare(km):\n'
                                   '    """Train fares are reimbursed in second class."""\n'
                                   '    return math.ceil(km)\n')
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert not kb.ingest([docs]).failed
        where = {}
        for question, name in [("How much are hotel costs reimbursed per night?", "travel.pdf"),
                               ("Is breakfast included in the hotel rate?", "hotel.html"),
                               ("Are taxi rides reimbursed?", "notes.md"),
                               ("Is the airport shuttle reimbursed?", "shuttle.html"),
                               ("How many days of parking are reimbursed?", "parking.txt"),
                               ("Which class are train fares reimbursed in?", "fares.py")]:
            out = io.StringIO()
            print_answer(Agent(kb).ask(question), kb, out)
            line = next(x for x in out.getvalue().splitlines() if name in x)
            where[name] = line.split("] ", 1)[1]
    assert where["travel.pdf"].split(" — ")[0] == f"{docs / 'travel.pdf'} (page 3)"
    assert where["hotel.html"] == f"{docs / 'hotel.html'} — Hotels"  # and its section
    assert where["notes.md"] == f"{docs / 'notes.md'}:3 — Notes"
    assert where["shuttle.html"] == f"{docs / 'shuttle.html'} — Shuttle Options"
    assert where["parking.txt"] == f"{docs / 'parking.txt'}:1"
    # Source code is stored as the file's own text: its citations say the line too — the
    # docstring's, whose sentence the quote is (a docstring is prose since source loader 3).
    assert where["fares.py"] == f"{docs / 'fares.py'}:5 — def fare"


def test_a_second_quote_of_a_document_says_its_own_section_and_line(tmp_path: Path) -> None:
    # The sources printed one header per document: a quote from another section was shown
    # under the first quote's section and line.
    import io

    from citewise import Agent
    from citewise.cli.common import print_answer
    from citewise.knowledge.base import KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fern.md").write_text("# Fern care\n\n## Watering\n\nWater the fern twice a week "
                                  "in summer.\n\n## Winter\n\nIn winter, water the fern once a "
                                  "week.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert not kb.ingest([docs]).failed
        out = io.StringIO()
        print_answer(Agent(kb).ask("How often do I water the fern in summer, and in winter?"),
                     kb, out)
    sources = out.getvalue().split("Sources:\n", 1)[1].splitlines()
    # Both sentences answer; whichever is quoted first, each says its own section and line.
    summer = ("5 — Fern care > Watering", "    “Water the fern twice a week in summer.”")
    winter = ("9 — Fern care > Winter", "    “In winter, water the fern once a week.”")
    first, second = (summer, winter) if "summer" in sources[1] else (winter, summer)
    assert sources == [f"[1] {docs / 'fern.md'}:{first[0]}", first[1],
                       f"    at fern.md:{second[0]}:", second[1]]


def test_an_abstention_shows_the_closest_passages_as_no_answer(tmp_path: Path) -> None:
    import io

    from citewise import Agent
    from citewise.cli.common import print_answer
    from citewise.knowledge.base import KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fern.md").write_text("# Fern care\n\n## Watering\n\nWater the fern twice a week "
                                  "in summer.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert not kb.ingest([docs]).failed
        out = io.StringIO()
        answer = Agent(kb).ask("How do I configure middleware in Django?")
        print_answer(answer, kb, out)
    assert not answer.citations
    text = out.getvalue()
    assert "Closest passages (they do not answer it):" in text
    assert f"[1] {docs / 'fern.md'} — Fern care > Watering" in text
    assert "“Water the fern twice a week in summer.”" in text and "Sources:" not in text


def test_ask_never_waits_for_embedding_and_says_what_is_not_embedded(tmp_path: Path) -> None:
    # `ask` after an interrupted ingest embedded the backlog on open, for minutes (issue 23):
    # now it answers from what is indexed and says how much is not embedded yet.
    import json

    from citewise.knowledge.base import KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fjords.md").write_text("# Fjords\n\nFjords were carved by glaciers.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:  # no vectors yet
        assert kb.ingest([docs]).added
    first = cli("ask", "How were fjords made?", "--json", data_dir=tmp_path / "kb", check=True)
    answer = json.loads(first.stdout)
    assert "carved by glaciers" in answer["text"] and "embedding" not in first.stderr
    issue = next(i for i in answer["issues"] if i["code"] == "embedding_incomplete")
    assert issue["details"] == {"not_embedded": 1, "chunks": 1}
    plain = cli("ask", "How were fjords made?", data_dir=tmp_path / "kb", check=True)
    assert "note: 1 of 1 chunks are not embedded yet" in plain.stderr
    with KnowledgeBase.open(tmp_path / "kb") as kb:  # still queued: nobody embedded it
        assert kb.embedding_status().not_embedded == 1


def test_a_tenant_name_too_long_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    proc = cli("ask", "anything?", "--tenant", "a" * 129, data_dir=tmp_path / "kb")
    assert proc.returncode == 2 and "[invalid_tenant]" in proc.stderr
    assert "Traceback" not in proc.stderr
    from citewise import Agent
    from citewise.errors import InvalidInput
    from citewise.knowledge.base import KnowledgeBase

    for make in (lambda: KnowledgeBase.open(tmp_path / "kb2", tenant=" "),
                 lambda: Agent(tenant="a\x00b")):
        with pytest.raises(InvalidInput) as err:
            make()
        assert err.value.code == "invalid_tenant"


def test_a_database_lost_mid_command_is_one_typed_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # It printed "internal error: OperationalError: …" with SQL and exit 70.
    import sqlalchemy as sa

    from citewise.cli import ask
    from citewise.cli.main import main

    def lost(args: Any) -> int:
        raise sa.exc.OperationalError("SELECT 1", {}, Exception(
            "server closed the connection unexpectedly\nThis probably means …"))

    monkeypatch.setattr(ask, "run", lost)
    assert main(["ask", "anything?"]) == 1
    err = capsys.readouterr().err
    assert err == ("error: the database is not reachable: server closed the connection "
                   "unexpectedly [database_unavailable]\n")


def test_a_password_in_a_database_url_is_never_shown() -> None:
    from citewise.store._sql import shown_url

    assert shown_url("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"
    shown = shown_url("postgresql:///cw?host=/tmp/pg&user=postgres&password=topsecret")
    assert "topsecret" not in shown and "password=%2A%2A%2A" in shown and "user=postgres" in shown


def test_ctrl_c_while_documents_are_written_says_what_was_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # It printed a bare "interrupted": the user could not tell that the files stored so
    # far are kept and that the same command goes on.
    from citewise.cli.main import main
    from citewise.knowledge.base import KnowledgeBase

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"n{i}.txt").write_text(f"Note {i} about tents.\n")
    real = KnowledgeBase.ingest

    def interrupted(self: KnowledgeBase, paths: Any, **kw: Any) -> Any:
        progress = kw["progress"]

        def one_then_stop(done: int, total: int) -> None:
            progress(done, total)
            if done == 1:
                raise KeyboardInterrupt

        return real(self, paths, **{**kw, "progress": one_then_stop})

    monkeypatch.setattr(KnowledgeBase, "ingest", interrupted)
    assert main(["ingest", str(docs), "--data-dir", str(tmp_path / "kb")]) == 130
    err = capsys.readouterr().err
    assert "interrupted after reading 1 of 3 files: the documents written so far are kept" in err
    assert "Traceback" not in err
    monkeypatch.setattr(KnowledgeBase, "ingest", real)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert len(kb.list_documents()) < 3 and kb.check_consistency().ok
    assert main(["ingest", str(docs), "--data-dir", str(tmp_path / "kb")]) == 0  # goes on
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert len(kb.list_documents()) == 3


def test_ask_help_names_every_wire_format() -> None:
    """``ask --help`` listed eight formats while ``--format`` took ten (a2a and ai-sdk were
    missing; review of 2026-12-04)."""
    import argparse

    from citewise.cli.main import build_parser
    from citewise.dialects import DIALECTS

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    fmt = next(a for a in sub.choices["ask"]._actions if "--format" in a.option_strings)
    listed = fmt.help.split("(", 1)[1].rstrip(")").split(", ") if fmt.help else []
    assert listed == list(DIALECTS)


def test_plain_sources_are_numbered_in_the_order_they_are_cited() -> None:
    """A marker is the document's place among the search's results, so an answer quoting
    only the second printed "… [2]" over sources that began at [2] (new-user reviews,
    2026-12-03 and -04). The plain answer numbers what it cites 1, 2, …; the JSON keeps
    the search's indices."""
    import io

    from citewise.answer import Answer, CitationOccurrence, SearchDocument, Snippet
    from citewise.cli.common import print_answer

    docs = [SearchDocument(source=f"/docs/{name}.md", snippets=[Snippet(text=text)])
            for name, text in [("tents", "Tents need pegs."), ("kayaks", "Kayaks float."),
                               ("canoes", "Canoes carry three.")]]
    cites = [CitationOccurrence(citation_index=0, document_index=3, snippet_index=0,
                                excerpt="Canoes carry three.", claim_index=0),
             CitationOccurrence(citation_index=1, document_index=2, snippet_index=0,
                                excerpt="Kayaks float.", claim_index=1)]
    answer = Answer(run_id="r", thread_id="t", text="Canoes carry three. [3] Kayaks float. [2]",
                    citations=cites, search_documents=docs)
    out = io.StringIO()
    print_answer(answer, None, out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Canoes carry three. [1] Kayaks float. [2]"
    assert lines[lines.index("Sources:") + 1] == "[1] /docs/canoes.md"
    assert "[2] /docs/kayaks.md" in lines
    assert answer.text.endswith("[2]")  # the answer itself is unchanged
    # A marker that no citation explains: nothing is renumbered, so nothing can collide.
    stray = answer.model_copy(update={"text": answer.text + " Tents need pegs. [1]"})
    out = io.StringIO()
    print_answer(stray, None, out)
    assert out.getvalue().splitlines()[0] == stray.text


def test_a_long_quote_under_sources_is_cut_at_a_words_end() -> None:
    """A quote past 400 characters was cut inside a word ("… or some of the new database
    will not i…", Xapian's review, 2026-12-07): it read as a typo in the source."""
    import io

    from citewise.answer import Answer, CitationOccurrence, SearchDocument, Snippet
    from citewise.cli.clipping import clipped
    from citewise.cli.common import print_answer

    long = ("During the copy the source database must not be modified, " * 7
            + "or some of the new database will not include the changes.")
    docs = [SearchDocument(source="/docs/replication.md", snippets=[Snippet(text=long)])]
    cites = [CitationOccurrence(citation_index=0, document_index=1, snippet_index=0,
                                excerpt=long, claim_index=0)]
    answer = Answer(run_id="r", thread_id="t", text=f"{long} [1]", citations=cites,
                    search_documents=docs)
    out = io.StringIO()
    print_answer(answer, None, out)
    lines = out.getvalue().splitlines()
    quote = lines[lines.index("Sources:") + 2].strip()
    assert quote.startswith("“During the copy") and quote.endswith("…”"), quote
    shown = quote[1:-2]
    assert long.startswith(shown) and long[len(shown)] == " ", quote  # a whole word last
    assert len(shown) < 400
    # A word too long to keep whole is cut where it must be; short text is untouched.
    assert clipped("x" * 50, 10) == "x" * 9 + "…"
    assert clipped("fits as it is", 13) == "fits as it is"
