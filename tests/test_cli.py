"""The command line contract (issue 2): forms, JSON fields, errors, languages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from andar_bahar.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"LANG": "C", "LANGUAGE": ""})
    return result.exit_code, result.stdout, result.stderr


def test_deal_json_has_the_contract_fields() -> None:
    code, out, _ = run("deal", "--seed", "7", "--format", "json")
    assert code == 0
    data = json.loads(out)
    for key in ("procedure", "centre", "andar", "bahar", "first_side", "winner", "cards_dealt"):
        assert key in data
    assert data["cards_dealt"] == len(data["andar"]) + len(data["bahar"])
    assert data["winner"] in ("andar", "bahar")


def test_deal_is_reproducible_from_a_seed() -> None:
    assert run("deal", "--seed", "11")[1] == run("deal", "--seed", "11")[1]


def test_deal_stacked_seed_000_example(golden) -> None:
    # Seed 000 §05: centre Q♥ under the colour rule → Bahar first; Bahar wins with 3 cards.
    code, out, _ = run("deal", "--procedure", "home", "--cards", "Q♥ 4♣ 7♦ Q♠", "--format", "json")
    data = json.loads(out)
    assert (data["first_side"], data["winner"], data["cards_dealt"]) == ("bahar", "bahar", 3)
    assert data["bahar"] == ["4♣", "Q♠"] and data["andar"] == ["7♦"]
    code, out, _ = run("deal", "--procedure", "home", "--cards", "Q♥ 4♣ 7♦ Q♠")
    assert code == 0
    golden("deal_home_q_hearts.en.txt", out)


@pytest.mark.parametrize("lang", ["ru", "ka"])
def test_deal_speaks_russian_and_georgian(lang: str, golden) -> None:
    code, out, _ = run("deal", "--procedure", "home", "--cards", "Q♥ 4♣ 7♦ Q♠", "--lang", lang)
    assert code == 0
    golden(f"deal_home_q_hearts.{lang}.txt", out)
    assert "Bahar" not in out and "Andar" not in out


def test_chosen_rank_deal_with_a_target() -> None:
    code, out, _ = run(
        "deal", "--procedure", "mangatha", "--target", "7", "--seed", "2", "--format", "json"
    )
    data = json.loads(out)
    assert code == 0 and data["target"] == "7" and "centre" not in data


def test_overrides_apply_and_are_checked() -> None:
    code, out, _ = run(
        "deal", "--cards", "Q♥ 4♣ 7♦ Q♠", "--start", "centre-colour", "--format", "json"
    )
    assert json.loads(out)["first_side"] == "bahar"
    code, _, err = run("deal", "--start", "centre-colour", "--target-mode", "chosen-rank")
    assert code == 2 and "needs a centre card" in err


def test_settle_seed_001_example_3_json() -> None:
    # Seed 001 example 3: 7 cards → Andar; 120 on Andar wins 108, 100 on 6–10 wins 350.
    code, out, _ = run(
        "settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥",
        "--bet", "andar=120", "--bet", "cards:6-10=100", "--bet", "bahar=50", "--format", "json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["winner"] == "andar" and data["cards_dealt"] == 7
    assert data["bets"][0] == {
        "player": "player", "bet": "andar", "stake": "120", "pays": "0.9 to 1", "outcome": "win",
        "win": "108", "returned": "228",
    }  # fmt: skip
    assert data["bets"][1]["win"] == "350"
    assert data["bets"][2]["outcome"] == "lose"
    assert data["total_win"] == "458" and data["total_returned"] == "678"


def test_settle_text_shows_the_pay_golden(golden) -> None:
    code, out, _ = run(
        "settle", "--paytable", "trainer-default", "--cards", "K♦ 2♠ K♣",
        "--bet", "bahar=100", "--bet", "cards:1-5=100", "--bet", "andar=15",
    )  # fmt: skip
    assert code == 0
    golden("settle_trainer_default.en.txt", out)


BAD_INPUT = [
    (("deal", "--cards", "Z♥ 2♠"), "Unknown card 'Z♥'"),
    (("deal", "--cards", "Q♥ 2♠ Q♥"), "Card Q♥ appears more than once"),
    (("deal", "--procedure", "casino"), "Unknown procedure 'casino'"),
    (("deal", "--target", "7"), "--target is for the target mode 'chosen-rank'"),
    (
        ("settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 5♥", "--bet", "andar=-5"),
        "must be greater than zero",
    ),
    (
        ("settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 5♥", "--bet", "andar=abc"),
        "is not a number",
    ),
    (("settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 5♥", "--bet", "andar"), "BET=STAKE"),
    (("settle", "--paytable", "vegas", "--cards", "5♠ 5♥", "--bet", "andar=1"), "vegas"),
    (
        ("settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 3♥", "--bet", "andar=1"),
        "end without a match",
    ),
    (
        ("settle", "--paytable", "wizard", "--cards", "5♠ 5♥ 2♦", "--bet", "andar=1"),
        "comes after the match",
    ),
    (("paytable", "show", "nowhere.toml"), "does not exist"),
]


@pytest.mark.parametrize(("args", "fragment"), BAD_INPUT)
def test_bad_input_is_one_sentence_with_no_traceback(args: tuple[str, ...], fragment: str) -> None:
    code, out, err = run(*args)
    assert code != 0
    assert fragment in err
    assert "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_paytable_check_lists_problems(tmp_path: Path) -> None:
    club = tmp_path / "club.toml"
    club.write_text(
        'name = "club"\nodds = 1\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n'
        '[[cards]]\nrange = "1-5"\npays = "3 to 1"\n[[cards]]\nrange = "3-8"\npays = "4 to 1"\n',
        encoding="utf-8",
    )
    code, out, err = run("paytable", "check", str(club))
    assert code == 1
    assert f"{club}, odds: unknown field 'odds'" in err
    assert f"{club}, cards[2]: the band 3–8 overlaps the band 1–5." in err
    good = tmp_path / "good.toml"
    code, out, _ = run("paytable", "show", "wizard", "--format", "toml")
    good.write_text(out, encoding="utf-8")
    code, out, _ = run("paytable", "check", str(good))
    assert code == 0 and "valid" in out
    code, out, _ = run("settle", "--paytable", str(good), "--cards", "5♠ 5♥", "--bet", "andar=10")
    assert code == 0


def test_paytable_show_presets(golden) -> None:
    code, out, _ = run("paytable", "show", "wizard")
    assert code == 0
    golden("paytable_wizard.en.txt", out)
    code, out, _ = run("paytable", "show", "andar-0.95", "--format", "json")
    assert json.loads(out)["main"] == {"andar": "0.95 to 1", "bahar": "1 to 1"}


def test_console_script_exits_cleanly_on_bad_input() -> None:
    # the real entry point, as a user runs it: one sentence, exit 2, no traceback
    result = subprocess.run(
        [sys.executable, "-m", "andar_bahar", "deal", "--cards", "Z♥"],
        capture_output=True, text=True, env={"LANG": "C", "PATH": ""}, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip().startswith("Unknown card 'Z♥'")
    assert "Traceback" not in result.stderr


def test_no_arguments_shows_what_there_is_to_do() -> None:
    result = runner.invoke(app, [])
    assert "deal" in result.stdout and "settle" in result.stdout


# -- issue 13: a whole table's bets, added per spot -----------------------------------------------


def test_settle_a_whole_tables_bets_added_per_spot() -> None:
    # Seed 001 example 3's round (7 cards, Andar) under wizard; by hand: asha 100 + 50 on
    # Andar = 150 × 0.9 = 135; 100 on 6–10 × 3.5 = 350; ravi 20 on Bahar loses; ravi's
    # 3 + 2 on 41+ (also written cards:41-49) = 5, loses; ravi 5 on 6–10 × 3.5 = 17.5 → 17.
    code, out, err = run(
        "settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥",
        "--bet", "asha:andar=100", "--bet", "asha:ANDAR=50", "--bet", "asha:cards:6–10=100",
        "--bet", "ravi:bahar=20", "--bet", "ravi:41+=3", "--bet", "ravi:cards:41-49=2",
        "--bet", "ravi:6-10=5", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    bets = {(b["player"], b["bet"]): (b["stake"], b["win"]) for b in data["bets"]}
    assert bets == {
        ("asha", "andar"): ("150", "135"),
        ("asha", "cards:6-10"): ("100", "350"),
        ("ravi", "bahar"): ("20", "0"),
        ("ravi", "cards:41-49"): ("5", "0"),
        ("ravi", "cards:6-10"): ("5", "17"),
    }
    assert data["players"]["asha"] == {"stake": "250", "win": "485", "returned": "735"}
    assert data["players"]["ravi"]["returned"] == "22"
    assert data["added"] == [
        {"player": "asha", "bet": "andar", "stakes": ["100", "50"], "total": "150"},
        {"player": "ravi", "bet": "cards:41-49", "stakes": ["3", "2"], "total": "5"},
    ]


def test_settle_says_when_bets_were_added_together() -> None:
    # the report: --bet andar=100 --bet andar=50 is 150 on Andar, said so
    code, out, _ = run(
        "settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥",
        "--bet", "andar=100", "--bet", "andar=50",
    )  # fmt: skip
    assert code == 0
    # one player, named by nobody: the note names no one (review of issue 13)
    assert "\nThe bets on Andar were added together: 100 + 50 = 150." in out
    assert "player:" not in out
    assert "150    0.9 to 1  wins     135" in out


def test_an_unnamed_player_is_called_so_in_the_users_language() -> None:
    # Review of issue 13: the default name "player" was English in ru/ka screens.
    cards = "5♠ 2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥"
    code, out, _ = run(
        "settle", "--paytable", "wizard", "--cards", cards, "--lang", "ru",
        "--bet", "andar=100", "--bet", "andar=50", "--bet", "ravi:bahar=5",
    )  # fmt: skip
    assert code == 0
    assert "игрок: ставки на «Андар» сложены: 100 + 50 = 150." in out
    assert "player" not in out
    code, out, _ = run(
        "settle", "--paytable", "wizard", "--cards", cards, "--lang", "ru",
        "--bet", "andar=100", "--bet", "andar=50",
    )  # fmt: skip
    assert "Ставки на «Андар» сложены: 100 + 50 = 150." in out
    # JSON is for programs: the name stays the documented "player"
    code, out, _ = run(
        "settle", "--paytable", "wizard", "--cards", cards, "--lang", "ru", "--format", "json",
        "--bet", "andar=100",
    )  # fmt: skip
    assert json.loads(out)["bets"][0]["player"] == "player"


BAD_OPTION_VALUES = [
    ("deal", "--start", "left"),
    ("deal", "--window", "never"),
    ("deal", "--target-mode", "joker"),
    ("odds", "--format", "xml"),
    ("deal", "--seed", "abc"),
    ("simulate", "--rounds", "many"),
    ("serve", "--port", "0"),
    ("deal", "--lang", "fr"),
    ("deal", "--seed"),
    ("deal", "--bogus"),
    ("deal", "--sed", "3"),
    ("deal", "surplus"),
    ("frobnicate",),
    ("settle", "--cards", "5♠ 5♥"),
    ("paytable", "show"),
    ("paytable", "design", "--odds-style", "as-written"),
    ("sessions", "--system", "fibonacci"),
    ("fairness", "--source", "dice"),
]


@pytest.mark.parametrize("args", BAD_OPTION_VALUES, ids=" ".join)
def test_every_bad_option_value_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    # Issue 13, item 7: Typer/Click usage errors too — no usage box, no traceback.
    code, out, err = run(*args)
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Usage:" not in err and "Traceback" not in err and "╭" not in err


def test_a_bad_option_value_names_the_choices_in_the_users_language() -> None:
    assert run("deal", "--start", "left")[2].strip() == (
        "--start cannot be 'left': choose one of andar, centre-colour, first-card-colour."
    )
    assert run("deal", "--seed", "abc")[2].strip() == "--seed must be a whole number, not 'abc'."
    russian = run("deal", "--window", "never", "--lang", "ru")[2].strip()
    assert (
        russian == "--window не может быть 'never': выберите одно из before-centre, after-centre."
    )


def test_an_option_without_its_value_points_to_its_own_commands_help() -> None:
    # Review of issue 13: Click raises these before the command's context exists, and the
    # sentence pointed to the root's help; "--version=3" was said to need a value.
    assert run("deal", "--seed")[2].strip() == "--seed needs a value (see andar-bahar deal --help)."
    assert run("paytable", "design", "--edge")[2].strip() == (
        "--edge needs a value (see andar-bahar paytable design --help)."
    )
    code, _, err = run("--version=3")
    assert code == 2
    assert err.strip() == "--version takes no value (see andar-bahar --help)."


def test_a_changed_procedure_is_not_called_by_the_presets_name() -> None:
    code, out, _ = run("deal", "--seed", "1", "--start", "first-card-colour", "--format", "json")
    assert code == 0
    assert json.loads(out)["procedure"] == "classic --start first-card-colour"


def test_paytable_check_lists_at_most_twenty_problems(tmp_path: Path) -> None:
    # 1,500 bands with unreadable pays: 1,500 problems, of which 20 are listed, then a count
    club = tmp_path / "many.toml"
    bands = "".join(f'[[cards]]\nrange = "1-5"\npays = "x{i}"\n' for i in range(1500))
    club.write_text(f'name = "x"\n[main]\nandar = "1"\nbahar = "1"\n{bands}', encoding="utf-8")
    code, out, err = run("paytable", "check", str(club))
    lines = err.splitlines()
    assert code == 1 and out == "" and len(lines) == 21
    assert (
        lines[0]
        == f"{club}, cards[1]: The odds 'x0' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."
    )
    assert lines[-1] == "… and 1480 more problems."


def test_a_club_file_over_64_kib_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text('name = "x"\n' + "# padding\n" * 7000, encoding="utf-8")  # 70,011 bytes
    assert big.stat().st_size > 64 * 1024
    for args in (("paytable", "check", str(big)), ("odds", "--procedure", str(big))):
        code, _, err = run(*args)
        assert code == 2 and err == f"{big} is too large for a club's file: at most 64 KiB.\n"


def test_settle_writes_each_number_one_way() -> None:
    # the table groups thousands (6,000): the note on added bets says 1,000 + 5,000 = 6,000
    args = ("settle", "--paytable", "wizard", "--cards", "Q♥ 4♣ 7♦ Q♠")
    code, out, _ = run(*args, "--bet", "andar=1000", "--bet", "andar=5000")
    assert code == 0 and "Andar  6,000" in out
    assert "The bets on Andar were added together: 1,000 + 5,000 = 6,000." in out
    code, out, _ = run(*args, "--bet", "andar=1000", "--bet", "andar=5000", "--lang", "ru")
    assert "1\xa0000 + 5\xa0000 = 6\xa0000." in out and "Андар   6\xa0000" in out


def test_a_whole_number_option_in_other_digits_is_one_sentence() -> None:
    # Click's int() would read ١٠ as 10; the command line reads the digits 0 to 9 only
    code, _, err = run("simulate", "--rounds", "١٠", "--engine", "outcomes")
    assert code == 2 and err == "--rounds must be a whole number, not '١٠'.\n"
