"""Benchmark: the hold report and the shuffle check of one night of 500 rounds, on SQLite.

    .venv/bin/python benchmarks/bench_hold.py [--rounds 500] [--pairs 11]

Plays a night into a fresh SQLite file (one table, four players, 1–4 of them betting each
round on a row, now and then on a side bet and twice on a spot; half the rounds from a
real deck), then times in CPU seconds of this process:

- **hold**: reading the night (the rounds, the ledger, the sign-ins) and the report by
  night — every round's exact law, the night's band and p-value — the first time (every
  cache empty, as the command line runs it) and then again;
- **shuffle**: reading the night and checking the real decks and the server's;
- the comparator, in the same run: the cashier's statement of the same table (the ledger
  read and added up per player, ``history statement``), an existing read of the night;
- both commands, ``andar-bahar history hold`` and ``history statement``, start to end (the
  CPU of the whole process: Python's start and the imports included).

The repeated figures alternate with the comparator, *pairs* times; each is the median,
with the fastest and slowest. Say the machine's load when quoting them.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from andar_bahar.club.history import read_club_history
from andar_bahar.club.service import TableService
from andar_bahar.reports.hold import HoldReport, hold_report
from andar_bahar.reports.shuffle import shuffle_sections
from andar_bahar.storage import Storage
from hold_support import open_table, play


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--pairs", type=int, default=11)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'night.sqlite3'}"
        with Storage.open(url) as storage:
            table = open_table(storage)
            play(table, options.rounds, every=timedelta(minutes=2))  # 18:00 to 10:40: one night
            code = table.code

            def hold() -> HoldReport:
                history = read_club_history(storage, code)
                return hold_report(code, history.name, history.rounds, history.sign_ins, zone=UTC)

            def shuffle() -> object:
                history = read_club_history(storage, code)
                return shuffle_sections(history.procedure, history.paytable, history.rounds)

            service = TableService(storage)

            def statement() -> object:
                return service.statement_local(code)

            first = cpu(hold)
            commands = {
                name: _command(["history", name, code, "--db", url], options.pairs)
                for name in ("hold", "statement")
            }
            report = hold()
            times: dict[str, list[float]] = {"hold": [], "shuffle": [], "statement": []}
            for _ in range(options.pairs):
                times["hold"].append(cpu(hold))
                times["statement"].append(cpu(statement))
                times["shuffle"].append(cpu(shuffle))
    print(
        f"{report.total.rounds} rounds with bets in {len(report.nights)} night(s);"
        " CPU seconds of this process"
    )
    print(f"  hold report, first (cold caches): {first:.3f}")
    for name, values in times.items():
        print(
            f"  {name:<10} median {statistics.median(values):.3f}"
            f"  (fastest {min(values):.3f}, slowest {max(values):.3f}, {len(values)} runs)"
        )
    print(f"  the night's band and p-value by: {report.total.judgement.method}")
    for name, values in commands.items():
        print(
            f"  andar-bahar history {name:<9} CPU of the process, median {statistics.median(values):.3f}"
            f"  (fastest {min(values):.3f}, slowest {max(values):.3f})"
        )


def _command(args: list[str], runs: int) -> list[float]:
    """CPU seconds (user + system) of the command line, start to end, *runs* times."""
    cli = shutil.which("andar-bahar", path=str(Path(sys.executable).parent)) or "andar-bahar"
    values = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([cli, *args], check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        values.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return values


if __name__ == "__main__":
    main()
