"""Load test of the club table on loopback, with clients that behave like the real pages.

    .venv/bin/python benchmarks/bench_web_load.py [--tables 10] [--players 20] [--rounds 50]
        [--mode paced|saturate|both] [--reaction 0.3:3] [--again 0.3:1] [--card 0.3:0.5]
        [--sleep 1:3] [--sleepers 0.05] [--runs N] [--find-capacity] [--profile FILE]
        [--db URL] [--workers N] [--format text|json] [--seed N] [--timeout S]

Starts the server (``andar-bahar serve``'s app and uvicorn settings, with ``--workers``
as given, plus one bare endpoint for the floor, below) on 127.0.0.1 against a fresh
SQLite file in a temporary folder, or the database ``--db`` names. Each table gets a
dealer and its players (``web_load_people.py``):

- the dealer creates the table (the API), admits the players (their seat codes), signs
  in on the dealer's page and follows it live (``/ws/CODE?page=dealer``); every step —
  open, deal, settle — is the dealer's page's own htmx POST, whose answer brings the
  page's new blocks;
- each player joins on the home page with the seat code, in English, Russian or Georgian
  in turn, loads ``/play/CODE`` once and follows it over ``/ws/CODE?page=player&v=N`` as
  ``live.js`` does: a message newer than the page replaces its blocks (their HTML parsed
  into elements, as a browser's ``innerHTML`` does) or appends a dealt card to its felt's
  pile (``piles``, checked to start where the felt is), anything else is ignored, and a
  message never makes the phone send a request. When a message says the round is open
  the phone bets (one or two spots, a stake of 1 to 10, a key of its own) by the page's
  htmx POST; one bet in twenty is sent again with the same key — half at once, half
  after the answer (a repeat applied twice would double the stake: repeated bets add up);
- the dealer turns the centre card while the bets come in (they stay open after it, as
  the classic procedure allows) and deals the next card once every bet is answered;
- in each round one phone in twenty (``--sleepers``) sleeps after its bets: its socket
  closed for 1–3 s (``--sleep``), then opened again with the version its page has.

Two runs, on fresh tables each (``--mode both``, the default):

- **paced** — people's pace: a phone taps its first bet 0.3–3 s (``--reaction``) after
  its page shows the round open, a second one 0.3–1 s (``--again``) after the first's
  answer; the dealer waits for every bet, then takes 0.3–0.5 s (``--card``) before each
  card, the settlement and the next round. The latencies a player feels are judged here.
- **saturate** — a closed loop: every phone bets the instant its page shows the round
  open, the dealer deals the instant an answer comes back. Its requests/s is the
  table's capacity, compared with the **floor**: halfway through it (after half the
  rounds, its clock stopped), the same clients send as many requests as the whole run
  (twice its first half's), one after another, to a bare endpoint of the same stack (the
  same app, middleware and server process(es)) that does one durable insert through the
  service's own transaction. Measured between the run's two halves, the floor sees the
  machine as the run did: a shared host whose speed drifts moves both alike.

Each run measures the latency of every request by kind, **card_to_phone** (from the
deal's request being sent until that card is on *every* phone of the table awake
meanwhile; a card that a phone never showed is **missed**, unless the phone went on to
a later round first — a render that starts after the dealer has settled and opened the
next round draws the newest table, as the live pages intend: such a card is
**passed**), requests per second, the CPU time of the server's processes (from
``/proc``: neither this client's speed nor the host's load enters it) and of this
client, and the server's resident memory idle, before and after the rounds, and once
the dealers have closed their tables through the API — the night's end: the server tells
every page, ends its socket and lets go of the table (``letting_go_s``: until it says no table
is followed and none of its renders and releases is on its way) — and it has stopped falling
(``--runs N`` plays the runs N times on fresh tables: the memory of each;
with ``ANDAR_BAHAR_BENCH_MEMORY=1`` the server traces its allocations and what it holds
idle and after each run goes to standard error, by line of code, kind of object and
mapping; with ``ANDAR_BAHAR_BENCH_MEMORY=allocator``, untraced, by mapping and Python's
allocator's arenas and the memory free inside them).
``--find-capacity`` then plays short paced runs with more and more tables until a
card's p99 passes 150 ms or a bet's 100 ms: ``capacity_phones``, the most that met both
(each trial with the client's share of the machine beside). After the runs it checks in the database that every bet a
phone saw accepted is stored once with its stake (``bets_lost``, ``bets_doubled``),
that every round's and table's ledger sums to zero. It exits with status 1 if any
check fails.

``--format json`` prints one object with, at least, ``server_cpu_ms_per_request``
(``table``: the saturated run's, ``floor``, their ``ratio``), ``rss_mib`` (``idle``,
``after_run``, ``after_closing``, ``after_closing_to_idle``, the most of it over the runs,
and each run's ``before``, ``after`` and ``after_closing`` under ``runs``),
``requests_per_second`` (the
saturated run's), ``floor_requests_per_second``, ``latency_ms`` (the paced run's:
``bet``, ``deal``, ``settle``, ``card_to_phone``, … each with ``p50``, ``p99``,
``max``), ``errors``, ``bets_sent``, ``bets_settled``, ``bets_lost``, ``bets_doubled``
(both runs), and each run whole under ``runs`` (``mode``, the pacing, ``cpu``).
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
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import make_url, select

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_load_people import (
    KINDS,
    PAYTABLE,
    TIMEOUT,
    Club,
    Pacing,
    Page,
    Recorder,
    close_table,
    play,
    seconds_range,
    set_up,
)
from web_load_server import (
    FLOOR_PATH,
    HOST,
    LET_GO_MOST,
    MEMORY_PATH,
    MEMORY_TRACE,
    STARTED,
    Clock,
    free_port,
    group_rss_mib,
    let_go,
    settled_rss_mib,
    start_profile,
    start_server,
    stop_profile,
    stop_server,
)

LAST_CARDS_WAIT = 10.0
"""Seconds the last messages of a run may take to reach every phone before a card counts as
missed (they are timed all the same: card_to_phone)."""


async def last_cards_arrive(clubs: list[Club], wait: float) -> None:
    """Give the last messages up to *wait* seconds to reach every phone (an overloaded
    server may still be rendering the last round's cards when the dealer's last answer
    is in); a card still not on a phone after that counts as missed."""
    deadline = time.perf_counter() + wait
    while time.perf_counter() < deadline:
        if all(p.page.shown_or_passed(key) for c in clubs for key in c.dealt_at for p in c.players):
            return
        await asyncio.sleep(0.1)


# -- the floor ----------------------------------------------------------------------------------------


async def floor(base: str, clubs: list[Club], requests: int, server: int) -> dict[str, Any]:
    """The same clients (each page's cookies and CSRF token; the pages of a table sharing
    one HTTP client and its connections, as in the rounds) sending *requests* in all to the
    bare endpoint, each one request after another: requests/s and CPU."""
    groups = [[c.dealer] + [p.page for p in c.players] for c in clubs]
    count = sum(len(g) for g in groups)
    recorder = Recorder()

    async def one(client: httpx.AsyncClient, page: Page, n: int) -> None:
        for _ in range(requests // count + (1 if n < requests % count else 0)):
            headers = {**page.headers(), "X-Client": str(n)}
            answer = await recorder.post(client, "floor", FLOOR_PATH, headers=headers)
            if answer is not None and answer != {"ok": True}:  # not the floor's own answer
                recorder.errors["floor"] += 1
                recorder.samples.append(repr(answer)[:160])

    clients = []
    for group in groups:
        limits = httpx.Limits(max_connections=len(group) + 3,
                              max_keepalive_connections=len(group) + 3, keepalive_expiry=4.0)  # fmt: skip
        clients.append(httpx.AsyncClient(base_url=base, timeout=TIMEOUT, limits=limits))
    numbered = [(client, page) for client, g in zip(clients, groups, strict=True) for page in g]
    clock = Clock(server)
    await asyncio.gather(*(one(client, page, n) for n, (client, page) in enumerate(numbered)))
    cpu = clock.lap(requests)
    for client in clients:
        await client.aclose()
    if recorder.errors:
        raise SystemExit(f"the floor's endpoint failed: {recorder.samples}")
    return {"requests": requests, "requests_per_second": round(requests / cpu["seconds"], 1),
            "latency_ms": {"floor": summary(recorder.latencies["floor"])}, "cpu": cpu}  # fmt: skip


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``values`` not empty)."""
    ordered = sorted(values)
    return ordered[max(1, min(len(ordered), math.ceil(fraction * len(ordered)))) - 1]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {"count": len(values), "p50": round(percentile(values, 0.5) * 1000, 1),
            "p99": round(percentile(values, 0.99) * 1000, 1), "max": round(max(values) * 1000, 1)}  # fmt: skip


