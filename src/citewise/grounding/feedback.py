"""Feedback: a signed, expiring capability to rate one run's answer, and its ratings.

Every answer carries ``trajectory.feedback_token`` (seed 003's *"bounded, expiring
capability to rate results of this retrieval"*). The token is::

    cwf1.<base64url(payload JSON)>.<base64url(HMAC-SHA256(secret, "cwf1." + payload))>

with payload ``{"r": run id, "t": tenant, "e": expiry (unix s), "d": documents the answer
has, "n": nonce}``. Holding it lets one rate that run — the answer as a whole or one of
its ``d`` documents (and passages) — 0 to 3, once per target, until it expires. Nothing
else: the tenant and run come from the token, never from the caller, so a token cannot
be pointed at another run. The secret is per install (:func:`get_or_create_secret` keeps
it in the store's settings), so a token from another install is a forgery here.

Refusals are :class:`~citewise.errors.UsageError` subclasses with stable codes:
``feedback_token_invalid`` (malformed, forged or altered), ``feedback_token_expired``,
``feedback_token_wrong_run`` (a token presented for a run it was not issued for),
``feedback_out_of_scope`` (a document or passage the answer does not have),
``feedback_already_recorded`` (the same target rated twice: the store's unique index
decides, so concurrent posts of one token store one rating) and ``invalid_rating``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError, InvalidInput, UsageError
from citewise.store.base import decoded

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.agent.tools import ToolResult
    from citewise.answer import Answer
    from citewise.events import Event
    from citewise.models.base import ToolCall
    from citewise.store.base import FeedbackRecord, Store

__all__ = [
    "DEFAULT_TTL_S",
    "MAX_COMMENT_CHARS",
    "SECRET_SETTING",
    "FeedbackAlreadyRecorded",
    "FeedbackError",
    "FeedbackGrant",
    "FeedbackOutOfScope",
    "FeedbackService",
    "FeedbackTokenExpired",
    "FeedbackTokenHook",
    "FeedbackTokenInvalid",
    "FeedbackWrongRun",
    "InvalidRating",
    "get_or_create_secret",
    "issue_token",
    "verify_token",
]

DEFAULT_TTL_S = 30 * 24 * 3600
MAX_COMMENT_CHARS = 4000
SECRET_SETTING = "feedback_secret"
_PREFIX = "cwf1"
_MIN_SECRET = 16


class FeedbackError(UsageError):
    """A feedback request was refused."""

    code = "feedback_error"


class FeedbackTokenInvalid(FeedbackError):
    code = "feedback_token_invalid"


class FeedbackTokenExpired(FeedbackError):
    code = "feedback_token_expired"


class FeedbackWrongRun(FeedbackError):
    code = "feedback_token_wrong_run"


class FeedbackOutOfScope(FeedbackError):
    code = "feedback_out_of_scope"


class FeedbackAlreadyRecorded(FeedbackError):
    code = "feedback_already_recorded"


class InvalidRating(FeedbackError):
    code = "invalid_rating"


@dataclass(frozen=True, slots=True)
class FeedbackGrant:
    """What a valid token allows."""

    run_id: str
    tenant: str
    expires_at: datetime
    n_documents: int
    nonce: str


# -- tokens -----------------------------------------------------------------------------


def issue_token(secret: bytes, run_id: str, tenant: str, n_documents: int,
                ttl_s: float = DEFAULT_TTL_S, *, now: float | None = None) -> str:
    """A token to rate run ``run_id`` (``n_documents`` documents), valid for ``ttl_s``."""
    _check_secret(secret)
    if not run_id or n_documents < 0 or ttl_s <= 0:
        raise InvalidInput("a feedback token needs a run id, n_documents >= 0 and ttl > 0",
                           code="invalid_feedback_token_request")
    issued = time.time() if now is None else now
    payload = {"r": run_id, "t": tenant, "e": int(issued + ttl_s), "d": int(n_documents),
               "n": secrets.token_hex(8)}
    body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
    return f"{_PREFIX}.{body}.{_b64(_mac(secret, body))}"


def verify_token(secret: bytes, token: str, *, run_id: str | None = None,
                 now: float | None = None) -> FeedbackGrant:
    """The grant of a genuine, unexpired ``token``; raises a :class:`FeedbackError` else.

    The signature is checked before anything in the payload is believed, so a forged
    token is always ``feedback_token_invalid``, never ``expired`` or ``wrong_run``.
    """
    _check_secret(secret)
    parts = token.strip().split(".") if isinstance(token, str) else []
    if len(parts) != 3 or parts[0] != _PREFIX:
        raise FeedbackTokenInvalid("this is not a citewise feedback token")
    _, body, sig = parts
    try:
        given = _unb64(sig)
    except ValueError:
        raise FeedbackTokenInvalid("the feedback token is malformed") from None
    if not hmac.compare_digest(given, _mac(secret, body)) or not hmac.compare_digest(
            sig, _b64(given)):
        raise FeedbackTokenInvalid("the feedback token's signature does not match: it was "
                                   "altered, or issued by another installation")
    try:
        payload = json.loads(_unb64(body))
        grant = FeedbackGrant(
            run_id=_typed(payload["r"], str), tenant=_typed(payload["t"], str),
            expires_at=datetime.fromtimestamp(_typed(payload["e"], int), UTC),
            n_documents=_typed(payload["d"], int), nonce=_typed(payload["n"], str),
        )
    except (ValueError, KeyError, TypeError, OverflowError, OSError):
        raise FeedbackTokenInvalid("the feedback token's payload is malformed") from None
    current = time.time() if now is None else now
    if current >= grant.expires_at.timestamp():
        raise FeedbackTokenExpired(
            f"the feedback token expired at {grant.expires_at.isoformat()}",
            details={"expired_at": grant.expires_at.isoformat()})
    if run_id is not None and run_id != grant.run_id:
        raise FeedbackWrongRun("this feedback token was issued for another run",
                               details={"run_id": run_id})
    return grant


def get_or_create_secret(store: Store, key: str = SECRET_SETTING) -> bytes:
    """The install's feedback secret, created (32 random bytes) on first use.

    Created insert-if-absent, in one statement: processes starting at once on a fresh
    database all end with the first one's secret (an upsert after a check let each
    overwrite the others', and the tokens of all but the last stopped verifying)."""
    value = store.get_setting(key)
    if value is None:
        value = store.add_setting(key, _b64(secrets.token_bytes(32)))
    try:
        secret = _unb64(value)
    except ValueError:
        raise ConfigError(f"the stored setting {key!r} is not a valid secret",
                          code="feedback_secret_invalid") from None
    _check_secret(secret)
    return secret


