"""The history database: rounds replay exactly, games keep their results, drills add up."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import platformdirs
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from andar_bahar import Card, Round, find_paytable, find_procedure
from andar_bahar.engine.errors import ActionError, ParameterError
from andar_bahar.engine.money import format_amount
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.games.teaching import TeachingGame
from andar_bahar.storage import (
    MIGRATIONS,
    DrillStats,
    Storage,
    StorageError,
    default_database_url,
)
from andar_bahar.storage.models import Base

START = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)


class Clock:
    """A clock that moves on one second each time it is read."""

    def __init__(self) -> None:
        self.moment = START

    def __call__(self) -> datetime:
        self.moment += timedelta(seconds=1)
        return self.moment


def _url(path: Path) -> str:
    return f"sqlite:///{path.as_posix()}"


def _classic_with_bets() -> Round:
    rnd = Round.shuffled(find_procedure("classic"), find_paytable("wizard"), rng=random.Random(7))
    rnd.place_bet("asha", "andar", 120)
    rnd.place_bet("ravi", "cards:6-10", "15")
    rnd.play()
    rnd.settle()
    return rnd


def _home_with_markers() -> Round:
    rnd = Round(find_procedure("home"), find_paytable("wizard"))
    rnd.place_marker("nino", "andar")
    rnd.turn_centre(Card.parse("Q♥"))
    for card in Card.parse_many("4♣ 7♦ Q♠"):
        rnd.deal(card)
    return rnd


def _mangatha() -> Round:
    rnd = Round.shuffled(
        find_procedure("mangatha"), find_paytable("wizard"), rng=random.Random(3), target="7"
    )
    rnd.play()
    return rnd


def _void() -> Round:
    rnd = Round(find_procedure("classic"), find_paytable("wizard"))
    rnd.turn_centre(Card.parse("5♠"))
    for card in Card.parse_many("2♦ 3♣"):
        rnd.deal(card)
    rnd.void()
    return rnd


@pytest.mark.parametrize("make", [_classic_with_bets, _home_with_markers, _mangatha, _void])
def test_a_round_survives_closing_and_reopening_and_replays_the_same_cards(
    tmp_path: Path, make
) -> None:
    original = make()
    url = _url(tmp_path / "history.sqlite3")
    with Storage.open(url, now=Clock()) as store:
        round_id = store.record_round(original)

    with Storage.open(url) as store:  # a new store on the same file
        [listed] = store.recent_rounds()
        loaded = store.load_round(round_id)
    result = original.result
    assert listed.id == round_id
    assert listed.game_id is None
    assert listed.number == 1
    assert listed.procedure == original.procedure.name
    assert listed.paytable == original.paytable.name
    assert listed.winner == (result.winner.value if result.winner else "void")
    assert listed.cards_dealt == result.cards_dealt
    assert listed.centre == (str(result.centre) if result.centre else None)
    assert listed.target == result.target.value
    assert listed.created_at == START + timedelta(seconds=1)
    assert listed.created_at.tzinfo is UTC
    assert [d.card for d in loaded.result.dealt] == [d.card for d in result.dealt]
    assert loaded.dumps() == original.dumps()
    assert loaded.operations == original.operations
    assert listed.replay().dumps() == original.dumps()


def test_a_teaching_game_and_a_club_game_are_listed_with_their_results(tmp_path: Path) -> None:
    rng = random.Random(11)
    with Storage.open(_url(tmp_path / "h.sqlite3"), now=Clock()) as store:
        lesson = TeachingGame(["Asha", "Ravi", "Nino"], rounds=3)
        lesson_id = store.start_game(
            "teaching", lesson.procedure, lesson.paytable, lesson.participants, {"rounds": 3}
        )
        while not lesson.finished:
            rnd = lesson.start_round(rng=rng)
            for i, player in enumerate(lesson.players):
                rnd.place_marker(player, "andar" if i % 2 == 0 else "bahar")
            rnd.play()
            score = lesson.finish_round()
            store.record_round(rnd, game_id=lesson_id, number=score.number)
        store.finish_game(lesson_id, {"standings": lesson.standings(), "scores": lesson.scores})

        start = {"Asha": Decimal(500), "Ravi": Decimal("300.5")}
        club = ClubGame(find_procedure("classic"), find_paytable("wizard"), start)
        club_id = store.start_game(
            "club", club.procedure, club.paytable, list(start), {"balances": start}
        )
        for number in (1, 2):
            rnd = club.start_round(rng=rng)
            rnd.place_bet("Asha", "andar", 100)
            rnd.place_bet("Ravi", "cards:1-5", "20")
            rnd.play()
            club.finish_round()
            store.record_round(rnd, game_id=club_id, number=number)
        store.finish_game(club_id, {"balances": club.balances, "house": club.house})

        games = store.games()
        lesson_rounds = store.recent_rounds(game_id=lesson_id)
        club_rounds = store.recent_rounds(game_id=club_id)

    assert [g.id for g in games] == [club_id, lesson_id]  # newest first
    club_game, lesson_game = games

    assert lesson_game.kind == "teaching"
    assert lesson_game.participants == ("Asha", "Ravi", "Nino")
    assert lesson_game.settings == {"rounds": 3}
    assert lesson_game.round_count == 3
    assert lesson_game.finished
    assert lesson_game.result == {
        "standings": [
            {"place": s.place, "name": s.name, "tokens": s.tokens, "shared": s.shared}
            for s in lesson.standings()
        ],
        "scores": lesson.scores,
    }
    assert lesson_game.load_procedure() == lesson.procedure
    assert lesson_game.load_paytable() == lesson.paytable
    assert [r.number for r in lesson_rounds] == [3, 2, 1]

    assert club_game.kind == "club"
    assert club_game.participants == ("Asha", "Ravi")
    assert club_game.settings == {"balances": {"Asha": "500", "Ravi": "300.5"}}
    assert club_game.round_count == 2
    assert club_game.result == {
        "balances": {name: format_amount(b) for name, b in club.balances.items()},
        "house": format_amount(club.house),
    }
    assert sum(Decimal(b) for b in club_game.result["balances"].values()) + Decimal(
        club_game.result["house"]
    ) == Decimal("800.5")
    assert club_game.procedure == "classic"
    assert club_game.paytable == "wizard"
    assert club_game.finished_at is not None
    assert club_game.started_at < club_game.finished_at
    assert [r.number for r in club_rounds] == [2, 1]


def test_drill_progress_gives_each_sessions_accuracy_and_mean_time_exactly(
    tmp_path: Path,
) -> None:
    with Storage.open(_url(tmp_path / "h.sqlite3"), now=Clock()) as store:
        for kind, correct, seconds, session in [
            ("row", True, "1.25", "monday"),
            ("odds", True, "3.5", "monday"),
            ("row", False, "2", "monday"),
            ("row", True, "0.75", "monday"),
            ("row", True, "1", "tuesday"),
            ("row", True, "0.5", "tuesday"),
        ]:
            store.record_drill(" Asha ", kind, correct, Decimal(seconds), session=session)
        store.record_drill("Ravi", "row", False, Decimal(9), session="monday")
        progress = store.drill_progress("Asha")
        learners = store.learners()

    assert progress == [
        DrillStats(
            session="monday",
            kind="row",
            attempts=3,
            correct=2,
            accuracy=Fraction(2, 3),
            mean_seconds=Decimal("1.333"),  # 4 s / 3, to the millisecond
            total_seconds=Decimal("4.000"),
            first_at=START + timedelta(seconds=1),
        ),
        DrillStats("monday", "odds", 1, 1, Fraction(1), Decimal("3.5"), Decimal("3.5"), START + timedelta(seconds=2)),
        DrillStats("tuesday", "row", 2, 2, Fraction(1), Decimal("0.75"), Decimal("1.5"), START + timedelta(seconds=5)),
    ]  # fmt: skip
    assert progress[0].total_seconds / progress[0].attempts == Decimal(4) / 3
    assert learners == ["Asha", "Ravi"]


def test_drill_times_are_kept_to_the_millisecond_and_bad_answers_refused(tmp_path: Path) -> None:
    with Storage.open(_url(tmp_path / "h.sqlite3")) as store:
        store.record_drill("nino", "row", True, Decimal("1.2345"), session="s")  # half to even
        store.record_drill("nino", "row", True, Decimal("1.2355"), session="s")
        [stats] = store.drill_progress("nino")
        with pytest.raises(ParameterError, match="zero or more"):
            store.record_drill("nino", "row", True, Decimal(-1), session="s")
        with pytest.raises(ParameterError, match="none may be empty"):
            store.record_drill("  ", "row", True, Decimal(1), session="s")
    assert stats.total_seconds == Decimal("1.234") + Decimal("1.236")


def test_the_migrations_create_exactly_the_tables_of_the_models(tmp_path: Path) -> None:
    with Storage.open(_url(tmp_path / "h.sqlite3")) as store, store.engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        inspector = inspect(conn)
        # Autogenerate does not compare check constraints or constraint names: do it here.
        names = {
            table: {
                inspector.get_pk_constraint(table)["name"],
                *(fk["name"] for fk in inspector.get_foreign_keys(table)),
                *(ck["name"] for ck in inspector.get_check_constraints(table)),
                *(ix["name"] for ix in inspector.get_indexes(table)),
                *(uq["name"] for uq in inspector.get_unique_constraints(table)),
            }
            for table in Base.metadata.tables
        }
        versions = set(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())
    assert differences == []
    assert names == {
        table.name: {c.name for c in (*table.constraints, *table.indexes)}
        for table in Base.metadata.tables.values()
    }
    script = ScriptDirectory(str(MIGRATIONS))
    assert versions == set(script.get_heads())  # the newest migration of every branch


def test_the_migrations_go_down_to_nothing_and_up_again(tmp_path: Path) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    url = _url(tmp_path / "h.sqlite3")
    with Storage.open(url) as store, store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "base")
        assert inspect(conn).get_table_names() == ["alembic_version"]
    with Storage.open(url) as store:
        assert sorted(inspect(store.engine).get_table_names()) == [
            "alembic_version",
            *sorted(Base.metadata.tables),
        ]


def test_opening_creates_the_folder_and_the_default_is_in_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = tmp_path / "not" / "yet" / "there" / "h.sqlite3"
    Storage.open(_url(nested)).close()
    assert nested.is_file()

    data = tmp_path / "data" / "andar-bahar"
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *args, **kwargs: str(data))
    assert default_database_url() == _url(data / "history.sqlite3")
    with Storage.open() as store:
        store.record_drill("nino", "row", True, Decimal(1), session="s")
    assert (data / "history.sqlite3").is_file()


def test_the_default_follows_xdg_data_home_on_linux(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if platformdirs.PlatformDirs is not platformdirs.unix.Unix:
        pytest.skip("XDG_DATA_HOME is the Linux convention")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_database_url() == _url(tmp_path / "xdg" / "andar-bahar" / "history.sqlite3")


def test_an_unfinished_round_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    rnd = Round(find_procedure("classic"), find_paytable("wizard"))
    rnd.place_bet("asha", "andar", 10)
    rnd.turn_centre(Card.parse("5♠"))
    rnd.deal(Card.parse("2♦"))
    with Storage.open(_url(tmp_path / "h.sqlite3")) as store:
        with pytest.raises(ActionError) as refused:
            store.record_round(rnd)
        stored = store.recent_rounds()
        with store.engine.connect() as conn:
            count = conn.execute(text("SELECT count(*) FROM rounds")).scalar_one()
    assert str(refused.value) == (
        "Only a finished round can be stored: deal until a card matches, or void the round."
    )
    assert stored == []
    assert count == 0


def test_sqlite_runs_in_wal_mode_with_full_sync_and_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with Storage.open(_url(path)) as store, store.engine.connect() as conn:
        pragmas = [
            conn.exec_driver_sql(f"PRAGMA {name}").scalar_one()
            for name in ("journal_mode", "synchronous", "foreign_keys")
        ]
    assert pragmas == ["wal", 2, 1]  # synchronous 2 is FULL
    with sqlite3.connect(path) as plain:  # WAL is a property of the file itself
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    plain.close()


def test_idle_connections_closed_then_opened_again_as_before(tmp_path: Path) -> None:
    """Storage.close_idle: the pool's idle connections are closed (their page caches go
    with them); a connection in use at that moment stays usable, and every connection
    opened afterwards has the same settings (WAL, full sync, foreign keys)."""
    with Storage.open(_url(tmp_path / "h.sqlite3")) as store:
        store.start_game("club", find_procedure("classic"), find_paytable("wizard"), ["asha"])
        with store.engine.connect() as busy:
            with store.engine.connect() as idle:
                idle.exec_driver_sql("SELECT 1")
            assert store.engine.pool.checkedin() == 1
            store.close_idle()
            assert store.engine.pool.checkedin() == 0
            assert busy.exec_driver_sql("SELECT count(*) FROM games").scalar_one() == 1
        with store.engine.connect() as conn:
            pragmas = [
                conn.exec_driver_sql(f"PRAGMA {name}").scalar_one()
                for name in ("journal_mode", "synchronous", "foreign_keys")
            ]
        assert pragmas == ["wal", 2, 1]
        assert [g.participants for g in store.games()] == [("asha",)]


def test_unknown_and_finished_games_and_unknown_rounds_are_refused(tmp_path: Path) -> None:
    with Storage.open(_url(tmp_path / "h.sqlite3")) as store:
        with pytest.raises(StorageError, match="There is no round 5 in the history"):
            store.load_round(5)
        with pytest.raises(StorageError, match="There is no game 9 in the history"):
            store.record_round(_home_with_markers(), game_id=9)
        with pytest.raises(ParameterError, match="choose one of teaching, club, single"):
            store.start_game("poker", find_procedure("home"), find_paytable("wizard"), ["a"])
        game = store.start_game("single", find_procedure("home"), find_paytable("wizard"), ["a"])
        store.finish_game(game, {"tokens": 1})
        with pytest.raises(StorageError, match="already finished"):
            store.finish_game(game, {"tokens": 2})
        with pytest.raises(StorageError, match="start a new game"):
            store.record_round(_home_with_markers(), game_id=game)
        assert store.recent_rounds() == []
        assert store.games()[0].result == {"tokens": 1}
    with pytest.raises(StorageError, match="closed"):
        store.recent_rounds()


def test_a_clock_without_a_time_zone_is_refused() -> None:
    with (
        Storage.open("sqlite://", now=datetime.now) as store,
        pytest.raises(ParameterError, match="without a time zone"),
    ):
        store.record_drill("nino", "row", True, Decimal(1), session="s")


def test_a_database_that_cannot_be_opened_is_one_clear_sentence(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as failed:
        Storage.open(_url(tmp_path))  # a folder, not a database file
    message = str(failed.value)
    assert message.startswith(f"The history database {_url(tmp_path)} cannot be opened: ")
    assert message.endswith(".")
    assert "\n" not in message


def test_the_same_history_works_on_postgresql(postgres_url: str) -> None:
    """Games, rounds and drills on PostgreSQL, in a schema exactly the models' own."""
    rnd = _classic_with_bets()
    with Storage.open(postgres_url, now=Clock()) as store:
        game = store.start_game(
            "club", rnd.procedure, rnd.paytable, ["asha", "ravi"], {"chip": Decimal("0.5")}
        )
        round_id = store.record_round(rnd, game_id=game)
        store.finish_game(game, {"house": Decimal("-2.5")})
        store.record_drill("asha", "row", True, Decimal("1.25"), session="s")
        store.record_drill("asha", "row", False, Decimal("0.5"), session="s")
        [listed] = store.recent_rounds()
        [stored_game] = store.games()
        [stats] = store.drill_progress("asha")
        assert store.load_round(round_id).dumps() == rnd.dumps()
        with store.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    assert listed.created_at == START + timedelta(seconds=2)
    assert listed.created_at.tzinfo is UTC
    assert stored_game.settings == {"chip": "0.5"}
    assert stored_game.result == {"house": "-2.5"}
    assert stored_game.round_count == 1
    assert (stats.accuracy, stats.mean_seconds) == (Fraction(1, 2), Decimal("0.875"))
