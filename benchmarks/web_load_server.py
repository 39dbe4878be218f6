"""The server of the web load benchmark: started, measured (CPU, memory) and stopped.

Imported by ``bench_web_load.py`` (beside it), which runs this file as the server's process:
:func:`bench_app`: the app of ``andar-bahar serve`` with the floor's bare endpoint added.
Every figure of the server is read from ``/proc`` for the server's process group (its
processes only: neither the client's speed nor the host's load enters its CPU time).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, insert
from starlette.requests import Request  # at module level: the floor's route is annotated with it

HOST = "127.0.0.1"
FLOOR_PATH = "/bench/floor"
MEMORY_PATH = "/bench/memory"
QUIET_PATH = "/bench/quiet"
"""``GET``: what the server still does for the live tables (:func:`let_go`)."""
LET_GO_MOST = 30.0
"""Seconds the server may take to let go of the tables closed at a run's end (``rss_mib``'s
``letting_go_s`` in each run); longer, and the run fails: a table stays held."""
MEMORY_TRACE = "ANDAR_BAHAR_BENCH_MEMORY"
"""With this variable set, the benchmark's server answers ``GET /bench/memory`` with its
resident memory by kind of mapping and what grew since the last ask: set to
``allocator``, Python's allocator's arenas and the memory free inside them
(:func:`python_allocator`: the server runs as it does without the variable); set to
anything else, the server traces its allocations (tracemalloc, which slows it and hides
the allocator's figures) and tells the top lines of code holding memory and the kinds of
objects gained. ``bench_web_load.py`` asks once idle and after each run, its tables
closed, and prints the answers on standard error. Only the benchmark's app has the
route."""
FLOOR = Table(
    "bench_floor",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("client", String(40)),
    Column("created_at", DateTime(timezone=True)),
)
"""The bare endpoint's table: one row per request (created by the benchmark, then dropped)."""
STARTED: dict[str, float] = {}
"""The server's start (:func:`start_server`): seconds to its first answer, and its CPU
seconds by then (its process and the app of ``serve``, on a database already made)."""


# -- the server ---------------------------------------------------------------------------------


def bench_app() -> Any:
    """The app of ``andar-bahar serve`` (a worker's) with the floor's bare endpoint added."""
    from datetime import UTC, datetime

    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse

    from andar_bahar.cli.serve import worker_app
    from andar_bahar.club.limits import Limits

    application = worker_app()
    application.state.service.limits = Limits(tables_per_hour=1_000_000)  # one address, many
    service = application.state.service

    def durable_insert(client: str) -> None:
        with (
            service.store.transactions.write() as session
        ):  # the service's own transaction (and writer lock)
            session.execute(insert(FLOOR).values(client=client, created_at=datetime.now(UTC)))

    @application.post(FLOOR_PATH)
    async def floor(request: Request) -> JSONResponse:
        await run_in_threadpool(durable_insert, request.headers.get("x-client", "")[:40])
        return JSONResponse({"ok": True})

    @application.get(QUIET_PATH)
    async def quiet() -> JSONResponse:
        hub = application.state.hub
        return JSONResponse({"rooms": len(hub.rooms), "tasks": len(hub.tasks)})

    if os.environ.get(MEMORY_TRACE):
        memory_route(application)
    return application


def memory_route(application: Any) -> None:
    """``GET /bench/memory``: what the process holds, and more than at the last ask."""
    import gc
    import tracemalloc
    from collections import Counter

    from starlette.responses import JSONResponse

    tracing = os.environ.get(MEMORY_TRACE) != "allocator"
    if tracing:
        tracemalloc.start(8)
    snapshots = [tracemalloc.take_snapshot()] if tracing else []
    counts = [Counter[str]()]

    @application.get(MEMORY_PATH)
    async def memory() -> JSONResponse:
        gc.collect()
        if not tracing:
            return JSONResponse({"resident_kib_by_mapping": resident_by_mapping(),
                                 "python_allocator": python_allocator()})  # fmt: skip
        snapshot = tracemalloc.take_snapshot()
        grown = snapshot.compare_to(snapshots[-1], "traceback")[:15]
        kinds = Counter(type(o).__qualname__ for o in gc.get_objects())
        gained = (kinds - counts[-1]).most_common(25)
        snapshots[:], counts[:] = [snapshot], [kinds]
        return JSONResponse({
            "traced_mib": round(tracemalloc.get_traced_memory()[0] / 2**20, 1),
            "resident_kib_by_mapping": resident_by_mapping(),
            "grown": [{"kib": round(s.size_diff / 1024), "count": s.count_diff,
                       "where": [f"{f.filename}:{f.lineno}" for f in s.traceback][-8:]}
                      for s in grown],
            "kinds_gained": gained,
        })  # fmt: skip


def serve(url: str, port: int, workers: int, profile: str = "") -> None:
    """Run :func:`bench_app` as ``serve`` runs its app (this is the server's process);
    *profile*: a file for cProfile's figures of this process (one worker), written when
    it is stopped."""
    import uvicorn

    from andar_bahar.cli.serve import tell_workers
    from andar_bahar.web.http.connections import server_settings

    tell_workers(url, secrets.token_bytes(32), workers)  # as serve does
    options = {"factory": True, "workers": workers, "host": HOST, "port": port}
    if not profile:
        uvicorn.run("web_load_server:bench_app", **options, **server_settings())
        return
    import cProfile
    import pstats
    import threading

    profilers = [cProfile.Profile(time.thread_time)]  # CPU time, each thread its own

    def in_thread(*_: object) -> None:  # each new thread (the renders, the requests) its own
        sys.setprofile(None)
        profilers.append(cProfile.Profile(time.thread_time))
        profilers[-1].enable()

    threading.setprofile(in_thread)
    signal.signal(signal.SIGTERM, lambda *_: None)  # uvicorn raises it again once it stopped
    with profilers[0]:
        uvicorn.run("web_load_server:bench_app", **options, **server_settings())
    stats = pstats.Stats(profilers[0])
    for other in profilers[1:]:
        stats.add(other)
    stats.dump_stats(profile)


def resident_by_mapping() -> dict[str, int]:
    """This process's resident KiB by kind of mapping (``/proc/self/smaps``): the C heap,
    anonymous mappings by their size (Python's arenas are 1 MiB; glibc's other pools 64 MiB
    reservations; threads' stacks 8 MiB), and files."""
    totals: dict[str, int] = {}
    kind = ""
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:
            start, end = (int(x, 16) for x in fields[0].split("-"))
            size = (end - start) // 1024
            name = fields[5] if len(fields) > 5 else ""
            kind = name if name.startswith("[") else ("file" if name else f"anon {size} KiB")
            if kind.startswith("anon") and size > 8192:
                kind = "anon > 8 MiB"
        elif fields[0] == "Rss:":
            totals[kind] = totals.get(kind, 0) + int(fields[1])
    return dict(sorted(totals.items(), key=lambda item: -item[1])[:8])


ALLOCATOR_LINES = {
    "# arenas allocated current": "arenas",
    "# arenas reclaimed": "arenas_freed",
    "# bytes in allocated blocks": "in_use_mib",
    "# bytes in available blocks": "free_in_used_pools_mib",
    "unused pools *": "unused_pools_mib",
}
"""What :func:`python_allocator` reads of ``sys._debugmallocstats()``'s lines."""


def python_allocator() -> dict[str, float]:
    """Python's own allocator now: its 1 MiB arenas (current, and freed since the start),
    the MiB in the blocks in use, and the MiB free inside the arenas (blocks free in pools
    in use; pools free in arenas that are not): an arena goes back to the system only
    when every block in it is free (``sys._debugmallocstats()``, which writes to the
    process's standard error: read through a temporary file put there)."""
    import tempfile

    with tempfile.TemporaryFile() as caught:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        text = caught.read().decode()
    found: dict[str, float] = {}
    for line in text.splitlines():
        head, _, value = line.rpartition("=")
        for start, key in ALLOCATOR_LINES.items():
            if start in head:
                number = int(value.strip().replace(",", ""))
                found[key] = number if key.startswith("arenas") else round(number / 2**20, 1)
    return found


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def start_server(
    url: str, port: int, workers: int, folder: Path, profile: str = ""
) -> subprocess.Popen[bytes]:
    """The server's process group, once it answers its home page."""
    from andar_bahar.storage import Storage

    with Storage.open(url) as storage:  # the schema, and the floor's table, before the workers
        FLOOR.drop(storage.engine, checkfirst=True)
        FLOOR.create(storage.engine)
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, __file__, url, str(port), str(workers), profile],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "XDG_DATA_HOME": str(folder / "data")},
    )  # fmt: skip
    started = time.monotonic()
    deadline = started + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {(folder / 'server.log').read_text()}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"http://{HOST}:{port}/", timeout=1).status_code == 200:
                user, system, _ = group_stat(server.pid)
                STARTED.update(first_answer_s=round(time.monotonic() - started, 2),
                               server_cpu_s=round(user + system, 2))  # fmt: skip
                return server
        time.sleep(0.01)
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


