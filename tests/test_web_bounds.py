"""Slow and noisy clients cost the server little, and never slow another client.

Against the real ``serve`` command (its uvicorn protocols and settings:
``web/connections.py``), on SQLite:

- 300 clients dribbling a request's headers and 300 dribbling a body are each closed
  10 s after they began (``READ_TIMEOUT``), while a phone's bets go on at the latency
  they have without them; the server's open files come back down after (the acceptance
  test);
- a 5 KiB WebSocket message closes its socket (1009), a flood of messages or of ping
  frames closes its socket (1008), and another phone's bets stay fast meanwhile.

Each latency is compared with the same bets' latency without the slow or noisy clients,
measured in the same test a moment before (not with a constant: the host is shared).
The hub's heartbeat and the rationing of messages are tested in-process too.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import selectors
import socket
import statistics
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.websockets import WebSocketDisconnect

from andar_bahar.web.connections import READ_TIMEOUT
from andar_bahar.web.live import HEARTBEAT, POLICY_VIOLATION, Hub, Rendered, Viewer
from andar_bahar.web.live_socket import MESSAGE_BURST, MESSAGE_MOST, MESSAGE_TOO_BIG
from serve_process import ServeProcess
from web_support import served

SLOW = 300
"""Slow clients of each kind (headers, body): the attack that stayed open past 25 s."""
BETS = 40
"""Bets in each latency sample."""
SLOWER_AT_MOST = 3.0
"""How many times the no-abuse median a bet beside the abuse may take (generous: the
test's own clients share the server's two cores)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    folder = tmp_path_factory.mktemp("bounds")
    process = ServeProcess(f"sqlite:///{folder / 'club.sqlite3'}", folder, "bounds")
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop()


class Table:
    """A table on *server* with a round open and a phone seated with chips enough."""

    def __init__(self, server: ServeProcess) -> None:
        self.client = httpx.Client(base_url=server.base, timeout=30)
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

    def wait_closed(self, bound: float) -> list[float]:
        """Until every one is closed (at most *bound* seconds): how long each one lived."""
        self.thread.join(bound)
        self.stop.set()
        self.thread.join(5)
        for connection in self.started:
            connection.close()
        assert len(self.closed) == len(self.started), (
            f"{len(self.started) - len(self.closed)} slow clients still open after {bound} s"
        )
        return [self.closed[c] - self.started[c] for c in self.started]


def test_slow_clients_are_closed_after_10_s_while_bets_go_on_at_their_pace(
    server: ServeProcess,
) -> None:
    table = Table(server)
    table.bet_latencies(5)  # warm: the server's caches, the client's connection
    alone = table.bet_latencies()
    files_before = open_files(server.process.pid)
    slow = SlowClients(server.port, table.code, SLOW)
    beside = table.bet_latencies()
    files_during = open_files(server.process.pid)
    lived = slow.wait_closed(bound=READ_TIMEOUT + 15)
    assert files_during >= files_before + 2 * SLOW  # they were all open at once …
    assert min(lived) >= READ_TIMEOUT - 0.1  # … none closed early …
    assert max(lived) <= READ_TIMEOUT + 5  # … and every one closed at its deadline
    deadline = time.monotonic() + 10
    while open_files(server.process.pid) > files_before + 5:  # every file given back
        assert time.monotonic() < deadline, "the server kept the slow clients' files"
        time.sleep(0.1)
    assert statistics.median(beside) <= SLOWER_AT_MOST * statistics.median(alone), (alone, beside)
    # Not one of the slow bodies was taken for a whole request: no bet of theirs.
    state = table.client.get(f"/api/tables/{table.code}", headers=table.phone).json()
    assert len(state["round"]["bets"]) == 1  # the phone's own bets, on one spot
    assert state["round"]["bets"][0]["stake"] == str(table.bets)


# -- noisy WebSockets ---------------------------------------------------------------------------


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


def test_a_message_over_4_kib_closes_its_socket(server: ServeProcess) -> None:
    table = Table(server)
    connection = raw_socket(server.port, f"/ws/{table.code}?page=player&v=-1")
    with connection:
        connection.sendall(frame(0x1, b"x" * (5 * 1024)))
        assert Frames(connection).close_code() == MESSAGE_TOO_BIG


class Flood:
    """A socket, opened and caught up beforehand, that sends *frames* frames at once (text
    ``ping`` messages, or ping frames) when :meth:`blast` is called (in a thread)."""

    def __init__(self, port: int, code: str, opcode: int, frames: int = 20_000) -> None:
        self.connection = raw_socket(port, f"/ws/{code}?page=player&v=-1")
        self.frames = Frames(self.connection)
        assert self.frames.next() is not None, "no catch-up: the socket is not following"
        self.burst = frame(opcode, b"ping") * frames
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # closed while it still sent: the point
            self.connection.sendall(self.burst)
        self.code = self.frames.close_code()
        self.connection.close()

    def blast(self) -> None:
        self.thread.start()

    def end(self) -> int | None:
        self.thread.join(20)
        return self.code


