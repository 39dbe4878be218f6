"""Amounts as people write them: one rule (``parse_stake``) in every money field.

In each language its own grouping of thousands and its decimal mark (Babel's locale data:
``1,000.5`` in English, ``1 000,5`` in Russian and Georgian, a point read as a decimal there
too); an amount that could be two numbers (``1,000`` in Russian, ``1.000`` in English) is
refused with one sentence that shows how to write it — in the dealer's forms, the JSON
API and the command line alike.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from babel.numbers import format_decimal, get_decimal_symbol, get_group_symbol
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from andar_bahar.cli import app as cli_app
from andar_bahar.engine.errors import BetError
from andar_bahar.engine.money import MAX_PLACES, parse_stake
from andar_bahar.i18n import LANGUAGES, NUMBER_SYMBOLS, format_number
from sqlite_template import migrated_sqlite
from web_support import csrf, served

PIN = "246813"
AMBIGUOUS = "could be 1 or 1000: write 1000, or 1 without the decimals"
"""The sentence's end for "1,000" in Russian (the example of the rule itself)."""


# -- the rule ---------------------------------------------------------------------------------

READ = [  # (text, language, amount); the grouping and decimal mark from Babel's locale data
    ("1,000", "en", "1000"),
    ("1,000,000.25", "en", "1000000.25"),
    ("1 000", "en", "1000"),
    ("12.5", "en", "12.5"),
    ("0.125", "en", "0.125"),  # a whole part of 0 starts no group of thousands
    ("1\u00a0000", "ru", "1000"),  # Babel's own Russian grouping: a no-break space
    ("1\u202f000", "ru", "1000"),  # a narrow no-break space
    ("1 000", "ka", "1000"),
    ("12,5", "ru", "12.5"),
    ("12.5", "ru", "12.5"),  # a point is read as a decimal mark in Russian too
    ("1 000,25", "ka", "1000.25"),
    ("1234,567", "ru", "1234.567"),  # four digits before the comma: no group of thousands
    ("1.000,5", "en", "1000.5"),  # both marks: the last one is the decimal mark
    ("1000", "ka", "1000"),
]
AMBIGUOUS_TEXTS = [("1,000", "ru"), ("1,000", "ka"), ("1.000", "ru"), ("1.000", "en"),
                   ("-2,500", "ka")]  # fmt: skip
MISPLACED = [("1,00,0", "en"), ("1 00", "ru"), ("12,5", "en"), ("0,500", "en"), ("1 000,000", "en")]


@pytest.mark.parametrize(("text", "lang", "amount"), READ)
def test_each_language_reads_its_own_grouping_and_decimal_mark(
    text: str, lang: str, amount: str
) -> None:
    assert parse_stake(text, lang=lang) == Decimal(amount)


@pytest.mark.parametrize(("text", "lang"), AMBIGUOUS_TEXTS)
def test_an_amount_that_could_be_two_numbers_is_refused_saying_how_to_write_it(
    text: str, lang: str
) -> None:
    with pytest.raises(BetError, match=r"could be -?[0-9,.]+ or -?[0-9]+: write ") as refused:
        parse_stake(text, lang=lang)
    assert str(refused.value).count(".") <= 3  # one sentence (its amounts may hold points)


def test_the_refusal_of_1_000_in_russian_names_both_readings() -> None:
    with pytest.raises(BetError) as refused:
        parse_stake("1,000", lang="ru")
    assert str(refused.value) == f"The amount '1,000' {AMBIGUOUS}."
    with pytest.raises(BetError) as fraction:
        parse_stake("2,125", lang="ru")  # three decimals of a fraction: write four
    assert str(fraction.value).endswith("could be 2,125 or 2125: write 2125 or 2,1250.")


@pytest.mark.parametrize(("text", "lang"), MISPLACED)
def test_a_misplaced_separator_is_refused(text: str, lang: str) -> None:
    with pytest.raises(BetError, match="has a separator out of place: group the thousands"):
        parse_stake(text, lang=lang)


def test_other_digits_than_0_to_9_are_refused() -> None:
    for text in ("١٠٠", "１０", "1e3"):
        with pytest.raises(BetError, match="digits 0 to 9"):
            parse_stake(text, lang="en")


amounts = st.decimals(
    min_value=Decimal("-999999999999"), max_value=Decimal("999999999999"), places=MAX_PLACES,
    allow_nan=False, allow_infinity=False,
)  # fmt: skip


@pytest.mark.parametrize("lang", LANGUAGES)
def test_amounts_are_read_with_babels_marks_without_its_locale_data(lang: str) -> None:
    """Source: Babel's locale data (CLDR) — the marks parse_stake reads amounts by, from the
    trainer's own table (a server keeps no megabytes of locale data all night)."""
    assert NUMBER_SYMBOLS[lang] == (get_decimal_symbol(lang), get_group_symbol(lang))


