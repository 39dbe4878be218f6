"""Load test of the club table's web server on loopback (issue 5).

    .venv/bin/python benchmarks/bench_web_load.py [--tables 10] [--players 20] [--rounds 50]
        [--db URL] [--port P] [--timeout S] [--seed N]

Starts ``andar-bahar serve`` on 127.0.0.1 (a SQLite file in a temporary folder unless
``--db`` names another database), creates the tables, each with a dealer and its
players (admitted, then joined from their "phones"). Every player follows its table
over a WebSocket (``/ws/{code}``) and counts the live messages it receives. Then, on
every table at once, for every round: the dealer opens the round; each player, once
the live ``open`` message reaches it, bets (a random bet of the paytable, a stake of
1 to 10, a key of its own; a few requests are sent again with the same key and another
stake, some at the same moment as the first, some after its answer); the dealer deals
to the end and settles.

It measures, per kind of request, the count, the errors (a status other than 2xx, or
no answer) and the p50/p99 latency, the requests per second of the whole run, and
how long the live ``open`` message takes to reach the players. It then checks, from
the answers, the API and the database, that every bet accepted was settled exactly
once with its first stake, that every request sent again answered as the first one,
that the ledger of every round and table sums to zero, that every balance is the
starting balance plus the settled results, and that every player received live
messages. It prints a markdown table and a summary line, and exits with status 1
when a bet is lost or doubled, a balance or the ledger is wrong, or the run times out.
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
import resource
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
from sqlalchemy import select
from websockets.asyncio.client import ClientConnection, connect

from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, TableRoundRow
from andar_bahar.web.service import TableService

HOST = "127.0.0.1"
PAYTABLE = "wizard"
BALANCE = Decimal(10_000)
REQUEST_TIMEOUT = 60.0
OPEN_WAIT = 15.0
"""How long a player waits for the live ``open`` message before betting anyway."""
KINDS = ["create table", "admit player", "join", "open round", "bet", "bet (same key again)",
         "deal", "settle", "table state"]  # fmt: skip


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Recorder:
    """Every request's latency and outcome, by kind."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    async def call(
        self,
        client: httpx.AsyncClient,
        kind: str,
        method: str,
        path: str,
        token: str | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        """The answer's JSON, or ``None`` for an error (counted, with a few samples kept)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        started = time.perf_counter()
        try:
            if method == "GET":
                response = await client.get(path, headers=headers)
            else:
                response = await client.post(path, json=body or {}, headers=headers)
        except (httpx.HTTPError, OSError) as error:
            self.latencies[kind].append(time.perf_counter() - started)
            self._error(kind, f"{kind} {path}: {type(error).__name__} {error}")
            return None
        self.latencies[kind].append(time.perf_counter() - started)
        if not response.is_success:
            self._error(kind, f"{kind} {path}: {response.status_code} {response.text[:200]}")
            return None
        return response.json()

    def _error(self, kind: str, text: str) -> None:
        self.errors[kind] += 1
        if len(self.samples) < 10:
            self.samples.append(text)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``values`` not empty)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


# -- the simulated club ---------------------------------------------------------------------------


@dataclass
class Player:
    name: str
    token: str = ""
    messages: int = 0
    opens: asyncio.Queue[float] = field(default_factory=asyncio.Queue)
    socket: ClientConnection | None = None


@dataclass
class Table:
    code: str
    dealer: str
    client: httpx.AsyncClient
    players: list[Player]
    rng: random.Random
    published: int = 0
    """Live messages the server published at this table since the players connected."""
    expected: dict[int, dict[tuple[str, str], str]] = field(default_factory=dict)
    """Round number → the bets accepted, (player, bet) → stake."""
    unknown: int = 0
    """Bets whose every attempt went unanswered: whether they were placed is not known."""
    nets: Counter[str] = field(default_factory=Counter)


@dataclass
class Totals:
    bets_sent: int = 0
    bets_accepted: int = 0
    bets_settled: int = 0
    resent: int = 0
    resend_mismatch: int = 0
    lost: int = 0
    doubled: int = 0
    rounds: int = 0
    rounds_failed: int = 0
    open_missed: int = 0
    wrong_balances: int = 0
    stored_differs: int = 0
    live_delay: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)


async def follow(player: Player) -> None:
    """Count the table's live messages; note when each round opens."""
    assert player.socket is not None
    with contextlib.suppress(Exception):  # closed at the end, or by the server
        async for text in player.socket:
            player.messages += 1
            if json.loads(text).get("kind") == "open":
                player.opens.put_nowait(time.perf_counter())


