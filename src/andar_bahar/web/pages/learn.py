"""The trainer in the browser: the learner's pages, and the dealer's list of a school.

- ``/learn``: a new learner gives a name (and gets a learner code), or comes back with a
  code; a learner sees their code (read aloud and as a QR code), the drills, the dealer
  school, the rules practised on (a preset, a table of their schools, a club's TOML
  file), their schools and a link to their progress;
- ``/learn/code/{code}``: the link of a learner code's QR code — a page that asks to come
  back with that code on this device (a GET never signs anyone in);
- ``/learn/progress``: accuracy and time per answer, session by session, as a table and
  as charts drawn here (SVG: no script, nothing from elsewhere), of every kind or one;
- ``/dealer/{code}/learners``: the learners who joined table *code*'s school, with their
  school level and accuracy per kind — for that table's signed-in dealer only.

**Who sees whom**: a learner joins a table's school with the table's code (the code on the
table's screen, the one players join with); that table's dealer sees them, and may take
them off the list. A learner's answers never touch a table: no round, no ledger, no audit.

The drills, the school and the real deck are :mod:`andar_bahar.web.pages.learn_drills`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import segno
from fastapi import FastAPI, File, Form, Request, UploadFile
from markupsafe import Markup
from starlette.responses import Response

from andar_bahar.chance.odds import percent_text
from andar_bahar.club.learners import Learners
from andar_bahar.engine.errors import AccessError, ParameterError
from andar_bahar.engine.paytables import PAYTABLES, Paytable
from andar_bahar.engine.rules import PROCEDURES, Procedure
from andar_bahar.games.drills import DrillKind, practice_title
from andar_bahar.games.drills.school import LEVELS
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.learners import Learner
from andar_bahar.web.http.context import request_info, translator
from andar_bahar.web.http.forms import paytable_from_form, procedure_from_form
from andar_bahar.web.http.responses import redirect, render
from andar_bahar.web.pages import learn_drills
from andar_bahar.web.pages.learn_views import progress_view, rules_words
from andar_bahar.web.pages.learning import LEARNER_COOKIE, Learning

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["learner_of", "register"]

START_FIRST = Message(
    N_("Start as a learner first: give your name, or come back with your learner code.")
)
VARIED = ""
"""The form's value of "the presets, varied" (a procedure or a paytable drawn each time)."""


def learner_of(learning: Learning, request: Request) -> tuple[Learner, str]:
    """This device's learner and code, or one sentence: start first."""
    found = learning.of(request)
    if found is None:
        raise AccessError(START_FIRST)
    return found


def register(app: FastAPI, club: Club) -> None:
    """Add the trainer's pages to *app* (the drills' too)."""
    learners = Learners(club.service.storage, lambda: club.service.limits)
    learning = Learning(learners, club.site.signer("learner"))
    _add_learner(app, club, learning)
    _add_choices(app, club, learning)
    _add_dealer(app, club, learning)
    learn_drills.register(app, learning)


def _qr(link: str) -> Markup:
    svg = segno.make(link, error="m").svg_inline(scale=4, dark="#000", light="#fff")
    return Markup(svg)  # noqa: S704 — segno's own SVG of our own link


def _home(request: Request, learning: Learning, learner: Learner, code: str) -> Response:
    link = f"{str(request.base_url).rstrip('/')}/learn/code/{code}"
    t = translator(request)
    procedure = learner.procedure.name if learner.procedure else None
    return render(
        request,
        "learn.html",
        learner=learner,
        code=code,
        link=link,
        qr=_qr(link),
        kinds=list(DrillKind),
        levels=LEVELS,
        schools=learning.book.schools(learner.id),
        rules=rules_words(procedure, learner.paytable, t),
        source=learner.rules_source or "",
        procedures=PROCEDURES,
        paytables=PAYTABLES,
        school=request.query_params.get("school", "")[:12].upper(),
        new=request.query_params.get("new") == "1",
    )


