"""What each live block shows, as a key: a block is drawn again only when its key changes.

A live block (:mod:`~andar_bahar.web.live.blocks`) renders from the table as its viewer
may see it (:class:`~andar_bahar.club.values.TableState`), the last rounds and — a
player's own blocks — the player's settled rounds. Its **key** is the part of those it
shows: two states with equal keys draw the same HTML (in one language, for one
viewer). The renderer keeps each block's HTML with its key, so that a bet draws
only the bettor's own blocks and the dealer's list of bets, and a dealt card only
the felt.

:data:`BLOCK_KEYS` names the key of each block by page kind; a block without one is
keyed by everything it may read (:func:`everything`), which is always right, only
slower. ``tests/test_web_live_keys.py`` plays rounds and checks, for every block, that
equal keys draw equal HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal

from andar_bahar.club.values import PlayerRound, PublicRound, RoundSummary, TableState
from andar_bahar.web.pages.drawing import next_step, staked
from andar_bahar.web.pages.screens import last_bets

__all__ = [
    "ALIKE_ACROSS",
    "BLOCK_KEYS",
    "BlockKey",
    "alike_group",
    "everything",
    "key_of",
    "without_bets",
]

BlockKey = Callable[[TableState, Sequence[RoundSummary], Sequence[PlayerRound], str | None], object]
"""(the state as the viewer sees it, the last rounds, the player's rounds, the player) → the
key. A player's own blocks are kept for every player alike: a key holds the player's name
only where its block shows it (so that, say, every phone's bet spots as a round opens are
drawn once)."""


def everything(
    state: TableState,
    recent: Sequence[RoundSummary],
    mine: Sequence[PlayerRound],
    player: str | None,
) -> object:
    """All a block may read (less the version, which no block shows)."""
    return replace(state, version=0), tuple(recent), tuple(mine), player


def without_bets(rnd: PublicRound | None) -> PublicRound | None:
    """*rnd* less its bets, markers and settlement (which the felt does not show)."""
    if rnd is None or not (rnd.wagers or rnd.settlement or rnd.markers):
        return rnd
    return replace(rnd, wagers=(), settlement=None, markers={})


def felt(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    """The felt (status, countdown, cards), the cards dealt, whether new pays come with the
    next round, whether the table is closed: not the bets nor what they paid (so the
    dealer's felt and the phones' have the same key)."""
    return state.code, without_bets(state.round), state.new_pays, state.closed


def strip(
    state: TableState, recent: Sequence[RoundSummary], _: Sequence[PlayerRound], player: str | None
) -> object:
    """The last rounds as beads, under the felt: they change once a round, not with each
    card (a dealt card's message carries the felt alone)."""
    return state.code, tuple(recent)


def road(
    state: TableState, recent: Sequence[RoundSummary], _: Sequence[PlayerRound], player: str | None
) -> object:
    """The last rounds, the deck's commitment, the rules."""
    rnd = state.round
    now = None if rnd is None else (rnd.number, rnd.commitment, rnd.bets_open, rnd.procedure)
    return state.code, state.procedure, tuple(recent), now


def step(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    """The dealer's next step, the picker of a real deck's cards, the bet timer."""
    rnd = state.round
    nxt = next_step(rnd, finished_lesson=state.finished or state.closed)
    now = None if rnd is None else (rnd.bets_open, rnd.bets_deadline, rnd.physical, rnd.status)
    step = None if nxt is None else (nxt.action, nxt.card)
    return state.code, state.teaching, state.closed, step, now


def void(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    rnd = state.round
    return state.code, None if rnd is None else (rnd.status, rnd.physical)


def dealer_bets(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    """Everyone's bets (or markers) and the settlement, by player in seat order; the bets on
    the centre card as settled at the turn."""
    rnd = state.round
    now = None
    if rnd is not None:
        now = (rnd.number, rnd.wagers, rnd.markers, rnd.settlement, rnd.centre, rnd.centre_paid)
    return state.teaching, tuple(p.name for p in state.players), now


def players(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    return state.teaching, state.players


def me(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    """The seat: the player's name, chips (or tokens) and what they have at stake (as
    :func:`~andar_bahar.web.pages.screens.player_view` works it out: nothing once settled)."""
    rnd = state.round
    at_stake = staked(rnd.wagers, player or "") if rnd and rnd.status != "settled" else Decimal(0)
    return player, state.code, state.name, state.teaching, state.players, at_stake


def my_bets(
    state: TableState, _: Sequence[RoundSummary], mine: Sequence[PlayerRound], player: str | None
) -> object:
    """The spots with the player's stakes, the chips, repeat, double, undo and clear (or
    the markers): not the round's number, whether it is settled, nor whether the bets are
    open, which the block does not show (a round opening draws it once for every phone,
    the bets closing and the settlement not at all: the spots' fieldset follows the felt),
    but whether the centre card is still to be turned at a table with bets on it."""
    rnd = state.round
    now = None
    if rnd is not None:  # the spots on the centre card go when it is turned
        now = (rnd.paytable, rnd.wagers, rnd.markers, rnd.centre_open and bool(rnd.paytable.centre))
    repeat = last_bets(list(mine), rnd.number if rnd else None)  # and whether it doubles
    marker = player if state.teaching else None  # a lesson's spots show the player's marker
    return state.code, state.teaching, marker, state.paytable, now, repeat


def my_rounds(
    state: TableState, _: Sequence[RoundSummary], mine: Sequence[PlayerRound], player: str | None
) -> object:
    """The player's own last rounds and the night's result (a lesson's standings)."""
    standings = (state.finished, state.players) if state.teaching else None
    night = next((p.result for p in state.players if p.name == player), None)
    return state.teaching, standings, tuple(mine), night


def banner(
    state: TableState, _: Sequence[RoundSummary], __: Sequence[PlayerRound], player: str | None
) -> object:
    """The result of the settled round for the player (in a lesson: their marker's); before
    it, what their bets on the centre card did at the turn."""
    rnd = state.round
    if rnd is not None and rnd.status == "open":
        return (rnd.number, rnd.centre, rnd.centre_paid) if rnd.centre_paid else None
    if rnd is None or rnd.status != "settled":
        return None
    marker = player if state.teaching else None
    return state.teaching, marker, rnd.number, rnd.result, rnd.settlement, rnd.markers


BLOCK_KEYS: Mapping[str, Mapping[str, BlockKey]] = {
    "player": {
        "table": felt,
        "strip": strip,
        "road": road,
        "me": me,
        "bets": my_bets,
        "mine": my_rounds,
        "banner": banner,
    },
    "dealer": {
        "table": felt,
        "strip": strip,
        "road": road,
        "step": step,
        "void": void,
        "bets": dealer_bets,
        "players": players,
    },
    "display": {"table": felt, "road": road},
}


ALIKE_ACROSS: Mapping[tuple[str, str], str] = {
    ("player", "table"): "felt",
    ("dealer", "table"): "felt",
    ("player", "strip"): "strip",
    ("dealer", "strip"): "strip",
}
"""Blocks that draw the same HTML on several page kinds (the same template text, the same
key): (page kind, block) → their common name, kept once for every viewer of those pages
in one language (a dealt card draws the felt once, for the phones and the dealer)."""


def alike_group(group: tuple[str, str, str], block: str) -> tuple[str, ...]:
    """Whose blocks *block* of viewers of *group* (page kind, role, language) is kept among:
    the group's own, or every page's that draws it alike (:data:`ALIKE_ACROSS`)."""
    common = ALIKE_ACROSS.get((group[0], block))
    return group if common is None else (common, group[2])


def key_of(
    page: str,
    block: str,
    state: TableState,
    recent: Sequence[RoundSummary],
    mine: Sequence[PlayerRound] = (),
    player: str | None = None,
) -> object:
    """The key of *block* of *page* (:func:`everything` for a block without one)."""
    return BLOCK_KEYS.get(page, {}).get(block, everything)(state, recent, mine, player)
