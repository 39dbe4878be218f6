"""The history: finished rounds, games and drill progress, kept in a database.

An adapter (it does I/O and reads the clock; the core stays pure). Any
SQLAlchemy URL works; by default a SQLite file in the user's data folder.
Opening a store brings its tables up to date (the Alembic migrations in
``migrations/``). A round is kept as its exact record, ``Round.dumps()``, and
comes back by replaying it through the state machine.

>>> from datetime import UTC, datetime
>>> from decimal import Decimal
>>> from andar_bahar import Card, Round, find_paytable, find_procedure
>>> rnd = Round(find_procedure("home"), find_paytable("wizard"))
>>> _ = rnd.place_marker("nino", "andar")
>>> _ = rnd.turn_centre(Card.parse("Q♥"))
>>> for card in Card.parse_many("4♣ 7♦ Q♠"):
...     _ = rnd.deal(card)
>>> clock = lambda: datetime(2025, 3, 1, 18, 30, tzinfo=UTC)
>>> with Storage.open("sqlite://", now=clock) as store:      # in memory; None: the user's file
...     round_id = store.record_round(rnd)
...     [(r.winner, r.cards_dealt, r.centre, r.target) for r in store.recent_rounds()]
...     store.load_round(round_id).dumps() == rnd.dumps()
...     store.record_drill("nino", "row", True, Decimal("2.5"), session="monday")
...     store.record_drill("nino", "row", False, Decimal("1.5"), session="monday")
...     [(s.session, s.kind, s.accuracy, s.mean_seconds) for s in store.drill_progress("nino")]
[('bahar', 3, 'Q♥', 'Q')]
True
[('monday', 'row', Fraction(1, 2), Decimal('2.000'))]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Self

import platformdirs
from sqlalchemy import ColumnElement, Engine, case, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from andar_bahar.engine.errors import ActionError, ParameterError
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.engines import (
    DATABASE_WAIT,
    MIGRATIONS,
    READ_ONLY_OPTION,
    MigrationFailed,
    cannot_open,
    create_database_engine,
    upgrade,
)
from andar_bahar.storage.learner_codes import code_key, code_text, learner_of, looks_like_code
from andar_bahar.storage.models import (
    GAME_KINDS,
    DrillAttemptRow,
    GameRow,
    LearnerRow,
    RoundRow,
)
from andar_bahar.storage.records import (
    DrillStats,
    StorageError,
    StoredGame,
    StoredRound,
    check_limit,
    seconds_of,
    stored_game,
    stored_round,
    to_json,
    utc_now,
)

__all__ = [
    "DATABASE_WAIT",
    "GAME_KINDS",
    "MIGRATIONS",
    "READ_ONLY_OPTION",
    "DrillStats",
    "Storage",
    "StorageError",
    "StoredGame",
    "StoredRound",
    "default_database_url",
    "utc_now",
]

APP_NAME = "andar-bahar"
DATABASE_FILE = "history.sqlite3"


def default_database_url() -> str:
    """The SQLite file in the user's data folder (``$XDG_DATA_HOME/andar-bahar`` on Linux)."""
    folder = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return f"sqlite:///{(folder / DATABASE_FILE).as_posix()}"


