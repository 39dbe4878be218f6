"""The live regions of the table pages: which blocks each page kind has, shared or private.

A table page (the player's ``/play/CODE``, the dealer's ``/dealer/CODE``, the room's
``/display/CODE``) is a Jinja template whose live regions are elements
``<… data-live-block="NAME">`` filled by ``{% block NAME %}``: a block renders the
region's **inside** only, everywhere (the page, a live message, the answer to a
player's own action), so replacing ``innerHTML`` is always right.

**Shared** blocks are the same for everyone who sees that page kind in one language
(the layout of the round, the road, the countdown's deadline): a server renders them
once per event. **Private** blocks show one viewer's own things (a player's balance,
stakes and wins; the dealer's lists of everyone's bets and balances).

Which events change a private block (so it must be rendered for whom):

- ``player`` — ``me``, ``bets``, ``mine``, ``banner``: the player's own bet, withdrawal
  or marker, and for every player: open (the spots and paytable of the new round),
  settle (balances, wins, the banner), admit/top-up/cash-out of that player. Closing
  bets, the centre card and dealt cards change shared blocks only: the phone's script
  disables the spots when the shared ``table`` block says bets are closed.
- ``dealer`` — every dealer block may change on any event.

>>> sorted(LIVE_PAGES["display"].blocks)
['road', 'table']
>>> LIVE_PAGES["player"].private
frozenset({'banner', 'bets', 'me', 'mine'})
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

__all__ = ["LIVE_PAGES", "LivePage", "wants_json"]


@dataclass(frozen=True, slots=True)
class LivePage:
    """A kind of table page: its template and its live blocks."""

    kind: str
    template: str
    shared: frozenset[str]
    private: frozenset[str]

    @property
    def blocks(self) -> frozenset[str]:
        return self.shared | self.private


LIVE_PAGES: dict[str, LivePage] = {
    "player": LivePage(
        "player",
        "player.html",
        shared=frozenset({"table", "road"}),
        private=frozenset({"me", "bets", "mine", "banner"}),
    ),
    "dealer": LivePage(
        "dealer",
        "dealer.html",
        shared=frozenset({"table", "road"}),
        private=frozenset({"step", "void", "bets", "players"}),
    ),
    "display": LivePage(
        "display", "display.html", shared=frozenset({"table", "road"}), private=frozenset()
    ),
}
"""Every table page kind (``?page=`` of the live socket) and its blocks."""


def wants_json(request: Request) -> bool:
    """Whether a page's script sent the request and wants the page's new blocks as JSON."""
    return "application/json" in request.headers.get("accept", "")