@given(
    number=amounts | st.integers(min_value=-(10**15), max_value=10**15),
    lang=st.sampled_from(LANGUAGES),
)
def test_a_number_is_written_as_babel_writes_it(number: Decimal | int, lang: str) -> None:
    """Property: the language's own writing of a number (without loading Babel's locale
    data) is Babel's, digit for digit, for any amount (Babel itself rounds numbers of
    more than 28 digits, which no amount has) and any whole number."""
    expected = format_decimal(number, locale=lang, decimal_quantization=False)
    assert format_number(number, lang) == expected


@given(amount=amounts, lang=st.sampled_from(LANGUAGES))
def test_an_amount_written_in_a_language_reads_back_the_same_or_is_refused_as_ambiguous(
    amount: Decimal, lang: str
) -> None:
    """Property: an amount as a language writes it reads back as that amount —
    unless it has a whole part of 1 to 999 and exactly three decimals (``5.125`` in English,
    ``5,125`` in Russian), which a person of another language could read as thousands:
    that is refused, never read as another number."""
    written = format_number(amount, lang)
    whole, fraction = divmod(abs(amount), 1)
    three_decimals = len(format(fraction.normalize(), "f").partition(".")[2]) == 3
    if 1 <= whole <= 999 and three_decimals:
        with pytest.raises(BetError, match="could be"):
            parse_stake(written, lang=lang)
    else:
        assert parse_stake(written, lang=lang) == amount, written


# -- every money field -----------------------------------------------------------------------


@pytest.fixture
def club(tmp_path: Path) -> Iterator[TestClient]:
    """A club on SQLite (reading amounts is the same on every database)."""
    with served(migrated_sqlite(tmp_path / "club.sqlite3"), secret=b"a" * 32) as client:
        yield client


def _table(client: TestClient) -> tuple[str, dict[str, str]]:
    made = client.post("/api/tables", json={"name": "Amounts", "pin": PIN, "paytable": "wizard"})
    assert made.status_code == 200, made.text
    return made.json()["code"], {"Authorization": f"Bearer {made.json()['dealer_token']}"}


