"""Query analysis: language, keywords, reformulation, dates resolved at request time, filters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from citewise.answer import Query
from citewise.errors import InvalidInput
from citewise.knowledge.retrieve.dates import find_date_expression, resolve_date_expression
from citewise.knowledge.retrieve.filters import Filters, extract_inline_filters, parse_filters
from citewise.knowledge.retrieve.query import analyze, details, detect_language, filters_of, keywords, resolve

NOW = datetime(2025, 5, 20, 14, 30, tzinfo=UTC)  # a Tuesday


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


# -- language -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("What is the refund policy for damaged items?", "en"),
        ("Wie lange dauert die Rückerstattung für beschädigte Artikel?", "de"),
        ("Quelle est la politique de remboursement pour les articles abîmés ?", "fr"),
        ("¿Cuál es la política de devolución para los artículos dañados?", "es"),
        ("Qual è la politica di rimborso per gli articoli danneggiati?", "it"),
        ("Wat is het beleid voor terugbetaling van beschadigde artikelen?", "nl"),
        ("Qual é a política de reembolso para os artigos danificados?", "pt"),
        ("Что такое политика возврата?", "ru"),
        ("Що таке політика повернення?", "uk"),
        ("退款政策是什么", "zh"),
        ("返金ポリシーとは何ですか", "ja"),
        ("환불 정책은 무엇입니까", "ko"),
        ("Τι είναι η πολιτική επιστροφών;", "el"),
    ],
)
def test_detect_language(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def test_language_unknown_when_there_is_nothing_to_go_on() -> None:
    assert detect_language("BM25 tantivy") is None
    assert detect_language("") is None
    assert detect_language("1234 ???") is None


def test_keywords_drop_stopwords_of_the_language_keep_order() -> None:
    assert keywords("What is the refund policy for refund requests?") == [
        "refund", "policy", "requests",
    ]
    assert keywords("Wie lange dauert die Rückerstattung?", "de") == [
        "lange", "dauert", "rückerstattung",
    ]
    assert keywords("Quelle est la durée du remboursement ?", "fr") == ["durée", "remboursement"]
    assert keywords("¿Cuánto tarda el reembolso de la compra?", "es") == [
        "cuánto", "tarda", "reembolso", "compra",
    ]
    assert keywords("RAGとは何ですか", "ja") == ["rag", "何"]


# -- dates --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expression", "start", "end"),
    [
        ("What changed last year?", "last year", d(2024, 1, 1), d(2025, 1, 1)),
        ("refunds since March 2024", "since March 2024", d(2024, 3, 1), NOW),
        ("sales in Q2", "in Q2", d(2025, 4, 1), d(2025, 7, 1)),
        ("sales in Q3", "in Q3", d(2024, 7, 1), d(2024, 10, 1)),  # Q3 2025 has not started
        ("revenue in 2023", "in 2023", d(2023, 1, 1), d(2024, 1, 1)),
        ("what broke yesterday", "yesterday", d(2025, 5, 19), d(2025, 5, 20)),
        ("invoices from last month", "last month", d(2025, 4, 1), d(2025, 5, 1)),
        ("tickets this week", "this week", d(2025, 5, 19), d(2025, 5, 26)),
        ("orders in the past 30 days", "in the past 30 days", d(2025, 4, 21), NOW),
        ("between 2020 and 2022", "between 2020 and 2022", d(2020, 1, 1), d(2023, 1, 1)),
        ("from Jan 2024 to March 2024", "from Jan 2024 to March 2024", d(2024, 1, 1), d(2024, 4, 1)),
        ("policies before 2020", "before 2020", datetime(1, 1, 1, tzinfo=UTC), d(2020, 1, 1)),
        ("after June 2021", "after June 2021", d(2021, 7, 1), NOW),
        ("Q4 2023 results", "Q4 2023", d(2023, 10, 1), d(2024, 1, 1)),
        ("changes in May", "in May", d(2025, 5, 1), d(2025, 6, 1)),
        ("changes in December", "in December", d(2024, 12, 1), d(2025, 1, 1)),
        ("the outage on 2024-02-29", "on 2024-02-29", d(2024, 2, 29), d(2024, 3, 1)),
        ("what was decided last quarter", "last quarter", d(2025, 1, 1), d(2025, 4, 1)),
    ],
)
def test_date_expressions_resolve_relative_to_now(
    question: str, expression: str, start: datetime, end: datetime
) -> None:
    found = find_date_expression(question)
    assert found is not None and found[0] == expression
    assert question[found[1] : found[2]] == expression
    assert resolve_date_expression(expression, NOW) == (start, end)


@pytest.mark.parametrize(
    "question",
    ["May I return an opened item?", "a plan for 2000 users", "the 2024-13-45 build", "Q5 numbers"],
)
def test_things_that_are_not_dates(question: str) -> None:
    found = find_date_expression(question)
    assert found is None or resolve_date_expression(found[0], NOW) is None


def test_resolution_keeps_the_time_zone_and_handles_year_edges() -> None:
    berlin = timezone(timedelta(hours=2))
    now = datetime(2025, 1, 3, 9, 0, tzinfo=berlin)
    assert resolve_date_expression("last month", now) == (
        datetime(2024, 12, 1, tzinfo=berlin), datetime(2025, 1, 1, tzinfo=berlin),
    )
    assert resolve_date_expression("yesterday", now) == (
        datetime(2025, 1, 2, tzinfo=berlin), datetime(2025, 1, 3, tzinfo=berlin),
    )
    assert resolve_date_expression("since March 2026", now) is None  # in the future
    assert resolve_date_expression("last 0 days", now) is None


def test_cached_query_is_re_resolved_at_request_time() -> None:
    q = analyze("What happened last month?", now=NOW)
    assert q.date_expression == "last month"
    assert q.date == (d(2025, 4, 1), d(2025, 5, 1))
    cached = Query.model_validate_json(q.model_dump_json())  # as stored
    later = resolve(cached, datetime(2026, 1, 15, tzinfo=UTC))
    assert later.date == (d(2025, 12, 1), d(2026, 1, 1))
    assert later.date_expression == "last month" and later.is_recent
    assert resolve(analyze("refund policy", now=NOW), NOW).date is None


# -- analyze ------------------------------------------------------------------------------------


def test_analyze_fills_the_seed_query() -> None:
    q = analyze("What was our refund policy last year?", now=NOW)
    assert q.original_query == "What was our refund policy last year?"
    assert q.reformulated_query == "What was our refund policy?"
    assert q.keywords == ["refund", "policy"]
    assert q.related_queries == ["refund policy"]
    assert q.query_language == "en"
    assert q.date_expression == "last year"
    assert q.date == (d(2024, 1, 1), d(2025, 1, 1))
    assert "time" in q.classified_aspects
    assert q.title == "What was our refund policy"
    assert not q.is_recent and q.instruction is None


def test_instructions_and_comparisons() -> None:
    q = analyze("Python vs Rust for command line tools, answer in two sentences", now=NOW)
    assert q.instruction == "answer in two sentences"
    assert q.reformulated_query == "Python vs Rust for command line tools"
    assert "comparison" in q.classified_aspects
    assert q.keywords == ["python", "rust", "command", "line", "tools"]
    assert "Python" in q.related_queries and "Rust for command line tools" in q.related_queries
    q2 = analyze("What is the difference between BM25 and dense retrieval? Explain briefly", now=NOW)
    assert q2.instruction == "Explain briefly"
    assert q2.related_queries[1:] == ["BM25", "dense retrieval"]


def test_multi_question_splits_and_aspects() -> None:
    q = analyze("Who runs support? When is it open?", now=NOW)
    assert q.related_queries == ["runs support open", "Who runs support?", "When is it open?"]
    assert {"person", "time"} <= set(q.classified_aspects)
    assert "yes_no" in analyze("Can I return opened items?", now=NOW).classified_aspects
    assert "quantity" in analyze("How many days do refunds take?", now=NOW).classified_aspects
    assert "how_to" in analyze("How do I reset my password?", now=NOW).classified_aspects
    ev = analyze("What happened during the outage yesterday?", now=NOW)
    assert ev.is_event and ev.is_recent


def test_inline_and_request_filters() -> None:
    q = analyze(
        "refund policy collection:handbook #billing type:pdf since March 2024",
        now=NOW,
        filters={"tags": ["finance"], "source": "*.pdf"},
    )
    assert q.reformulated_query == "refund policy"
    assert q.filters == {
        "collection": ["handbook"],
        "source": ["*.pdf"],
        "tags": ["finance"],  # the request's tags win over the inline #billing
        "content_type": ["application/pdf"],
    }
    assert q.knowledge_source == "handbook" and q.content_type == "application/pdf"
    f = filters_of(q)
    assert f.date_from == d(2024, 3, 1) and f.date_to == NOW  # from the date expression
    explicit = analyze("refunds last year", now=NOW, filters={"date_from": "2020-01-01"})
    assert filters_of(explicit).date_from == d(2020, 1, 1)  # explicit bounds win
    assert filters_of(explicit).date_to == d(2025, 1, 1)


def test_filter_validation_has_stable_codes() -> None:
    for bad in (
        {"colour": "red"},
        {"tags": 3},
        {"tags": [""]},
        {"date_from": "yesterday-ish"},
        {"date": ["2024-01-01"]},
        {"date": ["2024-02-01", "2024-01-01"]},
    ):
        with pytest.raises(InvalidInput) as err:
            parse_filters(bad)
        assert err.value.code == "invalid_filter"
    assert not parse_filters(None) and not parse_filters({})


def test_inline_filter_extraction_leaves_ordinary_text() -> None:
    text, f = extract_inline_filters('costs source:"reports/*.pdf" after:soon tag:ops #q3-plan')
    assert text == "costs after:soon"
    assert f.sources == ("reports/*.pdf",) and f.tags == ("ops", "q3-plan")
    text, f = extract_inline_filters("email me at ops@example.com about C# code")
    assert text == "email me at ops@example.com about C# code" and not f
    # Perl's last index and the C preprocessor are code, not tags (a Perl manual's review,
    # 2026-12-04: "$#array" searched as "$?" among documents tagged "array", none).
    for code in ("What happens if I make an array smaller by assigning to $#array?",
                 "Is $#{$aref} the last index?", "Why is my #include <stdio.h> not found?",
                 "Can a #define take arguments?", "What does @#x mean?"):
        text, f = extract_inline_filters(code)
        assert text == code and not f, code
    text, f = extract_inline_filters("(#billing) refunds")
    assert "billing" not in text and f.tags == ("billing",)
    # A URL's fragment or a git ref is no tag (Docker's review, 2026-12-07: "a git URL
    # ending in #mybranch:myfolder" searched nothing but documents tagged "mybranch").
    for ref in ("a git URL ending in #mybranch:myfolder", "fetch #pull/42/head first",
                "see #v1.2.3 notes"):
        text, f = extract_inline_filters(ref)
        assert text == ref and not f, ref
    text, f = extract_inline_filters("#billing: how are refunds made? #q3.")
    assert text == ": how are refunds made? ." and f.tags == ("billing", "q3")


def test_filters_match_documents() -> None:
    doc = {
        "id": "d1",
        "collection": "handbook",
        "source": "/data/reports/q1.pdf",
        "content_type": "application/pdf",
        "metadata": {"tags": ["Finance", "ops"], "published": "2024-04-02T10:00:00Z"},
    }
    assert Filters().matches(doc)
    assert parse_filters({"collection": ["handbook", "faq"]}).matches(doc)
    assert not parse_filters({"collection": "faq"}).matches(doc)
    assert parse_filters({"source": "*/reports/*.pdf"}).matches(doc)
    assert not parse_filters({"source": "*.docx"}).matches(doc)
    assert parse_filters({"tags": ["finance"]}).matches(doc)
    assert not parse_filters({"tags": "legal"}).matches(doc)
    assert parse_filters({"content_type": "pdf"}).matches(doc)
    assert parse_filters({"date": ["2024-04-01", "2024-05-01"]}).matches(doc)
    assert not parse_filters({"date_from": "2024-05-01"}).matches(doc)
    undated = {**doc, "metadata": {}}
    assert not parse_filters({"date_to": "2030-01-01"}).matches(undated)
    keywords_doc = {**doc, "metadata": {"keywords": "billing; refunds"}}
    assert parse_filters({"tags": "refunds"}).matches(keywords_doc)
    assert parse_filters({"collection": "handbook", "source": "/x"}).store_filters() == {
        "collection": ["handbook"], "source": ["/x"],
    }
    assert "source" not in parse_filters({"source": "*.pdf"}).store_filters()


def test_details_counts() -> None:
    q = analyze("refund policy", now=NOW)
    det = details(
        q, queries=["refund policy", "refund policy", "refund"], retrieved=40, compared=25, selected=5
    )
    assert det.query == "refund policy" and det.queries == ["refund policy", "refund"]
    assert (det.retrieved, det.compared, det.selected) == (40, 25, 5)
    assert details(q).queries == ["refund policy"]
    assert details(None, queries=["x"], ranking_fallback=True).ranking_fallback
