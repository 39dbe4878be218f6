"""A dealt card's live message: the cards a page's piles lack, not the whole felt again.

Every table page shows the round's two piles (the Andar and Bahar rows) in its felt, the
live block :data:`PILES`. While a round is being dealt, a card changes nothing of the felt
but its own pile: one more slot in its row and the row's count (and, on the room's screen,
how many cards are dealt). So a page whose felt is known to stand at an earlier point of
the same round is sent those cards alone — ``"piles": {"table": {"round", "from",
"cards": [{"row", "count", "html"}], "dealt"}}`` — and ``live.js`` appends each card's
``html`` to its row, sets the row's count (and replaces the ``.dealt-count`` line with
``dealt``), which ends in the very DOM a new felt would give. A page's felt is the whole
block again whenever that is not so: a follower that is behind or reconnects, the first
two cards of a round (the status and the second row's count appear), the card that ends
the round, and everything else that changes the felt.

:func:`pile_of` says where a felt stands (a :class:`Pile`); :func:`added` what a later one
adds, if only cards. The renderer draws the cards' HTML
(:meth:`~andar_bahar.web.live.renderer.TableRenderer.cards_since`); ``live.js`` appends the
cards its felt lacks where it shows the round (``round``) with ``from`` cards or some of
those the message brings (the answer to a deal and the socket's message race), and asks
for every block again otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from andar_bahar.club.values import TableState
from andar_bahar.engine.operations import CardDealt
from andar_bahar.web.live.keys import without_bets

__all__ = ["COUNTED", "PILES", "Pile", "added", "pile_of"]

PILES = "table"
"""The live block that shows the piles, on every table page (the felt)."""
COUNTED = frozenset({"display"})
"""The pages whose felt also says how many cards are dealt (a ``.dealt-count`` line)."""


@dataclass(frozen=True, slots=True, eq=True)
class Pile:
    """Where a felt stands: everything else it shows (its key less the cards), the cards."""

    rest: object
    dealt: tuple[CardDealt, ...]


def pile_of(state: TableState) -> Pile:
    """Where the felt of *state* stands (:func:`~andar_bahar.web.live.keys.felt`, apart)."""
    rnd = without_bets(state.round)
    if rnd is None:
        return Pile((state.code, None, state.new_pays), ())
    return Pile((state.code, replace(rnd, dealt=()), state.new_pays), rnd.dealt)


def added(since: Pile, now: Pile) -> tuple[CardDealt, ...] | None:
    """The cards *now*'s felt adds to *since*'s, if that is all it changes and each goes to
    a row that has a card already (only its slot and its row's count change); else ``None``.

    >>> from andar_bahar.engine.cards import Card
    >>> from andar_bahar.engine.rules import Row
    >>> a, b, c = (CardDealt(n, Card.parse(t), r, False) for n, t, r in
    ...            [(1, "2♠", Row.ANDAR), (2, "3♠", Row.BAHAR), (3, "4♠", Row.ANDAR)])
    >>> added(Pile("r", (a, b)), Pile("r", (a, b, c))) == (c,)
    True
    >>> added(Pile("r", (a,)), Pile("r", (a, b))) is None  # the Bahar row's first card
    True
    >>> added(Pile("r", (a, b)), Pile("settled", (a, b, c))) is None
    True
    """
    had = len(since.dealt)
    if not had or len(now.dealt) <= had or since.rest != now.rest:
        return None
    if now.dealt[:had] != since.dealt:
        return None
    rows = {d.row for d in since.dealt}
    new = now.dealt[had:]
    if any(d.matched or d.row not in rows for d in new):
        return None
    return new
