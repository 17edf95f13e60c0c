"""Cross-process wake-ups for the durable event log on PostgreSQL (LISTEN/NOTIFY).

A replica streaming a run that another replica executes would otherwise have to poll
``read_events``. Instead:

* A statement-level trigger on ``events`` sends ``NOTIFY citewise_events`` with
  ``[tenant, run_id, max(seq)]`` for each run a statement inserted into. A trigger, not
  a call in ``append_events``, so every writer notifies — including code that inserts
  rows inside a bigger transaction (``Store.transaction``, the server's log writer). Notifications are
  sent at COMMIT, so a woken reader always finds the rows; a rolled-back append wakes
  nobody.
* Each store keeps ONE listening connection (not per waiter) in a daemon thread, which
  bumps a per-``(tenant, run_id)`` generation counter for the runs someone waits on;
  waiters sleep on a condition until their counter moves or their timeout ends.

Delivery is best effort by design (a NOTIFY sent while the listener reconnects is lost),
so after reconnecting the listener wakes every waiter to re-read: the log in the table
stays the truth, notifications only say "look now".
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

__all__ = ["CHANNEL", "EventListener", "ensure_trigger"]

CHANNEL = "citewise_events"
_FUNCTION = "citewise_events_notify"
_TRIGGER = "citewise_events_notify"
_POLL_S = 0.25  # how often the listener thread checks for close(); not a DB poll
_RETRY_S = 0.5
log = logging.getLogger("citewise.store")

_FUNCTION_SQL = f"""
CREATE OR REPLACE FUNCTION {_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('{CHANNEL}', json_build_array(tenant, run_id, max(seq))::text)
    FROM new_events GROUP BY tenant, run_id;
  RETURN NULL;
END
$fn$
"""
_TRIGGER_SQL = (
    f"CREATE TRIGGER {_TRIGGER} AFTER INSERT ON events"
    f" REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION {_FUNCTION}()"
)


def ensure_trigger(conn: sa.Connection) -> None:
    """Install the NOTIFY trigger if missing (caller holds the migration lock). Checked
    first so a replica's start-up never takes a lock on ``events`` when it is there."""
    exists = conn.execute(
        sa.text(
            "SELECT 1 FROM pg_trigger WHERE tgname = :name"
            " AND tgrelid = CAST('events' AS regclass)"
        ),
        {"name": _TRIGGER},
    ).first()
    if exists is None:
        conn.exec_driver_sql(_FUNCTION_SQL)
        conn.exec_driver_sql(_TRIGGER_SQL)


Key = tuple[str, str]


class EventListener:
    """One LISTEN connection per store, shared by every waiter of that store."""

    def __init__(self, connect: Callable[[], Any]) -> None:
        self._connect = connect  # -> a psycopg.Connection in autocommit mode
        self._cond = threading.Condition()
        self._gen: dict[Key, int] = {}
        self._watchers: dict[Key, int] = {}
        self._listening = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Start the thread (once) and wait until its LISTEN is active."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the store is closed")
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="citewise-pg-listen", daemon=True
                )
                self._thread.start()
        if not self._listening.wait(timeout):
            raise TimeoutError(f"could not LISTEN on PostgreSQL: {self._error!r}")

    @contextmanager
    def watch(self, key: Key) -> Iterator[Callable[[float], bool]]:
        """Register interest in ``key`` BEFORE reading, so nothing committed after the read
        is missed; yields ``wait(timeout) -> bool`` (True: something happened since the
        last wait or the registration)."""
        with self._cond:
            self._watchers[key] = self._watchers.get(key, 0) + 1
            seen = [self._gen.get(key, 0)]

        def wait(timeout: float) -> bool:
            with self._cond:
                self._cond.wait_for(
                    lambda: self._gen.get(key, 0) != seen[0] or self._closed, timeout
                )
                moved = self._gen.get(key, 0) != seen[0]
                seen[0] = self._gen.get(key, 0)
                return moved

        try:
            yield wait
        finally:
            with self._cond:
                left = self._watchers[key] - 1
                if left:
                    self._watchers[key] = left
                else:  # nobody waits on it: forget it (the maps stay small)
                    del self._watchers[key]
                    self._gen.pop(key, None)

    def _bump(self, keys: list[Key] | None) -> None:
        with self._cond:
            for key in list(self._watchers) if keys is None else keys:
                if key in self._watchers:
                    self._gen[key] = self._gen.get(key, 0) + 1
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._closed:
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    self._bump(None)  # anything sent while we were away: re-read
                    while not self._closed:
                        # Yields each notification as it arrives; returns after _POLL_S.
                        for note in conn.notifies(timeout=_POLL_S):
                            try:
                                tenant, run_id, _seq = json.loads(note.payload)
                            except (ValueError, TypeError):
                                log.warning("ignoring bad %s payload %r", CHANNEL, note.payload)
                                continue
                            self._bump([(str(tenant), str(run_id))])
            except Exception as exc:  # connection lost: retry until closed
                self._listening.clear()
                self._error = exc
                if not self._closed:
                    log.warning("event listener connection lost (%s); reconnecting", exc)
                    threading.Event().wait(_RETRY_S)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5.0)
