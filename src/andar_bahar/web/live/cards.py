"""Sending a page the cards it lacks instead of a block again: what the hub asks of a
renderer whose pages show piles of cards (:class:`Piles`), and one render's piles.

The hub (:mod:`~andar_bahar.web.live.hub`) keeps, for each follower, where the piles its
page shows stand. At a render, a follower whose piles stand where the table's do gets no
new piles block; one whose piles stand earlier in the same round gets the cards dealt since
(``"piles"`` in the message, which ``live.js`` appends), when the renderer can say them;
any other gets the block. The club's piles: :mod:`~andar_bahar.web.live.piles`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["Answer", "Piles", "RenderPiles"]

Answer = tuple[frozenset[str], Mapping[str, Any] | None]
"""The blocks a page need not get, and the cards it gets instead (``None``: none)."""


@runtime_checkable
class Piles(Protocol):
    """A renderer whose pages show piles of cards: a card dealt is sent alone to the pages
    whose piles stand earlier in the round (:mod:`~andar_bahar.web.live.piles`)."""

    def shared(
        self, snapshot: Any, group: tuple[str, str, str], without: frozenset[str] = frozenset()
    ) -> Any:
        """:meth:`Renderer.shared`, less the blocks named *without* (not drawn)."""

    def pile(self, snapshot: Any, group: tuple[str, str, str]) -> tuple[str, Any]:
        """The block that shows *group*'s piles, and where they stand (compared with ``==``)."""

    def cards_since(
        self, snapshot: Any, group: tuple[str, str, str], since: Any
    ) -> Mapping[str, Any] | None:
        """What brings piles at *since* to *snapshot*'s (``None``: the block, drawn again)."""


class RenderPiles:
    """One render's piles: where each group's stand, and the cards that bring a page there."""

    def __init__(self, renderer: Piles, snapshot: Any) -> None:
        self.renderer, self.snapshot = renderer, snapshot
        self._now: dict[tuple[str, str, str], tuple[str, Any]] = {}
        self._since: dict[tuple[tuple[str, str, str], int], tuple[Any, Answer]] = {}
        """(group, the id of a pile) → the pile (kept: its id stays its own) and the answer:
        the followers of a group mostly hold the same pile (the last render's), compared once."""

    def now(self, group: tuple[str, str, str]) -> tuple[str, Any]:
        """The block that shows *group*'s piles, and where they stand now."""
        now = self._now.get(group)
        if now is None:
            now = self._now[group] = self.renderer.pile(self.snapshot, group)
        return now

    def since(self, group: tuple[str, str, str], full: bool, pile: Any) -> Answer:
        """The block a page of *group* whose piles stand at *pile* needs not get (they are
        where they stand, or the cards dealt since bring them there), and those cards;
        *full*: the page gets every block."""
        if full or pile is None:
            return frozenset(), None
        found = self._since.get((group, id(pile)))
        if found is None:
            name, now = self.now(group)
            if pile == now:
                answer: Answer = (frozenset({name}), None)
            else:
                cards = self.renderer.cards_since(self.snapshot, group, pile)
                answer = (frozenset({name}), cards) if cards is not None else (frozenset(), None)
            found = self._since[(group, id(pile))] = (pile, answer)
        return found[1]
