"""Slow and noisy clients cost the server little, and never slow another client.

Against the real ``serve`` command (its uvicorn protocols and settings:
``web/http/connections.py``), on SQLite:

- 300 clients dribbling a request's headers and 300 dribbling a body are each closed
  10 s after they began (``READ_TIMEOUT``), while a phone's bets go on at the latency
  they have without them; the server's open files come back down after (the acceptance
  test);
- a 5 KiB WebSocket message closes its socket (1009), a flood of messages or of ping
  frames closes its socket (1008), and another phone's bets stay fast meanwhile.

Each latency is compared with the same bets' latency without the slow or noisy clients,
measured in the same test just before and just after (not with a constant: the host is
shared, and its pace drifts).
The hub's heartbeat and the rationing of messages are tested in-process too.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from abuse_support import Flood, Frames, SlowClients, Table, frame, open_files, raw_socket
from andar_bahar.web.http.connections import READ_TIMEOUT
from andar_bahar.web.live.hub import HEARTBEAT, POLICY_VIOLATION, Hub
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.live.sockets import MESSAGE_BURST, MESSAGE_MOST, MESSAGE_TOO_BIG
from serve_process import ServeProcess
from test_web_infra import CountRenderer
from web_support import served

SLOW = 300
"""Slow clients of each kind (headers, body): the attack that stayed open past 25 s."""
SLOWER_AT_MOST = 3.0
"""How many times the no-abuse median a bet beside the abuse may take (generous: the
test's own clients share the server's two cores)."""


def usual(*samples: list[float]) -> float:
    """A bet's usual latency: the larger median of the samples taken without the abuse, one
    before it and one after (a shared host's pace drifts meanwhile)."""
    return max(statistics.median(sample) for sample in samples)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    folder = tmp_path_factory.mktemp("bounds")
    process = ServeProcess(f"sqlite:///{folder / 'club.sqlite3'}", folder, "bounds")
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop()


def test_slow_clients_are_closed_after_10_s_while_bets_go_on_at_their_pace(
    server: ServeProcess,
) -> None:
    table = Table(server.base)
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
    again = table.bet_latencies()
    assert statistics.median(beside) <= SLOWER_AT_MOST * usual(alone, again), (alone, beside, again)
    # Not one of the slow bodies was taken for a whole request: no bet of theirs.
    state = table.client.get(f"/api/tables/{table.code}", headers=table.phone).json()
    assert len(state["round"]["bets"]) == 1  # the phone's own bets, on one spot
    assert state["round"]["bets"][0]["stake"] == str(table.bets)


# -- noisy WebSockets ---------------------------------------------------------------------------


def test_a_message_over_4_kib_closes_its_socket(server: ServeProcess) -> None:
    table = Table(server.base)
    connection = raw_socket(server.port, f"/ws/{table.code}?page=player&v=-1")
    with connection:
        connection.sendall(frame(0x1, b"x" * (5 * 1024)))
        assert Frames(connection).close_code() == MESSAGE_TOO_BIG


@pytest.mark.parametrize("opcode", [0x1, 0x9], ids=["messages", "pings"])
def test_a_flood_closes_its_socket_and_another_phone_s_bet_stays_fast(
    server: ServeProcess, opcode: int
) -> None:
    """20,000 messages or ping frames at once on one socket, and a phone's bet sent as they
    arrive (each time on a new socket, opened beforehand: the flood, not the connection,
    is what is measured): the socket is closed, the bet is answered at its usual pace."""
    table = Table(server.base)
    table.bet_latencies(5)
    alone = table.bet_latencies(20)
    beside, codes = [], []
    for _ in range(20):
        flood = Flood(server.port, table.code, opcode)
        flood.blast()
        beside += table.bet_latencies(1)
        codes.append(flood.end())
    assert codes == [POLICY_VIOLATION] * len(codes), codes
    again = table.bet_latencies(20)
    assert statistics.median(beside) <= SLOWER_AT_MOST * usual(alone, again), (alone, beside, again)


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


@pytest.mark.timeout(30)
def test_the_heartbeat_reaches_quiet_sockets_only() -> None:
    """A socket sent nothing for half a beat gets HEARTBEAT at the next half beat; one that
    was just sent a message gets none (live/hub.py)."""

    async def scenario() -> tuple[str | None, bool]:
        hub = Hub(CountRenderer({"K7": 1}), beat=0.2)  # a table at version 1, unchanging
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
    from andar_bahar.web.http.security import WebMiddleware

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


def test_the_deadline_is_the_request_s_not_the_answer_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """BoundedHttp: the clock stops once a request is whole — an answer slower than the
    deadline is not cut, nor is the next request on the same connection — and a request
    that does not arrive in time is closed (the deadline shortened here to 0.3 s)."""
    import socket
    import threading

    import uvicorn

    from andar_bahar.web.http import connections

    monkeypatch.setattr(connections, "READ_TIMEOUT", 0.3)

    async def slow_app(scope: Any, receive: Any, send: Any) -> None:
        more = True
        while more:
            more = (await receive()).get("more_body", False)
        await asyncio.sleep(0.6)  # the server is slow: not the client's fault
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
        )
        await send({"type": "http.response.body", "body": b"ok"})

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(slow_app, host="127.0.0.1", port=port, http=connections.BoundedHttp,
                            lifespan="off", log_level="error")  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            for _ in range(2):  # two requests, one connection
                client.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
                answer = b""
                while not answer.endswith(b"ok"):
                    chunk = client.recv(4096)
                    assert chunk, "the connection was closed during a slow answer"
                    answer += chunk
                assert answer.startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(b"GET / HTTP/1.1\r\nHost:")  # and nothing more
            assert client.recv(4096) == b""  # closed by the server, well before the timeout
    finally:
        server.should_exit = True
        thread.join(10)
