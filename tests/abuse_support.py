"""Rude clients of the club's server, for its tests and benchmark: slow ones, noisy sockets.

- :class:`Table` — a table with a round open and a phone with chips, whose bets are timed;
- :class:`SlowClients` — connections dribbling a request's headers or a bet's body, a
  byte every half second, and when the server closed each;
- :func:`raw_socket`, :func:`frame`, :class:`Frames` — a WebSocket opened by hand, to send
  what a browser never would and read the server's close code;
- :class:`Flood` — 20,000 messages or ping frames at once on one socket.

Used by ``tests/test_web_bounds.py`` and ``benchmarks/bench_web_abuse.py``.
"""

from __future__ import annotations

import base64
import contextlib
import os
import selectors
import socket
import struct
import threading
import time

import httpx

__all__ = ["BETS", "Flood", "Frames", "SlowClients", "Table", "frame", "open_files", "raw_socket"]

BETS = 40
"""Bets in each latency sample."""


class Table:
    """A table on the server at *base* with a round open and a phone seated with chips enough."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=30)
        made = self.client.post(
            "/api/tables", json={"name": "Bounds", "pin": "246813", "paytable": "wizard"}
        ).json()
        self.code = made["code"]
        dealer = {"Authorization": f"Bearer {made['dealer_token']}"}
        seat = self.client.post(f"/api/tables/{self.code}/players", headers=dealer,
                                json={"name": "Asha", "balance": "100000"}).json()["seat_code"]  # fmt: skip
        token = self.client.post(f"/api/tables/{self.code}/join", json={"seat_code": seat})
        self.phone = {"Authorization": f"Bearer {token.json()['token']}"}
        opened = self.client.post(f"/api/tables/{self.code}/rounds", json={}, headers=dealer)
        assert opened.status_code == 200, opened.text
        self.bets = 0

    def bet_latencies(self, count: int = BETS) -> list[float]:
        """Seconds each of *count* bets took, one after another (a phone tapping)."""
        took = []
        for _ in range(count):
            self.bets += 1
            body = {"bet": "andar", "stake": "1", "key": f"b{self.bets}"}
            started = time.perf_counter()
            answer = self.client.post(
                f"/api/tables/{self.code}/bets", json=body, headers=self.phone
            )
            took.append(time.perf_counter() - started)
            assert answer.status_code == 200, answer.text
        return took


def open_files(pid: int) -> int:
    """How many files process *pid* has open (Linux)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


class SlowClients:
    """*count* connections that send a request's headers a byte at a time, and *count* that
    send a bet's body a byte at a time; when the server closed each, after its start."""

    def __init__(self, port: int, code: str, count: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.started: dict[socket.socket, float] = {}
        self.closed: dict[socket.socket, float] = {}
        body = b'{"bet": "andar", "stake": "1", "key": "slow"}'
        heads = [b"GET / HTTP/1.1\r\nHost: club\r\n"] * count + [
            b"POST /api/tables/" + code.encode() + b"/bets HTTP/1.1\r\nHost: club\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n" + body[:1]
        ] * count
        for head in heads:
            connection = socket.create_connection(("127.0.0.1", port))
            self.started[connection] = time.monotonic()
            connection.sendall(head)
            connection.setblocking(False)
            self.selector.register(connection, selectors.EVENT_READ)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._dribble, daemon=True)
        self.thread.start()

    def _dribble(self) -> None:
        last = 0.0
        while not self.stop.is_set() and len(self.closed) < len(self.started):
            for key, _ in self.selector.select(timeout=0.05):  # readable: closed by the server
                connection = key.fileobj
                assert isinstance(connection, socket.socket)
                try:
                    gone = connection.recv(4096) == b""
                except OSError:
                    gone = True
                if gone:
                    self.closed[connection] = time.monotonic()
                    self.selector.unregister(connection)
            if time.monotonic() - last >= 0.5:  # a byte every half second, to each
                last = time.monotonic()
                for connection in self.started.keys() - self.closed.keys():
                    with contextlib.suppress(OSError):  # closed meanwhile: seen next turn
                        connection.send(b"x")

    def wait_closed(self, bound: float, *, strict: bool = True) -> list[float]:
        """Until every one is closed (at most *bound* seconds): how long each one the server
        closed lived. *strict*: fail unless it closed every one."""
        self.thread.join(bound)
        self.stop.set()
        self.thread.join(5)
        for connection in self.started:
            connection.close()
        assert not strict or len(self.closed) == len(self.started), (
            f"{len(self.started) - len(self.closed)} slow clients still open after {bound} s"
        )
        return [self.closed[c] - self.started[c] for c in self.closed]


def frame(opcode: int, payload: bytes = b"") -> bytes:
    """A client's WebSocket frame (masked, as a client must)."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = len(payload)
    head = bytes([0x80 | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    else:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    return head + mask + masked


def raw_socket(port: int, path: str) -> socket.socket:
    """A WebSocket opened by hand (its handshake done), to send what a browser never would."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    connection.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(1)
        assert chunk, "the server closed the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return connection


class Frames:
    """The server's frames on a socket opened by hand, one at a time."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.data = b""

    def next(self) -> tuple[int, bytes] | None:
        """(opcode, payload) of the next frame; ``None``: the connection ended."""
        while True:
            if len(self.data) >= 2:
                size, start = self.data[1] & 0x7F, 2
                if size >= 126:  # the length follows, in 2 or 8 bytes
                    start = 4 if size == 126 else 10
                    size = (
                        int.from_bytes(self.data[2:start], "big") if len(self.data) >= start else -1
                    )
                if 0 <= size <= len(self.data) - start:
                    opcode, payload = self.data[0] & 0x0F, self.data[start : start + size]
                    self.data = self.data[start + size :]
                    return opcode, payload
            try:
                chunk = self.connection.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                return None
            self.data += chunk

    def close_code(self) -> int | None:
        """The code of the server's close frame (frames before it skipped); ``None``: no
        close frame, the connection just ended."""
        while (got := self.next()) is not None:
            if got[0] == 0x8:
                return int(struct.unpack("!H", got[1][:2])[0])
        return None


class Flood:
    """A socket, opened and caught up beforehand, that sends *frames* frames at once (text
    ``ping`` messages, or ping frames) when :meth:`blast` is called (in a thread)."""

    def __init__(
        self, port: int, code: str, opcode: int, frames: int = 20_000, patience: float = 10
    ) -> None:
        self.connection = raw_socket(port, f"/ws/{code}?page=player&v=-1")
        self.patience = patience
        self.frames = Frames(self.connection)
        assert self.frames.next() is not None, "no catch-up: the socket is not following"
        self.burst = frame(opcode, b"ping") * frames
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # closed while it still sent: the point
            self.connection.sendall(self.burst)
        self.connection.settimeout(self.patience)  # no close by then: ``None``
        self.code = self.frames.close_code()
        self.connection.close()

    def blast(self) -> None:
        self.thread.start()

    def end(self) -> int | None:
        self.thread.join(20)
        return self.code
