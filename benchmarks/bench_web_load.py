"""Load test of the club table on loopback, with clients that behave like the real pages.

    .venv/bin/python benchmarks/bench_web_load.py [--tables 10] [--players 20] [--rounds 50]
        [--db URL] [--workers N] [--format text|json] [--seed N] [--timeout S]

Starts the server (``andar-bahar serve``'s app and uvicorn settings, with ``--workers``
as given, plus one bare endpoint for the floor, below) on 127.0.0.1 against a fresh
SQLite file in a temporary folder, or the database ``--db`` names. Each table gets a
dealer and its players:

- the dealer creates the table (the API), admits the players (their seat codes), signs
  in on the dealer's page and follows it live (``/ws/CODE?page=dealer``); every step —
  open, deal, settle — is the dealer's page's own htmx POST, whose answer brings the
  page's new blocks;
- each player joins on the home page with the seat code, loads ``/play/CODE`` once and
  follows it over ``/ws/CODE?page=player&v=N`` as ``live.js`` does: a message newer
  than the page replaces its blocks, anything else is ignored, and a message never
  makes the phone send a request. When a message says the round is open the phone bets
  (one or two spots, a stake of 1 to 10, a key of its own) by the page's htmx POST;
  one bet in twenty is sent again with the same key — half at once, half after the
  answer (a repeat applied twice would double the stake: repeated bets add up).

It measures the latency of every request by kind, **card_to_phone** (from the deal's
request being sent until that card is on *every* phone of the table), requests per
second during the rounds, and, in the same run, the **floor**: the same number of
clients sending as many requests as the rounds did to a bare endpoint of the same
stack (the same app, middleware and server process(es)) that does one durable insert
through the service's own transaction. After the run it checks in the database that
every bet a phone saw accepted is stored once with its stake (``bets_lost``,
``bets_doubled``), that every round's and table's ledger sums to zero, and every
balance. It exits with status 1 if any check fails.

``--format json`` prints one object with, at least, ``requests_per_second``,
``floor_requests_per_second``, ``latency_ms`` (``bet``, ``deal``, ``settle``,
``card_to_phone``, … each with ``p50``, ``p99``, ``max``), ``errors``, ``bets_sent``,
``bets_settled``, ``bets_lost``, ``bets_doubled``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, insert, make_url, select
from websockets.asyncio.client import ClientConnection, connect

HOST = "127.0.0.1"
PAYTABLE = "wizard"
BALANCE = Decimal(10_000)
PIN = "246813"
TIMEOUT = 60.0
FLOOR_PATH = "/bench/floor"
FLOOR = Table(
    "bench_floor",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("client", String(40)),
    Column("created_at", DateTime(timezone=True)),
)
"""The bare endpoint's table: one row per request (created by the benchmark, then dropped)."""
KINDS = ("open", "bet", "bet again", "deal", "settle")


# -- the server ---------------------------------------------------------------------------------


def bench_app() -> Any:
    """The app of ``andar-bahar serve`` (a worker's) with the floor's bare endpoint added."""
    from datetime import UTC, datetime

    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    from andar_bahar.cli.serve import worker_app
    from andar_bahar.web.limits import Limits

    application = worker_app()
    application.state.service.limits = Limits(tables_per_hour=1_000_000)  # one address, many
    service = application.state.service

    def durable_insert(client: str) -> None:
        with service._tx() as session:  # the service's own transaction (and writer lock)
            session.execute(insert(FLOOR).values(client=client, created_at=datetime.now(UTC)))

    @application.post(FLOOR_PATH)
    async def floor(request: Request) -> JSONResponse:
        await run_in_threadpool(durable_insert, request.headers.get("x-client", "")[:40])
        return JSONResponse({"ok": True})

    return application


