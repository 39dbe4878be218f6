"""Opening a database: the engine (SQLite's WAL and full sync, PostgreSQL's durable
commits, the pools a web server needs) and the Alembic migrations that bring it up to date.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.records import StorageError

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "DATABASE_WAIT",
    "MIGRATIONS",
    "MIGRATION_LOCK",
    "POOL_OVERFLOW",
    "POOL_SIZE",
    "READ_ONLY_OPTION",
    "MigrationFailed",
    "alembic_config",
    "cannot_open",
    "create_database_engine",
    "migrating",
    "upgrade",
]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MIGRATION_LOCK = 0x616E646172
"""The PostgreSQL advisory lock taken while the schema is brought up to date."""
POOL_SIZE, POOL_OVERFLOW = 16, 24
"""Connections an engine keeps open, and how many more it opens (and closes) at a peak:
a program's threads read and write at once (the web server runs its blocking work on
eight, ``andar_bahar.web.app.WORKER_THREADS``; a program of its own may run more)."""
DATABASE_WAIT = 1.5
"""The web server's patience (``Storage.open(wait=…)``), in seconds: a statement
(PostgreSQL's ``statement_timeout``, lock waits included), SQLite's busy timeout, a free
connection of the pool; connecting to PostgreSQL: 2 s (libpq's least). Past it the
request is answered "not answering" — within 2 s."""
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 2}
"""libpq's TCP keepalives with a patience: a PostgreSQL server that vanished from the
network (no reset) is given up about 9 s after it last answered, not hours."""


def create_database_engine(
    url: str, *, connections: int | None = None, wait: float | None = None
) -> Engine:
    """An engine for *url*; SQLite gets its folder, WAL, full sync and foreign keys.

    PostgreSQL's commits are durable whatever the server's default says
    (``synchronous_commit=on`` on every connection). *connections*: the most a database
    server's connections this engine opens at once (default ``POOL_SIZE + POOL_OVERFLOW``);
    a thread that needs one more waits for one to be given back — the server's own limit
    (``max_connections``, 100 by default) is shared by every process that uses it.
    *wait*: the most seconds anything waits for the database (:data:`DATABASE_WAIT` for
    the web server; ``None``: the drivers' own patience, and 30 s for SQLite's lock).

    >>> engine = create_database_engine("postgresql+psycopg://club@db.example/club", connections=10)
    >>> engine.pool.size(), engine.pool._max_overflow  # type: ignore[attr-defined]
    (10, 0)
    >>> create_database_engine("postgresql+psycopg://club@db.example/club", wait=1.5).pool.timeout()
    1.5
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        most = connections if connections is not None else POOL_SIZE + POOL_OVERFLOW
        kept = min(POOL_SIZE, most)
        options: dict[str, Any] = {}
        if wait is not None:
            options["pool_timeout"] = wait
        postgresql = parsed.get_backend_name() == "postgresql"
        if postgresql and wait is not None:
            patience = {"connect_timeout": max(2, math.ceil(wait)), **KEEPALIVE}
            options["connect_args"] = {k: v for k, v in patience.items() if k not in parsed.query}
        engine = create_engine(
            parsed, pool_pre_ping=True, pool_size=kept, max_overflow=most - kept, **options
        )
        if postgresql:
            event.listen(engine, "connect", _postgresql_connect)
        if postgresql and wait is not None:
            event.listen(engine, "connect", _statement_timeout(round(wait * 1000)))
        return engine
    database = parsed.database or ""
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        # One connection shared by every session: the database lives in it.
        engine = create_engine(
            parsed, poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    else:
        if not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        # Wait for another program's write (the trainer and the server may share one
        # file) rather than fail at once: up to 30 s, or the web server's *wait*.
        # The web server's threads read at once (WAL: readers never wait): keep enough
        # connections open that none is opened and closed again per request.
        engine = create_engine(
            parsed,
            connect_args={"timeout": 30 if wait is None else wait},
            pool_size=POOL_SIZE,
            max_overflow=POOL_OVERFLOW,
            pool_timeout=30 if wait is None else wait,
        )
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _postgresql_connect(connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
    cursor = connection.cursor()
    try:
        cursor.execute("SET synchronous_commit = on")
    finally:
        cursor.close()
    connection.commit()


def _statement_timeout(milliseconds: int) -> Callable[[DBAPIConnection, ConnectionPoolEntry], None]:
    """A ``connect`` listener: no statement of the connection runs (or waits for a lock)
    longer than *milliseconds* (the migrations lift it: :func:`upgrade`)."""

    def bounded(connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        cursor = connection.cursor()
        try:
            cursor.execute(f"SET statement_timeout = {int(milliseconds)}")
        finally:
            cursor.close()
        connection.commit()

    return bounded


def _sqlite_connect(connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
    # SQLAlchemy emits BEGIN itself (below), so DDL and reads are transactional too.
    connection.isolation_level = None
    cursor = connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


READ_ONLY_OPTION = "andar_bahar_read_only"
"""An engine's execution option: its transactions only read (on SQLite: a deferred BEGIN)."""


def _sqlite_begin(connection: Any) -> None:
    # IMMEDIATE: take the write lock at once, so two programs writing the same
    # file wait for each other (busy timeout) instead of failing half-way. A
    # transaction that only reads begins deferred: in WAL mode it reads one
    # snapshot while a writer goes on.
    if connection.get_execution_options().get(READ_ONLY_OPTION):
        connection.exec_driver_sql("BEGIN")
    else:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    return config


class MigrationFailed(Exception):
    """A migration could not run (Alembic's own error, in its words: :func:`cannot_open` says it)."""


def upgrade(engine: Engine) -> None:
    """Run the migrations to every head on one connection, in one transaction (nothing,
    not even Alembic's import, for a database at every head already: one read)."""
    if _at_heads(engine):
        return
    from alembic import command
    from alembic.util import CommandError

    config = alembic_config()
    with migrating(engine) as connection:
        config.attributes["connection"] = connection
        try:
            command.upgrade(config, "heads")
        except CommandError as error:
            raise MigrationFailed(str(error)) from error


_REVISION = re.compile(r"^(down_revision|revision)\b[^=\n]*=\s*(.+)$", re.MULTILINE)


def head_revisions() -> frozenset[str]:
    """The revisions no migration comes after, from the migrations' own files.

    >>> sorted(head_revisions()) == sorted(alembic_heads())
    True
    """
    revisions: set[str] = set()
    before: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = dict(_REVISION.findall(path.read_text(encoding="utf-8")))
        if "revision" not in found:
            continue
        revisions.add(str(ast.literal_eval(found["revision"])))
        down = ast.literal_eval(found.get("down_revision", "None"))
        before.update([down] if isinstance(down, str) else (down or ()))
    return frozenset(revisions - before)


def alembic_heads() -> list[str]:
    """The heads as Alembic reads them (slower: for the check above)."""
    from alembic.script import ScriptDirectory

    return list(ScriptDirectory.from_config(alembic_config()).get_heads())


def _at_heads(engine: Engine) -> bool:
    """Whether the database's schema is at every head (``False`` when it cannot tell)."""
    try:
        with engine.connect().execution_options(**{READ_ONLY_OPTION: True}) as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:
        return False  # no schema yet (or no answer: the migrations say why)
    return frozenset(str(row[0]) for row in rows) == head_revisions()


@contextmanager
def migrating(engine: Engine) -> Iterator[Connection]:
    """A connection in one transaction to change the schema in, committed at the end.

    PostgreSQL: servers starting together migrate in turn (an advisory lock). SQLite: its
    foreign keys are off meanwhile (SQLite's own way of changing a table, which copies it:
    dropping the old copy must not cascade nor be refused), and once the schema has changed
    every reference is checked before the commit — a migration that leaves one dangling is
    rolled back (a database already up to date is not read through).
    """
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        driver: Any = connection.connection.driver_connection
        if sqlite:  # outside any transaction: SQLite ignores the pragma inside one
            driver.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                if engine.dialect.name == "postgresql":  # a migration takes long: no limit
                    connection.execute(text("SET LOCAL statement_timeout = 0"))
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                    )
                before = _schema_version(connection) if sqlite else None
                yield connection
                if sqlite and _schema_version(connection) != before:  # a migration ran
                    dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
                    if dangling is not None:
                        raise SQLAlchemyError(f"a reference left dangling: {tuple(dangling)}")
        finally:
            if sqlite:
                driver.execute("PRAGMA foreign_keys=ON")


def _schema_version(connection: Connection) -> int:
    """SQLite's count of the schema's changes (each migration step moves it on)."""
    return int(connection.exec_driver_sql("PRAGMA schema_version").scalar_one())


def cannot_open(url: str, error: BaseException) -> StorageError:
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except SQLAlchemyError:
        shown = url
    cause = error.orig if isinstance(error, DBAPIError) else error
    reason = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    return StorageError(
        Message(
            N_("The history database {url} cannot be opened: {reason}."),
            url=shown,
            reason=reason.rstrip("."),
        )
    )
