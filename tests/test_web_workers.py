"""Many server processes on one PostgreSQL database (issue 9's acceptance).

- Three ``andar-bahar serve`` commands on three ports share one throw-away schema:
  a phone whose page follows the table on server B receives, live, the card dealt
  through server A and its own bet placed through server C's API; the dealer's page
  on A shows a bet placed on B.
- ``serve --workers 3``: one worker is killed with SIGKILL while bets are in flight;
  play goes on through the others, and every bet answered is stored exactly once.

Each test needs ANDAR_BAHAR_TEST_POSTGRES_URL (.ci/run sets it) and skips without
it; every process is started in its own process group and killed at the end.
On SQLite ``--workers`` above 1 is refused (the last test).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner
from websockets.sync.client import ClientConnection, connect

from andar_bahar.cli import app as cli_app
from andar_bahar.club.service import TableService
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.storage import Storage
from andar_bahar.web.http.security import Signer, load_or_create_secret
from andar_bahar.web.live.hub import HEARTBEAT
from serve_process import ServeProcess

START_TIMEOUT = 60.0
RECEIVE_TIMEOUT = 15.0
PIN = "246813"


class Server(ServeProcess):
    """``andar-bahar serve [--workers N]`` on a free loopback port, named *name*."""

    def __init__(self, url: str, folder: Path, name: str, workers: int = 1) -> None:
        super().__init__(url, folder, name, workers, start_timeout=START_TIMEOUT)


@pytest.fixture
def servers(postgres_url: str, tmp_path: Path) -> Iterator[Any]:
    """``start(name, workers=1)`` servers on the test's schema; all killed at teardown."""
    started: list[Server] = []

    def start(name: str, workers: int = 1) -> Server:
        server = Server(postgres_url, tmp_path, name, workers)
        started.append(server)
        server.wait_ready()
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


def call(base: str, method: str, path: str, token: str = "", **body: object) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    payload = body if method != "GET" else None
    response = httpx.request(method, f"{base}{path}", json=payload, headers=headers, timeout=30)
    assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
    return response.json()


def receive_until(socket: ClientConnection, wanted: Any) -> dict[str, Any]:
    """The first live message for which ``wanted(message)`` holds (others are skipped)."""
    deadline = time.monotonic() + RECEIVE_TIMEOUT
    while True:
        left = deadline - time.monotonic()
        assert left > 0, "the live message did not come"
        text = socket.recv(timeout=left)
        if text == HEARTBEAT:  # the server's, when it has nothing else to say
            continue
        message: dict[str, Any] = json.loads(text)
        if wanted(message):
            return message


def test_a_phone_on_one_server_sees_what_happens_on_the_others(
    servers: Any, postgres_url: str, tmp_path: Path
) -> None:
    a, b, c = servers("A"), servers("B"), servers("C")
    created = call(a.base, "POST", "/api/tables", name="Chain", pin=PIN, paytable="wizard")
    code, dealer = created["code"], created["dealer_token"]
    seats = {
        name: call(a.base, "POST", f"/api/tables/{code}/players", dealer, name=name,
                   balance="500")["seat_code"]
        for name in ("Asha", "Ravi")
    }  # fmt: skip
    asha = call(c.base, "POST", f"/api/tables/{code}/join", seat_code=seats["Asha"])["token"]
    ravi = call(b.base, "POST", f"/api/tables/{code}/join", seat_code=seats["Ravi"])["token"]
    # The same secret signs the cookies of every server (the data folder is shared here).
    secret = load_or_create_secret(tmp_path / "data" / "andar-bahar" / "web-secret")
    seat_cookie = f"seat_{code}={Signer(secret, 'seat').sign(asha)}"
    dealer_cookie = f"dealer_{code}={Signer(secret, 'dealer').sign(dealer)}"
    version = call(a.base, "GET", f"/api/tables/{code}", dealer)["version"]
    ws = b.base.replace("http://", "ws://")
    phone = connect(f"{ws}/ws/{code}?page=player&v={version}",
                    additional_headers={"Cookie": seat_cookie}, open_timeout=10)  # fmt: skip
    dealer_page = connect(
        f"{a.base.replace('http://', 'ws://')}/ws/{code}?page=dealer&v={version}",
        additional_headers={"Cookie": dealer_cookie}, open_timeout=10,
    )  # fmt: skip
    with phone, dealer_page:
        call(a.base, "POST", f"/api/tables/{code}/rounds", dealer)  # opened through A …
        opened = receive_until(phone, lambda m: m["data"].get("round") == 1)  # … seen on B
        assert opened["data"]["bets_open"] is True

        # Asha's own bet, placed through C's API: her page on B shows it in her own block.
        call(c.base, "POST", f"/api/tables/{code}/bets", asha, bet="andar", stake="130", key="a1")
        mine = receive_until(phone, lambda m: "130" in json.dumps(m["blocks"]))
        assert "Ravi" not in json.dumps(mine)  # a player sees no one else's bets

        # Ravi bets through B: the dealer's page on A lists it.
        call(b.base, "POST", f"/api/tables/{code}/bets", ravi, bet="bahar", stake="37", key="r1")
        listed = receive_until(
            dealer_page,
            lambda m: "Ravi" in json.dumps(m["blocks"]) and "37" in json.dumps(m["blocks"]),
        )
        assert listed["v"] > version

        # The centre card, dealt through A, is on the phone on B.
        dealt = call(a.base, "POST", f"/api/tables/{code}/actions/deal", dealer)
        card = receive_until(phone, lambda m: m["data"].get("card") is not None)
        assert card["data"]["card"] == dealt["centre"]
        assert dealt["centre"] in json.dumps(card["blocks"], ensure_ascii=False)
        assert card["v"] > mine["v"] > opened["v"] > version