# -- CPU time and memory -----------------------------------------------------------------------------------


TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def group_stat(group: int) -> tuple[float, float, int]:
    """CPU seconds (user, system) and resident bytes of the live processes of process group
    *group* (Linux's ``/proc/PID/stat``)."""
    user = system = resident = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[2]) == group:  # fields[0] is the state: pgrp is the 5th field
                user, system = user + int(fields[11]), system + int(fields[12])
                resident += int(fields[21])  # rss, the 24th field, in pages
    return user / TICKS, system / TICKS, resident * PAGE


def group_cpu(group: int) -> tuple[float, float]:
    """CPU seconds (user, system) of the server's processes."""
    return group_stat(group)[:2]


def group_rss_mib(group: int) -> float:
    """Resident memory of the server's processes, MiB."""
    return round(group_stat(group)[2] / 2**20, 1)


async def let_go(base: str, most: float = LET_GO_MOST) -> float:
    """Seconds until the server has let go of every table (its tables closed): no table
    followed and none of the hub's own tasks on their way — the renders that tell the pages
    the table closed, the releases (``/bench/quiet``). Measured before that, the memory
    after closing would count tables the server is still letting go of."""
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=base, timeout=10.0) as client:
        while time.monotonic() - started < most:
            state = (await client.get(QUIET_PATH)).json()
            if not state["rooms"] and not state["tasks"]:
                break
            await asyncio.sleep(0.05)
    return time.monotonic() - started


