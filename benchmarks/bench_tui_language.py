"""Benchmark: how long Ctrl+L (the next language) takes in the terminal trainer, from the key
to the screen drawn again, in a real terminal.

    .venv/bin/python benchmarks/bench_tui_language.py [--runs 20] [--size 80x24 --size 120x40]
    .venv/bin/python benchmarks/bench_tui_language.py --src /path/to/other/src   # a comparator

Starts ``andar-bahar play`` in a pseudo-terminal of each size, opens a lesson for three
players with two markers placed and two cards dealt (three screens on the stack: the menu,
the lesson's setup, the round), then presses Ctrl+L *runs* times. Each time counts from
writing the key to the moment the terminal has received both the round's title and the
footer in the new language (the footer is drawn last). Beside each time, the CPU time the
trainer's process spent meanwhile. Prints the median and the maximum of each; say the
machine's load when quoting them (the load average is printed).

``--src`` runs the trainer from another source tree (e.g. an older commit exported with
``git archive``) in the same run, as a comparator.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROUND = {"en": "Round", "ru": "Раунд", "ka": "რაუნდი"}
"""A word of the round's title in each language (the body drawn again)."""
FOOTER = {"en": "Language", "ru": "Язык", "ka": "ენა"}
"""The footer's word for Ctrl+L in each language (the footer is drawn last)."""
ORDER = ("en", "ru", "ka")


class Terminal:
    """``andar-bahar play`` in a pseudo-terminal of *size*."""

    def __init__(self, size: tuple[int, int], folder: Path, src: str | None) -> None:
        command = shutil.which("andar-bahar", path=str(Path(sys.executable).parent))
        assert command is not None, "andar-bahar is not installed beside this Python"
        env = {**os.environ, "TERM": "xterm-256color", "XDG_DATA_HOME": str(folder)}
        if src is not None:
            env["PYTHONPATH"] = src
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the trainer, on a history of its own
            argv = [sys.executable, "-m", "andar_bahar", "play", "--lang", "en", "--seed", "7"]
            os.execvpe(sys.executable, [*argv, "--db", str(folder / "h.sqlite3")], env)
        columns, lines = size
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.seen = b""

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            return b""
        self.seen += chunk
        return chunk

    def wait_for(self, *texts: str, timeout: float = 30) -> None:
        """Read until every one of *texts* has appeared since the last :meth:`forget`."""
        wanted = [text.encode() for text in texts]
        deadline = time.monotonic() + timeout
        while not all(text in self.seen for text in wanted):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{texts} did not appear within {timeout} s")
            self.read(0.5)

    def settle(self, quiet: float = 0.3) -> None:
        """Read until the trainer has drawn nothing for *quiet* seconds."""
        while self.read(quiet):
            pass

    def forget(self) -> None:
        self.seen = b""

    def type(self, keys: str, pause: float = 0.15) -> None:
        for key in keys:
            os.write(self.fd, key.encode())
            time.sleep(pause)

    def cpu_seconds(self) -> float:
        """The CPU time the trainer has used so far (user and system)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        os.write(self.fd, b"\x11")  # Ctrl+Q: a question in a lesson; y answers it
        time.sleep(0.5)
        os.write(self.fd, b"y")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            self.read(0.2)
            finished, _ = os.waitpid(self.pid, os.WNOHANG)
            if finished:
                break
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def measure(size: tuple[int, int], runs: int, src: str | None) -> tuple[list[float], list[float]]:
    """The seconds and the CPU seconds of *runs* presses of Ctrl+L on a lesson in play."""
    with tempfile.TemporaryDirectory() as folder:
        terminal = Terminal(size, Path(folder), src)
        try:
            terminal.wait_for("History")
            terminal.settle()
            terminal.type("1")
            terminal.wait_for("Participants")
            terminal.type("Asha, Ravi, Nino", pause=0.02)
            terminal.type("\x0f")  # Ctrl+O: the lesson starts
            terminal.wait_for("Round")
            terminal.type("abdd")  # markers for Ravi and Nino, the centre card, a card
            terminal.settle()
            times, cpu = [], []
            for number in range(runs):
                lang = ORDER[(number + 1) % len(ORDER)]
                terminal.forget()
                before, start = terminal.cpu_seconds(), time.perf_counter()
                os.write(terminal.fd, b"\x0c")  # Ctrl+L
                terminal.wait_for(ROUND[lang], FOOTER[lang])
                times.append(time.perf_counter() - start)
                terminal.settle()
                cpu.append(terminal.cpu_seconds() - before)
            return times, cpu
        finally:
            terminal.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--size", action="append", default=[], help="e.g. 80x24 (repeatable)")
    parser.add_argument("--src", help="run the trainer from this source tree (a comparator)")
    options = parser.parse_args()
    sizes = [tuple(map(int, size.split("x"))) for size in options.size or ["80x24", "120x40"]]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for columns, lines in sizes:
        times, cpu = measure((columns, lines), options.runs, options.src)
        print(
            f"Ctrl+L at {columns}x{lines}, {options.runs} presses:"
            f" median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
            f" (CPU: median {statistics.median(cpu) * 1000:.0f} ms,"
            f" max {max(cpu) * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    main()