def serve(url: str, port: int, workers: int) -> None:
    """Run :func:`bench_app` as ``serve`` runs its app (this is the server's process)."""
    import uvicorn

    from andar_bahar.cli.serve import UVICORN, WORKER_DB, WORKER_KEY

    os.environ[WORKER_DB], os.environ[WORKER_KEY] = url, secrets.token_hex(32)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    uvicorn.run("bench_web_load:bench_app", factory=True, workers=workers, host=HOST, port=port,
                **UVICORN)  # fmt: skip


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def start_server(url: str, port: int, workers: int, folder: Path) -> subprocess.Popen[bytes]:
    from andar_bahar.storage import Storage

    with Storage.open(url) as storage:  # the schema, and the floor's table, before the workers
        FLOOR.drop(storage.engine, checkfirst=True)
        FLOOR.create(storage.engine)
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", url, "--port", str(port), "--workers", str(workers)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "XDG_DATA_HOME": str(folder / "data")},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {(folder / 'server.log').read_text()}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"http://{HOST}:{port}/", timeout=1).status_code == 200:
                return server
        time.sleep(0.1)
    os.killpg(server.pid, signal.SIGKILL)
    raise SystemExit("the server did not answer within 60 s")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Recorder:
    """Every request's latency and outcome, by kind."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    async def post(
        self, client: httpx.AsyncClient, kind: str, path: str, **options: Any
    ) -> httpx.Response | None:
        """The answer, or ``None`` for an error (counted, with a few samples kept)."""
        started = time.perf_counter()
        try:
            response = await client.post(path, **options)
        except (httpx.HTTPError, OSError) as error:
            self.latencies[kind].append(time.perf_counter() - started)
            return self._error(kind, f"{kind} {path}: {type(error).__name__} {error}")
        self.latencies[kind].append(time.perf_counter() - started)
        if not response.is_success:
            return self._error(kind, f"{kind} {path}: {response.status_code} {response.text[:160]}")
        return response

    def _error(self, kind: str, text: str) -> None:
        self.errors[kind] += 1
        if len(self.samples) < 10:
            self.samples.append(text)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``values`` not empty)."""
    ordered = sorted(values)
    return ordered[max(1, min(len(ordered), math.ceil(fraction * len(ordered)))) - 1]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {"count": len(values), "p50": round(percentile(values, 0.5) * 1000, 1),
            "p99": round(percentile(values, 0.99) * 1000, 1), "max": round(max(values) * 1000, 1)}  # fmt: skip


# -- the people at a table ----------------------------------------------------------------------


@dataclass
class Page:
    """A browser page that follows the table live: its cookies, token, version and blocks."""

    cookies: str
    csrf: str
    version: int
    blocks: dict[str, str] = field(default_factory=dict)
    socket: ClientConnection | None = None
    seen: dict[tuple[int, int], float] = field(default_factory=dict)
    """(round, cards turned) → when this page first showed that many cards of the round."""
    opened: asyncio.Queue[int] = field(default_factory=asyncio.Queue)
    """Rounds whose opening this page has seen (the players bet then)."""
    messages: int = 0

    def headers(self) -> dict[str, str]:
        return {"Cookie": self.cookies, "HX-Request": "true", "X-CSRF-Token": self.csrf}

    def apply(self, message: dict[str, Any], *, complete: bool = True) -> None:
        """As live.js does: blocks replaced; the version only from a complete message."""
        self.blocks.update(message.get("blocks", {}))
        if complete:
            self.version = max(self.version, int(message["v"]))
        data, now = message.get("data", {}), time.perf_counter()
        number = data.get("round")
        if number is None:
            return
        turned = int(data.get("dealt") or 0) + (1 if data.get("card") else 0)
        for count in range(1, turned + 1):
            self.seen.setdefault((number, count), now)
        if data.get("bets_open"):
            self.opened.put_nowait(number)

    async def follow(self) -> None:
        assert self.socket is not None
        with contextlib.suppress(Exception):  # closed at the end, or by the server
            async for text in self.socket:
                if text == "pong":
                    continue
                message = json.loads(text)
                self.messages += 1
                if int(message["v"]) > self.version:  # as live.js: only newer messages
                    self.apply(message)