async def settled_rss_mib(group: int, most: float = 10.0) -> float:
    """The server's resident memory once it has stopped falling (its tables closed: up to
    *most* seconds for it to let go of what they held)."""
    last = group_rss_mib(group)
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        now = group_rss_mib(group)
        if now >= last:
            return now
        last = now
    return last


@dataclass
class Clock:
    """Wall time and the CPU time of this client process and of the server's processes."""

    server: int
    started: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    paused: tuple[float, float, float, float] | None = None

    def __post_init__(self) -> None:
        self.started = self._now()

    def _now(self) -> tuple[float, float, float, float]:
        return time.perf_counter(), time.process_time(), *group_cpu(self.server)

    def pause(self) -> None:
        """Stop counting (the floor is measured halfway through the capacity run)."""
        self.paused = self._now()

    def resume(self) -> None:
        """Count again: the time and CPU since :meth:`pause` are left out."""
        assert self.paused is not None
        now = self._now()
        self.started = tuple(  # type: ignore[assignment]
            s + (b - a) for s, a, b in zip(self.started, self.paused, now, strict=True)
        )
        self.paused = None

    def lap(self, requests: int) -> dict[str, float]:
        """Since the start: seconds, CPU seconds of each side, their shares of the machine."""
        now = self._now()
        wall, client, user, system = (b - a for a, b in zip(self.started, now, strict=True))
        server = user + system
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        return {
            "seconds": round(wall, 2),
            "client_cpu_s": round(client, 2), "server_cpu_s": round(server, 2),
            "server_system_cpu_s": round(system, 2),
            "client_share": round(client / (wall * cores), 3),
            "server_share": round(server / (wall * cores), 3),
            "server_cpu_ms_per_request": round(1000 * server / max(requests, 1), 2),
            "client_cpu_ms_per_request": round(1000 * client / max(requests, 1), 2),
        }  # fmt: skip


# -- a profile of the server --------------------------------------------------------------------


def start_profile(prefix: str | None, mode: str, server: int) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` of the server's processes while the rounds are played (``--py-spy``):
    samples of the thread holding the GIL, as collapsed stacks in ``PREFIX.MODE.txt``
    (``benchmarks/profile_kinds.py`` sums them by kind of request)."""
    if not prefix:
        return None
    spy = shutil.which("py-spy") or str(
        Path(sys.executable).parent / "py-spy"
    )  # pip install py-spy
    command = [spy, "record", "--gil", "--rate", "250", "--format", "raw", "--nonblocking",
               "--subprocesses", "-o", f"{prefix}.{mode}.txt", "--pid", str(server)]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_profile(profiler: subprocess.Popen[bytes] | None) -> None:
    if profiler is not None:
        profiler.send_signal(signal.SIGINT)
        profiler.wait(timeout=60)


if __name__ == "__main__":  # the server's process: URL PORT WORKERS [PROFILE]
    serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