# -- the service ------------------------------------------------------------------------


class FeedbackService:
    """Issues tokens and records the ratings they allow, in ``store``."""

    def __init__(self, store: Store, secret: bytes,
                 *, clock: Callable[[], float] = time.time) -> None:
        _check_secret(secret)
        self.store = store
        self._secret = secret
        self._clock = clock

    def issue_token(self, run_id: str, tenant: str, n_documents: int,
                    ttl: float = DEFAULT_TTL_S) -> str:
        return issue_token(self._secret, run_id, tenant, n_documents, ttl, now=self._clock())

    def verify(self, token: str, *, run_id: str | None = None) -> FeedbackGrant:
        return verify_token(self._secret, token, run_id=run_id, now=self._clock())

    def submit(
        self,
        token: str,
        rating: int,
        document_index: int | None = None,
        snippet_index: int | None = None,
        comment: str | None = None,
        *,
        run_id: str | None = None,
    ) -> int:
        """Record a rating; returns the new record's id.

        ``rating`` is 0 (useless) to 3 (exactly right). Without ``document_index`` it
        rates the answer; ``document_index`` is one-based as in ``Answer.citations``,
        ``snippet_index`` zero-based within that document. ``run_id``, when the caller
        names the run it means to rate, must be the token's.
        """
        grant = self.verify(token, run_id=run_id)
        if isinstance(rating, bool) or not isinstance(rating, int) or not 0 <= rating <= 3:
            raise InvalidRating(f"a rating is an integer from 0 to 3, not {rating!r}",
                                details={"rating": repr(rating)})
        self._check_scope(grant, document_index, snippet_index)
        text = _comment(comment)
        target = (document_index, snippet_index)
        for old in self.store.list_feedback(grant.tenant, run_id=grant.run_id):
            if (old.document_index, old.snippet_index) == target:
                raise FeedbackAlreadyRecorded(
                    "this " + _target_name(document_index, snippet_index)
                    + " of the run was already rated", details={"feedback_id": old.id})
        from citewise.store.base import FeedbackRecord

        record = FeedbackRecord(
            id=0, tenant=grant.tenant, run_id=grant.run_id, rating=rating,
            document_index=document_index, snippet_index=snippet_index, comment=text,
            created_at=datetime.fromtimestamp(self._clock(), UTC),
        )
        try:
            return self.store.add_feedback(record)
        except UsageError as exc:  # a concurrent post of the same target won the insert
            if exc.code != FeedbackAlreadyRecorded.code:
                raise
            raise FeedbackAlreadyRecorded(
                "this " + _target_name(document_index, snippet_index)
                + " of the run was already rated") from None

    def list(self, tenant: str, run_id: str | None = None) -> list[FeedbackRecord]:
        """Ratings of ``tenant`` (of one run when given), as the store orders them."""
        return self.store.list_feedback(tenant, run_id=run_id)

    def _check_scope(self, grant: FeedbackGrant, document_index: int | None,
                     snippet_index: int | None) -> None:
        if document_index is None:
            if snippet_index is not None:
                raise FeedbackOutOfScope("a passage is rated within a document: give "
                                         "document_index with snippet_index")
            return
        if (isinstance(document_index, bool) or not isinstance(document_index, int)
                or not 1 <= document_index <= grant.n_documents):
            raise FeedbackOutOfScope(
                f"document {document_index!r} is not one of the answer's "
                f"{grant.n_documents} documents (numbered from 1)",
                details={"document_index": document_index, "n_documents": grant.n_documents})
        if snippet_index is None:
            return
        limit = self._snippet_count(grant, document_index)
        if (isinstance(snippet_index, bool) or not isinstance(snippet_index, int)
                or snippet_index < 0 or (limit is not None and snippet_index >= limit)):
            raise FeedbackOutOfScope(
                f"passage {snippet_index!r} is not one of document {document_index}'s passages",
                details={"snippet_index": snippet_index, "n_snippets": limit})

    def _snippet_count(self, grant: FeedbackGrant, document_index: int) -> int | None:
        """How many passages that document has in the stored answer, when it is stored."""
        run = self.store.get_run(grant.tenant, grant.run_id)
        answer = decoded(run.answer) if run is not None and run.answer is not None else None
        try:
            docs = answer["search_documents"] if answer else None
            return len(docs[document_index - 1]["snippets"]) if docs else None
        except (KeyError, IndexError, TypeError):
            return None


