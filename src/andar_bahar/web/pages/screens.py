"""What the table pages show besides the table itself, for one viewer: the player's phone
(:func:`player_view`: the seat, the spots with the player's stakes, the chips, the player's
own rounds, the result :func:`banner`) and the dealer's screen (:func:`dealer_view`: the next
step, the bets per player, the bet timers).

From the table (:class:`~andar_bahar.club.values.TableState`, as the viewer may see it) and
the language alone — a live render of a block has no request.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from andar_bahar.club.values import PlayerRound, PlayerState, TableState
from andar_bahar.engine.cards import Card
from andar_bahar.engine.paytables import PAYTABLES
from andar_bahar.engine.settlement import Outcome, SettledBet
from andar_bahar.i18n import format_number, translations
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.templating import drawn
from andar_bahar.web.pages.drawing import (
    bets_by_player,
    chip_values,
    next_step,
    signed_amount,
    spots,
    staked,
)

__all__ = [
    "TIMER_SECONDS",
    "Banner",
    "banner",
    "dealer_view",
    "last_bets",
    "player_view",
    "repeat_times",
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
    *mine* their rounds (:meth:`~andar_bahar.club.values.TableSnapshot.player_rounds`).
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
    view["available"] = me.balance - view["at_stake"]  # what the next chip may still take
    if blocks is None or "bets" in blocks:
        view["spots"] = spots(paytable, wagers, name, centre=bool(rnd and rnd.centre_open))
        view["on_spots"] = any(s.stake for s in view["spots"])  # what Clear would take back
        view["bet_key"] = secrets.token_hex(12)  # no-script form's key (table.js: one per tap)
        view["drawn_spots"] = drawn("spots", lang)  # a spot's button: by spot and stake
        view["chips"] = chip_values(paytable)
        last = last_bets(mine, rnd.number if rnd else None)
        view["can_repeat"] = bool(last)
        view["repeat_times"] = repeat_times(last, wagers, name) + 1 if last else 0
    if blocks is None or "mine" in blocks:
        view["my_rounds"] = mine
        view["mine_rows"] = drawn("mine-rows", lang)  # a settled round's row never changes
        view["session_net"] = me.result  # the whole night's, from the ledger
    if blocks is None or "banner" in blocks:
        view["my_result"] = banner(state, name, lang)
    return view


def last_bets(mine: list[PlayerRound], current: int | None) -> tuple[tuple[str, Decimal], ...]:
    """The bets of the player's last settled round before the current one."""
    for played in mine:
        if played.number != current:
            return tuple((bet, stake) for bet, stake, _, _ in played.bets)
    return ()


@dataclass(frozen=True, slots=True)
class Banner:
    """The round's result for this player, beside the felt until the next round: the net
    with its parts ("+5" — "won 25 on 1–5 cards dealt, lost 20 on Andar")."""

    kind: str
    """``win``, ``lose`` or ``even`` (a net of 0, a void round)."""
    headline: str
    """The net, signed (a lesson: whether the marker was on the winning row)."""
    detail: str
    """What it is made of, bet by bet: wins first, then stakes back, then losses."""


_PARTS = {
    Outcome.WIN: N_("won {amount} on {bet}"),
    Outcome.VOID: N_("{amount} back from {bet}"),
    Outcome.LOSE: N_("lost {amount} on {bet}"),
}


def banner(state: TableState, name: str, lang: str) -> Banner | None:
    """The result of the settled round for *name* (``None`` until it is settled, or when
    they had no bet nor marker in it); before that, once the centre card is turned, what
    their bets on it won or lost (paid with the round)."""
    rnd = state.round
    if rnd is not None and rnd.status == "open":
        return _centre_banner(rnd.centre_paid, rnd.centre, name, lang)
    if rnd is None or rnd.status != "settled" or rnd.result is None:
        return None
    words = translations(lang)
    winner = rnd.result.winner
    marker = rnd.markers.get(name)
    if state.teaching:
        if marker is None or winner is None:
            return None
        said = (
            N_("Your marker was on the winning row.")
            if marker is winner
            else N_("Your marker was not on the winning row.")
        )
        return Banner("win" if marker is winner else "lose", Message(said).localized(words), "")
    bets = [b for b in (rnd.settlement.bets if rnd.settlement else ()) if b.player == name]
    if not bets:
        return None
    net = sum((b.net for b in bets), Decimal(0))
    parts = [
        Message(
            _PARTS[outcome],
            amount=format_number(b.win if outcome is Outcome.WIN else b.stake, lang),
            bet=b.bet,
        ).localized(words)
        for outcome in _PARTS
        for b in bets
        if b.outcome is outcome
    ]
    kind = "win" if net > 0 else ("lose" if net < 0 else "even")
    return Banner(kind, signed_amount(net, lang), ", ".join(parts))


def _centre_banner(
    paid: Iterable[SettledBet], centre: Card | None, name: str, lang: str
) -> Banner | None:
    """What *name*'s bets on the centre card did the moment it was turned."""
    bets = [b for b in paid if b.player == name]
    if not bets or centre is None:
        return None
    net = sum((b.net for b in bets), Decimal(0))
    words = translations(lang)
    parts = ", ".join(
        Message(
            _PARTS[b.outcome],
            amount=format_number(b.win if b.outcome is Outcome.WIN else b.stake, lang),
            bet=b.bet,
        ).localized(words)
        for b in bets
    )
    detail = Message(
        N_("the centre card is {card}: {parts} (paid when the round is settled)"),
        card=centre,
        parts=parts,
    ).localized(words)
    kind = "win" if net > 0 else ("lose" if net < 0 else "even")
    return Banner(kind, signed_amount(net, lang), detail)


def repeat_times(
    last: tuple[tuple[str, Decimal], ...], wagers: Iterable[tuple[str, str, Decimal]], name: str
) -> int:
    """How many times over the player's bets on the table are their *last* bets: the
    same spots, each stake the same whole multiple (0: anything else, or none).

    >>> last = (("andar", Decimal(10)), ("cards:1-5", Decimal(5)))
    >>> repeat_times(last, [("asha", "andar", Decimal(20)), ("asha", "cards:1-5", Decimal(10))], "asha")
    2
    >>> repeat_times(last, [("asha", "andar", Decimal(20))], "asha")
    0
    """
    mine = {bet: stake for who, bet, stake in wagers if who == name}
    if not last or set(mine) != {bet for bet, _ in last}:
        return 0
    times = {mine[bet] / stake for bet, stake in last}
    if len(times) != 1:
        return 0
    (only,) = times
    return int(only) if only == int(only) else 0


def dealer_view(
    state: TableState, lang: str, blocks: Collection[str] | None = None
) -> dict[str, Any]:
    """What the dealer's page shows of *state* in *lang* (no request: a live render calls it
    too). *blocks*: only what those live blocks show (``None``: the whole page's)."""
    rnd = state.round
    timer = not state.teaching
    view: dict[str, Any] = {
        "dealer": True,
        "step": next_step(rnd, finished_lesson=state.finished or state.closed),
        "timer_seconds": TIMER_SECONDS if timer else (),
        "paytable_names": list(PAYTABLES),
    }
    if blocks is None or "bets" in blocks:  # the list of bets by player
        players = (p.name for p in state.players)
        view["grouped_bets"] = bets_by_player(rnd.wagers if rnd else (), players)
        view["bet_rows"] = drawn("dealer-bets", lang)  # a player's row: by their bets
    return view
