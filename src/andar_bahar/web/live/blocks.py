"""The live blocks of the club's table pages: which blocks each page has, who sees them,
what each block sees.

:data:`LIVE_PAGES` is the registry (the protocol: :mod:`~andar_bahar.web.live.hub`): per
page kind its template, its **shared** blocks (the same for every viewer of that kind,
role and language) and its **private** blocks (a player's own). The pages engineer edits
it when adding or renaming blocks. In a template, a live region is an element with
``data-live-block="NAME"`` whose *inside* is ``{% block NAME %}``; a block renders
from :func:`block_context` alone (the state, the round, the last rounds, the
viewer, the language) — never from the request, which a live render does not have.

The renderer of the club's tables is :class:`~andar_bahar.web.live.renderer.TableRenderer`;
the route the pages follow their table on is :mod:`~andar_bahar.web.pages.live`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from andar_bahar.club.reads import Onlooker, visible_to
from andar_bahar.club.values import RoundSummary, TableSnapshot, TableState
from andar_bahar.i18n import translations
from andar_bahar.web.http.forms import paytable_rows
from andar_bahar.web.http.templating import gettext_callables
from andar_bahar.web.live.hub import SERVER_NOW, with_now
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.pages.drawing import common_context
from andar_bahar.web.pages.screens import dealer_view, player_view

__all__ = [
    "LIVE_PAGES",
    "SERVER_NOW",
    "LivePage",
    "Snapshot",
    "block_context",
    "page_extras",
    "with_now",
]


@dataclass(frozen=True, slots=True)
class LivePage:
    """A table page that follows the table live."""

    kind: str
    template: str
    shared: tuple[str, ...]
    """Blocks the same for every viewer of the page kind, role and language."""
    private: tuple[str, ...]
    """A player's own blocks (rendered only for the player an event concerns)."""
    roles: frozenset[str]
    """Who may follow it: ``dealer``, ``player``, ``public``."""


LIVE_PAGES: Mapping[str, LivePage] = {
    # The phone: the felt and the road are everyone's; the seat's figures, the spots with
    # the player's stakes, the player's rounds and the result banner are the player's own.
    "player": LivePage(
        "player",
        "player.html",
        shared=("table", "strip", "road"),
        private=("me", "bets", "mine", "banner"),
        roles=frozenset({"player", "public"}),
    ),
    # The dealer's screen: one viewer role, so every block is shared by the dealer's devices.
    "dealer": LivePage(
        "dealer",
        "dealer.html",
        shared=("table", "strip", "road", "step", "void", "bets", "players"),
        private=(),
        roles=frozenset({"dealer"}),
    ),
    # The room's screen: what anyone at the club may see, whoever's browser shows it.
    "display": LivePage(
        "display",
        "display.html",
        shared=("table", "road"),
        private=(),
        roles=frozenset({"public"}),
    ),
}


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table read once (:class:`~andar_bahar.club.values.TableSnapshot`: its whole state as
    its dealer sees it, its last rounds, its last settled rounds), and what each viewer sees."""

    table: TableSnapshot
    seen: dict[tuple[bool, str | None], TableState] = field(default_factory=dict)

    @property
    def state(self) -> TableState:
        return self.table.state

    @property
    def recent(self) -> list[RoundSummary]:
        return self.table.recent

    def seen_by(self, viewer: Viewer) -> TableState:
        """What *viewer* may see of the table (:func:`~andar_bahar.club.reads.visible_to`):
        everything for the dealer, their own for a player, neither for anyone else."""
        sight = (viewer.role == "dealer", viewer.player if viewer.role == "player" else None)
        if sight not in self.seen:
            self.seen[sight] = visible_to(self.state, Onlooker(dealer=sight[0], player=sight[1]))
        return self.seen[sight]


def block_context(snapshot: Snapshot, viewer: Viewer, *, answering: bool = False) -> dict[str, Any]:
    """What a live block sees: the table as *viewer* may see it, the language (no request).

    *answering*: the blocks answer the viewer's own action (forms come fresh, not kept).
    """
    state = snapshot.seen_by(viewer)
    rnd = state.round
    return {
        "lang": viewer.lang,
        "translations": translations(viewer.lang),
        **gettext_callables(viewer.lang),
        # htmx sends the CSRF token from <body hx-headers>: a live block needs no field.
        "csrf_field": "",
        "csrf_token": "",
        "state": state,
        "round": rnd,
        "recent": snapshot.recent,
        "paytable_rows": paytable_rows(rnd.paytable if rnd else state.paytable),
        "live_table": state.code,
        "dealer": viewer.role == "dealer",
        "player": viewer.player,
        "answering": answering,
    }


def page_extras(
    viewer: Viewer,
    state: TableState,
    table: TableSnapshot,
    now: datetime | str,
    blocks: Collection[str] | None = None,
) -> dict[str, Any]:
    """What the table pages draw besides the state: card faces, the road, the countdown;
    the phone's spots, chips and the player's own rounds; the dealer's next step
    (:mod:`~andar_bahar.web.pages.drawing`). From the table and the viewer alone; *now* is
    the server's time (or :data:`SERVER_NOW`, for a block kept and sent later).

    *blocks*: only what those live blocks draw (``None``: the whole page's).
    """
    extras = common_context(state, table.recent, viewer.lang, now, road=_draws(blocks, ROAD))
    if viewer.page == "player" and viewer.player is not None:
        mine = table.player_rounds(viewer.player)
        extras.update(player_view(state, viewer.player, viewer.lang, mine, blocks))
    elif viewer.page == "dealer":
        extras.update(dealer_view(state, viewer.lang, blocks))
    return extras


ROAD = frozenset({"strip", "road"})
"""The live blocks that draw the road (the strip under the felt, the table of rounds)."""


def _draws(blocks: Collection[str] | None, these: frozenset[str]) -> bool:
    return blocks is None or not these.isdisjoint(blocks)


def shared_data(state: TableState) -> dict[str, Any]:
    """Small values for page scripts: the round, its deadline, the last card, the result."""
    rnd = state.round
    if rnd is None:
        return {"table": state.code, "round": None}
    last = rnd.dealt[-1].card if rnd.dealt else rnd.centre
    return {
        "table": state.code,
        "round": rnd.number,
        "status": rnd.status,
        "bets_open": rnd.bets_open,
        "deadline": rnd.bets_deadline.isoformat() if rnd.bets_deadline else None,
        "dealt": len(rnd.dealt),
        "card": str(last) if last else None,
        "winner": (rnd.result.winner.value if rnd.result.winner else "void")
        if rnd.result
        else None,
    }