def test_a_killed_worker_loses_and_doubles_no_bet(servers: Any, postgres_url: str) -> None:
    server = servers("workers", workers=3)
    workers = server.workers()
    assert len(workers) == 3, workers
    created = call(server.base, "POST", "/api/tables", name="Kill", pin=PIN, paytable="wizard")
    code, dealer = created["code"], created["dealer_token"]
    names = [f"P{n}" for n in range(8)]
    tokens = {}
    for name in names:
        seat = call(server.base, "POST", f"/api/tables/{code}/players", dealer, name=name,
                    balance="1000")["seat_code"]  # fmt: skip
        tokens[name] = call(server.base, "POST", f"/api/tables/{code}/join", seat_code=seat)[
            "token"
        ]
    call(server.base, "POST", f"/api/tables/{code}/rounds", dealer)
    spots = [str(bet) for bet in find_paytable("wizard").bets]
    requests = [(name, spot, str(1 + (i + j) % 9)) for i, name in enumerate(names)
                for j, spot in enumerate(spots)]  # fmt: skip
    answered: dict[tuple[str, str], str] = {}
    lock = threading.Lock()
    killed = threading.Event()

    def bet(request: tuple[str, str, str]) -> None:
        name, spot, stake = request
        key = f"{name}-{spot}"
        for _ in range(8):  # unanswered (the worker died): the same key again
            try:
                with httpx.Client(base_url=server.base, timeout=10) as client:  # new connection
                    response = client.post(
                        f"/api/tables/{code}/bets",
                        json={"bet": spot, "stake": stake, "key": key},
                        headers={"Authorization": f"Bearer {tokens[name]}"},
                    )
                if response.is_success:
                    with lock:
                        answered[(name, spot)] = response.json()["stake"]
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)

    def kill_one() -> None:
        while len(answered) < len(requests) // 4:
            time.sleep(0.005)
        os.kill(workers[0], signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_one)
    killer.start()
    with ThreadPoolExecutor(12) as pool:
        list(pool.map(bet, requests))
    killer.join(30)
    assert killed.is_set()
    assert workers[0] not in server.workers()
    assert len(answered) == len(requests), "a bet was never answered, even sent again"

    # Play goes on through the others: every answered bet is in the round, once.
    round_ = call(server.base, "GET", f"/api/tables/{code}", dealer)["round"]
    stored = [(b["player"], b["bet"], b["stake"]) for b in round_["bets"]]
    assert len(stored) == len(set(stored))
    assert {(p, b): s for p, b, s in stored} == answered
    status = "open"
    while status == "open":
        status = call(server.base, "POST", f"/api/tables/{code}/actions/deal", dealer)["status"]
    settled = call(server.base, "POST", f"/api/tables/{code}/actions/settle", dealer)
    assert len(settled["settlement"]) == len(requests)
    with Storage.open(postgres_url) as storage:
        service = TableService(storage)
        assert service.round_ledger_sum(code, 1) == Decimal(0)
        assert service.ledger_total(code) == Decimal(0)


def test_workers_on_sqlite_are_refused_with_one_sentence(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli_app, ["serve", "--workers", "2", "--db", str(tmp_path / "club.sqlite3")]
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "--workers 2 needs PostgreSQL (--db postgresql+psycopg://…): an SQLite file is served"
        " by one process, so leave --workers out."
    ]


def test_workers_share_the_commands_database_connections(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--db-connections`` is the whole command's: four workers get a quarter each, so
    that several workers and serve commands stay under PostgreSQL's max_connections (the
    load benchmark's four workers with 40 connections each met "too many clients" —
    docs/performance.md); a worker's engine opens no more than its share."""
    import uvicorn

    from andar_bahar.cli import serve as serve_module

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    runs: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **settings: runs.append(settings))
    for name in (serve_module.WORKER_DB, serve_module.WORKER_KEY, serve_module.WORKER_CONNECTIONS):
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(
        cli_app, ["serve", "--workers", "4", "--db-connections", "20", "--db", postgres_url]
    )
    assert result.exit_code == 0, result.output
    assert runs[0]["workers"] == 4
    assert os.environ[serve_module.WORKER_CONNECTIONS] == "5"
    app = serve_module.worker_app()
    engine = app.state.service.storage.engine
    try:
        assert (engine.pool.size(), engine.pool._max_overflow) == (5, 0)
    finally:
        engine.dispose()