# -- checks against the database -----------------------------------------------------------------------


def check_database(url: str, clubs: list[Club]) -> dict[str, int]:
    """Every accepted bet stored once with its stake; ledgers sum to zero; balances."""
    from andar_bahar.club.service import TableService
    from andar_bahar.engine.round import Round
    from andar_bahar.storage import Storage
    from andar_bahar.storage.models import ClubTableRow, TableRoundRow

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


Midway = Callable[[list[Club], int], Awaitable[dict[str, Any]]]
"""Measured halfway through a run, its clock stopped: (the tables, the requests so far) → figures."""


async def phase(args: argparse.Namespace, base: str, pacing: Pacing, server: int,
                rng: random.Random, midway: Midway | None = None, *, tables: int = 0,
                rounds: int = 0, name: str = "") -> dict[str, Any]:  # fmt: skip
    """Fresh tables (*tables*, else ``--tables``), every page following live, the rounds
    (*rounds*, else ``--rounds``) played at *pacing*; with *midway*, half the rounds, then
    *midway* (the clock stopped), then the rest. The server's memory before, once the
    rounds are played, and once the dealers have closed their tables (through the API,
    every page still following: the server ends the sockets) and it has stopped falling."""
    from andar_bahar.engine.paytables import find_paytable

    spots = [str(b) for b in find_paytable(PAYTABLE).bets]
    before = group_rss_mib(server)
    name = name or ("S" if pacing.saturate else "P")
    rounds = rounds or args.rounds
    clubs = [await set_up(f"{name}{i + 1}", base, args.players, random.Random(rng.getrandbits(64)))
             for i in range(tables or args.tables)]  # fmt: skip
    pages = [c.dealer for c in clubs] + [p.page for c in clubs for p in c.players]
    readers = [asyncio.create_task(page.follow()) for page in pages]
    recorder = Recorder()
    profiler = start_profile(args.py_spy, "saturate" if pacing.saturate else "paced", server)
    clock = Clock(server)

    async def play_all(rounds: int) -> None:
        await asyncio.gather(*(play(c, rounds, spots, recorder, args.resend, pacing)
                               for c in clubs))  # fmt: skip

    first = rounds if midway is None else (rounds + 1) // 2
    await play_all(first)
    stop_profile(profiler)
    between = None
    if midway is not None:
        clock.pause()
        await last_cards_arrive(clubs, LAST_CARDS_WAIT)  # the first half's messages out,
        await asyncio.sleep(0.5)  # the settlements' too: none of it is the floor's CPU
        between = await midway(clubs, recorder.requests)
        clock.resume()
        await play_all(rounds - first)
    cpu = clock.lap(recorder.requests)
    await last_cards_arrive(clubs, LAST_CARDS_WAIT)
    rss = {"before": before, "after": group_rss_mib(server)}
    await asyncio.gather(*(close_table(base, club) for club in clubs))
    for page in pages:  # ended by the server already (a page asleep: its socket closed)
        if page.socket is not None:
            await page.socket.close()
    await asyncio.gather(*readers, return_exceptions=True)
    card_to_phone, missed, passed = [], 0, 0
    for club in clubs:
        for key, sent in club.dealt_at.items():
            if not all(p.page.shown_or_passed(key) for p in club.players):
                missed += 1
                continue
            # A phone asleep while the card came is not timed (its socket was closed).
            times = [p.page.seen.get(key) for p in club.players
                     if not p.page.away(sent, p.page.seen.get(key, math.inf))]  # fmt: skip
            if any(t is None for t in times):
                passed += 1
            elif times:
                card_to_phone.append(max(t for t in times if t is not None) - sent)
        await club.client.aclose()
    rss["letting_go_s"] = round(await let_go(base), 2)
    rss["after_closing"] = await settled_rss_mib(server)
    await tell_memory(base, name, rss)
    latency = {kind: summary(recorder.latencies[kind]) for kind in KINDS}
    latency["card_to_phone"] = summary(card_to_phone)
    return {
        "clubs": clubs, "pages": pages, "recorder": recorder, "midway": between,
        "figures": {
            **pacing.describe(), "requests": recorder.requests,
            "requests_per_second": round(recorder.requests / cpu["seconds"], 1),
            "latency_ms": latency, "errors": sum(recorder.errors.values()),
            "cards_missed": missed, "cards_passed": passed,
            "live_messages": sum(p.messages for p in pages),
            "live_kilobytes": round(sum(p.received for p in pages) / 1024),
            "elements_parsed": sum(p.elements for p in pages),
            "stray_end_tags": sum(p.stray for p in pages),
            "cards_refused": sum(p.refused for p in pages),
            "reconnections": sum(len(p.absent) for p in pages),
            "phones": len(pages) - len(clubs), "rss_mib": rss,
            "rounds_settled": sum(c.rounds for c in clubs),
            "cards_dealt": sum(len(c.dealt_at) for c in clubs), "cpu": cpu,
        },
    }  # fmt: skip


