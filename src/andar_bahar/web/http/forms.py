"""Reading what browsers and programs send: forms, uploaded club files, JSON bodies.

Each reader answers a bad value with one sentence (a project error), never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Annotated, Any, TypeVar, cast
from urllib.parse import parse_qsl

from fastapi import Depends, Request, UploadFile
from fastapi.exceptions import RequestValidationError

from andar_bahar.engine.bets import Bet, MainBet
from andar_bahar.engine.errors import ParameterError, PaytableError
from andar_bahar.engine.money import parse_stake
from andar_bahar.engine.paytables import (
    PAYTABLES,
    MainKey,
    Odds,
    Paytable,
    find_paytable,
    load_paytable,
)
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, Row, StartRule, TargetMode
from andar_bahar.i18n.messages import N_, Message

__all__ = [
    "MAX_FIELDS",
    "MAX_UPLOAD",
    "Posted",
    "field",
    "paytable_from_form",
    "paytable_rows",
    "posted",
    "procedure_choices",
    "procedure_from_form",
    "read_amount",
    "read_json",
    "true_or_false",
    "whole_number",
]

MAX_UPLOAD = 64 * 1024
"""The largest club paytable file accepted."""


async def read_json(request: Request) -> dict[str, Any]:
    # Only application/json: a page on another site cannot send that without a CORS
    # preflight, which this server never grants, so the API needs no CSRF token.
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ParameterError(Message(N_("The request body must be a JSON object.")))
    try:  # a number as written, exactly (1.000 is one, never the float 1.0 nor a thousand)
        data = json.loads(await request.body(), parse_float=Decimal)
    except (ValueError, RecursionError):  # RecursionError: brackets nested thousands deep
        raise ParameterError(Message(N_("The request body must be a JSON object."))) from None
    if not isinstance(data, dict):
        raise ParameterError(Message(N_("The request body must be a JSON object.")))
    return data


def read_amount(value: object, lang: str) -> Decimal:
    """A money field: a JSON number as it is, text as people of *lang* write amounts
    (:func:`~andar_bahar.engine.money.parse_stake`: ``1,000`` is a thousand in English,
    refused in Russian as it could be one).

    >>> read_amount("1,000", "en"), read_amount(Decimal("1.000"), "ru"), read_amount(7, "ka")
    (Decimal('1000'), Decimal('1.000'), Decimal('7'))
    """
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return parse_stake(value)
    return parse_stake("" if value is None else str(value), lang=lang)


MAX_FIELDS = 1000
"""The most fields a posted form may have (Starlette's own limit)."""
_URLENCODED = "application/x-www-form-urlencoded"


async def posted(request: Request) -> dict[str, str]:
    """The text fields of a posted form (a name sent twice: its last value), for the
    table's busiest routes — a bet, a dealer's step — as a dependency (``Depends``).

    What the pages send (``x-www-form-urlencoded``) is read as Starlette reads it, without
    building FastAPI's model of the form (its ``solve_dependencies`` was 2.6 % of the
    server's Python CPU in a saturated profile); a multipart form goes through Starlette's
    reader. A field is then taken with :func:`field`.
    """
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind == _URLENCODED:
        body = (await request.body()).decode("latin-1")
        try:
            return dict(parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FIELDS))
        except ValueError:  # more fields than that
            raise _missing("*") from None
    form = await request.form(max_fields=MAX_FIELDS)
    try:
        return {name: value for name, value in form.multi_items() if isinstance(value, str)}
    finally:
        await form.close()


Posted = Annotated[dict[str, str], Depends(posted)]
"""A route's parameter: the posted form's text fields (:func:`posted`)."""


def field(fields: Mapping[str, str], name: str, default: str | None = None) -> str:
    """Field *name* of a :func:`posted` form; missing without a *default*, the request is
    answered as FastAPI answers a missing form field (422, the field named).

    >>> field({"bet": "andar"}, "bet"), field({}, "card", "")
    ('andar', '')
    """
    value = fields.get(name, default)
    if value is None:
        raise _missing(name)
    return value


def _missing(name: str) -> RequestValidationError:
    return RequestValidationError(
        [{"type": "missing", "loc": ("body", name), "msg": "Field required", "input": None}]
    )


