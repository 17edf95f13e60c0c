"""Feedback tokens (signed, expiring, scoped capabilities) and the ratings they record."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from citewise.agent.loop import run_agent
from citewise.agent.state import RunState
from citewise.agent.tools import Toolset
from citewise.errors import UsageError
from citewise.events import Event
from citewise.grounding.feedback import (
    FeedbackAlreadyRecorded,
    FeedbackOutOfScope,
    FeedbackService,
    FeedbackTokenExpired,
    FeedbackTokenHook,
    FeedbackTokenInvalid,
    FeedbackWrongRun,
    InvalidRating,
    get_or_create_secret,
    issue_token,
    verify_token,
)
from citewise.models.scripted import ScriptedModel
from citewise.store.base import RunRecord
from citewise.store.sqlite import SQLiteStore

SECRET = b"s" * 32
T0 = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(tmp_path / "citewise.db")
    yield s
    s.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(store: SQLiteStore, clock: Clock) -> FeedbackService:
    return FeedbackService(store, SECRET, clock=clock)


# -- tokens ------------------------------------------------------------------------------


def test_valid_token_records_a_rating(service: FeedbackService, store: SQLiteStore) -> None:
    token = service.issue_token("run_1", "acme", n_documents=3)
    grant = service.verify(token)
    assert (grant.run_id, grant.tenant, grant.n_documents) == ("run_1", "acme", 3)
    first = service.submit(token, 3, comment="  spot on  ")
    second = service.submit(token, 1, document_index=2)
    assert second > first
    records = service.list("acme", run_id="run_1")
    assert [(r.rating, r.document_index, r.comment) for r in records] == [
        (3, None, "spot on"), (1, 2, None)]
    assert all(r.run_id == "run_1" and r.tenant == "acme" for r in records)
    assert service.list("other-tenant") == []
    # the ratings are in the file, not in memory
    again = SQLiteStore(store.path)
    try:
        assert len(again.list_feedback("acme")) == 2
    finally:
        again.close()


def test_expired_token(service: FeedbackService, clock: Clock) -> None:
    token = service.issue_token("run_1", "acme", 1, ttl=60)
    clock.now += 59
    service.verify(token)
    clock.now += 1
    with pytest.raises(FeedbackTokenExpired) as err:
        service.submit(token, 2)
    assert err.value.code == "feedback_token_expired"
    assert service.list("acme") == []


def _payload(token: str) -> dict[str, object]:
    body = token.split(".")[1]
    result: dict[str, object] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return result


def _with_payload(token: str, **changes: object) -> str:
    payload = {**_payload(token), **changes}
    body = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    prefix, _, sig = token.split(".")
    return f"{prefix}.{body}.{sig}"


@pytest.mark.parametrize("forge", ["other_secret", "more_documents", "later_expiry",
                                   "other_run", "bad_signature", "garbage", "empty"])
def test_forged_or_altered_token(service: FeedbackService, forge: str) -> None:
    token = service.issue_token("run_1", "acme", 2, ttl=60)
    forged = {
        "other_secret": issue_token(b"x" * 32, "run_1", "acme", 2, now=T0),
        "more_documents": _with_payload(token, d=50),
        "later_expiry": _with_payload(token, e=int(T0) + 10**9),
        "other_run": _with_payload(token, r="run_2"),
        "bad_signature": token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"),
        "garbage": "cwf1.not-base64!.###",
        "empty": "",
    }[forge]
    with pytest.raises(FeedbackTokenInvalid) as err:
        service.submit(forged, 2, document_index=1)
    assert err.value.code == "feedback_token_invalid"
    assert isinstance(err.value, UsageError)
    assert service.list("acme") == []


def test_forged_token_is_invalid_even_when_expired(service: FeedbackService,
                                                   clock: Clock) -> None:
    token = service.issue_token("run_1", "acme", 2, ttl=1)
    clock.now += 10
    with pytest.raises(FeedbackTokenInvalid):  # not "expired": nothing unsigned is believed
        service.verify(_with_payload(token, d=9))


def test_token_of_another_run(service: FeedbackService) -> None:
    mine = service.issue_token("run_1", "acme", 2)
    with pytest.raises(FeedbackWrongRun) as err:
        service.submit(mine, 2, run_id="run_2")
    assert err.value.code == "feedback_token_wrong_run"
    service.submit(mine, 2, run_id="run_1")
    assert [r.run_id for r in service.list("acme")] == ["run_1"]


def test_scope_rating_and_reuse(service: FeedbackService, store: SQLiteStore) -> None:
    token = service.issue_token("run_1", "acme", 2)
    for bad in (-1, 4, 2.5, True, "3"):
        with pytest.raises(InvalidRating) as rating_err:
            service.submit(token, bad)  # type: ignore[arg-type]
        assert rating_err.value.code == "invalid_rating"
    for doc, snip in ((3, None), (0, None), (None, 0), (1, -1)):
        with pytest.raises(FeedbackOutOfScope) as scope_err:
            service.submit(token, 2, document_index=doc, snippet_index=snip)
        assert scope_err.value.code == "feedback_out_of_scope"
    service.submit(token, 2, document_index=1, snippet_index=0)
    with pytest.raises(FeedbackAlreadyRecorded):
        service.submit(token, 3, document_index=1, snippet_index=0)
    with pytest.raises(UsageError) as comment_err:
        service.submit(token, 3, comment="x" * 5000)
    assert comment_err.value.code == "invalid_comment"
    assert len(service.list("acme")) == 1


def test_snippet_scope_follows_the_stored_answer(service: FeedbackService,
                                                 store: SQLiteStore) -> None:
    now = datetime.now(UTC)
    store.create_thread("acme", "thr_1")
    answer = {"search_documents": [{"source": "a", "snippets": [{"text": "x"}, {"text": "y"}]}]}
    store.save_run(RunRecord(id="run_1", tenant="acme", thread_id="thr_1", question="q",
                             status="completed", state={}, answer=answer,
                             created_at=now, updated_at=now))
    token = service.issue_token("run_1", "acme", 1)
    with pytest.raises(FeedbackOutOfScope):
        service.submit(token, 1, document_index=1, snippet_index=2)
    service.submit(token, 1, document_index=1, snippet_index=1)


def test_secret_is_created_once_per_install(store: SQLiteStore, tmp_path: Path) -> None:
    first = get_or_create_secret(store)
    assert len(first) == 32
    assert get_or_create_secret(store) == first
    other = SQLiteStore(tmp_path / "other.db")
    try:
        assert get_or_create_secret(other) != first  # another install, another secret
    finally:
        other.close()
    token = issue_token(first, "run_1", "default", 1)
    assert verify_token(first, token).run_id == "run_1"
    store.set_setting("feedback_secret", "not a secret!")
    with pytest.raises(UsageError):
        get_or_create_secret(store)


def test_every_answer_carries_a_working_token(store: SQLiteStore) -> None:
    state = RunState(run_id="run_h", thread_id="thr_h", question="q", tenant="acme")
    hook = FeedbackTokenHook(SECRET)

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=ScriptedModel(["Nothing to cite."]),
                                           tools=Toolset(), hooks=[hook])]

    last = asyncio.run(go())[-1]
    assert last.kind == "run_finished"
    answer = last.answer
    assert answer.trajectory is not None and answer.trajectory.id == "run_h"
    token = answer.trajectory.feedback_token
    assert token is not None
    service = FeedbackService(store, SECRET)
    assert service.verify(token, run_id="run_h").tenant == "acme"
    service.submit(token, 0, comment="no sources")
    assert [r.rating for r in service.list("acme", run_id="run_h")] == [0]
