"""What PostgreSQL's lexical search owns in the database: its text functions, the body's
generated ``chunks.search_tsv``, the heading's ``chunks.heading_tsv`` kept by triggers, and
their GIN indexes. Not part of the shared :mod:`citewise.store.schema`: created by
:func:`ensure` under the store's migration lock (:meth:`PostgresStore.ensure_schema`), in
one transaction, idempotently; the search itself is :mod:`.lexical_postgres`.

The body's column is computed by ``to_tsvector`` of the analysed text (see :func:`ensure`),
read as every index reads a chunk: with its ``hidden`` spans (a markdown file's comments
and link definitions) blanked, by :data:`INDEXED_TEXT` of the row's own ``roles`` column;
a new analysis is a new function name, and a column made by another is dropped and added
again (a generated column cannot be altered).

A chunk's heading is its document's title and its section path (:mod:`.headings`). The
body's ``search_tsv`` is a *generated* column, but a generated column can only read its
own row, and the title lives in ``documents``. So ``heading_tsv`` is a plain column that
two triggers keep: one computes it as a chunk is inserted (reading its document's title,
which :meth:`~citewise.store._sql_docs.DocumentsMixin.replace_documents` writes first, in
the same transaction), the other recomputes a document's chunks when its title changes.
Like the generated column, it is written in the chunk's own statement: searchable by
every replica exactly when committed, nothing to sync after a crash.

:func:`ensure` upgrades a database in place: the heading column is added and computed
for every existing chunk (an UPDATE of every row, once — which also recomputes the
generated body column of each), and the version of the analysis that computed it is recorded
as the column's comment — a database whose comment differs (a future analysis) is
recomputed on the next open, the same way.
"""

from __future__ import annotations

import sqlalchemy as sa

from citewise.knowledge.index.headings import PERMALINK_MARKS, SECTION_SEPARATOR
from citewise.text import CJK_CHARS

__all__ = [
    "ANALYSE", "COLUMN", "CONFIG", "HEADING", "HEADING_TEXT", "INDEXED_TEXT", "QUERY_ANALYSE",
    "SYMBOL_NAMES", "ensure", "heading_version",
]

COLUMN = "search_tsv"
INDEX = "ix_chunks_search_tsv"
CONFIG = "english"
#: The SQL function the column is built with (versioned: a new analysis is a new name,
#: and :func:`ensure` rebuilds a column made by another), and the one queries are.
ANALYSE = "citewise_search_text_v3"
# Not "citewise_search_text_v2": that was the index's function before, and an older
# process would put its body back under the name (CREATE OR REPLACE) beside a newer one.
QUERY_ANALYSE = "citewise_search_query_v1"
#: SQL twin of :func:`citewise.text.symbol_names` ("C++" as one word; versioned name).
SYMBOL_NAMES = "citewise_symbol_names_v1"
#: SQL twin of :func:`citewise.store.records.stored_indexed_text`: a chunk's text with its
#: ``hidden`` role spans blanked (versioned name, like :data:`ANALYSE`).
INDEXED_TEXT = "citewise_indexed_text_v1"
HEADING = "heading_tsv"
HEADING_INDEX = "ix_chunks_heading_tsv"
#: SQL twin of :func:`citewise.knowledge.index.headings.heading_text` (versioned name).
HEADING_TEXT = "citewise_heading_text_v1"
_CHUNK_FN = "citewise_chunk_heading_v1"
_DOCUMENT_FN = "citewise_document_heading_v1"
_CHUNK_TRIGGER = "citewise_chunk_heading"
_DOCUMENT_TRIGGER = "citewise_document_heading"


def _sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _tsvector(config: str, analyse: str, title: str, section: str) -> str:
    return f"to_tsvector('{config}'::regconfig, {analyse}({HEADING_TEXT}({title}, {section})))"


def heading_version() -> str:
    """What the heading column's comment says when it was computed by this code."""
    return f"{HEADING_TEXT} {ANALYSE}"