T = TypeVar("T")

_KEPT: dict[tuple[object, int], tuple[Paytable, Any]] = {}
"""What :func:`per_paytable` worked out, by what and the paytable object (kept with it, so
that its id stays its own)."""


def per_paytable(make: Callable[[Paytable], T], paytable: Paytable) -> T:
    """``make(paytable)``, worked out once per paytable object (a paytable holds dicts, so it
    cannot be a key itself; the table pages ask for the same one with every block)."""
    key = (make, id(paytable))
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is paytable:
        return cast(T, kept[1])
    if len(_KEPT) >= 256:
        _KEPT.clear()
    made = make(paytable)
    _KEPT[key] = (paytable, made)
    return made


def paytable_rows(paytable: Paytable) -> list[tuple[Bet, Odds | Message]]:
    """Every bet of *paytable* with what it pays, as the pages list them (worked out once
    per paytable object: every block of the table pages asks)."""
    return list(per_paytable(_paytable_rows, paytable))


def _paytable_rows(paytable: Paytable) -> list[tuple[Bet, Odds | Message]]:
    rows: list[tuple[Bet, Odds | Message]] = []
    for bet in paytable.bets:
        if isinstance(bet, MainBet) and paytable.keyed_by is MainKey.FIRST_ROW:
            first, second = paytable.main
            rows.append(
                (
                    bet,
                    Message(
                        N_("{first} if dealt first, else {second}"), first=first, second=second
                    ),
                )
            )
        else:
            rows.append((bet, paytable.odds_for(bet, first_row=Row.ANDAR)))
    return rows


def procedure_choices() -> dict[str, Any]:
    return {
        "procedures": PROCEDURES,
        "paytables": PAYTABLES,
        "starts": list(StartRule),
        "targets": list(TargetMode),
        "windows": list(BetWindow),
    }


def procedure_from_form(name: str, start: str, target: str, window: str) -> Procedure:
    if name not in PROCEDURES:
        raise ParameterError(
            Message(
                N_("Unknown procedure '{name}': choose one of {names}."),
                name=name,
                names=", ".join(PROCEDURES),
            )
        )
    changes: dict[str, object] = {}
    for field, value, kind in (
        ("start", start, StartRule),
        ("target", target, TargetMode),
        ("window", window, BetWindow),
    ):
        if value:
            choices = [member.value for member in kind]
            if value not in choices:
                raise ParameterError(
                    Message(
                        N_("'{value}' is not one of {choices}."),
                        value=value,
                        choices=", ".join(choices),
                    )
                )
            changes[field] = kind(value)
    rules = PROCEDURES[name]
    return rules.replace(**changes) if changes else rules


async def paytable_from_form(name: str, upload: UploadFile | None) -> Paytable:
    """A preset, or a club's TOML file when one is uploaded (validated, errors name the entry)."""
    if upload is not None and upload.filename:
        content = await upload.read(MAX_UPLOAD + 1)
        if len(content) > MAX_UPLOAD:
            raise PaytableError(Message(N_("The paytable file is too large: at most 64 KiB.")))
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise PaytableError(
                Message(N_("The file {file} is not UTF-8 text."), file=upload.filename)
            ) from None
        return load_paytable(text, source=upload.filename)
    return find_paytable(name)


def whole_number(text: str, field: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ParameterError(
            Message(N_("'{field}' must be a whole number, not '{text}'."), field=field, text=text)
        ) from None


def true_or_false(data: dict[str, Any], field: str) -> bool:
    """A JSON field that is ``true`` or ``false`` (missing: false), never a text that looks so.

    >>> true_or_false({"physical": True}, "physical"), true_or_false({}, "physical")
    (True, False)
    >>> true_or_false({"physical": Decimal("1.5")}, "physical")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ParameterError: 'physical' must be true or false, not 1.5.
    """
    value = data.get(field, False)
    if not isinstance(value, bool):
        raise ParameterError(
            Message(N_("'{field}' must be true or false, not {value}."), field=field,
                    value=value if isinstance(value, Decimal) else json.dumps(value))
        )  # fmt: skip
    return value
