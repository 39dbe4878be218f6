"""The renderer of the club's table pages: their live blocks, each drawn again only when
what it shows has changed.

:class:`TableRenderer` is the :class:`~andar_bahar.web.live.protocol.Renderer` of the club's
tables (the registry of pages and blocks, and what a block sees, are in
:mod:`~andar_bahar.web.live.blocks`; the keys of the blocks in
:mod:`~andar_bahar.web.live.keys`).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from andar_bahar.engine.money import format_amount
from andar_bahar.web.http.templating import drawn, forget_drawn, gettext_callables
from andar_bahar.web.live.blocks import (
    LIVE_PAGES,
    Snapshot,
    block_context,
    page_extras,
    shared_data,
)
from andar_bahar.web.live.hub import SERVER_NOW
from andar_bahar.web.live.keys import alike_group, key_of
from andar_bahar.web.live.piles import COUNTED, PILES, Pile, added, pile_of
from andar_bahar.web.live.protocol import Rendered, Viewer
from andar_bahar.web.live.text import forget_encoded
from andar_bahar.web.pages.drawing import ROAD_LENGTH, faces

if TYPE_CHECKING:
    from jinja2 import Environment

    from andar_bahar.club.service import TableService

__all__ = ["ALIKE", "TableRenderer"]

ALIKE = 4
"""How many of the last drawn versions of a block are kept for every viewer alike."""


class TableRenderer:
    """The live blocks of the club's table pages, rendered from one snapshot of a table.

    A block is drawn again only when what it shows has changed: each block is kept with
    its key (:mod:`~andar_bahar.web.live.keys`) per table, page kind, role and language
    (a player's own blocks: per player). A bet so draws the bettor's own blocks (once,
    for the answer and the live message) and the dealer's list of bets; a dealt card,
    the felt once per group of viewers — and nothing but the card itself for the pages
    whose felt stands earlier in the same round (:mod:`~andar_bahar.web.live.piles`).
    """

    def __init__(self, service: TableService, env: Environment) -> None:
        self.service = service
        self.env = env
        self._kept: dict[tuple[str, Viewer, str], tuple[object, str]] = {}
        """(table, viewer less what it was let in with, block) → (key, HTML): the answer to a
        player's own bet and the live message to the player's socket share what they drew."""
        self._alike: dict[tuple[str, tuple[str, ...], str], list[tuple[object, str]]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._held: dict[str, tuple[int, frozenset[str]]] = {}
        self._macros: dict[str, Any] = {}
        """The macros of the felt (a card in its row …) in each language."""

    def read(self, code: str, known: int | None = None) -> Snapshot:
        return Snapshot(self.service.table_snapshot(code, ROAD_LENGTH, known=known))

    def version(self, snapshot: Snapshot) -> int:
        return snapshot.state.version

    def deadline(self, snapshot: Snapshot) -> datetime | None:
        rnd = snapshot.state.round
        return rnd.bets_deadline if rnd is not None else None

    def closed(self, snapshot: Snapshot) -> bool:
        return snapshot.state.closed

    def close_expired(self, code: str) -> None:
        self.service.close_expired(code)

    def forget(self, code: str) -> None:
        self._held.pop(code, None)

    def release(self, code: str) -> None:
        """Nobody follows *code* here any more: its blocks, and the table the service kept;
        and the pieces and encoded blocks kept for every table (:func:`forget_drawn`,
        :func:`forget_encoded`: most of them the table's rounds, players and blocks; a
        followed table's are drawn again once, as needed)."""
        self._held.pop(code, None)
        self._locks.pop(code, None)
        for key in [k for k in list(self._kept) if k[0] == code]:
            self._kept.pop(key, None)
        for where in [w for w in list(self._alike) if w[0] == code]:
            self._alike.pop(where, None)
        forget_drawn()
        forget_encoded()
        self.service.release(code)

    def rest(self) -> None:
        """The night's end here (the last table followed closed): the service closes its
        idle database connections."""
        self.service.rest()

    def allowed(self, snapshot: Snapshot, viewer: Viewer) -> bool:
        """Whether *viewer* still holds its seat or dealer's sign-in. What the table's phones
        and devices hold is read once, and again only after :meth:`forget` (the room calls
        it for every change that is not a step of the round: a join, a new seat code, a
        release, a sign-in or out) or for a credential it does not hold (read once more
        per version: a device let in by another process before its event came here)."""
        if viewer.credential is None:
            return True
        code, version = snapshot.state.code, snapshot.state.version
        kept = self._held.get(code)
        if kept is None or (viewer.credential not in kept[1] and kept[0] != version):
            kept = self._held[code] = (version, self.service.credentials(code))
        return viewer.credential in kept[1]

    def blocks(
        self,
        snapshot: Snapshot,
        viewer: Viewer,
        names: tuple[str, ...],
        *,
        answering: bool = False,
    ) -> dict[str, str]:
        """*names* of *viewer*'s page, drawn now (the server's time left as :data:`SERVER_NOW`)."""
        template = self.env.get_template(LIVE_PAGES[viewer.page].template)
        context = block_context(snapshot, viewer, answering=answering)
        context.update(page_extras(viewer, context["state"], snapshot.table, SERVER_NOW, names))
        drawing = template.new_context(context)  # one for all: a block changes no variable of it
        return {name: "".join(template.blocks[name](drawing)) for name in names}

    def _kept_or_drawn(
        self, snapshot: Snapshot, viewer: Viewer, names: tuple[str, ...], *, answering: bool
    ) -> dict[str, str]:
        """*names* as kept, those whose key changed drawn again (in one context).

        Each block is kept for its viewer, and among the last few drawn for any viewer of
        the same page, role and language (or of every page that draws it alike:
        :func:`~andar_bahar.web.live.keys.alike_group`): a key holds whatever of the
        viewer the block shows (:mod:`~andar_bahar.web.live.keys`), so equal keys draw
        equal HTML. A table's blocks are drawn by one thread at a time, so that an answer
        and the live message drawing the same ones at once (the dealer's felt, a bettor's
        own spots) draw them once.
        """
        seen = snapshot.seen_by(viewer)
        mine = snapshot.table.player_rounds(viewer.player) if viewer.player else []
        code, page = seen.code, viewer.page
        viewer = replace(viewer, credential=None) if viewer.credential is not None else viewer
        keys = {n: key_of(page, n, seen, snapshot.recent, mine, viewer.player) for n in names}
        found = self._found(code, viewer, keys)
        if len(found) < len(names):
            with self._drawing(code):
                found.update(
                    self._found(code, viewer, {n: keys[n] for n in names if n not in found})
                )
                stale = tuple(n for n in names if n not in found)
                if stale:
                    drawn = self.blocks(snapshot, viewer, stale, answering=answering)
                    for name, html in drawn.items():
                        self._kept[(code, viewer, name)] = (keys[name], html)
                        where = (code, alike_group(viewer.group, name), name)
                        alike = self._alike.setdefault(where, [])
                        alike.insert(0, (keys[name], html))
                        del alike[ALIKE:]
                    found.update(drawn)
        return {n: found[n] for n in names}

    def _found(self, code: str, viewer: Viewer, keys: dict[str, object]) -> dict[str, str]:
        """The blocks of *keys* kept for *viewer* or drawn alike for another viewer."""
        found: dict[str, str] = {}
        for name, key in keys.items():
            kept = self._kept.get((code, viewer, name))
            if kept is not None and kept[0] == key:
                found[name] = kept[1]
                continue
            alike = self._alike.get((code, alike_group(viewer.group, name), name), ())
            html = next((h for k, h in alike if k == key), None)
            if html is not None:
                found[name] = html
                self._kept[(code, viewer, name)] = (key, html)
        return found

    def _drawing(self, code: str) -> threading.Lock:
        """The lock of drawing table *code*'s shared blocks."""
        lock = self._locks.get(code)
        if lock is None:
            lock = self._locks.setdefault(code, threading.Lock())
        return lock

    def shared(
        self, snapshot: Snapshot, group: tuple[str, str, str], without: frozenset[str] = frozenset()
    ) -> Rendered:
        """The blocks every viewer of *group* sees (each drawn again only if it changed), but
        those *without* names (not drawn)."""
        page, role, lang = group
        viewer = Viewer(page, role, lang)  # no player: what every viewer of the group may see
        names = tuple(n for n in LIVE_PAGES[page].shared if n not in without)
        blocks = self._kept_or_drawn(snapshot, viewer, names, answering=False)
        return Rendered(blocks, shared_data(snapshot.seen_by(viewer)))

    def pile(self, snapshot: Snapshot, group: tuple[str, str, str]) -> tuple[str, Pile]:
        """Where the piles of *group*'s felt stand (:mod:`~andar_bahar.web.live.piles`)."""
        return PILES, pile_of(snapshot.seen_by(Viewer(*group)))

    def cards_since(
        self, snapshot: Snapshot, group: tuple[str, str, str], since: Pile
    ) -> dict[str, Any] | None:
        """What brings *group*'s felt from *since* to *snapshot*: the cards dealt since, drawn
        (a card's face is drawn once per language), or ``None``: the felt must be drawn."""
        state = snapshot.seen_by(Viewer(*group))
        new = added(since, pile_of(state))
        rnd = state.round
        if new is None or rnd is None:
            return None
        page, _, lang = group
        macros: Any = self._macros.get(lang)
        if macros is None:
            template = self.env.get_template("_table.html")
            extras = {"face": faces(lang), "drawn_cards": drawn("cards", lang)}
            macros = self._macros[lang] = template.make_module(
                {**gettext_callables(lang), **extras}
            )
        counts = {row: sum(d.row is row for d in since.dealt) for row in {d.row for d in new}}
        cards = []
        for d in new:
            counts[d.row] += 1
            cards.append({"row": d.row.value, "count": counts[d.row], "html": str(macros.slot(d))})
        out: dict[str, Any] = {"round": rnd.number, "from": len(since.dealt), "cards": cards}
        if page in COUNTED:
            out["dealt"] = str(macros.dealt_count(len(rnd.dealt)))
        return out

    def private(self, snapshot: Snapshot, viewer: Viewer, *, answering: bool = False) -> Rendered:
        """*viewer*'s own blocks (each drawn again only if it changed): the answer to a
        player's own bet and the live message after it share them."""
        if viewer.player is None:
            return Rendered({})
        names = LIVE_PAGES[viewer.page].private
        blocks = self._kept_or_drawn(snapshot, viewer, names, answering=answering)
        data = self._own_data(snapshot, viewer)
        return Rendered(blocks, data)

    @staticmethod
    def _own_data(snapshot: Snapshot, viewer: Viewer) -> dict[str, Any]:
        """The player's balance, and what the settled round changed in it."""
        data: dict[str, Any] = {}
        state = snapshot.seen_by(viewer)
        for player in state.players:
            if player.name == viewer.player:
                data["balance"] = format_amount(player.balance)
        rnd = state.round
        if rnd is not None and rnd.settlement is not None:
            mine = [b for b in rnd.settlement.bets if b.player == viewer.player]
            if mine:
                data["net"] = format_amount(sum((b.net for b in mine), Decimal(0)))
        return data

    def answer(
        self, snapshot: Snapshot, viewer: Viewer, *, complete: bool, dealt: bool = False
    ) -> Rendered:
        """The blocks that answer *viewer*'s own action: every block, or only its own ones.

        *dealt*: the action dealt a card (the round's latest). A complete answer then brings
        that card alone where it is all the felt gained since the card before (past the
        first two cards, a deal changes nothing else of the felt but ending the round,
        which draws it whole): the page shows the felt as it was before its own deal, or
        ``live.js`` asks for every block."""
        own = self.private(snapshot, viewer, answering=True)
        if not complete:
            return own
        name, now = self.pile(snapshot, viewer.group)
        cards = None
        if dealt and now.dealt:
            cards = self.cards_since(snapshot, viewer.group, Pile(now.rest, now.dealt[:-1]))
        without = frozenset({name}) if cards is not None else frozenset()
        shared = self.shared(snapshot, viewer.group, without)  # as the live message has them
        blocks, data = {**shared.blocks, **own.blocks}, {**shared.data, **own.data}
        return Rendered(blocks, data, {name: cards} if cards is not None else {})