def ensure(conn: sa.Connection) -> None:
    """Create the text function, the generated column and its GIN index if missing, or
    the column again if it was made by an older analysis (caller holds the migration lock).
    On a database with chunks already, PostgreSQL computes the column for every row here,
    once."""
    # Runs of CJK characters (written without spaces: the parser would keep a clause as
    # one lexeme) become their overlapping bigrams between spaces, as the tantivy index
    # and the citation checks cut them (citewise.text.spaced_cjk): first a space around
    # each run, then every inner character doubled. Two C-speed regex passes, ~0.3 ms
    # for a CJK chunk, ~10 µs for others. That is the query's analysis; the indexed text
    # also gets every CJK character on its own (a one-character query must find it).
    _create_symbol_names(conn)
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {QUERY_ANALYSE}(t text) RETURNS text"
        " LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$"
        f" SELECT regexp_replace(regexp_replace({SYMBOL_NAMES}(t), '([{CJK_CHARS}]+)', ' \\1 ', 'g'),"
        f" '(?<=[{CJK_CHARS}])([{CJK_CHARS}])(?=[{CJK_CHARS}])', '\\1 \\1', 'g') $fn$"
    )
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {ANALYSE}(t text) RETURNS text"
        " LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$"
        f" SELECT CASE WHEN t ~ '[{CJK_CHARS}]' THEN {QUERY_ANALYSE}(t) || ' ' ||"
        f" regexp_replace(regexp_replace(t, '[^{CJK_CHARS}]+', ' ', 'g'),"
        f" '([{CJK_CHARS}])', ' \\1', 'g') ELSE {SYMBOL_NAMES}(t) END $fn$"
    )
    _create_indexed_text(conn)
    made_by = conn.execute(
        sa.text(
            "SELECT generation_expression FROM information_schema.columns WHERE"
            " table_schema = current_schema() AND table_name = 'chunks'"
            " AND column_name = :column"
        ),
        {"column": COLUMN},
    ).scalar_one_or_none()
    if made_by is not None and (ANALYSE not in made_by or INDEXED_TEXT not in made_by):
        conn.exec_driver_sql(f"ALTER TABLE chunks DROP COLUMN {COLUMN}")  # and its index
    conn.exec_driver_sql(
        f"ALTER TABLE chunks ADD COLUMN IF NOT EXISTS {COLUMN} tsvector GENERATED ALWAYS AS"
        f" (to_tsvector('{CONFIG}'::regconfig, {ANALYSE}({INDEXED_TEXT}(text, roles)))) STORED"
    )
    conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {INDEX} ON chunks USING gin ({COLUMN})")
    _ensure_heading(conn)


def _create_symbol_names(conn: sa.Connection) -> None:
    """Create :data:`SYMBOL_NAMES`: a letter and "++" or "#" standing alone, as one word
    (a digit after it stays a word of its own). Rows with neither symbol return at the
    first test."""
    alone, rest = "(?<![A-Za-z0-9_+#])([A-Za-z])", "(?![A-Za-z_+#])"  # ASCII, as in Python
    body = "t"
    for symbol, spelled in (("\\+\\+", "plusplus"), ("#", "sharp")):
        body = (f"regexp_replace(regexp_replace({body}, '{alone}{symbol}(?=[0-9])',"
                f" '\\1{spelled} ', 'g'), '{alone}{symbol}{rest}', '\\1{spelled}', 'g')")
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {SYMBOL_NAMES}(t text) RETURNS text"
        " LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$"
        f" SELECT CASE WHEN strpos(t, '+') = 0 AND strpos(t, '#') = 0 THEN t ELSE {body} END $fn$"
    )


def _create_indexed_text(conn: sa.Connection) -> None:
    """Create :data:`INDEXED_TEXT`. Offsets are code points in both languages (the
    database is UTF-8), and a span out of range or roles that are no JSON array of
    ``[start, end, role]`` leave the text as it is, as :func:`~citewise.store.records.
    decode_roles` reads them. Rows without a hidden span (all but markdown's) return at
    the first test, before the exception block (a subtransaction) is entered."""
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {INDEXED_TEXT}(t text, roles text) RETURNS text"
        " LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$"
        " DECLARE r jsonb; a int; b int; n int := char_length(t); out text := t;"
        " BEGIN"
        " IF t IS NULL OR roles IS NULL OR strpos(roles, '\"hidden\"') = 0 THEN RETURN t;"
        " END IF;"
        " BEGIN"
        " FOR r IN SELECT value FROM jsonb_array_elements(roles::jsonb) LOOP"
        " IF r->>2 = 'hidden' THEN a := (r->>0)::int; b := (r->>1)::int;"
        " IF 0 <= a AND a < b AND b <= n THEN"
        " out := overlay(out PLACING repeat(' ', b - a) FROM a + 1 FOR b - a);"
        " END IF; END IF; END LOOP;"
        " EXCEPTION WHEN others THEN RETURN t;"
        " END;"
        " RETURN out; END $fn$"
    )


