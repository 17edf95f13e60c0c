"""Words of a query and the lexemes PostgreSQL indexes them as: a lexeme quoted as a
``tsquery`` operand, and which of a question's words no chunk of a tenant contains.

Apart from :mod:`.lexical_postgres` (the BM25 ranking) because the second is no ranking:
it is what a search engine shows as "Missing: …", and what the extractive model reads
to tell a question about something the documents never mention (issue #27).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from citewise.knowledge.index.lexical_postgres_schema import COLUMN, CONFIG, HEADING, QUERY_ANALYSE

__all__ = ["quoted", "unmentioned"]


def quoted(lexeme: str) -> str:
    """``lexeme`` as a tsquery operand, exactly (no parsing, no stemming)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def unmentioned(conn: sa.Connection, tenant: str, words: Sequence[str]) -> list[str]:
    """Those of ``words`` that no chunk of ``tenant`` contains in its text or heading: none
    of the word's lexemes (its own ``to_tsvector``) in either column. Two statements."""
    rows = conn.execute(
        sa.text(
            "SELECT w.i, t.lexeme FROM unnest(CAST(:words AS text[])) WITH ORDINALITY AS w(word, i),"
            f" LATERAL unnest(to_tsvector(CAST(:config AS regconfig), {QUERY_ANALYSE}(w.word))) AS t"
            " ORDER BY w.i"
        ),
        {"words": [w.replace("\x00", " ") for w in words], "config": CONFIG},
    ).all()
    lexemes: dict[int, list[str]] = {}
    for i, lexeme in rows:
        lexemes.setdefault(int(i) - 1, []).append(quoted(lexeme))
    if not lexemes:
        return []
    params: dict[str, object] = {"tenant": tenant}
    found = []
    for i, operands in lexemes.items():
        params[f"q{i}"] = " | ".join(operands)
        found.append(f"EXISTS (SELECT 1 FROM chunks WHERE tenant = :tenant AND ({COLUMN} @@"
                     f" CAST(:q{i} AS tsquery) OR {HEADING} @@ CAST(:q{i} AS tsquery)))")
    seen = conn.execute(sa.text("SELECT " + ", ".join(found)), params).one()
    return [words[i] for i, hit in zip(lexemes, seen, strict=True) if not hit]
