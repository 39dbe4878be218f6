"""When the tables' database stops answering: one sentence to every request, one line in the log.

A database that is stopped, unreachable, locked by another program or slower than its
timeouts (:data:`~andar_bahar.storage.engines.DATABASE_WAIT`: the server's engine gives up
after about 2 s) makes every request that needs it fail. :class:`Health` turns that into
an answer and a state:

- the failure becomes :class:`DatabaseUnavailable`, one of the project's errors: the pages
  show "The table's database is not answering…" in the page's language with status 503,
  the JSON API gets it as ``{"error": …}``, a live page's socket is closed with 1013 (try
  again later) — never a traceback;
- the first failure logs **one** line and starts a probe (every :data:`PROBE_EVERY`
  seconds, in a thread of its own); until the probe succeeds every request is refused at
  once, without waiting for the database again (so no request waits, and a database that
  comes back is not met by a crowd of reconnections);
- when the probe (or the live updates' LISTEN connection) gets an answer, **one** line
  says so, and the callbacks of :meth:`Health.on_back` run (the live pages are brought up
  to date): play goes on by itself.

Which failures count (:func:`not_answering`): a lost or refused connection, a statement
or lock timeout, PostgreSQL shutting down or out of resources, SQLite's busy, locked,
read-only, full or unreadable file. A pool with no free connection in time is refused the
same way but is not an outage (it is load, not a dead database). Anything else — a
constraint, a bug — is not this module's: it stays a server error with its traceback.

>>> health = Health(probe=lambda: None)
>>> health.check()
>>> health.down
False
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n.messages import N_, Message

__all__ = [
    "NOT_ANSWERING",
    "PROBE_EVERY",
    "RETRY_AFTER",
    "DatabaseUnavailable",
    "Health",
    "not_answering",
]

log = logging.getLogger(__name__)

NOT_ANSWERING = Message(N_("The table's database is not answering: try again in a few seconds."))
PROBE_EVERY = 0.5
"""Seconds between two probes of a database that is not answering."""
RETRY_AFTER = 2
"""The ``Retry-After`` of a refusal while the database is not answering (seconds)."""

_POSTGRES_OUTAGE = ("08", "53", "57", "55P03")
"""SQLSTATE prefixes of a database not answering: connection exceptions, insufficient
resources, operator intervention (a statement timeout, a shutdown), a lock timeout."""
_SQLITE_OUTAGE = frozenset({5, 6, 8, 10, 13, 14})
"""SQLite's primary result codes of a file not answering: BUSY, LOCKED, READONLY, IOERR,
FULL, CANTOPEN (an ``OperationalError`` may also be a bad statement: "no such table")."""


class DatabaseUnavailable(AndarBaharError):
    """The tables' database is not answering (HTTP 503, ``Retry-After``)."""

    http_status = 503

    def __init__(self) -> None:
        super().__init__(NOT_ANSWERING)
        self.retry_after = RETRY_AFTER


def not_answering(error: BaseException) -> bool:
    """Whether *error* says the database is not answering (rather than refusing a statement)."""
    if not isinstance(error, OperationalError | InterfaceError):
        return False
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    cause = error.orig
    if isinstance(cause, sqlite3.Error):
        return (getattr(cause, "sqlite_errorcode", 0) & 0xFF) in _SQLITE_OUTAGE
    state = getattr(cause, "sqlstate", None)  # psycopg; None: no connection at all
    return state is None or str(state).startswith(_POSTGRES_OUTAGE)


def _reason(error: BaseException) -> str:
    cause = error.orig if isinstance(error, DBAPIError) else error
    lines = str(cause).strip().splitlines()
    return lines[0].rstrip(".") if lines else type(cause).__name__


class Health:
    """Whether this process's database answers; *probe* asks it (raising if it does not)."""

    def __init__(self, probe: Callable[[], None], *, every: float = PROBE_EVERY) -> None:
        self._probe = probe
        self._every = every
        self._lock = threading.Lock()
        self._since: float | None = None
        """When the outage began (``time.monotonic``); ``None``: the database answers."""
        self._back: list[Callable[[], None]] = []

    @property
    def down(self) -> bool:
        """Whether the database is known not to answer (until a probe gets an answer)."""
        return self._since is not None

    def on_back(self, callback: Callable[[], None]) -> None:
        """Call *callback* (in the probe's thread) each time the database answers again."""
        self._back.append(callback)

    def check(self) -> None:
        """Refuse at once, without asking the database, while it is known not to answer."""
        if self._since is not None:
            raise DatabaseUnavailable

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Around one use of the database: refused at once while it is down; a failure that
        says it is not answering becomes :class:`DatabaseUnavailable` (and an outage)."""
        self.check()
        try:
            yield
        except PoolTimeout as error:  # every connection busy: load, not an outage
            raise DatabaseUnavailable from error
        except (OperationalError, InterfaceError) as error:
            if not not_answering(error):
                raise
            self.failed(error)
            raise DatabaseUnavailable from error

    def failed(self, error: BaseException) -> None:
        """The database did not answer: the first time, say so and probe until it does."""
        with self._lock:
            if self._since is not None:
                return
            self._since = time.monotonic()
        log.warning(
            "the tables' database is not answering (%s): every request gets 503 until it is back",
            _reason(error),
        )
        threading.Thread(target=self._watch, name="database-probe", daemon=True).start()

    def answered(self) -> None:
        """The database answered: if it was down, say so, and run the :meth:`on_back` callbacks."""
        with self._lock:
            since, self._since = self._since, None
        if since is None:
            return
        log.warning(
            "the tables' database is answering again after %.1f s: play goes on",
            time.monotonic() - since,
        )
        for callback in self._back:
            try:
                callback()
            except Exception:  # one listener's fault must not keep the others waiting
                log.exception("after the database came back")

    def _watch(self) -> None:
        while self._since is not None:
            time.sleep(self._every)
            try:
                self._probe()
            except Exception:  # noqa: S112 -- still not answering: probe again
                continue
            self.answered()