async def set_up(
    index: int, base: str, players: int, recorder: Recorder, rng: random.Random
) -> Table:
    limits = httpx.Limits(  # idle connections dropped before the server's 5 s keep-alive ends
        max_connections=players + 4, max_keepalive_connections=players + 4, keepalive_expiry=4.0
    )
    client = httpx.AsyncClient(base_url=base, timeout=REQUEST_TIMEOUT, limits=limits)
    created = await recorder.call(
        client, "create table", "POST", "/api/tables",
        body={"name": f"Table {index + 1}", "pin": "246813", "paytable": PAYTABLE},
    )  # fmt: skip
    if created is None:
        raise SystemExit(f"could not create a table: {recorder.samples}")
    table = Table(created["code"], created["dealer_token"], client,
                  [Player(f"P{index + 1}-{n + 1}") for n in range(players)], rng)  # fmt: skip
    seats = {}
    for player in table.players:
        admitted = await recorder.call(
            client, "admit player", "POST", f"/api/tables/{table.code}/players", table.dealer,
            {"name": player.name, "balance": str(BALANCE)},
        )  # fmt: skip
        seats[player.name] = admitted["seat_code"] if admitted else ""
    for player in table.players:
        joined = await recorder.call(
            client, "join", "POST", f"/api/tables/{table.code}/join",
            body={"seat_code": seats[player.name]},
        )  # fmt: skip
        if joined is None:
            raise SystemExit(f"a player could not join: {recorder.samples}")
        player.token = joined["token"]
    return table


async def place_bets(
    table: Table, player: Player, number: int, opened_at: float, bets: list[str],
    resend: float, recorder: Recorder, totals: Totals,
) -> None:  # fmt: skip
    try:
        seen = await asyncio.wait_for(player.opens.get(), timeout=OPEN_WAIT)
        totals.live_delay.append(seen - opened_at)
    except TimeoutError:
        totals.open_missed += 1
    rng = table.rng
    path = f"/api/tables/{table.code}/bets"
    for bet in rng.sample(bets, 2 if rng.random() < 0.2 else 1):
        body = {"bet": bet, "stake": str(rng.randint(1, 10)), "key": secrets.token_hex(10)}
        again = {**body, "stake": str(int(body["stake"]) + 1)}  # applied twice, it would show
        totals.bets_sent += 1
        roll = rng.random()
        if roll < resend / 2:  # the same request twice at the same moment
            first, second = await asyncio.gather(
                recorder.call(table.client, "bet", "POST", path, player.token, body),
                recorder.call(table.client, "bet (same key again)", "POST", path, player.token, again),
            )  # fmt: skip
        else:
            first = None
            for _ in range(3):  # an unanswered request is sent again with its key
                first = await recorder.call(table.client, "bet", "POST", path, player.token, body)
                if first is not None:
                    break
            second = None
            if roll < resend:  # again after its answer
                second = await recorder.call(
                    table.client, "bet (same key again)", "POST", path, player.token, again
                )
        answers = [a for a in (first, second) if a is not None]
        table.published += len(answers)  # every answered bet request is announced live
        if not answers:
            table.unknown += 1
            continue
        answer = answers[0]
        if len(answers) == 2:
            totals.resent += 1
            if first != second:
                totals.resend_mismatch += 1
                totals.problem(f"{table.code} round {number}: one key, answers {first}, {second}")
        if answer["round"] != number or answer["player"] != player.name:
            totals.problem(f"{table.code} round {number}: {player.name} got {answer}")
        table.expected[number][(player.name, bet)] = answer["stake"]
        totals.bets_accepted += 1


