"""The hold report and the shuffle check of a stored table: the read, the report, the CLI.

Tables are played by tests/hold_support.py (the engine's rounds stored as the service
stores them). Sources: each round's settlement as the engine made it (what the house
kept), the exact odds of chance/odds.py with the engine's settle() for every outcome (what
it would keep on average), the clock the table was played by (nights and sign-ins).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from andar_bahar.chance.odds import outcome_distribution
from andar_bahar.cli import app
from andar_bahar.club.history import read_club_history
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.settlement import settle
from andar_bahar.reports.hold import hold_report, night_of
from andar_bahar.reports.hold_options import By
from andar_bahar.storage import Storage
from andar_bahar.storage.models import LedgerRow, TableRoundRow
from hold_support import START, open_table, play, sign_in_again

runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"LANG": "C", "LANGUAGE": ""})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A table with 30 rounds, a second sign-in, 50 more (half from real decks, some void):
    its database URL and code (read only: every test of the module reads the same)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('played') / 'club.sqlite3'}"
    with Storage.open(url) as storage:
        table = open_table(storage)
        play(table, 30, voids=0.1)
        table.clock.now += timedelta(minutes=5)
        sign_in_again(table)
        play(table, 50, seed=3, voids=0.1)
        return url, table.code


def test_the_history_is_the_rounds_as_played(database_url: str) -> None:
    with Storage.open(database_url) as storage:
        table = open_table(storage)
        play(table, 24, voids=0.2)
        history = read_club_history(storage, table.code)
    assert len(history.rounds) == 24
    for stored, rnd in zip(history.rounds, table.rounds, strict=True):
        settlement = rnd.settlement
        assert settlement is not None
        assert stored.wagers == tuple(rnd.wagers)  # a spot bet twice: one stake, added up
        assert stored.settled_kept == stored.ledger == settlement.house_net
        assert stored.real_deck == (rnd.deck is None)
        assert (stored.winner, stored.centre) == (rnd.result.winner, rnd.centre)
        if rnd.result.winner is not None:
            assert (
                stored.first_row == rnd.first_row and stored.cards_dealt == rnd.result.cards_dealt
            )
        kinds = [type(op).__name__ for op in rnd.operations]
        turned = kinds.index("CentreTurned")
        assert stored.bet_after_centre == ("BetPlaced" in kinds[turned:])


def test_the_report_adds_up_what_the_house_kept_and_what_the_bets_would_keep(
    played: tuple[str, str],
) -> None:
    url, code = played
    with Storage.open(url) as storage:
        history = read_club_history(storage, code)
    report = hold_report(code, "Friday", history.rounds, history.sign_ins, zone=UTC)
    kept = expected = Fraction(0)
    for r in history.rounds:
        if r.winner is None:
            continue
        kept += Fraction(r.ledger)
        colour = r.centre.colour if r.centre is not None and r.bet_after_centre else None
        for (first, winner, k), p in outcome_distribution(
            r.procedure, centre=colour
        ).probabilities.items():
            s = settle(
                winner=winner, cards_dealt=k, first_row=first, paytable=r.paytable, wagers=r.wagers
            )
            expected += p * Fraction(s.house_net)
    assert report.total.kept == kept and report.total.expected == expected
    assert report.void == sum(1 for r in history.rounds if r.winner is None) > 0
    assert report.total.rounds == 80 - report.void
    assert report.disagree == ()
    by_bet = hold_report(code, "Friday", history.rounds, history.sign_ins, zone=UTC, by=By.BET)
    assert sum(line.kept for line in by_bet.lines) == kept
    assert sum(line.expected for line in by_bet.lines) == expected


def test_nights_run_noon_to_noon_in_the_clubs_time(tmp_path: Path) -> None:
    with Storage.open(f"sqlite:///{tmp_path / 'n.sqlite3'}") as storage:
        table = open_table(storage)
        play(table, 48, every=timedelta(minutes=30))  # 18:00 UTC on 2 May to 17:30 on 3 May
        history = read_club_history(storage, table.code)
    utc = hold_report(table.code, "Friday", history.rounds, history.sign_ins, zone=UTC)
    assert [(line.key, line.rounds) for line in utc.lines] == [
        (date(2025, 5, 2), 36), (date(2025, 5, 3), 12),
    ]  # fmt: skip
    tbilisi = ZoneInfo("Asia/Tbilisi")  # UTC+4: noon there is 08:00 UTC
    local = hold_report(table.code, "Friday", history.rounds, history.sign_ins, zone=tbilisi)
    assert [line.rounds for line in local.lines] == [28, 20]
    noon = START + timedelta(hours=14)  # 08:00 UTC on 3 May: noon in Tbilisi
    assert night_of(noon - timedelta(seconds=1), tbilisi) == date(2025, 5, 2)
    assert night_of(noon, tbilisi) == date(2025, 5, 3)


def test_each_round_belongs_to_the_last_sign_in_before_it(played: tuple[str, str]) -> None:
    url, code = played
    with Storage.open(url) as storage:
        history = read_club_history(storage, code)
    report = hold_report(code, "Friday", history.rounds, history.sign_ins, zone=UTC, by=By.DEALER)
    clients = [getattr(line.key, "client", None) for line in report.lines]
    assert clients == ["local", "10.0.0.9"]
    assert sum(line.rounds for line in report.lines) == report.total.rounds


def test_a_ledger_that_disagrees_with_the_settlement_is_named(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tampered.sqlite3'}"
    with Storage.open(url) as storage:
        table = open_table(storage)
        play(table, 5)
        code = table.code
        with Session(storage.engine) as session, session.begin():
            round_id = session.scalar(select(TableRoundRow.id).where(TableRoundRow.number == 3))
            house = session.scalars(
                select(LedgerRow).where(
                    LedgerRow.round_id == round_id, LedgerRow.player_id.is_(None)
                )
            ).first()
            assert house is not None
            session.execute(
                update(LedgerRow).where(LedgerRow.id == house.id).values(amount=house.amount + 1)
            )
        history = read_club_history(storage, code)
    report = hold_report(code, "Friday", history.rounds, history.sign_ins, zone=UTC)
    assert report.disagree == (3,)


def test_the_command_writes_text_json_and_csv(played: tuple[str, str]) -> None:
    url, code = played
    status, text, _ = cli("history", "hold", code, "--db", url, "--tz", "UTC")
    assert status == 0
    assert f"Hold report of table {code} (Friday): 2025-05-02" in text
    assert "The house kept " in text and "95 % of nights with these bets fall between" in text
    status, out, _ = cli("history", "hold", code, "--db", url, "--tz", "UTC", "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["total"]["rounds"] == sum(n["rounds"] for n in data["nights"])
    expected = Fraction(data["total"]["expected"])  # the exact fraction, kept as text
    assert abs(float(expected) - float(data["total"]["expected_decimal"])) < 1e-6
    status, out, _ = cli("history", "hold", code, "--db", url, "--format", "csv", "--by", "bet")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and rows[-1]["group"] == "all" and rows[0]["group"] == "andar"
    assert sum(Decimal(r["kept"]) for r in rows[:-1]) == Decimal(rows[-1]["kept"])
    status, ru, _ = cli("history", "hold", code, "--db", url, "--lang", "ru", "--by", "dealer")
    assert status == 0 and "Заведение оставило себе" in ru and "вход крупье" in ru


def test_the_command_draws_the_nights(played: tuple[str, str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    url, code = played
    chart = tmp_path / "nights.png"
    status, _, _ = cli("history", "hold", code, "--db", url, "--plot", str(chart))
    assert status == 0 and chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    status, _, err = cli("history", "hold", code, "--db", url, "--plot", str(tmp_path / "x.gif"))
    assert status == 2 and "must end in .png or .svg" in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--from", "Friday"], "The night 'Friday' cannot be read: write its date as 2025-05-02."),
        (["--from", "2025-05-03", "--to", "2025-05-02"], "The last night 2025-05-02 is before"),
        (["--tz", "Mars/Olympus"], "Unknown time zone 'Mars/Olympus'"),
    ],
)
def test_bad_input_is_one_sentence(played: tuple[str, str], args: list[str], words: str) -> None:
    url, code = played
    status, out, err = cli("history", "hold", code, "--db", url, *args)
    assert status == 2 and words in err and "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_table_is_one_sentence(played: tuple[str, str]) -> None:
    url, _ = played
    status, _, err = cli("history", "shuffle", "NOPE", "--db", url)
    assert status == 2 and err.strip() == "There is no table with the code NOPE: check the code."


def test_the_nights_asked_for_are_the_rounds_read(played: tuple[str, str]) -> None:
    url, code = played
    status, out, _ = cli("history", "hold", code, "--db", url, "--tz", "UTC", "--from", "2025-05-03",
                         "--format", "json")  # fmt: skip
    assert status == 0 and json.loads(out)["total"]["rounds"] == 0


def test_the_shuffle_check_flags_a_dealer_who_plants_the_match_early(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite3'}"
    with Storage.open(url) as storage:
        table = open_table(storage)
        play(table, 300, real_share=0.7, early=0.6, seed=9)
    status, text, _ = cli("history", "shuffle", table.code, "--db", url)
    assert status == 0
    real, server = text.split("Rounds the server shuffled (the control)")
    assert "Unusual: the matching card comes early too often: p = " in real
    assert "Rounds dealt from a real deck: " in real and "Unusual" not in server
    status, out, _ = cli("history", "shuffle", table.code, "--db", url, "--deck", "all",
                         "--format", "json")  # fmt: skip
    data = json.loads(out)
    assert [s["deck"] for s in data["sections"]] == ["all"] and data["sections"][0]["rounds"] == 300
    assert data["sections"][0]["tests"][0]["name"] == "cards-dealt"


def test_a_colour_rule_is_checked_by_colour(tmp_path: Path) -> None:
    from andar_bahar.engine.rules import find_procedure

    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    with Storage.open(url) as storage:
        table = open_table(storage, procedure=find_procedure("first-card"))
        play(table, 60)
    status, out, _ = cli("history", "shuffle", table.code, "--db", url, "--format", "json")
    names = [t["name"] for t in json.loads(out)["sections"][0]["tests"]]
    assert status == 0 and names == [
        "cards-dealt",
        "first-row-wins",
        "colour-winner",
        "centre-rank",
    ]
    assert Colour.BLACK.value in json.loads(out)["sections"][0]["tests"][2]["cells"][0]
