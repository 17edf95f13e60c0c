"""Text without spaces between words (Japanese, Chinese): a run of CJK characters is cut
into character bigrams for lexical search and for checking citations, so a Japanese
question finds its passage and a Japanese answer's citation is verified (a whole clause
used to be one term: no search hit, support 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise import Agent
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.index.lexical_tantivy import ANALYSIS
from citewise.text import content_terms, spaced_cjk, terms

DOC = """# 返品と返金

商品到着後14日以内であれば返品できます。返金は返品された商品が倉庫に届いてから5営業日以内に行われます。

送料は注文金額が75ユーロ以上の場合無料です。

# 会员

会员每年可以免费退货三次。
"""


@pytest.mark.parametrize(("claim", "evidence"), [
    ("商品到着後14日以内であれば返品できません。", "商品到着後14日以内であれば返品できます。"),
    ("会员每年不可以免费退货三次。", "会员每年可以免费退货三次。"),
    ("会员每年可以免费退货五次。", "会员每年可以免费退货三次。"),
])
def test_a_cjk_claim_that_contradicts_its_source_is_not_supported(claim: str,
                                                                   evidence: str) -> None:
    from citewise.grounding.verify import SUPPORT_THRESHOLD, lexical_support

    assert lexical_support(evidence, evidence) == 1.0
    assert lexical_support(claim, evidence) < SUPPORT_THRESHOLD  # most bigrams overlap


def test_cjk_runs_become_bigrams_and_other_text_is_unchanged() -> None:
    assert terms("返品できます") == ["返品", "品で", "でき", "きま", "ます"]
    assert terms("第3章 iPhone版") == ["第", "3", "章", "iphone", "版"]
    assert terms("Refunds are ISSUED, e.g. in 3.5 days") == [
        "refunds", "are", "issued", "e", "g", "in", "3", "5", "days"]
    assert terms("naïve café") == ["naïve", "café"]  # non-ASCII but not CJK: words
    assert content_terms("返金は") == ["返金", "金は"]
    assert spaced_cjk("返金は5営業日") == " 返金 金は 5 営業 業日 "
    assert spaced_cjk("plain text") == "plain text"
    assert spaced_cjk("我的猫", unigrams=True) == " 我的 的猫 我 的 猫 "
    # Half-width katakana and full-width letters and digits meet their usual forms.
    assert terms("ﾃﾞｰﾀﾍﾞｰｽ ＲＥＦＵＮＤ ２０２４") == terms("データベース REFUND 2024")
    assert terms("中・日") == ["中", "日"]  # the middle dot separates, as a space would


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "henpin.md").write_text(DOC, encoding="utf-8")
    kb = KnowledgeBase.open(tmp_path / "kb", dense=False)
    kb.ingest([tmp_path / "docs"])
    return kb


@pytest.mark.parametrize(("question", "expected", "window"), [
    ("返金はいつですか", "返金は返品された", True),
    ("送料は無料ですか", "送料は注文金額", True),
    ("会员可以免费退货吗", "会员每年", True),
    ("会", "会员", True),  # one character: the index keeps characters too
    ("猫", None, False),  # a character no document has
    ("ﾍﾝｷﾝ 返金", "返金は返品された", False),  # half-width katakana in the question
])
def test_a_cjk_question_finds_its_passage(kb: KnowledgeBase, question: str,
                                          expected: str | None, window: bool) -> None:
    with kb:
        hits = kb.search(question, k=1, mode="lexical")
        if expected is None:
            assert hits == []
            return
        assert hits and expected in hits[0].text
        if window:  # the evidence window is the sentence that answers
            assert hits[0].evidence is not None and expected in hits[0].evidence.text


def test_a_japanese_answer_is_cited_and_verified(kb: KnowledgeBase) -> None:
    with kb:
        answer = Agent(kb).ask("返金はいつ行われますか？")
    assert "5営業日以内" in answer.text
    assert answer.citations and all(c.support >= 0.9 for c in answer.citations)
    assert "unsupported_claim" not in {i.code for i in answer.issues}
    doc = answer.search_documents[0]
    assert "5営業日以内" in answer.citations[0].excerpt and doc.source.endswith("henpin.md")


def test_an_index_of_an_older_analysis_is_rebuilt_on_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.knowledge.index import lexical_tantivy as lexical

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "henpin.md").write_text(DOC, encoding="utf-8")
    marker = tmp_path / "kb" / "index" / "lexical" / "ANALYSIS"
    with monkeypatch.context() as old:
        old.setattr(lexical, "search_text", lambda text, **_: text)  # the analysis before bigrams
        with KnowledgeBase.open(tmp_path / "kb", dense=False) as before:
            before.ingest([tmp_path / "docs"])
            assert before.search("返金はいつですか", k=1) == []  # a clause was one term
    marker.unlink()  # as every index built before this analysis had no marker
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as after:
        assert not after.index.outdated  # type: ignore[attr-defined]
        assert marker.read_text().strip() == ANALYSIS
        hits = after.search("返金はいつですか", k=1)
        assert hits and "返金は返品された" in hits[0].text


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_search_cuts_cjk_the_same_way(pg_url: str, tmp_path: Path) -> None:
    import sqlalchemy as sa

    from citewise.knowledge.index import lexical_postgres as _pg_fts
    from citewise.store.postgres import PostgresStore

    # A database whose column was made before the bigrams: rebuilt when a knowledge base
    # opens it (the lexical index owns the column).
    KnowledgeBase.open_postgres(pg_url, dense=False).close()
    with PostgresStore(pg_url) as store, store.engine.begin() as conn:
        conn.exec_driver_sql(f"ALTER TABLE chunks DROP COLUMN {_pg_fts.COLUMN}")
        conn.exec_driver_sql(f"ALTER TABLE chunks ADD COLUMN {_pg_fts.COLUMN} tsvector"
                             " GENERATED ALWAYS AS (to_tsvector('english', text)) STORED")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "henpin.md").write_text(DOC, encoding="utf-8")
    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        kb.ingest([tmp_path / "docs"])
        with kb.store.engine.connect() as conn:  # type: ignore[attr-defined]
            made_by = conn.execute(sa.text(
                "SELECT generation_expression FROM information_schema.columns"
                " WHERE table_name = 'chunks' AND column_name = :c"), {"c": _pg_fts.COLUMN}
            ).scalar_one()
        assert _pg_fts.ANALYSE in made_by
        for question, expected in [("返金はいつですか", "返金は返品された"),
                                   ("会员可以免费退货吗", "会员每年"),
                                   ("会", "会员每年")]:  # characters are indexed too
            hits = kb.search(question, k=1, mode="lexical")
            assert hits and expected in hits[0].text, question
        assert kb.search("refunds plain english", k=1, mode="lexical") == []


def test_a_one_character_query_has_an_evidence_window_where_the_character_is() -> None:
    from citewise.knowledge.retrieve.evidence import best_window

    snippet = "送料は注文金額が75ユーロ以上の場合無料です。会员每年可以免费退货三次。"
    window = best_window("会", snippet)
    assert window is not None and window.text == "会员每年可以免费退货三次。"
    assert snippet[window.start_char:window.start_char + len(window.text)] == window.text
    assert best_window("猫", snippet) is None
    # Half-width katakana in the query meets its usual form in the text (both NFKC).
    window = best_window("ﾕ", snippet)
    assert window is not None and window.text.startswith("送料は")
