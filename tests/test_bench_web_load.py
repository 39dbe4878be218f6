"""A small, fast run of the web load benchmark (benchmarks/bench_web_load.py): its JSON.

The full run (10 tables × 20 phones × 50 rounds, paced and saturated) gives the figures of
docs/performance.md; this one checks, on every test run, that the benchmark still plays
whole rounds the way the pages do, paced (everyday with its waits cut to a tenth, in the
slow tier at people's own pace) and in a closed loop, and that its checks hold: nothing
lost, nothing doubled, ledgers at zero.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_web_load.py"


def benchmark_module(name: str) -> Any:
    """A module of benchmarks/ (the folder put on the import path, as the benchmark runs)."""
    if str(BENCHMARK.parent) not in sys.path:
        sys.path.insert(0, str(BENCHMARK.parent))
    return importlib.import_module(name)


QUICK_PACE = ["--reaction", "0.05:0.2", "--again", "0.05:0.1", "--card", "0.05:0.1",
              "--start", "0:0.2", "--sleep", "0.1:0.3"]  # fmt: skip
"""The paced run's waits cut to a tenth: the same requests and checks, in 8 s instead of 24."""


@pytest.mark.parametrize(
    "pace",
    [
        # A run of two servers and a client (8 s of CPU): the slow tier, as is people's own
        # pace (the benchmark's defaults), which waits 16 s more for the same requests and
        # checks; .ci/run runs both.
        pytest.param(QUICK_PACE, id="quick-pace", marks=pytest.mark.slow),
        pytest.param([], id="peoples-pace", marks=pytest.mark.slow),
    ],
)
def test_a_small_load_run_reports_its_figures_and_loses_no_bet(pace: list[str]) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCHMARK), "--tables", "2", "--players", "3", "--rounds", "2",
         "--format", "json", "--timeout", "120", *pace],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    out = json.loads(run.stdout)
    for key in ("requests_per_second", "floor_requests_per_second", "errors", "bets_sent",
                "bets_settled", "bets_lost", "bets_doubled"):  # fmt: skip
        assert key in out, key
    for kind in ("bet", "deal", "settle", "card_to_phone"):
        assert set(out["latency_ms"][kind]) >= {"p50", "p99", "max"}, kind
        assert out["latency_ms"][kind]["count"] > 0, kind
    assert out["errors"] == out["bets_lost"] == out["bets_doubled"] == 0
    assert out["bets_sent"] == out["bets_settled"] > 0
    # Both runs (people's pace, then the closed loop), each 2 tables × 2 rounds.
    assert set(out["runs"]) == {"paced", "saturate"} and out["mode"] == "both"
    assert out["rounds_settled"] == 8 and out["cards_missed"] == 0
    # A card a phone passed (it showed the next round first: the saturated dealer opens it
    # at once) is still a card of this run: no more than every card of every phone.
    assert 0 <= out["cards_passed"] <= sum(r["cards_dealt"] for r in out["runs"].values())
    assert out["latency_ms"] == out["runs"]["paced"]["latency_ms"]
    assert out["requests_per_second"] == out["runs"]["saturate"]["requests_per_second"] > 0
    assert out["floor_requests_per_second"] > 0
    # The ratio judged in the server's CPU (its processes' own, from /proc), table to floor.
    cpu = out["server_cpu_ms_per_request"]
    assert cpu["table"] > 0 and cpu["floor"] > 0
    assert cpu["ratio"] == round(cpu["table"] / cpu["floor"], 2)
    rss = out["rss_mib"]
    assert rss["idle"] > 0 and [r["run"] for r in rss["runs"]] == ["P1", "S1"]
    assert rss["runs"][-1]["after_closing"] == rss["after_closing"] > 0
    assert rss["runs"][-1]["after"] == rss["after_run"] > 0 and rss["runs"][0]["before"] > 0
    # Measured once the server has let go of the closed tables (its /bench/quiet says so).
    most = benchmark_module("web_load_server").LET_GO_MOST
    assert all(0 <= r["letting_go_s"] < most for r in rss["runs"])
    assert out["serve_start"]["first_answer_s"] > 0 and out["serve_start"]["server_cpu_s"] > 0
    assert out["stray_end_tags"] == 0  # every block swapped in parses whole, as a browser's
    assert out["cards_refused"] == 0  # every card's message starts where the phone's felt is
    for run in out["runs"].values():
        assert run["elements_parsed"] > 0
        assert run["cpu"]["server_cpu_s"] > 0 and 0 <= run["cpu"]["client_share"] <= 1
        # Every live message is at least its head and data ({"v":…,"kind":…,"data":{…}}).
        assert run["live_kilobytes"] * 1024 >= run["live_messages"] * 50 > 0


