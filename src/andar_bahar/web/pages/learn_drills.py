"""The trainer's exercises in the browser: the four drills, paying a table, a real deck.

- ``/learn/drill/{kind}`` (``layout``, ``pay``, ``first-row``, ``odds``): a drill of the
  terminal's own kinds, on the learner's rules; answered by tapping a row or a choice,
  typing a count, typing an amount or building it from a tray of chips; checked at once,
  the explanation shown until the learner goes on;
- ``/learn/school`` (``?level=N``): pay the table — a settled layout with several players'
  bets, every spot's win to say against the clock; a table paid right within the level's
  pace opens the next level;
- ``/learn/deal``: a real deck dealt by hand — the centre card, then each card turned and
  the row it goes to, then the winner, each checked by the engine's round.

Every page works as a plain form (no script needed); with htmx the answer replaces the
exercise's block only. An answer that is blank, no number or out of its bounds is
refused with one sentence and counts nothing (:func:`~andar_bahar.games.drills.refusal`).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from starlette.responses import Response

from andar_bahar.club.learners import STALE, Ticket
from andar_bahar.engine.errors import AndarBaharError, ParameterError
from andar_bahar.engine.money import decimal_sign
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.games.drills import (
    Drill,
    DrillKind,
    DrillResult,
    Practice,
    check_answers,
    make_drill,
    pick_rules,
    refusal,
)
from andar_bahar.games.drills.real_deck import Call, RealDeal
from andar_bahar.games.drills.school import LEVELS, TableToPay, find_level, school_table
from andar_bahar.i18n import translations
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.learners import Learner
from andar_bahar.web.http.context import is_htmx, request_info
from andar_bahar.web.http.forms import Posted, field, paytable_rows
from andar_bahar.web.http.responses import render
from andar_bahar.web.pages.drawing import faces
from andar_bahar.web.pages.learn_views import (
    asked_questions,
    dealt_so_far,
    layout_of,
    picker_choices,
    tray_for,
)
from andar_bahar.web.pages.learning import Learning

__all__ = ["register"]

MAX_ANSWER = 40
"""The longest answer read (a longer one is cut: no answer of a drill is that long)."""
ANSWERED = Message(N_("This was answered before: only the first answers count."))


def register(app: FastAPI, learning: Learning) -> None:
    """Add the drills, the dealer school and the real deck to *app*."""
    _add_drills(app, learning)
    _add_school(app, learning)
    _add_deal(app, learning)


def _seeded(seed: int) -> random.Random:
    """The generator an exercise is drawn from, again and again, by its ticket's seed (the
    seed itself is secret and random: :meth:`~andar_bahar.club.learners.Learners.ticket`)."""
    return random.Random(seed)  # noqa: S311 — practice: reproducible on purpose, no stakes


def _answers(form: dict[str, str], drill: Drill) -> dict[str, str]:
    return {q.key: form.get(f"answer-{q.key}", "")[:MAX_ANSWER] for q in drill.questions}


def _show(request: Request, template: str, *, refused: object = None, **context: Any) -> Response:
    """The exercise's page, or its block for htmx; a refusal is said in it (status 400 for a
    plain form, 200 for htmx: the block carries the sentence)."""
    lang = request_info(request).lang
    status = 400 if refused is not None and not is_htmx(request) else 200
    context.setdefault("notice", None)
    return render(
        request, template, block="exercise" if is_htmx(request) else None, status_code=status,
        refused=refused, face=faces(lang), decimal=decimal_sign(translations(lang)), **context,
    )  # fmt: skip


def _kind(kind: str) -> DrillKind:
    try:
        return DrillKind(kind)
    except ValueError:
        raise ParameterError(
            Message(
                N_("There is no drill '{kind}': choose one of {kinds}."),
                kind=kind[:40],
                kinds=", ".join(DrillKind),
            )
        ) from None


def _learner(learning: Learning, request: Request) -> Learner:
    """This device's learner; a device without one is sent to start (``/learn``)."""
    found = learning.of(request)
    if found is None:
        raise HTTPException(303, headers={"Location": "/learn"})
    return found[0]


