"""Alembic's environment for the history database.

:meth:`andar_bahar.storage.Storage.open` runs the migrations programmatically
and passes its open connection in ``config.attributes["connection"]``; this
file reuses it. Without one (a developer's own Alembic config), it connects to
``sqlalchemy.url`` from the config, or to the user's default database.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from andar_bahar.storage.models import Base


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: later migrations copy and move tables.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    from andar_bahar.storage import default_database_url

    return context.config.get_main_option("sqlalchemy.url") or default_database_url()


def run_migrations() -> None:
    """Upgrade (or downgrade) on the connection given, a new one, or as SQL text."""
    given = context.config.attributes.get("connection")
    if isinstance(given, Connection):
        _configure(given)
    elif context.is_offline_mode():
        context.configure(
            url=_url(),
            target_metadata=Base.metadata,
            literal_binds=True,
            dialect_opts={"paramstyle": "named"},
        )
        with context.begin_transaction():
            context.run_migrations()
    else:
        from andar_bahar.storage.engines import create_database_engine, migrating

        engine = create_database_engine(_url())
        try:
            with migrating(engine) as connection:
                _configure(connection)
        finally:
            engine.dispose()


# Alembic runs this file with its context in place; a plain import (doctest
# collection, a type checker) finds none and does nothing.
if hasattr(context, "config"):
    run_migrations()
