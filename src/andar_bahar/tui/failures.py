"""When something goes wrong: the history's database errors said in the user's language,
and the last resort for a fault of the trainer itself.

A database that cannot be used is named by its file (a server by its address, without
the password), with the reason in the user's language, never the driver's English. A
fault of the trainer (an exception nothing expected) is written with its traceback to a
log file beside the history, and the user reads one sentence naming that file; the lesson
or the table goes on as it was, because a screen keeps its state outside its widgets.
"""

from __future__ import annotations

import functools
import inspect
import sqlite3
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n.messages import N_, Message

__all__ = [
    "FAULT",
    "database_failure",
    "default_log_path",
    "guard_handlers",
    "guarded",
    "handlers",
    "log_fault",
    "place_of",
]

F = TypeVar("F", bound=Callable[..., Any])

FAULT = N_(
    "Something went wrong inside the trainer; the game goes on as it was, and the details"
    " are written to {path}."
)
"""The last resort's sentence."""

LOG_FILE = "trainer-errors.log"


def default_log_path() -> Path:
    """The log of faults, beside the history in the user's data folder."""
    import platformdirs

    from andar_bahar.storage import APP_NAME

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / LOG_FILE


def log_fault(path: Path, error: BaseException) -> Path:
    """Append *error* with its traceback and the time to the log at *path*; the path."""
    text = "".join(traceback.format_exception(error))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(f"--- {datetime.now().astimezone().isoformat(timespec='seconds')}\n{text}")
    except OSError:
        pass  # the sentence still names where the log would be
    return path


def guarded(method: F, failed: Callable[[Any, Exception], None]) -> F:
    """*method* (sync or async) with an unexpected exception given to ``failed(self, error)``.

    Textual's own signals (an action that passes its key on) go through.
    """
    from textual.actions import SkipAction

    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def guard_async(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except SkipAction:
                raise
            except Exception as error:
                failed(self, error)
                return None

        return guard_async  # type: ignore[return-value]

    @functools.wraps(method)
    def guard(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except SkipAction:
            raise
        except Exception as error:
            failed(self, error)
            return None

    return guard  # type: ignore[return-value]


def handlers(cls: type) -> list[tuple[str, Callable[..., Any]]]:
    """The handlers (``on_…``) and actions (``action_…``) *cls* itself defines."""
    return [
        (name, method)
        for name, method in vars(cls).items()
        if name.startswith(("on_", "action_")) and inspect.isfunction(method)
    ]


def guard_handlers(cls: type, failed: Callable[[Any, Exception], None]) -> None:
    """Every handler and action of *cls* :func:`guarded`."""
    for name, method in handlers(cls):
        setattr(cls, name, guarded(method, failed))


def place_of(url: str | None) -> str:
    """Where the history is, as a person names it: a file's path, or a server's address.

    >>> place_of("sqlite:////home/nino/history.sqlite3")
    '/home/nino/history.sqlite3'
    >>> place_of("postgresql+psycopg://club:secret@db.local/club")
    'postgresql+psycopg://club:***@db.local/club'
    """
    if url is None:
        from andar_bahar.storage import default_database_url

        url = default_database_url()
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return url
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True)


_REASONS = (
    (("not a database", "malformed", "encrypted"), N_("it is damaged or is not a history file")),
    (("locked", "busy"), N_("another program is using it; try again in a moment")),
    (("readonly", "read-only", "permission denied"), N_("it may not be written")),
    (("disk is full", "no space"), N_("the disk is full")),
    (("unable to open", "file exists", "not a directory"), N_("its folder cannot be made")),
)


def database_failure(error: BaseException, url: str | None) -> Message | None:
    """The sentence for a failure of the database itself, or ``None`` for anything else
    (a refusal of the project's own, such as a round that is not stored, has its own)."""
    causes = _chain(error)
    database = [c for c in causes if _is_database_error(c)]
    if not database:
        return None
    text = " ".join(str(c).lower() for c in database)
    reason = next(
        (Message(msgid) for words, msgid in _REASONS if any(word in text for word in words)),
        Message(N_("the database answered with an error")),
    )
    return Message(
        N_("The history at {place} cannot be used: {reason}."),
        place=place_of(url),
        reason=reason,
    )


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _is_database_error(error: BaseException) -> bool:
    if isinstance(error, sqlite3.Error | OSError):
        return True
    if isinstance(error, AndarBaharError):
        return False
    module = type(error).__module__
    return module.startswith(("sqlalchemy", "psycopg", "alembic"))
