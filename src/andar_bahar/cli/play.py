"""``andar-bahar play``: the full-screen trainer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from andar_bahar.cli.common import LangOption, commands_app, guarded, require_extra
from andar_bahar.i18n import detect_language

app = commands_app()


def database_url(db: str | None) -> str | None:
    """``--db`` as a SQLAlchemy URL: a URL as it is, a file path as SQLite."""
    if db is None or "://" in db:
        return db
    return f"sqlite:///{Path(db).expanduser().resolve()}"


@app.command()
@guarded
def play(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="The history database: a file (SQLite) or a URL; default: a file in your data folder.",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed every shuffle, for a reproducible lesson.")
    ] = None,
    lang: LangOption = None,
) -> None:
    """The trainer: teaching game, club game, drills, odds and history, full screen."""
    require_extra("trainer")
    from andar_bahar.tui import run

    run(lang=lang.value if lang is not None else detect_language(), db=database_url(db), seed=seed)