async def play_table(
    table: Table, rounds: int, bets: list[str], resend: float, recorder: Recorder,
    totals: Totals,
) -> None:  # fmt: skip
    base = f"/api/tables/{table.code}"
    for _ in range(rounds):
        opened_at = time.perf_counter()
        opened = await recorder.call(table.client, "open round", "POST", f"{base}/rounds", table.dealer)  # fmt: skip
        if opened is None:
            totals.rounds_failed += 1
            continue
        table.published += 1
        number = int(opened["number"])
        table.expected[number] = {}
        await asyncio.gather(
            *(place_bets(table, p, number, opened_at, bets, resend, recorder, totals)
              for p in table.players)
        )  # fmt: skip
        status, failures = "open", 0
        while status == "open" and failures < 5:
            dealt = await recorder.call(table.client, "deal", "POST", f"{base}/actions/deal", table.dealer)  # fmt: skip
            if dealt is None:
                failures += 1
                continue
            table.published += 1
            status = dealt["status"]
        settled = None
        for _ in range(3):
            settled = await recorder.call(table.client, "settle", "POST", f"{base}/actions/settle", table.dealer)  # fmt: skip
            if settled is not None:
                break
        if settled is None:
            totals.rounds_failed += 1
            continue
        table.published += 1
        totals.rounds += 1
        check_round(table, number, settled, totals)


def check_round(table: Table, number: int, settled: dict[str, Any], totals: Totals) -> None:
    """The settled round holds every accepted bet once, with its first stake."""
    expected = table.expected[number]
    listed = [(b["player"], b["bet"]) for b in settled["bets"]]
    found = {(b["player"], b["bet"]): b["stake"] for b in settled["bets"]}
    totals.bets_settled += len(listed)
    extra = len(listed) - len(set(listed))  # the same bet twice in the round
    for key, stake in found.items():
        if key not in expected:
            extra += 1
        elif expected[key] != stake:
            extra += 1
            totals.problem(f"{table.code} round {number}: {key} at {stake}, accepted at {expected[key]}")  # fmt: skip
    missing = sum(1 for key in expected if key not in found)
    if table.unknown == 0:
        totals.doubled += extra
    totals.lost += missing
    if extra or missing:
        totals.problem(f"{table.code} round {number}: {missing} lost, {extra} extra")
    for bet in settled["settlement"]:
        table.nets[bet["player"]] += Decimal(bet["returned"]) - Decimal(bet["stake"])