def _add_drills(app: FastAPI, learning: Learning) -> None:
    def drawn(kind: DrillKind, learner: Learner, ticket: Ticket) -> Drill:
        rng = _seeded(ticket.seed)
        return make_drill(kind, rng, procedure=learner.procedure, paytable=learner.paytable)

    def page(request: Request, learner: Learner, kind: DrillKind, **context: Any) -> Response:
        ticket: Ticket = context.pop("ticket", None) or learning.service.ticket(kind.value, learner)
        drill = drawn(kind, learner, ticket)
        given: dict[str, str] = context.pop("given", {})
        result: DrillResult | None = context.pop("result", None)
        lang = request_info(request).lang
        return _show(
            request, "learn_drill.html", exercise=kind.value, kind=kind, drill=drill,
            learner=learner, ticket=learning.signed(ticket), result=result,
            asked=asked_questions(drill, lang, given, result),
            table_layout=layout_of(drill.result, reveal=result is not None or kind is DrillKind.PAY),
            tray=tray_for(drill.paytable), **context,
        )  # fmt: skip

    @app.get("/learn/drill/{kind}")
    def new_drill(request: Request, kind: str) -> Response:
        learner = _learner(learning, request)
        return page(request, learner, _kind(kind))

    @app.post("/learn/drill/{kind}")
    def answer(request: Request, kind: str, form: Posted) -> Response:
        learner = _learner(learning, request)
        chosen = _kind(kind)
        try:
            ticket = learning.read(field(form, "ticket"), learner, chosen.value)
        except ParameterError:
            return page(request, learner, chosen, notice=STALE)
        drill = drawn(chosen, learner, ticket)
        given = _answers(form, drill)
        lang = request_info(request).lang
        why = refusal(drill, given, lang)
        if why is not None:
            return page(request, learner, chosen, ticket=ticket, given=given, refused=why)
        result = check_answers(drill, given, lang)
        seconds = ticket.seconds(learning.service.now())
        counted = learning.book.record(
            learner.id, chosen.value, [(result.correct, seconds)], drill=ticket.drill
        )
        return page(
            request, learner, chosen, ticket=ticket, given=given, result=result,
            notice=None if counted else ANSWERED,
        )  # fmt: skip


# -- the dealer school -------------------------------------------------------------------------


def _rules(learner: Learner, seed: int) -> tuple[Procedure, Paytable]:
    """The learner's rules (what is varied drawn from *seed*), for a table with stakes."""
    return pick_rules(_seeded(seed), learner.procedure, learner.paytable, staked=True)


def _table(learner: Learner, ticket: Ticket) -> TableToPay:
    procedure, paytable = _rules(learner, ticket.seed)
    rng = _seeded(ticket.seed)
    return school_table(rng, procedure, paytable, find_level(ticket.level))


def _level(text: str, learner: Learner) -> int:
    """The level asked for (the one reached, if none): one the learner has reached."""
    try:
        level = int(text) if text.strip() else learner.level
    except ValueError:
        level = 0
    if not 1 <= level <= min(learner.level, len(LEVELS)):
        raise ParameterError(
            Message(
                N_("Level {level} is not open to you yet: choose a level from 1 to {reached}."),
                level=text[:10],
                reached=min(learner.level, len(LEVELS)),
            )
        )
    return level


def _add_school(app: FastAPI, learning: Learning) -> None:
    kind = Practice.SCHOOL.value

    def page(request: Request, learner: Learner, ticket: Ticket, **context: Any) -> Response:
        table = _table(learner, ticket)
        given: dict[str, str] = context.pop("given", {})
        result: DrillResult | None = context.pop("result", None)
        lang = request_info(request).lang
        return _show(
            request, "learn_school.html", exercise=kind, table=table, drill=table.drill,
            learner=learner, ticket=learning.signed(ticket), result=result, levels=LEVELS,
            asked=asked_questions(table.drill, lang, given, result),
            table_layout=layout_of(table.drill.result, reveal=True), tray=tray_for(table.drill.paytable),
            pays=paytable_rows(table.drill.paytable) if table.drill.paytable else [],
            started=ticket.issued, **context,
        )  # fmt: skip

    @app.get("/learn/school")
    def new_table(request: Request, level: str = "") -> Response:
        learner = _learner(learning, request)
        ticket = learning.service.ticket(kind, learner, level=_level(level, learner))
        return page(request, learner, ticket)

    @app.post("/learn/school")
    def pay(request: Request, form: Posted) -> Response:
        learner = _learner(learning, request)
        try:
            ticket = learning.read(field(form, "ticket"), learner, kind)
        except ParameterError:
            fresh = learning.service.ticket(kind, learner, level=min(learner.level, len(LEVELS)))
            return page(request, learner, fresh, notice=STALE)
        table = _table(learner, ticket)
        given = _answers(form, table.drill)
        lang = request_info(request).lang
        why = refusal(table.drill, given, lang)
        if why is not None:
            return page(request, learner, ticket, given=given, refused=why)
        result = check_answers(table.drill, given, lang)
        seconds = ticket.seconds(learning.service.now())
        each = seconds / len(result.answers)
        counted = learning.book.record(
            learner.id, kind, [(a.correct, each) for a in result.answers],
            drill=ticket.drill, level=ticket.level,
        )  # fmt: skip
        passed = counted and table.passed(result, seconds)  # a table answered again: no pass
        reached = learner.level
        if passed:
            reached = learning.book.reach_level(learner.id, min(ticket.level + 1, len(LEVELS)))
        return page(
            request, learner, ticket, given=given, result=result, passed=passed,
            per_payout=each.quantize(Decimal("0.1")), reached=reached,
            notice=None if counted else ANSWERED,
        )  # fmt: skip


