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

``--src`` runs the trainer from another source tree beside it (e.g. an older commit
exported with ``git archive``), as a comparator in the same run: the presses alternate
between the two, and the CPU saved per pair is printed with its spread.
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


class Lesson:
    """A lesson in play in a trainer of its own (from *src*, or this tree), at *size*."""

    def __init__(self, size: tuple[int, int], src: str | None) -> None:
        self.folder = tempfile.TemporaryDirectory()
        self.terminal = Terminal(size, Path(self.folder.name), src)
        self.presses = 0
        terminal = self.terminal
        terminal.wait_for("History")
        terminal.settle()
        terminal.type("1")
        terminal.wait_for("Participants")
        terminal.type("Asha, Ravi, Nino", pause=0.02)
        terminal.type("\x0f")  # Ctrl+O: the lesson starts
        terminal.wait_for("Round")
        terminal.type("abdd")  # markers for Ravi and Nino, the centre card, a card
        terminal.settle()

    def press(self) -> tuple[float, float]:
        """Ctrl+L once: the seconds to the new language on screen, and the CPU seconds."""
        terminal = self.terminal
        self.presses += 1
        lang = ORDER[self.presses % len(ORDER)]
        terminal.forget()
        before, start = terminal.cpu_seconds(), time.perf_counter()
        os.write(terminal.fd, b"\x0c")  # Ctrl+L
        terminal.wait_for(ROUND[lang], FOOTER[lang])
        seconds = time.perf_counter() - start
        terminal.settle()
        return seconds, terminal.cpu_seconds() - before

    def close(self) -> None:
        self.terminal.close()
        self.folder.cleanup()


def report(name: str, presses: list[tuple[float, float]]) -> str:
    times, cpu = [t for t, _ in presses], [c for _, c in presses]
    return (
        f"{name}: median {statistics.median(times) * 1000:.0f} ms,"
        f" max {max(times) * 1000:.0f} ms (CPU: median {statistics.median(cpu) * 1000:.0f} ms,"
        f" max {max(cpu) * 1000:.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--size", action="append", default=[], help="e.g. 80x24 (repeatable)")
    parser.add_argument("--src", help="a comparator: the trainer from this source tree")
    options = parser.parse_args()
    sizes = [tuple(map(int, size.split("x"))) for size in options.size or ["80x24", "120x40"]]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for columns, lines in sizes:
        size = (columns, lines)
        lessons = [Lesson(size, None)] + ([Lesson(size, options.src)] if options.src else [])
        try:
            presses: list[list[tuple[float, float]]] = [[] for _ in lessons]
            for _ in range(options.runs):  # alternating: this tree, then the comparator
                for lesson, pressed in zip(lessons, presses, strict=True):
                    pressed.append(lesson.press())
        finally:
            for lesson in lessons:
                lesson.close()
        where = f"Ctrl+L at {columns}x{lines}, {options.runs} presses"
        print(report(where, presses[0]))
        if options.src:
            print(report(f"{where}, {options.src}", presses[1]))
            saved = [old[1] - new[1] for new, old in zip(*presses, strict=True)]
            print(
                f"  CPU saved per press: median {statistics.median(saved) * 1000:.0f} ms"
                f" (from {min(saved) * 1000:.0f} to {max(saved) * 1000:.0f} ms;"
                f" {sum(d > 0 for d in saved)} of {len(saved)} pairs faster)"
            )


if __name__ == "__main__":
    main()
