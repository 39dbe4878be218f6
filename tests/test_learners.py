"""Learners in the history (migration 0006): codes, answers counted once, sessions, schools,
the terminal's answers joined by code, nothing deleted that has history, and the command
line's list — on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.exc import IntegrityError
from typer.testing import CliRunner

from andar_bahar.cli import app as cli_app
from andar_bahar.club.service import TableService
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.engines import alembic_config, migrating
from andar_bahar.storage.learner_codes import code_key
from andar_bahar.storage.learners import MAX_SECONDS, SESSION_GAP, LearnerBook

START = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves on by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def storage(database_url: str) -> Iterator[Storage]:
    opened = Storage.open(database_url)
    yield opened
    opened.close()


def _enrol(book: LearnerBook, name: str) -> tuple[int, str]:
    with book.transaction() as session:
        learner, code = book.enrol(session, name)
    return learner.id, code


def test_a_code_finds_its_learner_in_any_spelling_and_only_its_hash_is_kept(
    storage: Storage,
) -> None:
    book = LearnerBook(storage)
    tamar, code = _enrol(book, "  Ｔamar   K. ")  # the names' rule: NFKC, one space
    assert len(code) == 7 and code[3] == "-"
    with book.transaction() as session:
        for typed in (code, code.lower(), code.replace("-", " "), code.replace("-", "")):
            found = book.find(session, typed)
            assert found is not None and (found.id, found.name) == (tamar, "Tamar K.")
        assert book.find(session, "ZZZ-ZZZ") is None and book.find(session, "") is None
    with storage.engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT code_hash FROM learners")).scalar_one()
    assert code.replace("-", "") not in stored and len(stored) == 64


NAMES = [
    ("   ", "A learner needs a name"),
    ("x" * 41, "A name has at most 40 characters."),
    ("Ta\tmar", "control character"),
    ("Ta\u200bmar", r"invisible character U\+200B"),
]


def test_a_name_follows_the_names_rule(storage: Storage) -> None:
    book = LearnerBook(storage)
    for name, why in NAMES:
        with pytest.raises(ParameterError, match=why), book.transaction() as session:
            book.enrol(session, name)
    assert book.everyone() == []


def test_answers_count_once_sessions_are_sittings_and_a_long_wait_counts_ten_minutes(
    storage: Storage,
) -> None:
    clock = Clock()
    book = LearnerBook(storage, now=clock)
    tamar, _ = _enrol(book, "Tamar")
    assert book.record(tamar, "layout", [(True, Decimal("4.25"))], drill="layout-1")
    assert not book.record(tamar, "layout", [(False, Decimal(1))], drill="layout-1")  # again
    clock.now += SESSION_GAP  # still the same sitting
    assert book.record(tamar, "school", [(True, Decimal(3)), (False, Decimal(5))], drill="s-1",
                       level=1)  # fmt: skip
    clock.now += SESSION_GAP + timedelta(seconds=1)  # a new one
    assert book.record(tamar, "layout", [(False, Decimal(7200))], drill="layout-2")
    progress = book.progress(tamar)
    assert [(s.kind, s.attempts, s.correct) for s in progress] == [
        ("layout", 1, 1), ("school", 2, 1), ("layout", 1, 0),
    ]  # fmt: skip
    assert progress[0].session == progress[1].session != progress[2].session
    assert progress[2].total_seconds == MAX_SECONDS
    [summary] = book.everyone()
    assert (summary.sessions, summary.attempts, summary.accuracy) == (2, 4, Fraction(2, 4))
    assert {k.kind: (k.attempts, k.correct) for k in summary.kinds} == {
        "layout": (2, 1), "school": (2, 1),
    }  # fmt: skip


def test_the_terminal_answers_under_the_code_and_a_name_stays_apart(storage: Storage) -> None:
    book = LearnerBook(storage)
    tamar, code = _enrol(book, "Tamar")
    book.record(tamar, "pay", [(True, Decimal(2))], drill="pay-1")
    storage.record_drill(code.lower(), "layout", False, Decimal(3), session="terminal")
    storage.record_drill("Tamar", "layout", True, Decimal(1), session="terminal")  # a name
    by_code = storage.drill_progress(code)
    assert by_code == book.progress(tamar)
    assert sorted((s.kind, s.correct) for s in by_code) == [("layout", 0), ("pay", 1)]
    assert [(s.kind, s.correct) for s in storage.drill_progress("Tamar")] == [("layout", 1)]
    with pytest.raises(ParameterError, match="There is no learner with the code ZZZ-ZZZ"):
        storage.record_drill("zzz-zzz", "layout", True, Decimal(1), session="terminal")
    assert code_key("Tamara") is not None  # six letters of the alphabet: still a name
    storage.record_drill("Tamara", "layout", True, Decimal(1), session="terminal")


def _table(storage: Storage, name: str = "Friday") -> str:
    service = TableService(storage)
    return service.create_table(
        name=name, kind="betting", pin="246813", procedure=find_procedure("classic"),
        paytable=find_paytable("wizard"),
    ).code  # fmt: skip


def test_a_school_lists_its_learners_and_nothing_with_history_can_be_deleted(
    storage: Storage,
) -> None:
    book = LearnerBook(storage)
    friday, saturday = _table(storage), _table(storage, "Saturday")
    tamar, _ = _enrol(book, "Tamar")
    nino, _ = _enrol(book, "Nino")
    assert book.join_school(tamar, friday.lower()) == "Friday"
    book.join_school(tamar, friday)  # again: nothing changes
    book.join_school(nino, saturday)
    book.record(tamar, "odds", [(True, Decimal(2))], drill="odds-1")
    assert [s.name for s in book.school(friday)] == ["Tamar"]
    assert [s.name for s in book.school(saturday)] == ["Nino"]
    assert book.schools(tamar) == [(friday, "Friday")]
    procedure, paytable = book.school_rules(tamar, friday)
    assert (procedure.name, paytable) == ("classic", find_paytable("wizard"))
    with pytest.raises(ParameterError, match="Join the school of table"):
        book.school_rules(nino, friday)
    with pytest.raises(ParameterError, match="no table with the code NOPE"):
        book.join_school(tamar, "NOPE")
    for statement in ("DELETE FROM learners", "DELETE FROM club_tables"):
        with pytest.raises(IntegrityError), storage.engine.begin() as conn:
            conn.execute(sa.text(statement))
    book.leave_school(tamar, friday)
    assert book.school(friday) == []
    assert [(k.kind, k.attempts) for k in book.everyone()[1].kinds] == [("odds", 1)]


def test_the_migration_goes_down_and_up_keeping_the_answers(storage: Storage) -> None:
    """0006 down to 0005 and up again: the old answers by name stay; learners go (SQLite's
    tables are copied anew, PostgreSQL's changed in place)."""
    storage.record_drill("Tamar", "layout", True, Decimal(1), session="before")
    book = LearnerBook(storage)
    tamar, _ = _enrol(book, "Nino")
    book.record(tamar, "pay", [(True, Decimal(2))], drill="pay-1")
    config = alembic_config()
    with migrating(storage.engine) as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0005")
        assert "learners" not in sa.inspect(conn).get_table_names()
        command.upgrade(config, "head")
    assert [s.kind for s in storage.drill_progress("Tamar")] == ["layout"]
    assert book.everyone() == []
    with storage.engine.begin() as conn:  # the new kinds of attempt are allowed again
        conn.execute(
            sa.text(
                "INSERT INTO attempts (kind, client, outcome, created_at)"
                " VALUES ('learner', 'x', 'failed', :t)"
            ),
            {"t": START},
        )


def test_the_command_line_lists_every_learner(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    with Storage.open(f"sqlite:///{db}") as storage:
        book = LearnerBook(storage, now=lambda: START)
        code = _table(storage)
        tamar, _ = _enrol(book, "Tamar")
        _enrol(book, "Nino")
        book.join_school(tamar, code)
        book.record(tamar, "school", [(True, Decimal(3)), (False, Decimal(5))], drill="s", level=1)
        book.reach_level(tamar, 2)
    runner = CliRunner()
    text = runner.invoke(cli_app, ["history", "learners", "--db", str(db), "--lang", "en"])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0].split() == ["learner", "level", "sessions", "answers", "accuracy", "schools"]
    assert lines[1].split() == ["Nino", "1", "0", "0", "—", "—"]
    assert lines[2].split() == ["Tamar", "2", "1", "2", "50.00", "%", code]
    as_json = runner.invoke(cli_app, ["history", "learners", "--db", str(db), "--format", "json"])
    data = json.loads(as_json.output)
    assert [d["name"] for d in data] == ["Nino", "Tamar"]
    assert data[1]["kinds"]["school"] == {
        "answers": 2, "right": 1, "accuracy": "1/2", "mean_seconds": "4.000",
        "last_answer": START.isoformat(),
    }  # fmt: skip
    as_csv = runner.invoke(cli_app, ["history", "learners", "--db", str(db), "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(as_csv.output)))
    assert [(r["name"], r["kind"], r["answers"], r["schools"]) for r in rows] == [
        ("Nino", "", "0", ""), ("Tamar", "school", "2", code),
    ]  # fmt: skip
    russian = runner.invoke(cli_app, ["history", "learners", "--db", str(db), "--lang", "ru"])
    assert "50,00 %" in russian.output
