"""Measuring on a shared machine: its load, and waiting for idle cores.

The benchmarks import it from their own folder (``python benchmarks/bench_….py`` puts
that folder on the path).
"""

from __future__ import annotations

import os
import time


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def idle_share(seconds: float = 1.0) -> float:
    """The share of the machine's CPU time that was idle over the next *seconds* (Linux)."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, all

    idle, total = sample()
    time.sleep(seconds)
    idle_after, total_after = sample()
    return (idle_after - idle) / max(1, total_after - total)


def wait_for_idle_cores(share: float, patience: float = 120.0) -> bool:
    """Wait until *share* of the CPU was idle for a second (another process on a shared
    machine takes a core from --jobs 2, and the kernel shares cores by session); after
    *patience* seconds stop waiting. Whether the cores were idle."""
    deadline = time.monotonic() + patience
    while idle_share() < share:
        if time.monotonic() > deadline:
            return False
    return True