async def tell_memory(base: str, name: str, rss: dict[str, float]) -> None:
    """With :data:`MEMORY_TRACE` set: what the server holds, and (traced) more than at the
    last ask — idle, then after each run, its tables closed — on standard error."""
    if os.environ.get(MEMORY_TRACE):
        async with httpx.AsyncClient(timeout=120) as asking:
            grown = (await asking.get(base + MEMORY_PATH)).json()
        print(json.dumps({"run": name, "rss_mib": rss, **grown}), file=sys.stderr)


async def run(args: argparse.Namespace, base: str, server: int) -> dict[str, Any]:
    """The runs (``--runs`` times each mode, fresh tables each time), the floor halfway
    through the last capacity run; the server's memory idle, and after each run."""
    rng = random.Random(args.seed)
    paced = Pacing(args.reaction, args.again, args.card, args.start, args.sleep, args.sleepers)
    pacings = {"paced": paced, "saturate": Pacing(sleepers=args.sleepers, saturate=True)}
    modes = ["paced", "saturate"] if args.mode == "both" else [args.mode]
    idle = await settled_rss_mib(server)
    await tell_memory(base, "idle", {"idle": idle})

    async def the_floor(clubs: list[Club], requests: int) -> dict[str, Any]:
        return await floor(base, clubs, 2 * requests, server)

    phases: dict[str, dict[str, Any]] = {}
    every: list[dict[str, Any]] = []
    closed = []
    for again in range(args.runs):
        for mode in modes:  # the floor halfway through the last capacity run
            last = again == args.runs - 1 and mode == modes[-1]
            name = f"{mode[0].upper()}{again + 1}-"
            phases[mode] = await phase(args, base, pacings[mode], server, rng,
                                       the_floor if last else None, name=name)  # fmt: skip
            every.append(phases[mode])
            closed.append({"run": name.rstrip("-"), **phases[mode]["figures"]["rss_mib"]})
    capacity = await find_capacity(args, base, server, rng) if args.find_capacity else None
    last_run = closed[-1]
    return {
        "phases": phases, "every": every, "floor": phases[modes[-1]]["midway"],
        "capacity": capacity,
        "rss_mib": {"idle": idle, "after_run": last_run["after"],
                    "after_closing": last_run["after_closing"], "runs": closed,
                    "after_closing_to_idle": round(last_run["after_closing"] / idle, 2),
                    "most_after_closing_to_idle": round(
                        max(r["after_closing"] for r in closed) / idle, 2)},
    }  # fmt: skip


