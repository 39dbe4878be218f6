"""``andar-bahar serve`` as a real process, for the tests that kill it or run several.

It listens on a free loopback port, in its own process group (so one signal reaches its
workers), with its data folder and log in the test's folder.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

__all__ = ["ServeProcess", "free_port"]


def free_port() -> int:
    """A loopback port nothing listens on (yet)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServeProcess:
    """``python -m andar_bahar serve --db URL [--workers N]`` on a free loopback port (or on
    *port*: a server started again where its pages look for it)."""

    def __init__(
        self, url: str, folder: Path, name: str, workers: int = 1, start_timeout: float = 60.0,
        port: int | None = None,
    ) -> None:  # fmt: skip
        self.port = port or free_port()
        self.base = self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"server-{name}.log"
        self.start_timeout = start_timeout
        env = {**os.environ, "XDG_DATA_HOME": str(folder / "data"), "PYTHONUNBUFFERED": "1"}
        command = [sys.executable, "-m", "andar_bahar", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port), "--db", url]  # fmt: skip
        if workers > 1:
            command += ["--workers", str(workers)]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=env, start_new_session=True,
            )  # fmt: skip

    def wait_ready(self) -> None:
        """Return once ``/`` answers 200; raise if the server exits or takes too long."""
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text(errors='replace')}")
            try:
                if httpx.get(f"{self.base}/", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise TimeoutError(f"the server did not answer in {self.start_timeout:.0f} s")

    def kill(self) -> None:
        """SIGKILL to the server's process: no shutdown handler, no final commit, no flush."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGKILL to the whole process group: the workers too."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def workers(self) -> list[int]:
        """The worker processes of ``--workers N`` (children running uvicorn's spawn)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if int(stat[1]) == self.process.pid and "spawn_main" in command:
                found.append(int(entry.name))
        return sorted(found)
