"""`andar-bahar history verify` finds a settlement altered by hand (issue 6)."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

from sqlalchemy import text
from typer.testing import CliRunner

from andar_bahar.cli import app
from andar_bahar.club.service import TableService
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.verification import verify


def settled_round() -> Round:
    rnd = Round.shuffled(
        find_procedure("classic"), find_paytable("wizard"), rng=random.Random(4),
        balances={"asha": Decimal(500)},
    )  # fmt: skip
    rnd.place_bet("asha", "andar", "120")
    rnd.place_bet("asha", "cards:1-5", "50")
    rnd.play()
    rnd.settle()
    return rnd


def run_verify(url: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["history", "verify", "--db", url], env={"LANG": "C"})
    return result.exit_code, result.stdout


def test_untouched_history_verifies(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    with Storage.open(url) as store:
        store.record_round(settled_round())
    code, out = run_verify(url)
    assert code == 0
    assert "1 round replayed; with a difference: 0" in out


def test_a_settlement_altered_by_hand_is_found(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    rnd = settled_round()
    with Storage.open(url) as store:
        round_id = store.record_round(rnd)
        stored = rnd.dumps()
        won = rnd.settlement.bets[0].returned  # type: ignore[union-attr]
        forged = stored.replace(f'"returned": "{won}"', f'"returned": "{won + 1000}"', 1)
        assert forged != stored
        with store.engine.begin() as conn:  # someone edits the database by hand
            conn.execute(
                text("UPDATE rounds SET record = :r WHERE id = :i"), {"r": forged, "i": round_id}
            )
        report = verify(store)
    assert report.checked == 1 and len(report.discrepancies) == 1
    assert "differs from the replay" in str(report.discrepancies[0].problem)
    code, out = run_verify(url)
    assert code == 1
    assert f"history round {round_id}:" in out


def test_a_ledger_entry_altered_by_hand_is_found(database_url: str) -> None:
    storage = Storage.open(database_url)
    service = TableService(storage, rng=random.Random(8))
    table = service.create_table(
        name="T", kind="betting", pin="246813",
        procedure=find_procedure("classic"), paytable=find_paytable("wizard"),
    )  # fmt: skip
    asha = service.join(
        table.code, service.admit_player(table.code, table.dealer_token, "Asha", "500")
    )
    service.open_round(table.code, table.dealer_token)
    service.place_bet(table.code, asha, "bahar", "100", key="k")
    while service.deal(table.code, table.dealer_token).status == "open":
        pass
    service.settle(table.code, table.dealer_token)
    assert verify(storage).ok
    with storage.engine.begin() as conn:
        # A change that still sums to zero (else the database itself refuses it): a chip more
        # for Asha, a chip less for the house.
        for side, sign in (("IS NOT NULL", "+"), ("IS NULL", "-")):
            conn.execute(
                text(
                    f"UPDATE ledger SET amount_micros = amount_micros {sign} 1000000 WHERE id ="
                    f" (SELECT MAX(id) FROM ledger WHERE round_id IS NOT NULL AND player_id {side})"
                )
            )
    report = verify(storage)
    storage.close()
    assert len(report.discrepancies) == 1
    assert str(report.discrepancies[0].where) == f"table {table.code} round 1"
    assert "ledger" in str(report.discrepancies[0].problem)