def _add_learner(app: FastAPI, club: Club, learning: Learning) -> None:
    """Starting, coming back, the learner's page, the code's link, signing out, progress."""

    @app.get("/learn", name="learn")
    def learn(request: Request) -> Response:
        found = learning.of(request)
        if found is None:
            school = request.query_params.get("school", "")[:12].upper()
            return render(request, "learn_start.html", school=school, code="")
        return _home(request, learning, *found)

    @app.post("/learn/start")
    def start(
        request: Request,
        name: Annotated[str, Form()] = "",
        school: Annotated[str, Form()] = "",
    ) -> Response:
        learner, code = learning.service.enrol(name, club.client(request))
        target = "/learn?new=1"
        if school.strip():
            try:
                learning.book.join_school(learner.id, school)
            except ParameterError:  # a wrong table code: the learner starts all the same
                target = f"/learn?new=1&school={school.strip().upper()[:12]}"
        response = redirect(request, target)
        learning.remember(request, response, code)
        return response

    @app.post("/learn/resume")
    def resume(request: Request, code: Annotated[str, Form()] = "") -> Response:
        _, shown = learning.service.come_back(code, club.client(request))
        response = redirect(request, "/learn")
        learning.remember(request, response, shown)
        return response

    @app.get("/learn/code/{code}")
    def code_link(request: Request, code: str) -> Response:
        found = learning.of(request)
        if found is not None and found[1].replace("-", "") == code.upper().replace("-", ""):
            return redirect(request, "/learn")
        return render(request, "learn_start.html", school="", code=code[:12].upper())

    @app.post("/learn/leave")
    def leave(request: Request) -> Response:
        response = redirect(request, "/learn")
        response.delete_cookie(LEARNER_COOKIE, path="/")
        return response

    @app.get("/learn/progress")
    def progress(request: Request, kind: str = "") -> Response:
        found = learning.of(request)
        if found is None:
            return redirect(request, "/learn")
        learner, code = found
        rows = learning.book.progress(learner.id)
        view = progress_view(rows, request_info(request).lang, kind or None)
        return render(
            request, "learn_progress.html", learner=learner, code=code, levels=LEVELS, **view
        )


def _add_choices(app: FastAPI, club: Club, learning: Learning) -> None:
    """The rules practised on, the schools joined and left."""

    @app.post("/learn/rules")
    async def rules(
        request: Request,
        procedure: Annotated[str, Form()] = VARIED,
        paytable: Annotated[str, Form()] = VARIED,
        upload: Annotated[UploadFile | None, File()] = None,
    ) -> Response:
        learner, _ = learner_of(learning, request)
        chosen = await _chosen_rules(learning, learner, procedure, paytable, upload)
        learning.book.choose_rules(learner.id, *chosen)
        return redirect(request, "/learn")

    @app.post("/learn/schools")
    def join(request: Request, table: Annotated[str, Form()] = "") -> Response:
        learner, _ = learner_of(learning, request)
        learning.book.join_school(learner.id, table)
        return redirect(request, "/learn")

    @app.post("/learn/schools/leave")
    def leave_school(request: Request, table: Annotated[str, Form()] = "") -> Response:
        learner, _ = learner_of(learning, request)
        learning.book.leave_school(learner.id, table)
        return redirect(request, "/learn")


async def _chosen_rules(
    learning: Learning,
    learner: Learner,
    procedure: str,
    paytable: str,
    upload: UploadFile | None,
) -> tuple[Procedure | None, Paytable | None, str]:
    """The rules a form chose: a table of the learner's schools (its procedure and its
    paytable), or a preset procedure (or varied) with a preset paytable, a club's file (or
    varied)."""
    if procedure.startswith("table:"):
        code = procedure.removeprefix("table:")
        rules, table = learning.book.school_rules(learner.id, code)
        return rules, table, f"table {code.upper()}"
    rules_chosen = procedure_from_form(procedure, "", "", "") if procedure != VARIED else None
    uploaded = upload is not None and bool(upload.filename)
    chosen: Paytable | None = None
    if uploaded or paytable != VARIED:
        chosen = await paytable_from_form(paytable or "trainer-default", upload)
    source = f"file {upload.filename}" if uploaded and upload is not None else "presets"
    return rules_chosen, chosen, source


def _add_dealer(app: FastAPI, club: Club, learning: Learning) -> None:
    """A table's dealer: the learners of the table's school."""

    def dealer(request: Request, code: str) -> None:
        if not club.service.is_dealer(code, club.dealer_token(request, code)):
            raise AccessError(
                Message(N_("Only the dealer can do this at table {code}."), code=code.upper())
            )

    @app.get("/dealer/{code}/learners")
    def learners(request: Request, code: str) -> Response:
        dealer(request, code)
        listed = learning.book.school(code)
        t = translator(request)
        return render(
            request, "dealer_learners.html", code=code.upper(), learners=listed, levels=LEVELS,
            titles=practice_title, percent=lambda value: percent_text(value, t),
            **_join_link(request, code),
        )  # fmt: skip

    @app.post("/dealer/{code}/learners/remove")
    def remove(request: Request, code: str, learner: Annotated[int, Form()]) -> Response:
        dealer(request, code)
        learning.book.leave_school(learner, code)
        return redirect(request, f"/dealer/{code.upper()}/learners")


def _join_link(request: Request, code: str) -> dict[str, Any]:
    link = f"{str(request.base_url).rstrip('/')}/learn?school={code.upper()}"
    return {"join_link": link, "join_qr": _qr(link)}
