"""Procedures (SPEC §5)."""

from __future__ import annotations

import pytest

from andar_bahar.engine.cards import Card
from andar_bahar.engine.errors import ProcedureError
from andar_bahar.engine.rules import (
    PROCEDURES,
    BetWindow,
    Procedure,
    Row,
    StartRule,
    TargetMode,
    find_procedure,
    load_procedure,
)


def test_presets_of_the_spec() -> None:
    # SPEC §5: classic = andar start, centre card, bets after the centre, trainer-default
    classic = find_procedure("classic")
    assert (classic.start, classic.target, classic.window, classic.paytable) == (
        StartRule.ANDAR,
        TargetMode.CENTRE_CARD,
        BetWindow.AFTER_CENTRE,
        "trainer-default",
    )
    # SPEC §5: home = centre-colour start, centre card, markers only, 10 rounds
    home = find_procedure("HOME")
    assert home.start is StartRule.CENTRE_COLOUR
    assert home.markers_only and home.rounds == 10


@pytest.mark.parametrize(
    ("start", "centre", "first", "expected"),
    [
        (StartRule.ANDAR, "Q♥", "2♦", Row.ANDAR),
        (StartRule.CENTRE_COLOUR, "Q♥", "2♠", Row.BAHAR),  # seed 000 §03/§05: red → Bahar
        (StartRule.CENTRE_COLOUR, "8♣", "2♦", Row.ANDAR),  # black → Andar
        (StartRule.FIRST_CARD_COLOUR, "Q♥", "2♠", Row.ANDAR),  # seed 000 §06
        (StartRule.FIRST_CARD_COLOUR, "Q♠", "2♦", Row.BAHAR),
    ],
)
def test_first_row_under_each_start_rule(
    start: StartRule, centre: str, first: str, expected: Row
) -> None:
    procedure = Procedure("p", start=start)
    assert procedure.first_row(centre=Card.parse(centre), first_card=Card.parse(first)) is expected


def test_centre_colour_with_chosen_rank_is_refused() -> None:
    # SPEC §5: "centre-colour is meaningless here and must be refused with a clear error"
    with pytest.raises(ProcedureError, match="needs a centre card"):
        find_procedure("classic").replace(
            start=StartRule.CENTRE_COLOUR, target=TargetMode.CHOSEN_RANK
        )


def test_unknown_preset_lists_the_names() -> None:
    with pytest.raises(ProcedureError) as caught:
        find_procedure("katti")
    for name in PROCEDURES:
        assert name in str(caught.value)


def test_club_procedure_from_toml_round_trips() -> None:
    text = 'name = "club"\nstart = "first-card-colour"\nwindow = "before-centre"\nrounds = 12\n'
    procedure = load_procedure(text, source="club.toml")
    assert procedure == Procedure(
        "club", start=StartRule.FIRST_CARD_COLOUR, window=BetWindow.BEFORE_CENTRE, rounds=12
    )
    assert Procedure.from_dict(procedure.to_dict()) == procedure


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('name = "c"\ncolour = "red"\n', "club.toml: unknown field 'colour'"),
        ('start = "andar"\n', "club.toml: the field 'name' is missing"),
        ('name = "c"\ntarget = "joker"\n', "field 'target' is 'joker'"),
        ('name = "c"\nrounds = "ten"\n', "field 'rounds' must be a whole number"),
        ('name = "c"\nrounds = 0\n', "rounds must be between 1 and 1000"),
        ('name = "c"\nstart = \n', "club.toml is not valid TOML"),
    ],
)
def test_bad_procedure_files_name_the_file_and_field(text: str, fragment: str) -> None:
    with pytest.raises(ProcedureError) as caught:
        load_procedure(text, source="club.toml")
    assert fragment in str(caught.value)


def test_chosen_rank_has_no_before_centre_window() -> None:
    # There is no centre card: bets close at the first dealt card either way.
    p = Procedure("m", target=TargetMode.CHOSEN_RANK, window=BetWindow.BEFORE_CENTRE)
    assert p.window is BetWindow.AFTER_CENTRE
