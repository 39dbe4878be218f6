"""Limits no client can switch off: whom a request is counted as (``serve --proxy``).

Every limit (wrong PINs, wrong seat codes, new tables) counts a request by an IP address,
parsed and checked once by the app; behind a trusted proxy the rightmost address of
``X-Forwarded-For`` that is no trusted proxy, and an entry that is no address at all
(``local``, ``unknown``, garbage) counts as the proxy's own address. Source of the attacks:
the issue's tries — ``X-Forwarded-For: local`` (or ``local, 127.0.0.1``) made 30 wrong PINs,
45 seat codes and 25 new tables pass with no 429.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from andar_bahar.club.limits import Limits
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.web.http.clients import client_address, trusted_proxies
from web_support import served_by_command

PIN = "246813"
FAILURES = 4
"""The stated number: wrong PINs (or seat codes) in the window before the lock."""
LIMITS = Limits(failures=FAILURES, free=FAILURES, tables_per_hour=3)
"""No slowing down before the lock (free = failures): the 429 comes at the stated number."""
JUNK = ["local", "unknown", "", "_hidden", "not an address", "1.2.3", "::zz", "[2001:db8::1",
        "300.1.1.1", "local, unknown", ", ,", "local, 192.168.1.9"]  # fmt: skip
"""What is no client's address (the last one: a proxy of the club's network passing junk on)."""


LOOPBACK = trusted_proxies(["127.0.0.1"])
CLUB_NETWORK = trusted_proxies(["192.168.1.0/24"])


@pytest.mark.parametrize("forwarded", [*JUNK[:-1], "local, 127.0.0.1"])
def test_an_entry_that_is_no_address_counts_as_the_proxys_own(forwarded: str) -> None:
    assert client_address("127.0.0.1", forwarded, LOOPBACK) == "127.0.0.1"


def test_behind_the_club_network_junk_counts_as_the_proxy_that_passed_it_on() -> None:
    assert client_address("192.168.1.50", "local", CLUB_NETWORK) == "192.168.1.50"
    assert client_address("192.168.1.50", "local, 192.168.1.9", CLUB_NETWORK) == "192.168.1.9"


def test_the_rightmost_address_that_is_no_trusted_proxy_is_the_client() -> None:
    spoofed = "10.9.8.7, 203.0.113.7"  # the client wrote 10.9.8.7; the proxy added its own peer
    assert client_address("127.0.0.1", spoofed, LOOPBACK) == "203.0.113.7"
    chain = "203.0.113.7, 192.168.1.2, 192.168.1.3"  # two proxies of the club's network
    assert client_address("192.168.1.1", chain, CLUB_NETWORK) == "203.0.113.7"
    assert client_address("127.0.0.1", "local, 203.0.113.7", LOOPBACK) == "203.0.113.7"
    assert client_address("127.0.0.1", "203.0.113.7, local", LOOPBACK) == "127.0.0.1"
    assert client_address("127.0.0.1", "[2001:db8::7]:443", LOOPBACK) == "2001:db8::7"
    assert client_address("127.0.0.1", "198.51.100.4:5000", LOOPBACK) == "198.51.100.4"
    assert client_address("::ffff:127.0.0.1", "203.0.113.7", LOOPBACK) == "203.0.113.7"
    assert client_address("203.0.113.9", "local", LOOPBACK) == "203.0.113.9"  # no proxy
    assert client_address("127.0.0.1", "203.0.113.7", ()) == "127.0.0.1"  # none trusted


# -- the served app, as `andar-bahar serve --proxy …` makes it -------------------------------------


@pytest.fixture(params=["127.0.0.1", "192.168.1.0/24"])
def proxied(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[Any, TestClient]]:
    """(the app, a client connecting from a trusted proxy's address) with --proxy PARAM."""
    application, loaded = served_by_command(
        monkeypatch, tmp_path, LIMITS, "--proxy", str(request.param)
    )
    peer = "127.0.0.1" if request.param == "127.0.0.1" else "192.168.1.50"
    with TestClient(loaded, client=(peer, 40000)) as client:
        yield application, client
    application.state.service.storage.close()


def _tables(application: Any, count: int) -> list[tuple[str, str]]:
    """*count* betting tables made at the server itself: (code, dealer token) each."""
    service = application.state.service
    made = [
        service.create_table(name=f"T{n}", kind="betting", pin=PIN,
                             procedure=find_procedure("classic"), paytable=find_paytable("wizard"))
        for n in range(count)
    ]  # fmt: skip
    return [(t.code, t.dealer_token) for t in made]


def _forwarded(kind: str, n: int) -> str:
    """The header of the *n*-th try of an attack of *kind*."""
    return {
        "junk": JUNK[n % (len(JUNK) - 1)],  # each counted as the proxy that connects
        "spoofed": f"10.0.{n}.1, 10.1.{n}.2, 203.0.113.7",  # the proxy's entry last
        "ipv6": f"2001:db8:0:0:{n}::1" if n % 2 else f"[2001:db8::{n}:1]:443",  # one /64
    }[kind]


@pytest.mark.parametrize("kind", ["junk", "spoofed", "ipv6"])
def test_wrong_pins_reach_429_at_the_stated_number(
    proxied: tuple[Any, TestClient], kind: str
) -> None:
    """One wrong PIN at each of several tables (so that no table's own count locks it):
    the address's count does, at the stated number, whatever the header says."""
    application, client = proxied
    tables = _tables(application, FAILURES + 1)
    answers = [
        client.post(f"/api/tables/{code}/login", json={"pin": "wrong-pin"},
                    headers={"X-Forwarded-For": _forwarded(kind, n)}).status_code
        for n, (code, _) in enumerate(tables)
    ]  # fmt: skip
    assert answers == [403] * FAILURES + [429]


@pytest.mark.parametrize("kind", ["junk", "spoofed", "ipv6"])
def test_wrong_seat_codes_reach_429_at_the_stated_number(
    proxied: tuple[Any, TestClient], kind: str
) -> None:
    application, client = proxied
    [(code, _)] = _tables(application, 1)
    answers = [
        client.post(f"/api/tables/{code}/join", json={"seat_code": f"WRONG{n}"},
                    headers={"X-Forwarded-For": _forwarded(kind, n)}).status_code
        for n in range(FAILURES + 1)
    ]  # fmt: skip
    assert answers == [403] * FAILURES + [429]


@pytest.mark.parametrize("kind", ["junk", "spoofed", "ipv6"])
def test_new_tables_reach_429_at_the_stated_number(
    proxied: tuple[Any, TestClient], kind: str
) -> None:
    _, client = proxied
    answers = [
        client.post("/api/tables", json={"name": "Again", "pin": PIN},
                    headers={"X-Forwarded-For": _forwarded(kind, n)}).status_code
        for n in range(LIMITS.tables_per_hour + 1)
    ]  # fmt: skip
    assert answers == [200] * LIMITS.tables_per_hour + [429]
    other = client.post("/api/tables", json={"name": "Someone else", "pin": PIN},
                        headers={"X-Forwarded-For": "198.51.100.77"})  # fmt: skip
    assert other.status_code == 200  # another client behind the same proxy is not locked out