# -- the server -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def start_server(url: str, port: int, folder: Path) -> subprocess.Popen[bytes]:
    log = (folder / "server.log").open("wb")
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data")}
    server = subprocess.Popen(
        [sys.executable, "-m", "andar_bahar", "serve", "--host", HOST, "--port", str(port), "--db", url],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {(folder / 'server.log').read_text()}")
        try:
            if httpx.get(f"http://{HOST}:{port}/", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("the server did not answer within 30 s")


def cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) of process *pid*, or of this one."""
    if pid is None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.kill(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(server.pid, signal.SIGKILL)
            server.wait(timeout=10)


# -- the run -------------------------------------------------------------------------------------------


async def run(args: argparse.Namespace, base: str, recorder: Recorder, totals: Totals) -> tuple[list[Table], float]:  # fmt: skip
    rng = random.Random(args.seed)
    bets = [str(b) for b in find_paytable(PAYTABLE).bets]
    tables = [
        await set_up(i, base, args.players, recorder, random.Random(rng.getrandbits(64)))
        for i in range(args.tables)
    ]
    ws_base = base.replace("http://", "ws://")
    for table in tables:  # subscribed once the handshake is done: no message is missed
        for player in table.players:
            player.socket = await connect(f"{ws_base}/ws/{table.code}", open_timeout=30)
    followers = [asyncio.create_task(follow(p)) for table in tables for p in table.players]
    started = time.perf_counter()
    await asyncio.gather(
        *(play_table(t, args.rounds, bets, args.resend, recorder, totals) for t in tables)
    )
    elapsed = time.perf_counter() - started
    deadline = time.monotonic() + 5  # the last messages on their way
    while time.monotonic() < deadline and any(
        p.messages < t.published for t in tables for p in t.players
    ):
        await asyncio.sleep(0.05)
    for table in tables:
        for player in table.players:
            if player.socket is not None:
                await player.socket.close()
    await asyncio.gather(*followers, return_exceptions=True)
    for table in tables:  # every balance: the starting one plus the rounds' results
        state = await recorder.call(table.client, "table state", "GET", f"/api/tables/{table.code}")
        if state is None:
            totals.problem(f"{table.code}: no state")
            continue
        for player in state["players"]:
            if Decimal(player["balance"]) != BALANCE + table.nets[player["name"]]:
                totals.problem(f"{table.code}: {player['name']} has {player['balance']}")
                totals.wrong_balances += 1
        await table.client.aclose()
    return tables, elapsed


def check_database(url: str, tables: list[Table], totals: Totals) -> tuple[int, int]:
    """Every round's ledger and every table's sums to zero; the stored bets are the accepted ones."""
    bad_ledgers = rounds_checked = 0
    with Storage.open(url) as storage:
        service = TableService(storage)
        for table in tables:
            if service.ledger_total(table.code) != 0:
                bad_ledgers += 1
                totals.problem(f"{table.code}: ledger total {service.ledger_total(table.code)}")
            with storage.engine.connect() as connection:  # (on SQLite, a transaction locks)
                rows = connection.execute(
                    select(TableRoundRow.number, TableRoundRow.record)
                    .join(ClubTableRow, TableRoundRow.table_id == ClubTableRow.id)
                    .where(ClubTableRow.code == table.code)
                ).all()
            for number, record in rows:
                rounds_checked += 1
                if service.round_ledger_sum(table.code, number) != 0:
                    bad_ledgers += 1
                    totals.problem(f"{table.code} round {number}: ledger does not sum to zero")
                wagers = Round.loads(record).wagers
                stored = {(w.player, str(w.bet)): format_amount(w.stake) for w in wagers}
                accepted = table.expected.get(number, {})
                if (len(stored) != len(wagers) or stored != accepted) and table.unknown == 0:
                    totals.problem(f"{table.code} round {number}: stored bets differ")
                    totals.stored_differs += 1
    return bad_ledgers, rounds_checked


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{model}, {cores} cores, {platform.system()}, Python {platform.python_version()}"
        f" (load average at the end: {load})"
    )


def report(
    args: argparse.Namespace, db_kind: str, recorder: Recorder, totals: Totals,
    tables: list[Table], elapsed: float, total_elapsed: float, ledgers: tuple[int, int],
) -> bool:  # fmt: skip
    players = [p for t in tables for p in t.players]
    requests = sum(len(v) for v in recorder.latencies.values())
    errors = sum(recorder.errors.values())
    in_rounds = sum(len(recorder.latencies[k]) for k in KINDS[3:8])
    print(f"\nMachine: {machine()}; database: {db_kind}.")
    print(f"{args.tables} tables × {args.players} players, {args.rounds} rounds a table.\n")
    print("| request | count | errors | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind in KINDS:
        values = recorder.latencies.get(kind)
        if values:
            print(f"| {kind} | {len(values):,} | {recorder.errors[kind]} | "
                  f"{percentile(values, 0.5) * 1000:.1f} | {percentile(values, 0.99) * 1000:.1f} | "
                  f"{max(values) * 1000:.1f} |")  # fmt: skip
    every = [v for values in recorder.latencies.values() for v in values]
    print(f"| **all** | {requests:,} | {errors} | {percentile(every, 0.5) * 1000:.1f} | "
          f"{percentile(every, 0.99) * 1000:.1f} | {max(every) * 1000:.1f} |")  # fmt: skip
    if totals.live_delay:
        delay = totals.live_delay
        print(f"| live `open` message, request sent → phone | {len(delay):,} | "
              f"{totals.open_missed} | {percentile(delay, 0.5) * 1000:.1f} | "
              f"{percentile(delay, 0.99) * 1000:.1f} | {max(delay) * 1000:.1f} |")  # fmt: skip
    received = sum(p.messages for p in players)
    published = sum(t.published * len(t.players) for t in tables)
    silent = sum(1 for p in players if p.messages == 0)
    fewest = min((p.messages for p in players), default=0)
    bad_ledgers, rounds_checked = ledgers
    print()
    print(f"- rounds: {totals.rounds:,} settled, {totals.rounds_failed} failed; "
          f"{in_rounds:,} requests in the rounds in {elapsed:.1f} s: "
          f"**{in_rounds / elapsed:,.0f} requests/s**; whole run {total_elapsed:.1f} s")  # fmt: skip
    print(f"- bets: {totals.bets_sent:,} sent, {totals.bets_accepted:,} accepted, "
          f"{totals.bets_settled:,} settled; {totals.resent:,} sent again with the same key, "
          f"{totals.resend_mismatch} answered differently; lost {totals.lost}, "
          f"doubled {totals.doubled}, unknown {sum(t.unknown for t in tables)}")  # fmt: skip
    print(f"- database: {rounds_checked:,} rounds and {len(tables)} tables checked: "
          f"{bad_ledgers} ledgers not summing to zero, {totals.stored_differs} rounds whose "
          f"stored bets differ from those accepted; {totals.wrong_balances} balances other "
          f"than the start plus the settled results")  # fmt: skip
    print(f"- live: {received:,} messages received of {published:,} published "
          f"({received / max(published, 1):.2%}); every player at least {fewest}; "
          f"{silent} players received none")  # fmt: skip
    for text in recorder.samples + totals.problems:
        print(f"  - {text}")
    ok = (
        totals.lost == 0 and totals.doubled == 0 and totals.resend_mismatch == 0
        and bad_ledgers == 0 and totals.stored_differs == 0 and totals.wrong_balances == 0
        and silent == 0 and totals.rounds == args.tables * args.rounds
    )  # fmt: skip
    verdict = "OK" if ok else "FAILED"
    print(f"\n{verdict}: {requests:,} requests, {in_rounds / elapsed:,.0f}/s in the rounds, "
          f"p50 {percentile(every, 0.5) * 1000:.1f} ms, p99 {percentile(every, 0.99) * 1000:.1f} ms, "
          f"{errors} errors; {totals.bets_accepted:,} bets, {totals.lost} lost, "
          f"{totals.doubled} doubled; ledger zero on {len(tables) - min(bad_ledgers, len(tables))}"
          f"/{len(tables)} tables; {len(players) - silent}/{len(players)} players got live "
          f"messages")  # fmt: skip
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--players", type=int, default=20, help="players at each table")
    parser.add_argument("--rounds", type=int, default=50, help="rounds at each table")
    parser.add_argument("--db", help="the database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds for the whole run")
    parser.add_argument("--resend", type=float, default=0.05, help="share of bets sent twice")
    parser.add_argument("--seed", type=int, default=5, help="the players' choices")
    args = parser.parse_args()
    if min(args.tables, args.players, args.rounds) < 1:
        parser.error("--tables, --players and --rounds must be at least 1")
    with tempfile.TemporaryDirectory(prefix="andar-bahar-load-") as temporary:
        folder = Path(temporary)
        url = args.db or f"sqlite:///{folder / 'club.sqlite3'}"
        port = args.port or free_port()
        began = time.perf_counter()
        server = start_server(url, port, folder)
        recorder, totals = Recorder(), Totals()
        try:
            tables, elapsed = asyncio.run(
                asyncio.wait_for(run(args, f"http://{HOST}:{port}", recorder, totals), args.timeout)
            )
        except TimeoutError:
            print(f"FAILED: the run took more than {args.timeout:.0f} s", file=sys.stderr)
            return 1
        finally:
            cpu = (cpu_seconds(server.pid), cpu_seconds())
            stop_server(server)
        total_elapsed = time.perf_counter() - began
        ledgers = check_database(url, tables, totals)
        db_kind = url.split(":", 1)[0].split("+")[0]
        if not args.db:
            db_kind += " (a file in a temporary folder)"
        ok = report(args, db_kind, recorder, totals, tables, elapsed, total_elapsed, ledgers)
        failures = Counter(  # what the server logged about its 500s, if any
            line.strip()
            for line in (folder / "server.log").read_text(errors="replace").splitlines()
            if re.match(r"[\w.]+(Error|Exception)\b", line)
        )
        for line, count in failures.most_common(5):
            print(f"  - server log, {count}×: {line[:200]}")
        print(
            f"CPU: server {cpu[0]:.1f} s, load-test client {cpu[1]:.1f} s, in {total_elapsed:.1f} s"
        )
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