# -- the hook that puts a token on every answer -----------------------------------------


class FeedbackTokenHook:
    """A :class:`~citewise.agent.hooks.RunHook` that sets ``answer.trajectory``'s token."""

    def __init__(self, secret: bytes, ttl_s: float = DEFAULT_TTL_S) -> None:
        _check_secret(secret)
        self._secret = secret
        self.ttl_s = ttl_s

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        return ()

    def on_tool_result(self, state: RunState, call: ToolCall, result: ToolResult,
                       duration_ms: float, emit: Emitter) -> Sequence[Event]:
        return ()

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        from citewise.answer import Trajectory

        token = issue_token(self._secret, state.run_id, state.tenant,
                            len(answer.search_documents), self.ttl_s)
        if answer.trajectory is None:
            answer.trajectory = Trajectory(id=state.run_id)
        answer.trajectory.feedback_token = token
        return ()


# -- helpers ----------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text or any(c not in _B64_CHARS for c in text):
        raise ValueError("not base64url")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not base64url") from exc
    # Strict: the unused low bits of the last character must be zero (the one encoding
    # _b64 writes). Otherwise four spellings of one signature all verified.
    if _b64(raw) != text:
        raise ValueError("not canonical base64url")
    return raw


_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _mac(secret: bytes, body: str) -> bytes:
    return hmac.new(secret, f"{_PREFIX}.{body}".encode("ascii"), hashlib.sha256).digest()


def _check_secret(secret: bytes) -> None:
    if not isinstance(secret, bytes) or len(secret) < _MIN_SECRET:
        raise ConfigError(f"the feedback secret must be at least {_MIN_SECRET} bytes",
                          code="feedback_secret_invalid")


def _typed(value: Any, kind: type[Any]) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(kind.__name__)
    return value


def _comment(comment: str | None) -> str | None:
    if comment is None:
        return None
    if not isinstance(comment, str):
        raise InvalidInput("a comment is text", code="invalid_comment")
    text = comment.strip()
    if len(text) > MAX_COMMENT_CHARS:
        raise InvalidInput(f"a comment has at most {MAX_COMMENT_CHARS} characters",
                           code="invalid_comment", details={"max": MAX_COMMENT_CHARS})
    return text or None


def _target_name(document_index: int | None, snippet_index: int | None) -> str:
    if document_index is None:
        return "answer"
    if snippet_index is None:
        return f"document {document_index}"
    return f"passage {snippet_index} of document {document_index}"