CARD_P99_MS, BET_P99_MS = 150.0, 100.0
"""What a phone at people's pace must see: a card on every phone and a bet's answer, p99."""


async def find_capacity(args: argparse.Namespace, base: str, server: int,
                        rng: random.Random) -> dict[str, Any]:  # fmt: skip
    """How many phones (tables of ``--players``) one server serves at people's pace with a
    card's p99 ≤ 150 ms and a bet's ≤ 100 ms: tables doubled from ``--tables`` while they
    are (halved, down to one, while they are not), then halved between the last that was
    and the first that was not (to 2 tables),
    each trial ``--capacity-rounds`` rounds on fresh tables."""
    paced = Pacing(args.reaction, args.again, args.card, args.start, args.sleep, args.sleepers)
    trials: list[dict[str, Any]] = []

    async def meets(tables: int) -> bool:
        done = await phase(args, base, paced, server, rng, tables=tables,
                           rounds=args.capacity_rounds, name=f"C{len(trials) + 1}-")  # fmt: skip
        f = done["figures"]
        card, bet = f["latency_ms"]["card_to_phone"]["p99"], f["latency_ms"]["bet"]["p99"]
        ok = card <= CARD_P99_MS and bet <= BET_P99_MS and not f["errors"] and not f["cards_missed"]
        ok = ok and not f["cards_refused"]
        trials.append({"phones": tables * args.players, "tables": tables, "met": ok,
                       "card_p99_ms": card, "bet_p99_ms": bet, "errors": f["errors"],
                       "server_share": f["cpu"]["server_share"],
                       "client_share": f["cpu"]["client_share"],
                       "client_cpu_s": f["cpu"]["client_cpu_s"]})  # fmt: skip
        return bool(ok)

    good, bad = 0, 0
    tables = args.tables
    while not bad:
        if await meets(tables):
            good, tables = tables, tables * 2
        else:
            bad = tables
    while not good and bad > 1:  # even the first size was too many: halve it (to one table)
        if await meets(bad // 2):
            good = bad // 2
        else:
            bad //= 2
    while bad - good > 2 and good:
        middle = (good + bad) // 2
        if await meets(middle):
            good = middle
        else:
            bad = middle
    return {"capacity_phones": good * args.players, "capacity_tables": good, "trials": trials}


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
           load: list[list[float]]) -> dict[str, Any]:  # fmt: skip
    """The JSON: the issue's keys — latencies from the paced run (what a player feels),
    requests/s from the saturated run (capacity, against the floor) — and each run whole."""
    phases = result["phases"]
    figures = {mode: p["figures"] for mode, p in phases.items()}
    paced = figures.get("paced", figures.get("saturate"))
    capacity = figures.get("saturate", figures.get("paced"))
    assert paced is not None and capacity is not None
    floor_rps = result["floor"]["requests_per_second"]
    clubs = [c for p in result["every"] for c in p["clubs"]]
    players = [pl for c in clubs for pl in c.players]
    samples = [s for p in result["every"] for s in p["recorder"].samples]
    every = [p["figures"] for p in result["every"]]
    table_cpu = capacity["cpu"]["server_cpu_ms_per_request"]
    floor_cpu = result["floor"]["cpu"]["server_cpu_ms_per_request"]
    return {
        "tables": args.tables, "players": args.players, "rounds": args.rounds,
        "database": db, "workers": args.workers, "machine": machine(),
        "load_average": load[0], "load_average_after": load[1], "mode": args.mode,
        "pacing": Pacing(args.reaction, args.again, args.card, args.start, args.sleep,
                         args.sleepers).describe(),
        "server_cpu_ms_per_request": {"table": table_cpu, "floor": floor_cpu,
                                      "ratio": round(table_cpu / floor_cpu, 2)},
        "client_cpu_ms_per_request": {"table": capacity["cpu"]["client_cpu_ms_per_request"],
                                      "floor": result["floor"]["cpu"]["client_cpu_ms_per_request"]},
        "rss_mib": result["rss_mib"], "serve_start": STARTED,
        **(result["capacity"] or {}),
        "requests": capacity["requests"], "seconds": capacity["cpu"]["seconds"],
        "requests_per_second": capacity["requests_per_second"],
        "floor_requests_per_second": floor_rps,
        "ratio_to_floor": round(capacity["requests_per_second"] / floor_rps, 3),
        "latency_ms": paced["latency_ms"],
        "errors": sum(f["errors"] for f in every),
        "cards_missed": sum(f["cards_missed"] for f in every),
        "cards_passed": sum(f["cards_passed"] for f in every),
        "live_messages": sum(f["live_messages"] for f in every),
        "stray_end_tags": sum(f["stray_end_tags"] for f in every),
        "cards_refused": sum(f["cards_refused"] for f in every),
        "rounds_settled": sum(f["rounds_settled"] for f in every),
        "bets_sent": sum(len(p.accepted) + p.unknown for p in players),
        "bets_settled": found.get("settled", 0),
        "bets_lost": found.get("lost", 0),
        "bets_doubled": found.get("doubled", 0),
        "bets_unknown": sum(p.unknown for p in players),
        "ledgers_not_zero": found.get("bad ledgers", 0),
        "runs": figures, "floor": result["floor"],
        "problems": samples[:10],
    }  # fmt: skip


