"""What the live hub and the pages say to each other: who follows a table
(:class:`Viewer`), what a render gives (:class:`Rendered`), and what the
:class:`~andar_bahar.web.live.hub.Hub` asks of the pages (:class:`Renderer`; the club's
tables': :class:`~andar_bahar.web.live.renderer.TableRenderer`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

__all__ = ["Rendered", "Renderer", "Viewer"]


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who follows a table: the page kind, the role, the language; a player's seat."""

    page: str
    role: str
    """``dealer``, ``player`` or ``public``."""
    lang: str
    player_id: int | None = None
    player: str | None = None
    credential: str | None = None
    """What the socket was let in with (a hash of the seat's or the dealer's token), checked
    again at every render (:meth:`Renderer.allowed`); ``None``: nothing (a public viewer)."""

    @property
    def group(self) -> tuple[str, str, str]:
        """Followers of one group see the same shared blocks."""
        return (self.page, self.role, self.lang)


@dataclass(frozen=True, slots=True)
class Rendered:
    """New HTML of named blocks, and small values for page scripts."""

    blocks: Mapping[str, str]
    data: Mapping[str, Any] = field(default_factory=dict)
    piles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Cards a page appends to the piles of a block instead of having it again (``live.js``)."""


class Renderer(Protocol):
    """What the hub needs from the pages: read a table once, render its blocks."""

    def read(self, code: str, known: int | None = None) -> Any:
        """One snapshot of table *code* (blocking: it is called in a worker thread); *known*:
        a version the table has reached (the event's): the snapshot is at least as new."""

    def version(self, snapshot: Any) -> int:
        """The table's version in *snapshot*."""

    def deadline(self, snapshot: Any) -> datetime | None:
        """When the bets of *snapshot*'s round close by the timer (``None``: no timer)."""

    def closed(self, snapshot: Any) -> bool:
        """Whether *snapshot*'s table is closed for the night."""

    def shared(self, snapshot: Any, group: tuple[str, str, str]) -> Rendered:
        """The blocks every follower of *group* sees."""

    def private(self, snapshot: Any, viewer: Viewer) -> Rendered:
        """*viewer*'s own blocks (none for a public viewer or the dealer)."""

    def allowed(self, snapshot: Any, viewer: Viewer) -> bool:
        """Whether *viewer* still holds what it was let in with (a player's seat given a new
        code or released, a dealer's device signed out: no longer)."""

    def close_expired(self, code: str) -> None:
        """Close the bets of *code* if their timer has run out (blocking, idempotent)."""

    def forget(self, code: str) -> None:
        """What the phones and devices of *code* hold may have changed (an event other than
        a step of the round, or events missed): :meth:`allowed` reads it again."""

    def release(self, code: str) -> None:
        """Nobody follows *code* in this process any more: let go of what is kept for it
        (blocking; it is read and drawn again if it is asked for)."""

    def rest(self) -> None:
        """The night's end in this process: the last table followed here was closed for
        the night. Let go of what is kept for requests to come (blocking: the idle
        database connections, say)."""