@dataclass
class Player:
    name: str
    page: Page
    accepted: dict[tuple[int, str], str] = field(default_factory=dict)
    """(round, bet) → stake, for every bet the page saw accepted."""
    unknown: int = 0


@dataclass
class Club:
    code: str
    token: str
    client: httpx.AsyncClient
    dealer: Page
    players: list[Player]
    rng: random.Random
    dealt_at: dict[tuple[int, int], float] = field(default_factory=dict)
    """(round, cards turned) → when the dealer's page sent the deal that turned it."""
    rounds: int = 0


async def page_of(base: str, path: str, form: dict[str, str]) -> tuple[str, str]:
    """Post *form* to *path* as a fresh browser: its cookies and its page's CSRF token."""
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as browser:
        home = await browser.get("/")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
        assert csrf, "no CSRF token on the home page"
        answer = await browser.post(path, data={**form, "csrf_token": csrf.group(1)})
        if answer.status_code >= 400:
            raise SystemExit(f"{path}: {answer.status_code} {answer.text[:200]}")
        cookies = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        return cookies, csrf.group(1)


async def live_page(base: str, url: str, cookies: str, csrf: str, kind: str) -> Page:
    """Load the page once (its version) and follow it over the WebSocket."""
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as browser:
        loaded = await browser.get(url, headers={"Cookie": cookies})
    version = re.search(r'data-live-version="(\d+)"', loaded.text)
    assert version, f"{url} is not a live page: {loaded.status_code}"
    page = Page(cookies, csrf, int(version.group(1)))
    code = url.rsplit("/", 1)[-1]
    ws = base.replace("http://", "ws://")
    page.socket = await connect(
        f"{ws}/ws/{code}?page={kind}&v={page.version}&lang=en",
        additional_headers={"Cookie": cookies}, open_timeout=TIMEOUT, max_queue=None,
    )  # fmt: skip
    return page


async def set_up(index: int, base: str, players: int, rng: random.Random) -> Club:
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as api:
        created = (await api.post("/api/tables", json={
            "name": f"Table {index + 1}", "pin": PIN, "paytable": PAYTABLE})).json()  # fmt: skip
        code, token = created["code"], created["dealer_token"]
        seats = []
        for n in range(players):
            admitted = await api.post(
                f"/api/tables/{code}/players", headers={"Authorization": f"Bearer {token}"},
                json={"name": f"P{index + 1}-{n + 1}", "balance": str(BALANCE)},
            )  # fmt: skip
            seats.append((f"P{index + 1}-{n + 1}", admitted.json()["seat_code"]))
    cookies, csrf = await page_of(base, f"/dealer/{code}/login", {"pin": PIN})
    dealer = await live_page(base, f"/dealer/{code}", cookies, csrf, "dealer")
    people = []
    for name, seat in seats:
        cookies, csrf = await page_of(base, "/join", {"code": code, "seat": seat})
        people.append(Player(name, await live_page(base, f"/play/{code}", cookies, csrf, "player")))
    limits = httpx.Limits(max_connections=players + 4, max_keepalive_connections=players + 4,
                          keepalive_expiry=4.0)  # fmt: skip
    client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, limits=limits)
    return Club(code, token, client, dealer, people, rng)


# -- a round ----------------------------------------------------------------------------------------


async def act(club: Club, action: str, recorder: Recorder) -> dict[str, Any] | None:
    """The dealer's page presses a button; its answer brings the page's new blocks."""
    kind = "open" if action == "open" else action
    response = await recorder.post(
        club.client, kind, f"/dealer/{club.code}/round/{action}", headers=club.dealer.headers()
    )
    if response is None:
        return None
    message: dict[str, Any] = response.json()
    club.dealer.apply(message, complete=bool(message.get("complete")))
    return message


