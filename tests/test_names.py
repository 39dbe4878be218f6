"""Players' names: NFKC, nothing invisible, no two alike at a table (Unicode TR39 skeletons).

The rule is pure (``andar_bahar.engine.names``); the club table applies it to every name
that comes in (a seat by the dealer's form or the API) and finds a seat by a name typed as
it is kept; the statement and its CSV print a name that predates the rule without its
invisible characters.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.names import alike, check_name, check_new_name, printable, skeleton
from web_support import served

PIN = "246813"
RLO = "\u202e"


# -- the rule ---------------------------------------------------------------------------------


def test_a_name_is_kept_in_nfkc_with_single_spaces() -> None:
    assert check_name("  Ａｓｈａ  \u00a0Rao ") == "Asha Rao"  # fullwidth letters, a no-break space
    assert check_name("ﬁona") == "fiona"  # the ligature fi


@pytest.mark.parametrize(
    "name",
    ["as\u200bha", "as\u200cha", "as\u200dha", "\ufeffasha", "as\u2060ha", f"{RLO}ahsa",
     "a\u202asha", "a\u2066sha\u2069", "asha\u200e", "asha\u200f", "asha\u061c", "as\u2028ha"],
)  # fmt: skip
def test_invisible_and_direction_characters_are_refused_naming_the_character(name: str) -> None:
    hidden = next(ch for ch in name if ch not in "asha")
    with pytest.raises(ParameterError, match=f"invisible character U\\+{ord(hidden):04X}"):
        check_name(name)


@pytest.mark.parametrize("other", ["asha", "ASHA", "Asha", "\u0430sha", "as\u04bba", "ａｓｈａ"])
def test_a_name_alike_to_a_seated_one_is_refused_naming_the_seated_player(other: str) -> None:
    """Source: the issue's look-alikes (case, a Cyrillic а U+0430, a Cyrillic һ U+04BB)."""
    with pytest.raises(ParameterError, match="asha") as refused:
        check_new_name(other, ["Ravi", "asha"])
    assert "already at the table" in str(refused.value)


def test_names_of_other_scripts_that_do_not_look_alike_are_accepted() -> None:
    assert check_new_name("Нино", ["ნინო", "Nino Beridze"]) == "Нино"  # Russian beside Georgian
    assert check_new_name("Гела", ["გელა", "Gela"]) == "Гела"
    assert not alike("Ольга", "Olga") and not alike("Саша", "Sasha")


def test_the_skeleton_follows_unicode_tr39() -> None:
    """Source: UTS #39 §4's own example pair, "paypal" with a Cyrillic р and а."""
    assert skeleton("\u0440\u0430ypal") == skeleton("paypal")
    assert alike("Ivan", "lvan")  # a capital I and a small L


def test_printable_shows_what_would_hide_or_turn_a_name() -> None:
    assert printable(f"Asha{RLO}ahsA") == "Asha<U+202E>ahsA"
    assert printable("Ravi") == "Ravi"
    assert printable("Нино ნინო") == "Нино ნინო"


# -- at the table --------------------------------------------------------------------------------


@pytest.fixture
def club(database_url: str) -> Iterator[TestClient]:
    with served(database_url, secret=b"n" * 32) as client:
        yield client


def _admit(client: TestClient, code: str, dealer: dict[str, str], name: str) -> tuple[int, str]:
    answer = client.post(f"/api/tables/{code}/players", json={"name": name, "balance": "100"},
                         headers=dealer)  # fmt: skip
    return answer.status_code, str(answer.json().get("error", ""))


def test_the_table_refuses_look_alike_and_invisible_names(club: TestClient) -> None:
    made = club.post("/api/tables", json={"name": "Names", "pin": PIN})
    code, dealer = made.json()["code"], {"Authorization": f"Bearer {made.json()['dealer_token']}"}
    assert _admit(club, code, dealer, "asha") == (200, "")
    for other in ("\u0430sha", "ASHA", "as\u200bha", f"{RLO}ahsa", " asha "):
        status, error = _admit(club, code, dealer, other)
        assert status == 400 and error, other
        assert "asha" in error or "invisible" in error, error
    assert _admit(club, code, dealer, "Нино")[0] == 200
    assert _admit(club, code, dealer, "ნინო")[0] == 200
    assert _admit(club, code, dealer, "Ａｓｈａ Rao")[0] == 200  # kept as "Asha Rao"
    state = club.get(f"/api/tables/{code}", headers=dealer).json()
    assert [p["name"] for p in state["players"]] == ["asha", "Нино", "ნინო", "Asha Rao"]
    # A top-up by the name as typed in fullwidth letters finds the seat it was kept as.
    up = club.post(f"/api/tables/{code}/cash", json={"name": "Ａｓｈａ Rao", "amount": "5",
                   "action": "top-up"}, headers=dealer)  # fmt: skip
    assert up.json() == {"balance": "105"}
    # The seat released, the name is free again: admitted anew on the same account.
    released = club.post(f"/api/tables/{code}/seats/release", json={"name": "asha"},
                         headers=dealer)  # fmt: skip
    assert released.status_code == 200
    assert _admit(club, code, dealer, "ASHA")[0] == 200


def test_the_statement_prints_an_old_name_without_its_direction_control(
    club: TestClient,
) -> None:
    """A name seated before the rule (written into the database as it was then allowed)."""
    made = club.post("/api/tables", json={"name": "Old", "pin": PIN})
    code, dealer = made.json()["code"], {"Authorization": f"Bearer {made.json()['dealer_token']}"}
    assert _admit(club, code, dealer, "Ravi")[0] == 200
    engine = club.app.state.service.storage.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE table_players SET name = :n"), {"n": f"Ravi{RLO}lasrevni"})
    sheet = club.get(f"/api/tables/{code}/statement", headers=dealer).json()
    assert sheet["players"][0]["name"] == "Ravi<U+202E>lasrevni"
    assert {p["player"] for p in sheet["postings"]} == {"Ravi<U+202E>lasrevni"}
    csv_text = club.get(f"/api/tables/{code}/statement?format=csv", headers=dealer).text
    assert RLO not in csv_text and "Ravi<U+202E>lasrevni" in csv_text