# -- a real deck -------------------------------------------------------------------------------


def _card_text(form: dict[str, str]) -> str:
    """The card typed, or picked by its rank and suit; one sentence when neither is given."""
    typed = form.get("card", "").strip()[:MAX_ANSWER]
    picked = form.get("rank", "").strip()[:2] + form.get("suit", "").strip()[:1]
    text = typed or picked
    if not text:
        raise ParameterError(
            Message(N_("Type the card you turned, such as 7h or Q♠, or pick its rank and suit."))
        )
    return text


def _step(deal: RealDeal, form: dict[str, str]) -> tuple[RealDeal, Call | None]:
    """What the trainee did: begin (the centre card or target), a card and its row, or the
    winner called (an engine's refusal is one sentence, and nothing changes)."""
    action = field(form, "action")
    if action == "begin":
        return deal.begin(
            _card_text(form) if deal.procedure.has_centre else field(form, "rank")
        ), None
    row = field(form, "row")
    if action == "card":
        return deal.turn(_card_text(form), row)
    if action == "winner":
        return deal.call_winner(row)
    raise ParameterError(Message(N_("Unknown step '{step}'."), step=action[:40]))


def _add_deal(app: FastAPI, learning: Learning) -> None:
    kind = Practice.REAL_DECK.value

    def page(
        request: Request, learner: Learner, ticket: Ticket, deal: RealDeal, **context: Any
    ) -> Response:
        context.setdefault("call", None)
        return _show(
            request, "learn_deal.html", exercise=kind, learner=learner, deal=deal,
            table_layout=dealt_so_far(deal.round(), reveal=deal.done),
            ticket=learning.signed(ticket), rows=list(Row),
            **picker_choices(request_info(request).lang), **context,
        )  # fmt: skip

    def fresh(request: Request, learner: Learner, **context: Any) -> Response:
        ticket = learning.service.ticket(kind, learner)
        procedure, paytable = _rules(learner, ticket.seed)
        deal = RealDeal(procedure, paytable)
        ticket = learning.service.restarted(ticket, deal.dumps())
        return page(request, learner, ticket, deal, **context)

    @app.get("/learn/deal")
    def new_deal(request: Request) -> Response:
        learner = _learner(learning, request)
        return fresh(request, learner)

    @app.post("/learn/deal")
    def step(request: Request, form: Posted) -> Response:
        learner = _learner(learning, request)
        try:
            ticket = learning.read(field(form, "ticket"), learner, kind)
            procedure, paytable = _rules(learner, ticket.seed)
            deal = RealDeal.loads(procedure, paytable, ticket.state)
        except AndarBaharError:
            return fresh(request, learner, notice=STALE)
        try:
            after, call = _step(deal, form)
        except AndarBaharError as refused:
            return page(request, learner, ticket, deal, refused=refused)
        if call is not None:
            seconds = ticket.seconds(learning.service.now())
            learning.book.record(
                learner.id,
                kind,
                [(call.correct, seconds)],
                drill=f"{ticket.drill}-{deal.calls + 1}",
            )
        return page(
            request, learner, learning.service.restarted(ticket, after.dumps()), after, call=call
        )