async def bet(club: Club, player: Player, number: int, spot: str, recorder: Recorder,
              resend: float) -> None:  # fmt: skip
    path = f"/play/{club.code}/bet"
    form = {"bet": spot, "stake": str(club.rng.randint(1, 10)), "key": secrets.token_hex(10)}
    options = {"data": form, "headers": player.page.headers()}
    roll = club.rng.random()
    answers: list[httpx.Response | None]
    if roll < resend / 2:  # the same request twice at once (a double tap)
        answers = list(await asyncio.gather(recorder.post(club.client, "bet", path, **options),
                                            recorder.post(club.client, "bet again", path, **options)))  # fmt: skip
    else:
        answers = [None]
        for _ in range(3):  # an unanswered request is sent again with its key
            answers[0] = await recorder.post(club.client, "bet", path, **options)
            if answers[0] is not None:
                break
        if roll < resend:  # again after its answer (a retry after a lost answer)
            answers.append(await recorder.post(club.client, "bet again", path, **options))
    good = [a for a in answers if a is not None]
    if not good:
        player.unknown += 1
        return
    for answer in good:
        player.page.apply(answer.json(), complete=False)
    player.accepted[(number, spot)] = form["stake"]


async def bets_of(club: Club, player: Player, number: int, spots: list[str], recorder: Recorder,
                  resend: float) -> None:  # fmt: skip
    """The phone waits until its page shows the round open, then bets."""
    while True:
        seen = await asyncio.wait_for(player.page.opened.get(), TIMEOUT)
        if seen == number:
            break
    chosen = club.rng.sample(spots, 2 if club.rng.random() < 0.2 else 1)
    for spot in chosen:
        await bet(club, player, number, spot, recorder, resend)


async def play(club: Club, rounds: int, spots: list[str], recorder: Recorder,
               resend: float) -> None:  # fmt: skip
    for _ in range(rounds):
        opened = await act(club, "open", recorder)
        if opened is None:
            continue
        number = int(opened["data"]["round"])
        await asyncio.gather(*(bets_of(club, p, number, spots, recorder, resend)
                               for p in club.players))  # fmt: skip
        status, turned, failures = "open", 0, 0
        while status == "open" and failures < 5:
            sent = time.perf_counter()
            dealt = await act(club, "deal", recorder)
            if dealt is None:
                failures += 1
                continue
            data = dealt["data"]
            turned = int(data.get("dealt") or 0) + (1 if data.get("card") else 0)
            club.dealt_at[(number, turned)] = sent
            status = data["status"]
        for _ in range(3):
            if await act(club, "settle", recorder) is not None:
                club.rounds += 1
                break


# -- the floor ----------------------------------------------------------------------------------------


