"""Benchmark: how long the terminal trainer takes to show its menu, in a real terminal.

    .venv/bin/python benchmarks/bench_tui_startup.py [--runs 5] [--lang ru]

Starts ``andar-bahar play`` in a pseudo-terminal of 80×24, reads what it draws until the
menu's last item appears, and quits it with Ctrl+Q; the time is from starting the process
to that moment. Beside it, in the same run, the floors: starting Python and importing
Textual's ``App`` (no trainer code), and ``andar-bahar --version`` (the command line's
imports). Each figure is the median of *runs*; say the machine's load when quoting it.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MENU_LAST = {"en": "History", "ru": "История", "ka": "ისტორია"}


def time_menu(lang: str, folder: Path) -> float:
    """Seconds from starting ``andar-bahar play`` to the menu on screen."""
    command = shutil.which("andar-bahar", path=str(Path(sys.executable).parent)) or "andar-bahar"
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the trainer, on a history of its own
        os.execvpe(
            command, [command, "play", "--lang", lang, "--db", str(folder / "h.sqlite3")], env
        )
    seen = b""
    target = MENU_LAST[lang].encode()
    try:
        while target not in seen:
            ready, _, _ = select.select([fd], [], [], 30)
            if not ready:
                raise TimeoutError("the menu did not appear within 30 s")
            seen += os.read(fd, 65536)
        return time.perf_counter() - start
    finally:
        os.write(fd, b"\x11")  # Ctrl+Q
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    os.read(fd, 65536)
                except OSError:
                    break
            finished, _ = os.waitpid(pid, os.WNOHANG)
            if finished:
                break
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


def time_command(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", default="ru", choices=sorted(MENU_LAST))
    options = parser.parse_args()
    cli = shutil.which("andar-bahar", path=str(Path(sys.executable).parent)) or "andar-bahar"
    with tempfile.TemporaryDirectory() as folder:
        rows = {
            "python + import textual.app": [
                time_command([sys.executable, "-c", "import textual.app"])
                for _ in range(options.runs)
            ],
            "andar-bahar --version": [
                time_command([cli, "--version"]) for _ in range(options.runs)
            ],
            f"andar-bahar play --lang {options.lang}: menu on screen": [
                time_menu(options.lang, Path(folder)) for _ in range(options.runs)
            ],
        }
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, times in rows.items():
        print(f"{name:<44} median {statistics.median(times):.3f} s  (min {min(times):.3f} s)")


if __name__ == "__main__":
    main()
