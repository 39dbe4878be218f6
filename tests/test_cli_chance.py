"""The odds, simulate and sessions commands (issue 3's command-line contract)."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from andar_bahar.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"LANG": "C", "LANGUAGE": ""})
    return result.exit_code, result.stdout, result.stderr


def test_odds_json_contract() -> None:
    code, out, _ = run("odds", "--procedure", "classic", "--paytable", "wizard", "--format", "json")
    assert code == 0
    data = json.loads(out)
    andar = data["bets"][0]
    assert set(andar) == {
        "bet", "given", "probability", "pays", "expected_return", "house_edge", "player_advantage",
        "variance", "standard_deviation", "hit_every",
    }  # fmt: skip
    # Exact values (issue 3): P(Andar) = 429/833; house edge of 0.9 to 1 = 179/8330.
    assert andar["bet"] == "andar" and andar["given"] is None
    assert andar["probability"] == "429/833" and andar["house_edge"] == "179/8330"
    assert andar["player_advantage"] is False
    assert [b["bet"] for b in data["bets"]][2:4] == ["cards:1-5", "cards:6-10"]
    dealt = {int(k): Fraction(v) for k, v in data["cards_dealt"].items()}
    assert sum(dealt.values()) == 1 and max(dealt) == 49
    assert sum(k * p for k, p in dealt.items()) == 13


def test_odds_gives_each_centre_colour_when_it_matters() -> None:
    code, out, _ = run("odds", "--procedure", "home", "--paytable", "wizard", "--format", "json")
    bets = json.loads(out)["bets"]
    given = {(b["bet"], b["given"]): b for b in bets}
    # colour start, black centre → Andar first: 429/833 (the classic figure)
    assert given[("andar", "centre:black")]["probability"] == "429/833"
    assert given[("bahar", "centre:red")]["player_advantage"] is True
    # before the centre card the colour is unknown: only the overall odds
    code, out, _ = run(
        "odds", "--procedure", "home", "--window", "before-centre", "--format", "json"
    )
    assert code == 0
    assert all(b["given"] is None for b in json.loads(out)["bets"])


def test_odds_table_marks_player_favourable_bets(golden) -> None:
    code, out, _ = run("odds", "--procedure", "home", "--paytable", "trainer-default")
    assert code == 0
    assert "◀ player's edge" in out and "Warning:" in out
    golden("odds_home_trainer_default.en.txt", out)


def test_odds_csv_has_the_json_fields() -> None:
    code, out, _ = run("odds", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["bet"] == "andar" and rows[0]["probability"] == "429/833"


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_odds_plot_writes_a_chart(tmp_path: Path, suffix: str) -> None:
    chart = tmp_path / f"odds.{suffix}"
    code, _, err = run("odds", "--plot", str(chart), "--lang", "ka")
    assert code == 0, err
    assert chart.stat().st_size > 10_000
    if suffix == "svg":
        text = chart.read_text(encoding="utf-8")
        assert "<svg" in text


def test_simulate_json_reports_exact_beside_simulated() -> None:
    code, out, _ = run(
        "simulate", "--rounds", "200000", "--seed", "4", "--jobs", "1", "--format", "json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["rounds"] == 200000 and data["seed"] == 4 and data["engine"].startswith("cards")
    andar = data["bets"][0]
    assert andar["exact_return"] == "-179/8330"
    assert abs(float(andar["z_score"])) < 4
    again = run("simulate", "--rounds", "200000", "--seed", "4", "--jobs", "1", "--format", "json")
    assert again[1] == out


def test_sessions_study(tmp_path: Path) -> None:
    chart = tmp_path / "sessions.png"
    code, out, err = run(
        "sessions", "--system", "martingale", "--bankroll", "50", "--stake", "1",
        "--rounds", "100", "--sessions", "2000", "--seed", "3", "--plot", str(chart),
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert 0 < Fraction(data["ruin_probability"]) < 1
    assert data["engine"].startswith("outcomes")
    assert chart.stat().st_size > 10_000


BAD_INPUT = [
    (("odds", "--procedure", "casino"), "Unknown procedure 'casino'"),
    (("odds", "--paytable", "nowhere.toml"), "does not exist"),
    (("odds", "--plot", "chart.pdf"), "must end in .png or .svg"),
    (("simulate", "--rounds", "0"), "--rounds must be at least 1"),
    (("simulate", "--rounds", "10", "--jobs", "-1"), "--jobs must be at least 1"),
    (("sessions", "--bankroll", "0"), "--bankroll"),
    (("sessions", "--stake", "abc"), "is not a number"),
    (("sessions", "--bet", "cards:2-3"), "has no bet cards:2-3"),
]


@pytest.mark.parametrize(("args", "fragment"), BAD_INPUT)
def test_bad_input_is_one_sentence(args: tuple[str, ...], fragment: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err + out


def test_a_paytable_file_with_errors_is_one_sentence(tmp_path: Path) -> None:
    club = tmp_path / "club.toml"
    club.write_text('name = "c"\n[main]\nandar = "0 to 1"\nbahar = "1 to 1"\n', encoding="utf-8")
    code, _, err = run("odds", "--paytable", str(club))
    assert code == 2
    assert f"{club}, main.andar: The odds '0 to 1' must be greater than zero." in err


# -- issue 13 ------------------------------------------------------------------------------------


def test_odds_at_a_stake_and_the_rounding_warnings() -> None:
    code, out, _ = run("odds", "--paytable", "wizard", "--stake", "5", "--format", "json")
    assert code == 0
    data = json.loads(out)
    andar = data["bets"][0]["at_stake"]
    # 5 × 0.9 = 4.5, paid 4: 429/833 × 4/5 − 404/833 = −304/4165 (7.30 %)
    assert andar == {
        "stake": "5", "expected_return": "-304/4165", "house_edge": "304/4165",
        "player_advantage": False, "pays_nothing": False,
    }  # fmt: skip
    assert data["rounding"]["recommended_min"] == "2"  # 1 × 0.9 rounded down pays nothing
    code, text, _ = run("odds", "--paytable", "wizard", "--stake", "1")
    assert "At a stake of 1 (wins rounded down to the chip, chip 1):" in text
    assert "◀ a win can pay nothing" in text
    assert "Set the table minimum ([limits] min) to 2 or more" in text


def test_odds_stake_must_be_whole_chips() -> None:
    code, _, err = run("odds", "--stake", "2.5")
    assert code == 2 and "not a whole number of chips" in err


def test_paytable_check_warns_about_rounding(tmp_path: Path) -> None:
    club = tmp_path / "club.toml"
    club.write_text(
        'name = "up"\nrounding = "up"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        encoding="utf-8",
    )
    code, out, _ = run("paytable", "check", str(club))
    assert code == 0
    assert "at stakes of 1–9, 18–19 the player has the edge on Andar" in out
    assert "Set the table minimum ([limits] min) to 20 or more" in out


def test_exactly_fair_bets_are_not_called_the_houses() -> None:
    # home before the centre: Bahar at 1 to 1 wins exactly 1/2 (issue 13's wording fix)
    code, out, _ = run(
        "odds", "--procedure", "home", "--window", "before-centre", "--paytable", "wizard"
    )
    assert code == 0
    assert "No bet favours the player; Bahar is exactly fair (no edge either way)" in out
    assert "the house has the edge on every bet" not in out


def test_a_table_of_fair_bets_only_gives_no_one_the_edge(tmp_path: Path) -> None:
    # Review of issue 13: both rows at 1 to 1 before the centre card is seen under the
    # colour start win exactly 1/2 each (docs/odds.md): every bet is fair, there are no
    # "others" for the house to have the edge on; two fair bets are joined with "and".
    fair = tmp_path / "fair.toml"
    fair.write_text('name = "fair"\n[main]\nandar = "1 to 1"\nbahar = "1 to 1"\n', "utf-8")
    args = ("odds", "--procedure", "home", "--window", "before-centre", "--paytable")
    code, out, _ = run(*args, str(fair))
    assert code == 0
    assert out.strip().splitlines()[-1] == (
        "No bet favours the player or the house: every bet is exactly fair."
    )
    fair.write_text(
        fair.read_text("utf-8") + '[[cards]]\nrange = "1-5"\npays = "2 to 1"\n', "utf-8"
    )
    code, out, _ = run(*args, str(fair), "--lang", "ru")
    assert "ставки Андар и Бахар точно справедливы" in out


def test_chosen_rank_odds_do_not_speak_of_a_centre() -> None:
    code, out, _ = run("odds", "--procedure", "mangatha")
    assert code == 0 and "any round" in out and "any centre" not in out


def test_the_engine_is_named_by_its_option_value_in_every_language() -> None:
    # Review of issue 13: "движок: outcomes (exact distribution, integer weights)" left
    # English in the Russian and Georgian reports; the engine is named as --engine names it.
    code, out, _ = run(
        "simulate", "--rounds", "1000", "--engine", "outcomes", "--seed", "1", "--jobs", "1",
        "--lang", "ru",
    )  # fmt: skip
    assert code == 0
    assert "Раундов: 1000, зерно 1, движок: outcomes\n" in out


def test_odds_csv_carries_the_stake_too() -> None:
    # Review of issue 13: `odds --format csv --stake 5` dropped the stake without a word.
    # 5 × 0.9 = 4.5, paid 4: 429/833 × 4/5 − 404/833 = −304/4165 (as in the JSON test above)
    code, out, _ = run("odds", "--paytable", "wizard", "--stake", "5", "--format", "csv")
    assert code == 0
    andar = next(csv.DictReader(io.StringIO(out)))
    assert (andar["bet"], andar["at_stake_stake"], andar["at_stake_house_edge"]) == (
        "andar", "5", "304/4165",
    )  # fmt: skip
    assert andar["at_stake_pays_nothing"] == "false" and andar["player_advantage"] == "false"
    code, out, _ = run("odds", "--paytable", "wizard", "--format", "csv")
    assert "at_stake" not in out.splitlines()[0]


def test_rounding_warns_on_every_bet_whatever_its_exact_odds() -> None:
    # The figure: andar-0.95 under classic gave no rounding warning in JSON though
    # a 1-chip Andar win (0.95 rounded down) pays nothing: 404/833 = 48.50 % at a stake of 1.
    result = runner.invoke(app, ["odds", "--paytable", "andar-0.95", "--format", "json"])
    warnings = json.loads(result.stdout)["rounding"]["warnings"]
    assert warnings[0] == (
        "Rounding: a winning bet on Andar can be paid nothing at a stake of 1 (wins rounded"
        " down to the chip, chip 1)."
    )
    assert warnings[1].startswith(
        "Rounding: at stakes of 18–20, 35–40, 52–60, 69–80, 86–100, 103 or more the player"
        " has the edge on Andar"
    )
    result = runner.invoke(
        app, ["odds", "--paytable", "andar-0.95", "--stake", "1", "--format", "json"]
    )
    andar = json.loads(result.stdout)["bets"][0]["at_stake"]
    assert andar["house_edge"] == "404/833" and andar["pays_nothing"] is True


def test_odds_at_a_stake_outside_the_limits_says_so(tmp_path: Path) -> None:
    club = tmp_path / "club.toml"
    club.write_text(
        'name = "club"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n'
        '[limits]\nmin = "20"\nmax = "500"\n',
        encoding="utf-8",
    )
    for stake, said in (
        ("5", "The stake 5 is below the table minimum of 20."),
        ("600", "The stake 600 is above the table maximum of 500."),
    ):
        result = runner.invoke(app, ["odds", "--paytable", str(club), "--stake", stake])
        assert result.exit_code == 0 and said in result.stdout.splitlines()
        result = runner.invoke(
            app, ["odds", "--paytable", str(club), "--stake", stake, "--format", "json"]
        )
        data = json.loads(result.stdout)
        assert (data["stake_allowed"], data["stake_warning"]) == (False, said)
    result = runner.invoke(
        app, ["odds", "--paytable", str(club), "--stake", "20", "--format", "json"]
    )
    assert json.loads(result.stdout)["stake_allowed"] is True
