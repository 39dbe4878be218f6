"""web/live/memory.py: a server process's idle worker threads are stopped at the night's end.

The expected values are the threads this test starts itself: AnyIO keeps a thread that
has finished its work idle for the next, and stops it only once it has been idle 10 s and
other work comes, so without :func:`stop_idle_threads` every one of them stays alive.
"""

from __future__ import annotations

import asyncio
import threading

import anyio.to_thread

from andar_bahar.web.live.memory import give_back, stop_idle_threads


def test_the_idle_worker_threads_are_stopped_and_the_pool_still_works() -> None:
    async def night() -> tuple[list[threading.Thread], list[threading.Thread], int]:
        together = threading.Barrier(3, timeout=10)  # three at once: three threads
        ran = await asyncio.gather(
            *(anyio.to_thread.run_sync(_thread_after, together) for _ in "abc")
        )
        stopped = stop_idle_threads()
        await anyio.to_thread.run_sync(lambda: give_back(collect=False, ended=stopped))
        answer = await anyio.to_thread.run_sync(lambda: 7)  # a new thread does the next work
        return ran, stopped, answer

    ran, stopped, answer = asyncio.run(night())
    assert len(set(ran)) == 3
    assert sorted(stopped, key=id) == sorted(set(ran), key=id)  # each thread that ran, once
    assert not any(thread.is_alive() for thread in stopped)  # ended before the trim
    assert answer == 7


def _thread_after(together: threading.Barrier) -> threading.Thread:
    together.wait()
    return threading.current_thread()


def test_nothing_is_stopped_outside_an_event_loop() -> None:
    assert stop_idle_threads() == []
