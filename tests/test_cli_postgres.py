"""The ``citewise`` command on a PostgreSQL database (``--database-url`` /
``$CITEWISE_DATABASE_URL``), run for real in subprocesses: what one process ingests,
another asks and cites; keys made by the CLI are in the shared database; a database that
cannot be reached is a one-line typed error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citewise.store.keys import list_all_api_keys
from citewise.store.postgres import PostgresStore


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CITEWISE_D")}
    return subprocess.run(
        [sys.executable, "-m", "citewise", *args], capture_output=True, text=True,
        env={**clean, "CITEWISE_DATA_DIR": "/nonexistent-citewise", **(env or {})},
        timeout=300, check=False,
    )


def test_an_unreachable_database_is_a_typed_error() -> None:
    proc = cli("keys", "list", "--database-url", "postgresql://someone:s3cret@127.0.0.1:1/kb")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: cannot connect to the database ")
    assert proc.stderr.rstrip().endswith("[database_unavailable]")
    assert "s3cret" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("url", ["mysql://u@h/db", "not a url at all"])
def test_a_url_that_is_not_postgresql_is_refused(url: str) -> None:
    proc = cli("keys", "list", "--database-url", url)
    assert proc.returncode == 2 and "[invalid_store_url]" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.postgres
def test_ingest_then_ask_from_other_processes(pg_url: str, tmp_path: Path) -> None:
    (tmp_path / "returns.md").write_text(
        "# Returns\n\nRefunds are issued within 14 days of receiving the item.\n"
    )
    ingest = cli("ingest", str(tmp_path), "--database-url", pg_url)
    assert ingest.returncode == 0, ingest.stderr
    # The URL from the environment this time; no data directory exists at all.
    asked = cli("ask", "How long do refunds take?", "--json", "--quiet",
                env={"CITEWISE_DATABASE_URL": pg_url})
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["status"] == "completed" and "14 days" in answer["text"]
    cited = answer["citations"][0]
    assert cited["excerpt"] in (tmp_path / "returns.md").read_text()
    made = cli("keys", "create", "--tenant", "acme", "--database-url", pg_url)
    assert made.returncode == 0, made.stderr
    with PostgresStore(pg_url) as store:
        keys = list_all_api_keys(store)
    assert [k.tenant for k in keys] == ["acme"] and made.stdout.strip()


UNREACHABLE = "postgresql://someone@127.0.0.1:1/kb"


def test_quickstart_stays_embedded_when_a_database_url_is_set(tmp_path: Path) -> None:
    # It ingested its samples into the data dir and then answered from the database.
    proc = cli("quickstart", "--data-dir", str(tmp_path),
               env={"CITEWISE_DATABASE_URL": UNREACHABLE})
    assert proc.returncode == 0, proc.stderr
    assert "samples/handbook/returns-and-refunds.md" in proc.stdout + proc.stderr


def test_an_empty_database_url_means_the_data_dir(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Parcels leave the warehouse on Mondays.\n")
    proc = cli("ingest", str(tmp_path / "docs"), "--data-dir", str(tmp_path / "kb"),
               "--database-url", "", env={"CITEWISE_DATABASE_URL": UNREACHABLE})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "kb" / "citewise.db").exists()