class Storage:
    """The history database. Open it with :meth:`open`; close it (or use ``with``)."""

    def __init__(self, engine: Engine, *, now: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._clock = now
        self._closed = False

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        now: Callable[[], datetime] = utc_now,
        connections: int | None = None,
        wait: float | None = None,
    ) -> Storage:
        """Open (creating it if need be) the database at *url* and bring its tables up to date.

        *url* is any SQLAlchemy URL (``sqlite:///path``, ``postgresql+psycopg://…``);
        ``None`` is :func:`default_database_url`. A SQLite file's folder is created.
        *connections*: the most a database server's connections it opens at once.
        *wait*: the most seconds anything waits for the database (the web server's
        :data:`~andar_bahar.storage.engines.DATABASE_WAIT`; ``None``: the drivers' own).
        """
        target = url if url is not None else default_database_url()
        try:
            engine = create_database_engine(target, connections=connections, wait=wait)
        except (SQLAlchemyError, OSError, ImportError) as error:  # ImportError: no driver
            raise cannot_open(target, error) from error
        try:
            upgrade(engine)
        except (SQLAlchemyError, OSError, MigrationFailed) as error:
            engine.dispose()
            raise cannot_open(target, error) from error
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, now=now)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for tools and tests; the methods below are the API)."""
        return self._engine

    def close_idle(self) -> None:
        """Close the connections kept open for later that nobody uses now (new ones are
        opened as they are needed): on SQLite each holds a cache of the database's pages,
        up to 2 MiB, that grows with the database. Connections in use are closed when
        they are given back. A database in memory lives in its one connection: kept.

        >>> storage = Storage.open("sqlite:///" + str(getfixture("tmp_path") / "idle.db"))
        >>> storage.games(), storage.engine.pool.checkedin()
        ([], 1)
        >>> storage.close_idle()
        >>> storage.engine.pool.checkedin(), storage.games()
        (0, [])
        >>> storage.close()
        """
        if not self._closed and not isinstance(self._engine.pool, StaticPool):
            self._engine.dispose(close=True)

    def close(self) -> None:
        """Close every connection; the store cannot be used afterwards."""
        if not self._closed:
            self._closed = True
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- games -----------------------------------------------------------------

    def start_game(
        self,
        kind: str,
        procedure: Procedure,
        paytable: Paytable,
        participants: Sequence[str],
        settings: Mapping[str, object] | None = None,
    ) -> int:
        """Record the start of a game (``teaching``, ``club`` or ``single``); return its id."""
        if kind not in GAME_KINDS:
            raise ParameterError(
                Message(
                    N_("The game kind '{kind}' is unknown; choose one of {choices}."),
                    kind=kind,
                    choices=list(GAME_KINDS),
                )
            )
        names = [participants] if isinstance(participants, str) else list(participants)
        row = GameRow(
            kind=kind,
            procedure_name=procedure.name,
            paytable_name=paytable.name,
            procedure_json=to_json(procedure.to_dict()),
            paytable_toml=paytable.to_toml(),
            participants_json=to_json(names),
            settings_json=to_json(dict(settings or {})),
            result_json=None,
            started_at=self._now(),
            finished_at=None,
        )
        with self._session() as session:
            session.add(row)
            session.flush()
            return row.id

    def finish_game(self, game_id: int, result: Mapping[str, object]) -> None:
        """Record a game's result (standings, balances …) and the time it finished."""
        text = to_json(dict(result))
        with self._session() as session:
            game = self._game(session, game_id)
            if game.finished_at is not None:
                raise StorageError(
                    Message(N_("Game {game} is already finished in the history."), game=game_id)
                )
            game.result_json = text
            game.finished_at = self._now()

    def games(self, limit: int = 20) -> list[StoredGame]:
        """The latest games, newest first, each with its number of stored rounds."""
        count = (
            select(func.count(RoundRow.id)).where(RoundRow.game_id == GameRow.id).scalar_subquery()
        )
        query = (
            select(GameRow, count)
            .order_by(GameRow.started_at.desc(), GameRow.id.desc())
            .limit(check_limit(limit))
        )
        with self._session() as session:
            return [stored_game(game, rounds) for game, rounds in session.execute(query)]

    # -- rounds ----------------------------------------------------------------

    def record_round(self, rnd: Round, *, game_id: int | None = None, number: int = 1) -> int:
        """Store a finished (or void, or settled) round, alone or as round *number* of a game."""
        if not rnd.finished:
            raise ActionError(
                Message(
                    N_(
                        "Only a finished round can be stored: deal until a card matches,"
                        " or void the round."
                    )
                )
            )
        if number < 1:
            raise ParameterError(
                Message(N_("A round's number counts from 1, not {number}."), number=number)
            )
        result = rnd.result
        row = RoundRow(
            game_id=game_id,
            number=number,
            procedure_name=rnd.procedure.name,
            paytable_name=rnd.paytable.name,
            winner=result.winner.value if result.winner is not None else "void",
            cards_dealt=result.cards_dealt,
            centre=str(result.centre) if result.centre is not None else None,
            target=result.target.value,
            record=rnd.dumps(),
            created_at=self._now(),
        )
        with self._session() as session:
            if game_id is not None:
                game = self._game(session, game_id)
                if game.finished_at is not None:
                    raise StorageError(
                        Message(
                            N_("Game {game} is finished: start a new game to store more rounds."),
                            game=game_id,
                        )
                    )
            session.add(row)
            session.flush()
            return row.id

    def recent_rounds(self, limit: int = 20, *, game_id: int | None = None) -> list[StoredRound]:
        """The latest stored rounds (of one game, if given), newest first."""
        query = select(RoundRow)
        if game_id is not None:
            query = query.where(RoundRow.game_id == game_id)
        query = query.order_by(RoundRow.created_at.desc(), RoundRow.id.desc()).limit(
            check_limit(limit)
        )
        with self._session() as session:
            return [stored_round(row) for row in session.scalars(query)]

    def load_round(self, round_id: int) -> Round:
        """The stored round, replayed from its record through the state machine."""
        with self._session() as session:
            row = session.get(RoundRow, round_id)
            if row is None:
                raise StorageError(
                    Message(N_("There is no round {round} in the history."), round=round_id)
                )
            record = row.record
        return Round.loads(record)

    # -- drills ----------------------------------------------------------------

    def record_drill(
        self, learner: str, kind: str, correct: bool, seconds: Decimal | int, *, session: str
    ) -> None:
        """Store one drill answer: right or wrong, and the seconds it took (to the millisecond).

        *learner* is a name, or a learner code as it is read aloud (``ABC-DEF``): the answer
        then joins that learner's progress, the browser's too (an unknown code is refused).
        """
        fields = {"learner": learner.strip(), "session": session.strip(), "kind": kind.strip()}
        if not all(fields.values()):
            raise ParameterError(
                Message(
                    N_("A drill answer needs a learner, a session and a kind: none may be empty.")
                )
            )
        time = Decimal(seconds)
        if not time.is_finite() or time < 0:
            raise ParameterError(
                Message(
                    N_("A drill time is a number of seconds, zero or more, not {seconds}."),
                    seconds=seconds,
                )
            )
        row = DrillAttemptRow(
            learner=fields["learner"],
            session=fields["session"],
            kind=fields["kind"],
            correct=bool(correct),
            milliseconds=round(Fraction(time) * 1000),
            created_at=self._now(),
        )
        with self._session() as db:
            coded = _coded(db, fields["learner"])
            if coded is not None:
                row.learner, row.learner_id = coded.name, coded.id
            db.add(row)

    def drill_progress(self, learner: str) -> list[DrillStats]:
        """One row per (session, kind): sessions in the order they began, then kinds.

        *learner* is a name (the answers stored under it without a learner code) or a
        learner code (``ABC-DEF``: that learner's answers, wherever they were given).
        """
        with self._session() as session:
            coded = _coded(session, learner)
            whose = (
                DrillAttemptRow.learner_id == coded.id
                if coded is not None
                else (DrillAttemptRow.learner == learner.strip())
                & DrillAttemptRow.learner_id.is_(None)
            )
        return self.progress_of(whose)

    def progress_of(self, whose: ColumnElement[bool]) -> list[DrillStats]:
        """:meth:`drill_progress` of the answers *whose* selects."""
        attempt = DrillAttemptRow
        query = (
            select(
                attempt.session,
                attempt.kind,
                func.count(attempt.id),
                func.sum(case((attempt.correct, 1), else_=0)),
                func.sum(attempt.milliseconds),
                func.min(attempt.created_at),
                func.min(attempt.id),
            )
            .where(whose)
            .group_by(attempt.session, attempt.kind)
        )
        with self._session() as session:
            groups = list(session.execute(query))
        began: dict[str, tuple[datetime, int]] = {}
        for name, _, _, _, _, first_at, first_id in groups:
            began[name] = min(began.get(name, (first_at, first_id)), (first_at, first_id))
        groups.sort(key=lambda g: (began[g[0]], g[0], g[5], g[6]))
        return [
            DrillStats(
                session=name,
                kind=kind,
                attempts=int(attempts),
                correct=int(right),
                accuracy=Fraction(int(right), int(attempts)),
                mean_seconds=seconds_of(round(Fraction(int(total), int(attempts)))),
                total_seconds=seconds_of(int(total)),
                first_at=first_at,
            )
            for name, kind, attempts, right, total, first_at, _ in groups
        ]

    def learners(self) -> list[str]:
        """Everyone with a drill answer in the history, in alphabetical order."""
        query = select(DrillAttemptRow.learner).distinct().order_by(DrillAttemptRow.learner)
        with self._session() as session:
            return list(session.scalars(query))

    # -- helpers ---------------------------------------------------------------

    @contextmanager
    def _session(self) -> Iterator[Session]:
        if self._closed:
            raise StorageError(Message(N_("The history is closed: open it again to use it.")))
        with self._sessions.begin() as session:
            yield session

    def _now(self) -> datetime:
        moment = self._clock()
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise ParameterError(
                Message(
                    N_("The clock gave {time} without a time zone: use a clock that gives UTC."),
                    time=moment.isoformat(),
                )
            )
        return moment.astimezone(UTC)

    @staticmethod
    def _game(session: Session, game_id: int) -> GameRow:
        game = session.get(GameRow, game_id)
        if game is None:
            raise StorageError(Message(N_("There is no game {game} in the history."), game=game_id))
        return game


def _coded(session: Session, learner: str) -> LearnerRow | None:
    """The learner whose code *learner* is, as it is read aloud (``None``: it is a name);
    a code of nobody's is refused, never taken for a name."""
    if not looks_like_code(learner):
        return None
    key = code_key(learner)
    assert key is not None  # looks_like_code says it is one
    found = learner_of(session, key)
    if found is None:
        raise ParameterError(
            Message(
                N_(
                    "There is no learner with the code {code}: check it, or answer under a"
                    " name instead."
                ),
                code=code_text(key),
            )
        )
    return found
