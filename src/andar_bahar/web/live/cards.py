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

__all__ = ["Piles", "RenderPiles"]


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
        self._cards: dict[tuple[str, str, str], list[tuple[Any, Mapping[str, Any] | None]]] = {}

    def now(self, group: tuple[str, str, str]) -> tuple[str, Any]:
        """The block that shows *group*'s piles, and where they stand now."""
        now = self._now.get(group)
        if now is None:
            now = self._now[group] = self.renderer.pile(self.snapshot, group)
        return now

    def since(
        self, group: tuple[str, str, str], full: bool, pile: Any
    ) -> tuple[frozenset[str], Mapping[str, Any] | None]:
        """The block a page of *group* whose piles stand at *pile* needs not get (they are
        where they stand, or the cards dealt since bring them there), and those cards;
        *full*: the page gets every block."""
        name, now = self.now(group)
        if full or pile is None:
            return frozenset(), None
        if pile == now:
            return frozenset({name}), None
        made = self._cards.setdefault(group, [])
        cards = next((c for since, c in made if since == pile), None)
        if cards is None and all(since != pile for since, _ in made):
            cards = self.renderer.cards_since(self.snapshot, group, pile)
            made.append((pile, cards))  # the same object for every page alike
        return (frozenset({name}), cards) if cards is not None else (frozenset(), None)
