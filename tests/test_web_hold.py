"""The hold report's and the shuffle check's pages (andar_bahar.web.pages.hold), by a test client.

Sources: the table played by tests/hold_support.py and the report the command line's
modules make of it (the pages must say the same); the dealer's sign-in as the only key.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import UTC

import pytest
from fastapi.testclient import TestClient

from andar_bahar.club.history import read_club_history
from andar_bahar.i18n import translations
from andar_bahar.reports.hold import hold_report
from andar_bahar.storage import Storage
from hold_support import PIN, open_table, play, sign_in_again
from web_support import csrf, served

TAGS = re.compile(r"<[^>]+>")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('hold') / 'club.sqlite3'}"
    with Storage.open(url) as storage:
        played = open_table(storage)
        play(played, 30)
        sign_in_again(played)
        play(played, 40, seed=5)
        return url, played.code


@pytest.fixture
def dealer(table: tuple[str, str]) -> Iterator[tuple[TestClient, str]]:
    url, code = table
    with served(url) as client:
        token = csrf(client, f"/dealer/{code}/login")
        client.post(f"/dealer/{code}/login", data={"pin": PIN, "csrf_token": token})
        yield client, code


def text_of(html: str) -> str:
    return " ".join(TAGS.sub(" ", html).split())


@pytest.mark.parametrize("path", ["hold", "hold.csv", "shuffle"])
def test_only_the_dealer_sees_the_maths(table: tuple[str, str], path: str) -> None:
    url, code = table
    with served(url) as client:
        answer = client.get(f"/dealer/{code}/{path}")
    assert answer.status_code == 403
    assert f"Only the dealer can do this at table {code}." in text_of(answer.text)


def test_the_page_says_what_the_report_says(
    table: tuple[str, str], dealer: tuple[TestClient, str]
) -> None:
    url, _ = table
    client, code = dealer
    page = client.get(f"/dealer/{code}/hold?tz=UTC")
    assert page.status_code == 200
    with Storage.open(url) as storage:
        history = read_club_history(storage, code)
    report = hold_report(code, "Friday", history.rounds, history.sign_ins, zone=UTC)
    assert str(report.summary()) in text_of(page.text).replace(" ,", ",")
    assert page.text.count('<svg xmlns="http://www.w3.org/2000/svg"') == 1
    assert (
        'class="kept' in page.text
        and "<script" not in page.text.split("<svg", 1)[1].split("</svg>")[0]
    )
    ru = client.get(f"/dealer/{code}/hold?tz=UTC&by=bet&lang=ru")
    words = str(report.summary().localized(translations("ru")))
    assert words.split(";")[0] in text_of(ru.text)  # Заведение оставило себе …


def test_the_cashier_downloads_the_lines(dealer: tuple[TestClient, str]) -> None:
    client, code = dealer
    answer = client.get(f"/dealer/{code}/hold.csv?by=dealer&tz=UTC")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert f'filename="hold-{code}-all.csv"' in answer.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert [r["group"].split(" ")[-1] for r in rows] == ["local", "10.0.0.9", "all"]
    assert sum(int(r["rounds"]) for r in rows[:-1]) == int(rows[-1]["rounds"])


def test_the_shuffle_check_shows_real_decks_and_the_control(dealer: tuple[TestClient, str]) -> None:
    client, code = dealer
    page = client.get(f"/dealer/{code}/shuffle")
    assert page.status_code == 200
    assert 'id="shuffle-real"' in page.text and 'id="shuffle-server"' in page.text
    assert "Nothing unusual in" in page.text or "Unusual:" in page.text
    everything = client.get(f"/dealer/{code}/shuffle?deck=all&lang=ka")
    assert 'id="shuffle-all"' in everything.text and 'id="shuffle-real"' not in everything.text


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("from=abc", "The night 'abc' cannot be read: write its date as 2025-05-02."),
        ("by=table", "'table' is not a choice for by: choose one of night, dealer, bet."),
        ("from=2025-05-04&to=2025-05-02", "The last night 2025-05-02 is before the first night"),
        ("tz=Nowhere/Land", "Unknown time zone 'Nowhere/Land'"),
    ],
)
def test_a_bad_question_gets_one_sentence(
    dealer: tuple[TestClient, str], query: str, words: str
) -> None:
    client, code = dealer
    answer = client.get(f"/dealer/{code}/hold?{query}")
    assert answer.status_code == 400
    assert words in text_of(answer.text).replace("&#39;", "'")


def test_the_dealer_finds_the_pages_from_the_table_and_the_statement(
    dealer: tuple[TestClient, str],
) -> None:
    client, code = dealer
    table = client.get(f"/dealer/{code}").text
    assert f'href="/dealer/{code}/hold"' in table and f'href="/dealer/{code}/shuffle"' in table
    assert f'href="/dealer/{code}/hold"' in client.get(f"/dealer/{code}/statement").text
