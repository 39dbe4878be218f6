"""What crosses processes when a table changes: a small event, by PostgreSQL's LISTEN/NOTIFY.

Every committed change of a table makes one :class:`TableEvent` (the table's code,
its new version, what happened, whose own blocks it changed). On PostgreSQL the
transaction that makes the change also sends it with ``pg_notify`` — so it is
delivered only if the change commits, and in the order the changes committed —
and every server process :class:`Listener` ``LISTEN``\\ s on the same channel, its
own changes included. On SQLite there is one process: the store hands the event
to the process's listeners right after the commit, under its writer lock (so in
order too).

A change of the open round alone (a bet, a card …) also carries its steps
(:class:`RoundSteps`): another process that keeps the table one version behind moves
what it keeps on with them, without reading the table again
(:meth:`~andar_bahar.club.kept.Kept.follow`).

The channel is per database *and* schema (``andar_bahar`` or ``andar_bahar_<schema>``),
so that two clubs in two schemas of one server do not hear each other.

>>> event = TableEvent("K7QX2M", 12, "bet", frozenset({3}), frozenset({"f3a9c2e1d0b4"}))
>>> TableEvent.from_json(event.to_json()) == event
True
>>> TableEvent.from_json('{"t": 1}') is None
True
>>> channel_name("public"), channel_name("test_4f2a"), channel_name("Odd-Name")
('andar_bahar', 'andar_bahar_test_4f2a', 'andar_bahar_odd_name')
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from sqlalchemy import Engine, make_url, text

__all__ = [
    "ACTOR",
    "NOTIFY_LIMIT",
    "PLAYER_STEPS",
    "ROUND_STEPS",
    "SOCKET_HEADER",
    "SOCKET_ID",
    "TABLE_CLOSED",
    "Listener",
    "RoundSteps",
    "TableEvent",
    "channel_name",
    "channel_of",
    "compact",
    "psycopg_dsn",
]

log = logging.getLogger(__name__)

CHANNEL = "andar_bahar"
RECONNECT_MIN, RECONNECT_MAX = 0.2, 2.0
"""Seconds between attempts to LISTEN again after the connection is lost (doubling): at
most 2 s, so that the live pages follow the table again soon after the database is back."""
CONNECT_TIMEOUT = 2
"""Seconds to connect for LISTEN before trying again."""
NOTIFY_LIMIT = 8000
"""PostgreSQL's limit on a notification's text, in bytes (it must be shorter)."""


ROUND_STEPS = frozenset({"open", "timer", "close", "target", "marker", "bet", "deal", "settle"})
"""The kinds of event that are steps of a round: none changes who holds a seat or a dealer's
sign-in, so a live page's renderer keeps what it read of those; any other kind
(``"change"``: a join, a new seat code, a sign-in …) may change them."""
PLAYER_STEPS = frozenset({"bet", "marker"})
"""The steps a player takes (the others are the dealer's)."""
TABLE_CLOSED = "closed"
"""The kind of the event of a table closed for the night: its live pages get their last
message, then their sockets end (:meth:`~andar_bahar.web.live.hub.Hub.deliver`)."""


SOCKET_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
"""The ids a live page may give its socket (``/ws/CODE?s=ID``) and send with its own actions."""
SOCKET_HEADER = "X-Live-Socket"
"""The header of a page's own action that names the page's socket."""
ACTOR: ContextVar[str | None] = ContextVar("andar_bahar_actor", default=None)
"""The socket of the page whose action the current request is (its :data:`SOCKET_HEADER`;
``None``: none named): the changes it makes name it among their :attr:`TableEvent.actors`,
and the live messages of those changes are not sent down that socket, since the answer
to the action brings the page what changed (:mod:`~andar_bahar.web.live.hub`)."""


def compact(data: object) -> str:
    """*data* as the shortest JSON text, non-ASCII kept: how a round's record writes each
    step (:class:`~andar_bahar.club.kept.RecordText`), so that steps carried between
    processes compare equal, byte for byte, with the record's."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class RoundSteps:
    """What a change of the open round alone wrote, for another process to move what it
    keeps of the table on from the version before: the table's id, the round's row id, how
    many steps the round had, and each new step as the round's record writes it (compact
    JSON) — the rest (the record, the round's status and result) follows from them.

    >>> steps = RoundSteps(3, 41, 7, ('{"op":"deal","card":"4♣"}',))
    >>> RoundSteps.from_data(json.loads(steps.to_json())) == steps
    True
    """

    table: int
    round: int
    before: int
    operations: tuple[str, ...]

    def to_json(self) -> str:
        operations = ",".join(self.operations)
        return f'{{"i":{self.table},"r":{self.round},"n":{self.before},"o":[{operations}]}}'

    @classmethod
    def from_data(cls, data: object) -> RoundSteps | None:
        """The steps in *data* (as :meth:`to_json` wrote them), or ``None``."""
        if not isinstance(data, dict):
            return None
        try:
            operations = tuple(compact(op) for op in data["o"])
            return cls(int(data["i"]), int(data["r"]), int(data["n"]), operations)
        except (ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True, slots=True)
class TableEvent:
    """A committed change of table *code*, now at *version*.

    *players* are the ids of the players whose own (private) blocks changed; ``None``
    means every player's. The text form (:meth:`to_json`) stays far below
    PostgreSQL's 8000-byte limit for a notification: one event names a few players
    at most (a bet, a marker), or says "everyone" (a settlement).
    """

    code: str
    version: int
    kind: str
    players: frozenset[int] | None = None
    actors: frozenset[str] = frozenset()
    """The sockets of the pages whose own actions made the change (:data:`ACTOR`): the
    answers to those actions bring the pages what changed."""
    steps: RoundSteps | None = field(default=None, compare=False)
    """What a change of the open round alone wrote (``None``: read the table again)."""

    def to_json(self) -> str:
        """The event as text, shorter than :data:`NOTIFY_LIMIT` bytes: its steps are left
        out if they would make it longer (another process then reads the table again)."""
        players = None if self.players is None else sorted(self.players)
        data: dict[str, object] = {"t": self.code, "v": self.version, "k": self.kind, "p": players}
        if self.actors:
            data["a"] = sorted(self.actors)
        text = json.dumps(data, separators=(",", ":"))
        if self.steps is not None:
            full = f'{text[:-1]},"s":{self.steps.to_json()}}}'
            if len(full.encode()) < NOTIFY_LIMIT:
                return full
        return text

    @classmethod
    def from_json(cls, payload: str) -> TableEvent | None:
        """The event in *payload*, or ``None`` for anything else on the channel."""
        try:
            data = json.loads(payload)
            players = data["p"]
            return cls(
                str(data["t"]),
                int(data["v"]),
                str(data["k"]),
                None if players is None else frozenset(int(p) for p in players),
                frozenset(str(a) for a in data.get("a", ())),
                RoundSteps.from_data(data["s"]) if "s" in data else None,
            )
        except (ValueError, KeyError, TypeError):
            return None

    def merge(self, other: TableEvent) -> TableEvent:
        """One event for both (the later version, kind and actors; the players of both:
        an answer drawn at the earlier version does not bring a page the later one; no
        steps)."""
        players = (
            None if self.players is None or other.players is None else self.players | other.players
        )
        later = other if other.version >= self.version else self
        return TableEvent(self.code, later.version, later.kind, players, later.actors)


def channel_name(schema: str) -> str:
    """The NOTIFY channel of the tables in *schema* (a plain lower-case identifier)."""
    if schema in ("", "public"):
        return CHANNEL
    return f"{CHANNEL}_{re.sub(r'[^a-z0-9_]', '_', schema.lower())}"[:63]


def channel_of(engine: Engine) -> str | None:
    """The channel of *engine*'s database, or ``None`` where there is no NOTIFY (SQLite)."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as connection:
        schema = connection.execute(text("SELECT current_schema()")).scalar_one_or_none()
    return channel_name(str(schema or ""))


def psycopg_dsn(url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://…``) as a libpq connection string."""
    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


class Listener:
    """LISTEN on a channel in this process's event loop; hand every event to *deliver*.

    Runs until :meth:`stop`. When the connection is lost it connects again (with
    backoff) and then calls *resync*: notifications sent meanwhile are gone, so the
    pages must be brought up to date from the database. It says so once when the
    connection is lost or cannot be made (*lost*, with the error) and once when it
    listens again (*back*); by default in a line of the log each.
    """

    def __init__(
        self,
        dsn: str,
        channel: str,
        deliver: Callable[[TableEvent], None],
        resync: Callable[[], Awaitable[None]],
        *,
        lost: Callable[[BaseException], None] | None = None,
        back: Callable[[], None] | None = None,
    ) -> None:
        self.dsn = dsn
        self.channel = channel
        self.deliver = deliver
        self.resync = resync
        self.lost = lost or _say_lost
        self.back = back or _say_back
        self.ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        import psycopg  # the postgres extra

        delay, failing = RECONNECT_MIN, False
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT
                ) as connection:
                    await connection.execute(f'LISTEN "{self.channel}"')
                    delay = RECONNECT_MIN
                    if failing:
                        failing = False
                        self.back()
                    await self.resync()  # what was sent while nobody listened is gone
                    self.ready.set()
                    async for notification in connection.notifies():
                        event = TableEvent.from_json(notification.payload)
                        if event is not None:
                            self.deliver(event)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database went away: listen again when it is back
                self.ready.clear()
                if not failing:
                    failing = True
                    self.lost(error)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX)


def _say_lost(error: BaseException) -> None:
    log.warning("live updates: LISTEN connection lost (%s); retrying", error)


def _say_back() -> None:
    log.warning("live updates: listening again")