def _ensure_heading(conn: sa.Connection) -> None:
    """Create (or upgrade) the heading column, its GIN index, its functions and triggers
    (the body's text function, :data:`ANALYSE`, applies to headings too)."""
    config, analyse = CONFIG, ANALYSE
    marks = _sql_literal(PERMALINK_MARKS)
    spaces = _sql_literal(" " * len(PERMALINK_MARKS))
    sep = _sql_literal(SECTION_SEPARATOR)

    def clean(x: str) -> str:
        return f"btrim(regexp_replace(translate({x}, {marks}, {spaces}), '\\s+', ' ', 'g'))"

    part, title = clean("u.x"), clean("coalesce(title, '')")

    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {HEADING_TEXT}(title text, section text) RETURNS text"
        " LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$"
        " SELECT coalesce(array_to_string(ARRAY(SELECT s.p FROM (SELECT"
        f" {part} AS p, u.o FROM unnest(ARRAY[coalesce(title, '')]"
        f" || string_to_array(coalesce(section, ''), {sep})) WITH ORDINALITY AS u(x, o)) AS s"
        f" WHERE s.p <> '' AND (s.o = 1 OR s.p <> {title})"
        " ORDER BY s.o), ' '), '') $fn$"
    )
    chunk_value = _tsvector(
        config, analyse, "(SELECT d.title FROM documents AS d WHERE d.id = NEW.document_id)",
        "NEW.section",
    )
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {_CHUNK_FN}() RETURNS trigger LANGUAGE plpgsql AS $fn$"
        f" BEGIN NEW.{HEADING} := {chunk_value}; RETURN NEW; END $fn$"
    )
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {_DOCUMENT_FN}() RETURNS trigger LANGUAGE plpgsql AS $fn$"
        f" BEGIN UPDATE chunks SET {HEADING} = {_tsvector(config, analyse, 'NEW.title', 'section')}"
        " WHERE document_id = NEW.id; RETURN NULL; END $fn$"
    )
    made_by = conn.execute(
        sa.text(
            "SELECT col_description(c.attrelid, c.attnum) FROM pg_attribute AS c"
            " WHERE c.attrelid = 'chunks'::regclass AND c.attname = :column"
            " AND NOT c.attisdropped"
        ),
        {"column": HEADING},
    ).one_or_none()
    conn.exec_driver_sql(f"ALTER TABLE chunks ADD COLUMN IF NOT EXISTS {HEADING} tsvector")
    conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {_CHUNK_TRIGGER} ON chunks")
    conn.exec_driver_sql(
        f"CREATE TRIGGER {_CHUNK_TRIGGER} BEFORE INSERT OR UPDATE OF section, document_id"
        f" ON chunks FOR EACH ROW EXECUTE FUNCTION {_CHUNK_FN}()"
    )
    conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {_DOCUMENT_TRIGGER} ON documents")
    conn.exec_driver_sql(
        f"CREATE TRIGGER {_DOCUMENT_TRIGGER} AFTER UPDATE OF title ON documents FOR EACH ROW"
        f" WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION {_DOCUMENT_FN}()"
    )
    current = heading_version()
    if made_by is None or made_by[0] != current:
        # A database from before the column (or from another analysis): compute it for
        # every chunk, once, in this transaction.
        conn.exec_driver_sql(
            f"UPDATE chunks AS c SET {HEADING} = {_tsvector(config, analyse, 'd.title', 'c.section')}"
            " FROM documents AS d WHERE d.id = c.document_id"
        )
        conn.exec_driver_sql(f"COMMENT ON COLUMN chunks.{HEADING} IS {_sql_literal(current)}")
    # Without GIN's pending list (fastupdate): a heading's entries are a few bytes, so
    # the 4 MB list held most of a large table's rows, and every search scanned it —
    # ~4 ms a lexeme at 100k chunks, measured with bench/postgres_search.py.
    conn.exec_driver_sql(
        f"CREATE INDEX IF NOT EXISTS {HEADING_INDEX} ON chunks USING gin ({HEADING})"
        " WITH (fastupdate = off)"
    )