def print_text(out: dict[str, Any]) -> None:
    print(f"{out['tables']} tables × {out['players']} phones × {out['rounds']} rounds; "
          f"{out['database']}, {out['workers']} worker(s); {out['machine']}; "
          f"load average {out['load_average']} → {out['load_average_after']}")  # fmt: skip
    for mode, run in out["runs"].items():
        cpu = run["cpu"]
        print(f"\n{mode}: {run['requests']:,} requests in {cpu['seconds']} s, "
              f"{run['requests_per_second']} requests/s; server CPU "
              f"{cpu['server_cpu_ms_per_request']} ms a request (system "
              f"{cpu['server_system_cpu_s']} of {cpu['server_cpu_s']} s; {cpu['server_share']:.0%} of the "
              f"machine), client {cpu['client_share']:.0%}; {run['live_messages']:,} live messages\n")  # fmt: skip
        print("| request | count | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|")
        for kind, s in run["latency_ms"].items():
            print(f"| {kind} | {s['count']:,} | {s['p50']} | {s['p99']} | {s['max']} |")
    floor_cpu, cpu, rss = out["floor"]["cpu"], out["server_cpu_ms_per_request"], out["rss_mib"]
    print(f"\n- server CPU a request: **table {cpu['table']} ms, floor {cpu['floor']} ms, ratio "
          f"{cpu['ratio']}**; capacity {out['requests_per_second']} requests/s, the floor "
          f"{out['floor_requests_per_second']} requests/s (client {floor_cpu['client_share']:.0%})")  # fmt: skip
    each = ", ".join(f"{r['run']} {r['before']} → {r['after']} → {r['after_closing']}"
                     for r in rss["runs"])  # fmt: skip
    print(f"- server memory: idle {rss['idle']} MiB, after the run {rss['after_run']} MiB, its "
          f"tables closed {rss['after_closing']} MiB ({rss['after_closing_to_idle']}× idle; each "
          f"run, before → after → tables closed: {each})")  # fmt: skip
    print(f"- the server's first answer {out['serve_start']['first_answer_s']} s after its start "
          f"({out['serve_start']['server_cpu_s']} s of its CPU)")  # fmt: skip
    if "capacity_phones" in out:
        print(f"- capacity at people's pace: **{out['capacity_phones']} phones**")
        for t in out["trials"]:
            print(f"  - {t['phones']} phones: card p99 {t['card_p99_ms']} ms, bet p99 "
                  f"{t['bet_p99_ms']} ms, server {t['server_share']:.0%}, client "
                  f"{t['client_share']:.0%} of the machine ({'met' if t['met'] else 'not met'})")  # fmt: skip
    print(f"- errors {out['errors']}; cards missed by a phone {out['cards_missed']}; passed "
          f"(a phone went on to the next round first) {out['cards_passed']}; refused (a felt "
          f"not where a card's message starts) {out['cards_refused']}")  # fmt: skip
    print(f"- bets: {out['bets_sent']:,} sent, {out['bets_settled']:,} settled, "
          f"{out['bets_lost']} lost, {out['bets_doubled']} doubled, {out['bets_unknown']} unknown; "
          f"ledgers not summing to zero: {out['ledgers_not_zero']}")  # fmt: skip
    for text in out["problems"]:
        print(f"  - {text}")


def arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--players", type=int, default=20, help="phones at each table")
    parser.add_argument("--rounds", type=int, default=50, help="rounds at each table")
    parser.add_argument("--db", help="the database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL)")
    parser.add_argument("--mode", choices=["paced", "saturate", "both"], default="both",
                        help="people's pace, a closed loop (capacity), or one after the other")  # fmt: skip
    parser.add_argument("--saturate", dest="mode", action="store_const", const="saturate",
                        help="the same as --mode saturate")  # fmt: skip
    parser.add_argument("--reaction", type=seconds_range, default=Pacing.reaction, metavar="LO:HI",
                        help="paced: seconds from the round shown open to a phone's first tap (0.3:3)")  # fmt: skip
    parser.add_argument("--again", type=seconds_range, default=Pacing.again, metavar="LO:HI",
                        help="paced: seconds from a first bet's answer to the second tap (0.3:1)")  # fmt: skip
    parser.add_argument("--card", type=seconds_range, default=Pacing.card, metavar="LO:HI",
                        help="paced: seconds between the dealer's steps (0.3:0.5)")  # fmt: skip
    parser.add_argument("--start", type=seconds_range, default=Pacing.start, metavar="LO:HI",
                        help="paced: seconds before each table opens its first round (0:5)")  # fmt: skip
    parser.add_argument("--sleep", type=seconds_range, default=Pacing.sleep, metavar="LO:HI",
                        help="seconds a sleeping phone stays away (1:3; a tenth when saturated)")  # fmt: skip
    parser.add_argument("--sleepers", type=float, default=Pacing.sleepers,
                        help="share of the phones that sleep mid-round, each round (0.05)")  # fmt: skip
    parser.add_argument("--runs", type=int, default=1,
                        help="play the runs this many times (memory after each)")  # fmt: skip
    parser.add_argument("--find-capacity", action="store_true",
                        help="then find how many phones one server serves at people's pace")  # fmt: skip
    parser.add_argument("--capacity-rounds", type=int, default=4,
                        help="rounds at each table in each trial of --find-capacity")  # fmt: skip
    parser.add_argument("--profile", metavar="FILE", default="",
                        help="cProfile the server's process (one worker) into FILE")  # fmt: skip
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for the whole run")
    parser.add_argument("--resend", type=float, default=0.05, help="share of bets sent twice")
    parser.add_argument("--seed", type=int, default=5, help="the players' choices")
    parser.add_argument("--py-spy", metavar="PREFIX",
                        help="profile the server during the rounds (the saturated run: its first half; py-spy): PREFIX.MODE.txt")  # fmt: skip
    return parser


