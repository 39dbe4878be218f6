"""What the table pages show besides the table itself, for one viewer: the player's phone
(:func:`player_view`: the seat, the spots with the player's stakes, the chips, the player's
own rounds, the result :func:`banner`) and the dealer's screen (:func:`dealer_view`: the next
step, the bets per player, the bet timers).

From the table (:class:`~andar_bahar.web.records.TableState`, as the viewer may see it) and
the language alone — a live render of a block has no request.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from andar_bahar.engine.money import Amount
from andar_bahar.engine.paytables import PAYTABLES
from andar_bahar.i18n import translations
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.web.records import PlayerRound, PlayerState, TableState
from andar_bahar.web.table_view import (
    bets_by_player,
    chip_values,
    next_step,
    spots,
    staked,
)
from andar_bahar.web.templating import drawn

__all__ = [
    "TIMER_SECONDS",
    "Banner",
    "banner",
    "dealer_view",
    "last_bets",
    "player_view",
]

TIMER_SECONDS = (15, 30, 60)
"""The bet timers the dealer's screen offers, in seconds."""


def player_view(
    state: TableState,
    name: str,
    lang: str,
    mine: list[PlayerRound],
    blocks: Collection[str] | None = None,
) -> dict[str, Any]:
    """What the player's page shows of *state* for the player *name* (no request: a live
    render of the player's own blocks calls it too). *state* is what *name* may see;
    *mine* their rounds (:meth:`~andar_bahar.web.records.TableSnapshot.player_rounds`).
    *blocks*: only what those live blocks show (``None``: the whole page's)."""
    me = next((p for p in state.players if p.name == name), PlayerState(name, True, Decimal(0), 0))
    rnd = state.round
    wagers = rnd.wagers if rnd else ()
    paytable = rnd.paytable if rnd else state.paytable
    mine = [] if state.teaching else mine
    view: dict[str, Any] = {
        "player": name,
        "me": me,
        "at_stake": staked(wagers, name) if rnd and rnd.status != "settled" else Decimal(0),
    }
    if blocks is None or "bets" in blocks:
        view["spots"] = spots(paytable, wagers, name)
        view["on_spots"] = any(s.stake for s in view["spots"])  # what Clear would take back
        view["bet_key"] = secrets.token_hex(12)  # no-script form's key (table.js: one per tap)
        view["drawn_spots"] = drawn("spots", lang)  # a spot's button: by spot and stake
        view["chips"] = chip_values(paytable)
        view["can_repeat"] = bool(last_bets(mine, rnd.number if rnd else None))
    if blocks is None or "mine" in blocks:
        view["my_rounds"] = mine
        view["mine_rows"] = drawn("mine-rows", lang)  # a settled round's row never changes
        view["session_net"] = me.result  # the whole night's, from the ledger
    if blocks is None or "banner" in blocks:
        view["my_result"] = banner(state, name, translations(lang))
    return view


def last_bets(mine: list[PlayerRound], current: int | None) -> tuple[tuple[str, Decimal], ...]:
    """The bets of the player's last settled round before the current one."""
    for played in mine:
        if played.number != current:
            return tuple((bet, stake) for bet, stake, _, _ in played.bets)
    return ()


@dataclass(frozen=True, slots=True)
class Banner:
    """The banner after a round: the headline, and what it meant for this player."""

    kind: str
    """``win``, ``lose`` or ``even`` (no bet, a void round)."""
    headline: str
    detail: str


def banner(state: TableState, name: str, words: Translator) -> Banner | None:
    """The result banner of the settled round for *name* (``None`` until it is settled)."""
    rnd = state.round
    if rnd is None or rnd.status != "settled" or rnd.result is None:
        return None
    winner = rnd.result.winner
    headline = Message(N_("{row} wins"), row=winner) if winner else Message(N_("The round is void"))
    kind, detail = "even", None
    bets = [b for b in (rnd.settlement.bets if rnd.settlement else ()) if b.player == name]
    marker = rnd.markers.get(name)
    if state.teaching and marker is not None and winner is not None:
        kind = "win" if marker is winner else "lose"
        detail = Message(
            N_("Your marker was on the winning row.")
            if marker is winner
            else N_("Your marker was not on the winning row.")
        )
    elif bets and winner is None:
        detail = Message(N_("Your stakes are back with you."))
    elif bets:
        won = sum((b.win for b in bets if b.outcome.value == "win"), Decimal(0))
        if any(b.outcome.value == "win" for b in bets):
            kind, detail = "win", Message(N_("You won {amount}."), amount=Amount(won))
        else:
            kind, detail = "lose", Message(N_("No win for you this round."))
    return Banner(kind, headline.localized(words), detail.localized(words) if detail else "")


def dealer_view(
    state: TableState, lang: str, blocks: Collection[str] | None = None
) -> dict[str, Any]:
    """What the dealer's page shows of *state* in *lang* (no request: a live render calls it
    too). *blocks*: only what those live blocks show (``None``: the whole page's)."""
    rnd = state.round
    timer = not state.teaching
    view: dict[str, Any] = {
        "dealer": True,
        "step": next_step(rnd, finished_lesson=state.finished),
        "timer_seconds": TIMER_SECONDS if timer else (),
        "paytable_names": list(PAYTABLES),
    }
    if blocks is None or "bets" in blocks:  # the list of bets by player
        players = (p.name for p in state.players)
        view["grouped_bets"] = bets_by_player(rnd.wagers if rnd else (), players)
        view["bet_rows"] = drawn("dealer-bets", lang)  # a player's row: by their bets
    return view