async def floor(base: str, pages: list[Page], requests: int) -> float:
    """Requests per second of the same clients (each page's cookies and CSRF token) sending
    *requests* in all to the bare endpoint, each one request after another."""
    clients = len(pages)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients,
                          keepalive_expiry=4.0)  # fmt: skip
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, limits=limits) as client:
        recorder = Recorder()

        async def one(n: int) -> None:
            for _ in range(requests // clients + (1 if n < requests % clients else 0)):
                headers = {**pages[n].headers(), "X-Client": str(n)}
                await recorder.post(client, "floor", FLOOR_PATH, headers=headers)

        started = time.perf_counter()
        await asyncio.gather(*(one(n) for n in range(clients)))
        elapsed = time.perf_counter() - started
    if recorder.errors:
        raise SystemExit(f"the floor's endpoint failed: {recorder.samples}")
    return requests / elapsed


# -- checks against the database -----------------------------------------------------------------------


def check_database(url: str, clubs: list[Club]) -> dict[str, int]:
    """Every accepted bet stored once with its stake; ledgers sum to zero; balances."""
    from andar_bahar.engine.round import Round
    from andar_bahar.storage import Storage
    from andar_bahar.storage.models import ClubTableRow, TableRoundRow
    from andar_bahar.web.service import TableService

    found = Counter[str]()
    with Storage.open(url) as storage:
        service = TableService(storage)
        for club in clubs:
            with storage.engine.connect() as connection:
                rows = connection.execute(
                    select(TableRoundRow.number, TableRoundRow.record)
                    .join(ClubTableRow, TableRoundRow.table_id == ClubTableRow.id)
                    .where(ClubTableRow.code == club.code)
                ).all()
            accepted = {(p.name, n, b): s for p in club.players for (n, b), s in p.accepted.items()}
            unknown = sum(p.unknown for p in club.players)
            for number, record in rows:
                found["rounds"] += 1
                found["bad ledgers"] += service.round_ledger_sum(club.code, number) != 0
                rnd = Round.loads(record)
                stored = {(w.player, number, str(w.bet)): str(w.stake) for w in rnd.wagers}
                found["settled"] += len(stored) if rnd.settlement is not None else 0
                for key in accepted:
                    if key[1] == number and key not in stored:
                        found["lost"] += 1
                for key, stake in stored.items():
                    if key not in accepted and not unknown:
                        found["doubled"] += 1  # stored, but no phone saw it accepted
                    elif key in accepted and Decimal(stake) != Decimal(accepted[key]):
                        found["doubled" if Decimal(stake) > Decimal(accepted[key]) else "lost"] += 1
            found["bad ledgers"] += service.ledger_total(club.code) != 0
    return dict(found)


# -- the run ----------------------------------------------------------------------------------------------


async def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    from andar_bahar.engine.paytables import find_paytable

    rng = random.Random(args.seed)
    spots = [str(b) for b in find_paytable(PAYTABLE).bets]
    clubs = [await set_up(i, base, args.players, random.Random(rng.getrandbits(64)))
             for i in range(args.tables)]  # fmt: skip
    pages = [c.dealer for c in clubs] + [p.page for c in clubs for p in c.players]
    readers = [asyncio.create_task(page.follow()) for page in pages]
    recorder = Recorder()
    started = time.perf_counter()
    await asyncio.gather(*(play(c, args.rounds, spots, recorder, args.resend) for c in clubs))
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0.5)  # the last messages on their way
    for page in pages:
        if page.socket is not None:
            await page.socket.close()
    await asyncio.gather(*readers, return_exceptions=True)
    card_to_phone = []
    missed = 0
    for club in clubs:
        for key, sent in club.dealt_at.items():
            times = [p.page.seen.get(key) for p in club.players]
            if any(t is None for t in times):
                missed += 1
            else:
                card_to_phone.append(max(t for t in times if t is not None) - sent)
        await club.client.aclose()
    requests = sum(len(recorder.latencies[k]) for k in KINDS)
    floor_rps = await floor(base, pages, requests)
    return {"clubs": clubs, "recorder": recorder, "elapsed": elapsed, "requests": requests,
            "card_to_phone": card_to_phone, "missed": missed, "floor": floor_rps,
            "messages": sum(p.messages for p in pages)}  # fmt: skip


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores, {platform.system()}, Python {platform.python_version()}"


def report(args: argparse.Namespace, db: str, result: dict[str, Any], found: dict[str, int],
           load: tuple[float, ...]) -> dict[str, Any]:  # fmt: skip
    recorder: Recorder = result["recorder"]
    clubs: list[Club] = result["clubs"]
    latency = {kind: summary(recorder.latencies[kind]) for kind in KINDS}
    latency["card_to_phone"] = summary(result["card_to_phone"])
    rps = result["requests"] / result["elapsed"]
    return {
        "tables": args.tables, "players": args.players, "rounds": args.rounds,
        "database": db, "workers": args.workers, "machine": machine(),
        "load_average": [round(x, 2) for x in load],
        "requests": result["requests"], "seconds": round(result["elapsed"], 2),
        "requests_per_second": round(rps, 1),
        "floor_requests_per_second": round(result["floor"], 1),
        "ratio_to_floor": round(rps / result["floor"], 3),
        "latency_ms": latency,
        "errors": sum(recorder.errors.values()),
        "cards_missed": result["missed"],
        "live_messages": result["messages"],
        "rounds_settled": sum(c.rounds for c in clubs),
        "bets_sent": sum(len(p.accepted) + p.unknown for c in clubs for p in c.players),
        "bets_settled": found.get("settled", 0),
        "bets_lost": found.get("lost", 0),
        "bets_doubled": found.get("doubled", 0),
        "bets_unknown": sum(p.unknown for c in clubs for p in c.players),
        "ledgers_not_zero": found.get("bad ledgers", 0),
        "problems": recorder.samples,
    }  # fmt: skip