def main() -> int:
    parser = arguments()
    args = parser.parse_args()
    if min(args.tables, args.players, args.rounds, args.workers, args.runs) < 1:
        parser.error("--tables, --players, --rounds, --workers and --runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="andar-bahar-load-") as temporary:
        folder = Path(temporary)
        url = args.db or f"sqlite:///{folder / 'club.sqlite3'}"
        if args.workers > 1 and make_url(url).get_backend_name() == "sqlite":
            parser.error("--workers above 1 needs --db postgresql+psycopg://…")
        port = args.port or free_port()
        load = [[round(x, 2) for x in os.getloadavg()]]
        server = start_server(url, port, args.workers, folder, args.profile)
        try:
            main_loop = run(args, f"http://{HOST}:{port}", server.pid)
            result = asyncio_run(asyncio.wait_for(main_loop, args.timeout))
        except TimeoutError:
            print(f"FAILED: the run took more than {args.timeout:.0f} s", file=sys.stderr)
            return 1
        finally:
            load.append([round(x, 2) for x in os.getloadavg()])
            stop_server(server)
        clubs = [c for p in result["every"] for c in p["clubs"]]
        found = check_database(url, clubs)
        db = make_url(url).get_backend_name() + ("" if args.db else " (a temporary file)")
        out = report(args, db, result, found, load)
    if args.format == "json":
        print(json.dumps(out, indent=1))
    else:
        print_text(out)
    ok = out["bets_lost"] == out["bets_doubled"] == out["ledgers_not_zero"] == 0
    expected = args.tables * args.rounds * (2 if args.mode == "both" else 1)
    ok = ok and out["errors"] == 0 and out["rounds_settled"] == expected * args.runs
    ok = ok and all(r["letting_go_s"] < LET_GO_MOST for r in out["rss_mib"]["runs"])
    return 0 if ok else 1


def asyncio_run(main_loop: Any) -> Any:
    """Run the client's loop, on uvloop when it is installed (the client shares the cores)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main_loop)
    return uvloop.run(main_loop)


if __name__ == "__main__":
    sys.exit(main())