def test_a_card_counts_as_passed_only_when_the_phone_showed_a_later_round() -> None:
    """The benchmark's phone (web_load_people.Page): a card it never showed is passed if a
    later round's message came first (a render that began after the next round opened),
    and missed otherwise — even if a later card of the same round came."""
    people = benchmark_module("web_load_people")
    page = people.Page("cookie", "csrf", 0)
    page.apply({"v": 1, "data": {"round": 4, "dealt": 2, "card": "K♠"}})  # three cards turned
    assert page.shown_or_passed((4, 3)) and page.shown_or_passed((4, 1))
    assert not page.shown_or_passed((4, 4)) and not page.shown_or_passed((5, 1))
    page.apply({"v": 2, "data": {"round": 5, "dealt": 0, "card": None, "bets_open": True}})
    assert page.shown_or_passed((4, 4)) and (4, 4) not in page.seen
    assert not page.shown_or_passed((5, 1))


def test_a_card_dealt_while_a_phone_slept_is_not_timed_on_that_phone() -> None:
    """A phone asleep (its socket closed) between a card's deal and its showing is left out
    of that card's time to every phone: a sleeping phone is not a slow server."""
    people = benchmark_module("web_load_people")
    page = people.Page("cookie", "csrf", 0)
    page.absent.append((10.0, 12.0))  # asleep from 10 s to 12 s
    assert page.away(11.5, 13.0) and page.away(9.0, 10.5) and page.away(9.0, 13.0)
    assert not page.away(12.5, 14.0) and not page.away(8.0, 9.5)
    swap = people.Swap()
    swap.feed('<div class="felt"><img src="a.svg"><b>K</b></div></span>')
    assert (swap.elements, swap.stray) == (3, 1)  # div, img, b; the </span> has no start
    # The same text for the next phone: the first phone's count, not parsed again.
    people.PARSED.clear()
    assert people.parse("<p><i>x</i></p></b>") == (2, 1)
    parser, people.Swap = people.Swap, None  # parsing again would fail
    try:
        assert people.parse("<p><i>x</i></p></b>") == (2, 1)
    finally:
        people.Swap = parser


def test_the_allocator_figures_follow_what_python_holds() -> None:
    # The arenas' figures the benchmark's server reports (ANDAR_BAHAR_BENCH_MEMORY=allocator),
    # read from sys._debugmallocstats(): 60 MiB of small objects made and then freed (one
    # in each group of 64 kept) shows as more in use, then as free memory inside the arenas.
    server = benchmark_module("web_load_server")
    before = server.python_allocator()
    assert set(before) == set(server.ALLOCATOR_LINES.values())
    made = [(i, str(i)) for i in range(400_000)]  # some 60 MiB: tuples, numbers, short strings
    during = server.python_allocator()
    kept = made[::64]
    del made
    after = server.python_allocator()
    assert during["in_use_mib"] > before["in_use_mib"] + 30
    assert during["arenas"] >= before["arenas"] + 30
    assert after["in_use_mib"] < during["in_use_mib"] - 30
    assert after["free_in_used_pools_mib"] + after["unused_pools_mib"] > 20
    del kept