@pytest.mark.parametrize("opcode", [0x1, 0x9], ids=["messages", "pings"])
def test_a_flood_closes_its_socket_and_another_phone_s_bet_stays_fast(
    server: ServeProcess, opcode: int
) -> None:
    """20,000 messages or ping frames at once on one socket, and a phone's bet sent as they
    arrive (each time on a new socket, opened beforehand: the flood, not the connection,
    is what is measured): the socket is closed, the bet is answered at its usual pace."""
    table = Table(server)
    table.bet_latencies(5)
    alone = table.bet_latencies(20)
    beside, codes = [], []
    for _ in range(20):
        flood = Flood(server.port, table.code, opcode)
        flood.blast()
        beside += table.bet_latencies(1)
        codes.append(flood.end())
    assert codes == [POLICY_VIOLATION] * len(codes), codes
    assert statistics.median(beside) <= SLOWER_AT_MOST * statistics.median(alone), (alone, beside)


# -- in-process: the rationing of one socket's messages, the heartbeat -----------------------------


def test_a_socket_sending_too_much_is_closed_and_a_page_s_ping_answered(
    database_url: str,
) -> None:
    with served(database_url) as client:
        made = client.post("/api/tables", json={"name": "Noise", "pin": "246813"}).json()
        path = f"/ws/{made['code']}?page=player&v=-1"
        with client.websocket_connect(path) as socket_:
            socket_.receive_json()  # the catch-up: the page was at no version
            socket_.send_text("ping")
            assert socket_.receive_text() == "pong"
            socket_.send_text("x" * (MESSAGE_MOST + 1))
            with pytest.raises(WebSocketDisconnect) as big:
                socket_.receive_text()
        assert big.value.code == MESSAGE_TOO_BIG
        with client.websocket_connect(path) as socket_:
            socket_.receive_json()
            for _ in range(MESSAGE_BURST + 1):  # faster than any page: closed at the one past
                socket_.send_text("?")
            with pytest.raises(WebSocketDisconnect) as noisy:
                socket_.receive_text()
        assert noisy.value.code == POLICY_VIOLATION


class Quiet:
    """A table that never changes (version 1): its followers hear only the heartbeat."""

    def read(self, code: str, known: int | None = None) -> int:
        return 1

    def version(self, snapshot: int) -> int:
        return snapshot

    def deadline(self, snapshot: int) -> None:
        return None

    def shared(self, snapshot: int, group: tuple[str, str, str]) -> Rendered:
        return Rendered({})

    def private(self, snapshot: int, viewer: Viewer) -> Rendered:
        return Rendered({})

    def allowed(self, snapshot: int, viewer: Viewer) -> bool:
        return True

    def close_expired(self, code: str) -> None:
        return None

    def forget(self, code: str) -> None:
        return None


@pytest.mark.timeout(30)
def test_the_heartbeat_reaches_quiet_sockets_only() -> None:
    """A socket sent nothing for half a beat gets HEARTBEAT at the next half beat; one that
    was just sent a message gets none (live.py)."""

    async def scenario() -> tuple[str | None, bool]:
        hub = Hub(Quiet(), beat=0.2)
        viewer = Viewer("player", "public", "en")
        async with hub.follow("K7", viewer, 1) as quiet, hub.follow("K7", viewer, 1) as busy:
            while quiet.full or busy.full:  # their first look: nothing to send (version 1)
                await asyncio.sleep(0.01)
            beating = asyncio.ensure_future(hub.heartbeat())
            busy.sent = time.monotonic() + 3600  # as if it were sent a message all the time
            try:
                beat = await asyncio.wait_for(quiet.queue.get(), 10)
            finally:
                beating.cancel()
            return beat, busy.queue.empty()

    beat, none_for_the_busy = asyncio.run(scenario())
    assert beat == HEARTBEAT and none_for_the_busy


def test_a_body_cut_short_is_never_taken_for_the_whole_request() -> None:
    """A client that leaves (or is closed, too slow) in the middle of a form: the route
    never runs on the part that came (``stake=10`` of ``stake=1000``)."""
    from andar_bahar.web.security import WebMiddleware

    ran: list[Any] = []

    async def route(scope: Any, receive: Any, send: Any) -> None:
        ran.append(scope)

    async def reject(*_: Any) -> Any:
        raise AssertionError("a refusal is an answer: nobody is there to read it")

    parts = iter([
        {"type": "http.request", "body": b"csrf_token=t&stake=10", "more_body": True},
        {"type": "http.disconnect"},
    ])  # fmt: skip

    async def receive() -> Any:
        return next(parts)

    async def send(message: Any) -> None:
        raise AssertionError(f"nothing is sent to a client that left: {message}")

    scope = {"type": "http", "method": "POST", "path": "/api/tables/K7/bets", "headers": [
        (b"host", b"club"), (b"content-type", b"application/x-www-form-urlencoded")],
        "query_string": b"", "scheme": "http", "server": ("club", 80)}  # fmt: skip
    middleware = WebMiddleware(route, secret=b"k" * 32, reject=reject, exempt_paths=("/api/",))
    asyncio.run(middleware(scope, receive, send))
    assert ran == []