def _state(client: TestClient, code: str, dealer: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = client.get(f"/api/tables/{code}", headers=dealer).json()
    return data


def _balances(client: TestClient, code: str, dealer: dict[str, str]) -> dict[str, str]:
    return {p["name"]: p["balance"] for p in _state(client, code, dealer)["players"]}


def test_the_api_reads_amounts_in_the_request_language(club: TestClient) -> None:
    code, dealer = _table(club)
    russian = {**dealer, "Accept-Language": "ru"}
    english = {**dealer, "Accept-Language": "en"}
    refused = club.post(f"/api/tables/{code}/players", json={"name": "Nino", "balance": "1,000"},
                        headers=russian)  # fmt: skip
    assert refused.status_code == 400 and "1000" in refused.json()["error"]
    assert _balances(club, code, dealer) == {}  # nothing changed
    for name, balance, headers in (("Asha", "1,000", english), ("Nino", "1 000", russian),
                                   ("Gela", 2000, russian)):  # fmt: skip
        seat = club.post(f"/api/tables/{code}/players", json={"name": name, "balance": balance},
                         headers=headers)  # fmt: skip
        assert seat.status_code == 200, seat.text
    assert _balances(club, code, dealer) == {"Asha": "1000", "Nino": "1000", "Gela": "2000"}
    cash = f"/api/tables/{code}/cash"
    up = club.post(cash, json={"name": "Asha", "amount": "1,000", "action": "top-up"},
                   headers=english)  # fmt: skip
    assert up.json() == {"balance": "2000"}  # the case: a top-up of 1,000, not of 1
    out = club.post(cash, json={"name": "Nino", "amount": "1,000", "action": "cash-out"},
                    headers=russian)  # fmt: skip
    assert out.status_code == 400 and "1000" in out.json()["error"]  # said in Russian
    # A JSON number is a number: 1.000 is one chip, whatever the language.
    one = club.post(cash, json={"name": "Nino", "amount": 1.000, "action": "cash-out"},
                    headers=russian)  # fmt: skip
    assert one.json() == {"balance": "999"}


def test_a_bet_over_the_api_reads_its_stake_in_the_request_language(club: TestClient) -> None:
    code, dealer = _table(club)
    seat = club.post(f"/api/tables/{code}/players", json={"name": "Asha", "balance": 5000},
                     headers=dealer).json()["seat_code"]  # fmt: skip
    token = club.post(f"/api/tables/{code}/join", json={"seat_code": seat}).json()["token"]
    asha = {"Authorization": f"Bearer {token}"}
    assert club.post(f"/api/tables/{code}/rounds", json={}, headers=dealer).status_code == 200
    bets = f"/api/tables/{code}/bets"
    refused = club.post(bets, json={"bet": "andar", "stake": "1,000", "key": "r"},
                        headers={**asha, "Accept-Language": "ka"})  # fmt: skip
    assert refused.status_code == 400 and "1000" in refused.json()["error"]
    placed = club.post(bets, json={"bet": "andar", "stake": "1,000", "key": "e"},
                       headers={**asha, "Accept-Language": "en"})  # fmt: skip
    assert placed.status_code == 200 and placed.json()["stake"] == "1000"
    halves = club.post(bets, json={"bet": "bahar", "stake": "12,5", "key": "h"},
                       headers={**asha, "Accept-Language": "ru"})  # fmt: skip
    assert halves.status_code == 400 and "12,5" in halves.json()["error"]  # read, not whole


def _dealer_browser(club: TestClient) -> tuple[str, TestClient, str]:
    """A table whose dealer signed in through the pages: (code, browser, CSRF token)."""
    code, _ = _table(club)
    browser = TestClient(club.app)
    token = csrf(browser)
    signed = browser.post(f"/dealer/{code}/login", data={"pin": PIN, "csrf_token": token})
    assert signed.status_code == 200, signed.text
    return code, browser, token


def _shown(response: Any) -> str:
    return html.unescape(str(response.text))


def test_the_dealers_forms_read_amounts_in_the_page_language(club: TestClient) -> None:
    code, browser, token = _dealer_browser(club)
    admit = f"/dealer/{code}/players"
    refused = browser.post(f"{admit}?lang=en", data={"name": "Asha", "balance": "1,00,0",
                                                    "csrf_token": token})  # fmt: skip
    assert refused.status_code == 400 and "separator out of place" in _shown(refused)
    for lang, name in (("en", "Asha"), ("ka", "Nino")):
        balance = "1,000" if lang == "en" else "1 000"
        done = browser.post(f"{admit}?lang={lang}",
                            data={"name": name, "balance": balance, "csrf_token": token})  # fmt: skip
        assert done.status_code == 200, done.text
    cash = f"/dealer/{code}/cash"
    for lang, amount, action in (("en", "1,000", "top-up"), ("ru", "250,5", "cash-out")):
        moved = browser.post(f"{cash}?lang={lang}", data={"name": "Asha", "amount": amount,
                             "action": action, "csrf_token": token})  # fmt: skip
        assert moved.status_code == (200 if lang == "en" else 400), moved.text
    assert "250,5" in _shown(moved)  # read as 250.5 (in Russian): not whole chips
    ambiguous = browser.post(f"{cash}?lang=ka", data={"name": "Asha", "amount": "1.000",
                             "action": "top-up", "csrf_token": token})  # fmt: skip
    assert ambiguous.status_code == 400 and "1000" in _shown(ambiguous)
    dealer = {"Authorization": "Bearer " + browser.cookies[f"dealer_{code}"].rpartition(".")[0]}
    assert _balances(club, code, dealer) == {"Asha": "2000", "Nino": "1000"}


# -- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "lang", "ok"),
    [
        (["odds", "--stake", "1,000"], "en", True),
        (["odds", "--stake", "1,000"], "ru", False),
        (["odds", "--stake", "1 000"], "ka", True),
        (["paytable", "design", "--step", "0,05", "--format", "toml"], "ru", True),
        (["paytable", "design", "--step", "0,05", "--format", "toml"], "en", False),
    ],
)
def test_the_command_line_reads_amounts_in_its_language(
    args: list[str], lang: str, ok: bool
) -> None:
    result = CliRunner().invoke(cli_app, [*args, "--lang", lang])
    assert (result.exit_code == 0) is ok, result.output
    if not ok and args[0] == "odds":
        assert "1000" in result.output  # the sentence shows how to write it


def test_sessions_read_the_bankroll_in_the_language_of_the_line() -> None:
    pytest.importorskip("numpy")
    base = ["sessions", "--stake", "10", "--rounds", "5", "--sessions", "20", "--seed", "1"]
    english = CliRunner().invoke(cli_app, [*base, "--bankroll", "1,000", "--lang", "en"])
    assert english.exit_code == 0, english.output
    russian = CliRunner().invoke(cli_app, [*base, "--bankroll", "1,000", "--lang", "ru"])
    assert russian.exit_code == 2 and "1000" in russian.output