def print_text(out: dict[str, Any]) -> None:
    print(f"{out['tables']} tables × {out['players']} phones × {out['rounds']} rounds; "
          f"{out['database']}, {out['workers']} worker(s); {out['machine']}; "
          f"load average {out['load_average']}\n")  # fmt: skip
    print("| request | count | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|")
    for kind, s in out["latency_ms"].items():
        print(f"| {kind} | {s['count']:,} | {s['p50']} | {s['p99']} | {s['max']} |")
    print(f"\n- {out['requests']:,} requests in {out['seconds']} s: **{out['requests_per_second']}"
          f" requests/s**; the floor: {out['floor_requests_per_second']} requests/s "
          f"(ratio {out['ratio_to_floor']})")  # fmt: skip
    print(f"- errors {out['errors']}; cards missed by a phone {out['cards_missed']}; "
          f"{out['live_messages']:,} live messages")  # fmt: skip
    print(f"- bets: {out['bets_sent']:,} sent, {out['bets_settled']:,} settled, "
          f"{out['bets_lost']} lost, {out['bets_doubled']} doubled, {out['bets_unknown']} unknown; "
          f"ledgers not summing to zero: {out['ledgers_not_zero']}")  # fmt: skip
    for text in out["problems"]:
        print(f"  - {text}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--players", type=int, default=20, help="phones at each table")
    parser.add_argument("--rounds", type=int, default=50, help="rounds at each table")
    parser.add_argument("--db", help="the database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds for the whole run")
    parser.add_argument("--resend", type=float, default=0.05, help="share of bets sent twice")
    parser.add_argument("--seed", type=int, default=5, help="the players' choices")
    parser.add_argument("--serve", metavar="URL", help=argparse.SUPPRESS)  # the server's process
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.workers)
        return 0
    if min(args.tables, args.players, args.rounds, args.workers) < 1:
        parser.error("--tables, --players, --rounds and --workers must be at least 1")
    with tempfile.TemporaryDirectory(prefix="andar-bahar-load-") as temporary:
        folder = Path(temporary)
        url = args.db or f"sqlite:///{folder / 'club.sqlite3'}"
        if args.workers > 1 and make_url(url).get_backend_name() == "sqlite":
            parser.error("--workers above 1 needs --db postgresql+psycopg://…")
        port = args.port or free_port()
        server = start_server(url, port, args.workers, folder)
        try:
            result = asyncio.run(asyncio.wait_for(run(args, f"http://{HOST}:{port}"), args.timeout))
        except TimeoutError:
            print(f"FAILED: the run took more than {args.timeout:.0f} s", file=sys.stderr)
            return 1
        finally:
            load = os.getloadavg()
            stop_server(server)
        found = check_database(url, result["clubs"])
        db = make_url(url).get_backend_name() + ("" if args.db else " (a temporary file)")
        out = report(args, db, result, found, load)
    if args.format == "json":
        print(json.dumps(out, indent=1))
    else:
        print_text(out)
    ok = out["bets_lost"] == out["bets_doubled"] == out["ledgers_not_zero"] == 0
    ok = ok and out["errors"] == 0 and out["rounds_settled"] == args.tables * args.rounds
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
