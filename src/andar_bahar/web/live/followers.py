"""A socket that follows a table (:class:`Follower`), and its message at each render of
its room (:class:`Messages`): what the page has, what it is sent.

One render reads the table once, draws each group's shared blocks once (page kind, role,
language; without the felt where the cards dealt since come alone) and a player's own
blocks only where the change concerns them, and sends each follower only the blocks whose
HTML differs from what its page has — nothing where its page has it all, or where the
answer to its own action brings it (:data:`COMPLETE_ANSWERS`). Followers of a group that
get the same blocks share one text. The protocol itself: :mod:`~andar_bahar.web.live.hub`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from andar_bahar.club.events import PLAYER_STEPS, ROUND_STEPS, TableEvent
from andar_bahar.web.live.cards import Piles, RenderPiles
from andar_bahar.web.live.protocol import Rendered, Renderer, Viewer
from andar_bahar.web.live.text import message_text

__all__ = ["COMPLETE_ANSWERS", "QUEUE", "SERVICE_RESTART", "Follower", "Messages", "running_loop"]

SERVICE_RESTART = 1012
"""A socket ended by the server (shutting down, or its viewer signed out): it reconnects."""
COMPLETE_ANSWERS = frozenset({"dealer"})
"""The roles whose actions are answered with every block of their page (the page is then
at the answer's version); other roles' answers bring their own blocks."""
QUEUE = 32
"""Messages waiting for one slow socket; past that it gets the full set instead."""


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or ``None`` (a worker thread)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Follower:
    """One socket following one table: what its page has, and the messages on their way."""

    def __init__(self, viewer: Viewer, version: int, socket: str | None = None) -> None:
        self.viewer = viewer
        self.socket = socket
        """The id its page names its own actions by (:data:`~andar_bahar.club.events.ACTOR`)."""
        self.version = version
        """The newest ``v`` sent (or the page's, until the first message)."""
        self.memo: dict[str, str] = {}
        """The HTML of each block as this follower last got it."""
        self.full = True
        """The next message carries every block (set again when it falls behind)."""
        self.pile: Any = None
        """Where the piles its page shows stand (:class:`Piles`; ``None``: not known)."""
        self.said: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] = (None, None)
        """The data last sent: what every viewer of its group gets, and its own (a player's)."""
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        """The socket's loop (tests may run a socket in a loop of its own)."""
        self.sent = time.monotonic()
        """When the socket last sent its page anything (``time.monotonic``; its start)."""
        self.ending = SERVICE_RESTART
        """The close code the socket ends with, once ``None`` is pushed (a closed table's:
        :data:`~andar_bahar.web.live.hub.POLICY_VIOLATION`, its page stops following)."""

    def push(self, text: str | None) -> bool:
        """Queue *text* (``None`` ends the socket); ``False`` if the follower is too far behind."""
        if text is not None and self.queue.qsize() >= QUEUE:
            self.behind()
            return False
        if running_loop() is self.loop:
            self.queue.put_nowait(text)
        else:
            with contextlib.suppress(RuntimeError):  # its loop is closed: nobody reads
                self.loop.call_soon_threadsafe(self.queue.put_nowait, text)
        return True

    def behind(self) -> None:
        """What the page has is no longer known: drop what waits, send the full set next."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.full, self.version, self.pile = True, -1, None


@dataclass
class _Drawn:
    """What one follower's page is to show at a render: its group's blocks, and its own."""

    group: Any
    blocks: Mapping[str, str]
    data: Mapping[str, Any]
    own: Mapping[str, str]
    said: tuple[Mapping[str, Any], Mapping[str, Any] | None]
    """The data sent: what every viewer of its group gets, and its own (a player's)."""
    mine: bool
    """Whether its own (a player's) blocks were drawn."""
    cards: Any
    """The cards its page's felt lacks, sent alone (``None``: none, or the felt whole)."""


class Messages:
    """One render of a room (in a worker thread): the table read once, each group's
    shared blocks drawn once, one text for every follower that gets the same."""

    def __init__(self, renderer: Renderer, snapshot: Any, event: TableEvent | None) -> None:
        self.renderer, self.snapshot, self.event = renderer, snapshot, event
        self.version = renderer.version(snapshot)
        self.piles = RenderPiles(renderer, snapshot) if isinstance(renderer, Piles) else None
        self.now = datetime.now(UTC)
        self.shared: dict[tuple[Any, ...], Rendered] = {}
        self.texts: dict[tuple[Any, ...], str] = {}

    def message(self, follower: Follower) -> str | None:
        """*follower*'s message, or ``None``: its page has (or its own action's answer
        brings) everything it would show."""
        full, event, version = follower.full, self.event, self.version
        label = version if full else (event.version if event is not None else version)
        if label <= follower.version:  # its page has this version already
            follower.full = False
            return None
        drawn = self.draw(follower, full)
        if (
            event is not None
            and follower.socket in event.actors
            and _may_have_made(follower.viewer, event)
            and version == event.version
            and not full
            and _answered(follower, drawn.blocks, drawn.own, drawn.said)
        ):
            drawn.cards = None  # the answer brought the cards too
        felt = None
        if self.piles:  # whichever way, its page will have them
            felt, follower.pile = self.piles.now(drawn.group)
        memo, blocks = follower.memo, drawn.blocks
        if not full:  # only what differs from what it has (the same text: the same object)
            blocks = {k: v for k, v in blocks.items() if memo.get(k) != v}
            if (
                not blocks
                and drawn.cards is None
                and drawn.said[0] == follower.said[0]
                and drawn.said[1] in (None, follower.said[1])
            ):
                follower.version = label  # nothing its page would show: not sent (the
                return None  # next message's v jumps past this one)
        memo.update(blocks)
        if drawn.cards is not None and felt is not None:
            memo.pop(felt, None)  # its page's felt: not the HTML it was sent
        follower.version, follower.full, follower.said = label, False, drawn.said
        kind = "sync" if full or event is None else event.kind
        return self.text(label, kind, blocks, drawn, felt)

    def draw(self, follower: Follower, full: bool) -> _Drawn:
        """The blocks and data of *follower*'s page: its group's (drawn once for the
        group, without the felt where the cards since come alone), and its own where the
        change concerns it (a player's)."""
        group, piles = follower.viewer.group, self.piles
        skip, cards = piles.since(group, full, follower.pile) if piles else (frozenset[str](), None)
        common = self.shared.get((group, skip))
        if common is None:
            common = self.shared[(group, skip)] = (
                piles.renderer.shared(self.snapshot, group, skip)
                if piles
                else self.renderer.shared(self.snapshot, group)
            )
        event, player = self.event, follower.viewer.player_id
        mine = player is not None and (
            full or event is None or event.players is None or player in event.players
        )
        if not mine:
            return _Drawn(group, common.blocks, common.data, {}, (common.data, None), False, cards)
        own = self.renderer.private(self.snapshot, follower.viewer)
        return _Drawn(
            group,
            {**common.blocks, **own.blocks},
            {**common.data, **own.data},
            own.blocks,
            (common.data, own.data),
            True,
            cards,
        )

    def text(
        self, label: int, kind: str, blocks: Mapping[str, str], drawn: _Drawn, felt: str | None
    ) -> str:
        """The message's text: one for every follower of a group that gets the same (*felt*:
        the block the cards sent alone go to; there are such cards only where there are piles)."""
        key = (drawn.group, label, kind, tuple(blocks), drawn.mine, id(drawn.cards))
        text = None if drawn.mine else self.texts.get(key)
        if text is None:
            head: dict[str, Any] = {"v": label, "kind": kind}
            if self.version > label:  # the HTML is newer than v: the page orders blocks by it
                head["h"] = self.version
            if drawn.cards is not None:
                head["piles"] = {felt: drawn.cards}
            now = self.now
            text = message_text(head, blocks, {**drawn.data, "now": now.isoformat()}, now)
            if not drawn.mine:
                self.texts[key] = text
        return text


def _answered(
    follower: Follower,
    blocks: Mapping[str, str],
    own: Mapping[str, str],
    said: tuple[Mapping[str, Any], Mapping[str, Any] | None],
) -> bool:
    """The change is the follower's page's own action, and the answer to it (drawn at
    this version) brings the page every block and value (a dealer's page: a complete
    answer; ``True``) or its own ones (a phone's): they need not come down the socket too."""
    if follower.viewer.role in COMPLETE_ANSWERS:
        follower.memo.update(blocks)
        follower.said = said
        return True
    follower.memo.update(own)
    follower.said = (follower.said[0], said[1])
    return False


def _may_have_made(viewer: Viewer, event: TableEvent) -> bool:
    """Whether *viewer* can have made *event* (a dealer's step of the round, or this
    player's own bet or marker — the actions answered with the page's blocks): a socket id
    named by anyone else's action (a guessed or leaked one) then keeps nothing from that
    socket, nor does any other change (a seat admitted: its answer is a new page)."""
    if viewer.role in COMPLETE_ANSWERS:
        return event.kind in ROUND_STEPS and event.kind not in PLAYER_STEPS
    return event.kind in PLAYER_STEPS and event.players == frozenset({viewer.player_id})
