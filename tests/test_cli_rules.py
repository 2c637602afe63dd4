"""The CLI's rule options: ``--rules PRESET`` and one switch per setting, with their errors."""

from __future__ import annotations

import pytest

from tests.test_cli import assert_refused, run, run_json

FIRST_TURN_WITH_JOKER = ("solve", "--rack", "k10 k11 j", "--first-turn")  # 10 + 11 + joker(12) = 33
SAME_COLOUR_GROUP = ("check", "--table", "r5 r5 k5")
PRESSMAN_ROUND = ("score", "--players", "Ann", "Bob", "Cy", "--out", "Ann", "--rack", "Bob=r5 k7", "--rack", "Cy=j")


def scores(data: dict) -> list[int]:
    return [p["score"] for p in data["players"]]


def test_help_lists_every_switch_and_the_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--help")
    assert code == 0
    text = " ".join(out.split())
    for switch in ("--rules", "--threshold", "--jokers", "--starting-tiles", "--joker-penalty",
                   "--joker-in-opening", "--no-joker-in-opening", "--distinct-group-colours",
                   "--repeated-group-colours", "--pool-out", "--unmelded", "--not-melded"):
        assert switch in text, switch
    assert "pressman-1998: Pressman 1998 (American rules)" in text
    assert "european: European box rules" in text
    assert "each-player: pays their rack total to each other player" in text


def test_jokers_in_the_initial_meld(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys, *FIRST_TURN_WITH_JOKER)["tiles_placed"] == 3
    assert run_json(capsys, *FIRST_TURN_WITH_JOKER, "--no-joker-in-opening")["action"] == "draw"
    assert run_json(capsys, *FIRST_TURN_WITH_JOKER, "--rules", "european")["action"] == "draw"
    assert run_json(capsys, *FIRST_TURN_WITH_JOKER, "--rules", "european", "--joker-in-opening")["tiles_placed"] == 3


def test_the_move_names_the_rules_it_was_found_under(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, *FIRST_TURN_WITH_JOKER, "--rules", "european")
    assert out.splitlines()[-1] == (
        "Rules: European box rules · initial meld 30 · 2 jokers · no jokers in the initial meld"
    )
    _, out, _ = run(capsys, *FIRST_TURN_WITH_JOKER, "--threshold", "40", "--lang", "uk")
    assert out.splitlines()[-1] == "Правила: Власні · перший вихід 40 · джокерів: 2"


def test_group_colours(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, *SAME_COLOUR_GROUP)[0] == 1
    assert run(capsys, *SAME_COLOUR_GROUP, "--repeated-group-colours")[0] == 0
    assert run(capsys, *SAME_COLOUR_GROUP, "--rules", "repeated-colours")[0] == 0
    assert run(capsys, *SAME_COLOUR_GROUP, "--rules", "repeated-colours", "--distinct-group-colours")[0] == 1


def test_unmelded_scoring(capsys: pytest.CaptureFixture[str]) -> None:
    assert scores(run_json(capsys, *PRESSMAN_ROUND, "--not-melded", "Cy")) == [42, -12, -30]  # default
    data = run_json(capsys, *PRESSMAN_ROUND, "--not-melded", "Cy", "--unmelded", "pays-each-player")
    assert scores(data) == [42, 18, -60]
    assert data["unmelded_scoring"] == "pays-each-player" and data["rules"] == "pressman-1998"
    assert [p["made_initial_meld"] for p in data["players"]] == [True, True, False]
    assert scores(run_json(capsys, *PRESSMAN_ROUND, "--not-melded", "Cy", "--rules", "pressman-1998")) == [42, 18, -60]
    assert scores(run_json(capsys, *PRESSMAN_ROUND, "--rules", "pressman-1998")) == [42, -12, -30]  # all melded
    code, out, _ = run(capsys, *PRESSMAN_ROUND, "--not-melded", "Cy", "--rules", "pressman-1998")
    assert code == 0 and "Cy never made the initial meld: pays 30 to each other player." in out


def test_pool_out_switch_and_its_old_name(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("score", "--players", "A", "B", "--pool-exhausted", "--rack", "A=r12", "--rack", "B=k2 k3")
    assert scores(run_json(capsys, *argv)) == [-7, 7]
    assert scores(run_json(capsys, *argv, "--pool-out", "lowest-total-own-rack")) == [-12, 12]
    assert scores(run_json(capsys, *argv, "--pool-scoring", "fewest-tiles")) == [5, -5]


def test_starting_tiles_and_joker_penalty_name_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("score", "--players", "A", "B", "--out", "A", "--rack", "B=j")
    assert run_json(capsys, *argv, "--starting-tiles", "16")["rules"] == "sixteen-tiles"
    assert run_json(capsys, *argv, "--starting-tiles", "15")["rules"] == "custom"
    data = run_json(capsys, *argv, "--joker-penalty", "25")
    assert data["rules"] == "custom" and scores(data) == [25, -25]
    assert run_json(capsys, *argv, "--rules", "opening-50", "--threshold", "30")["rules"] == "standard"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("--rules", "house"), "invalid choice: 'house'"),
        (("--starting-tiles", "0"), "invalid rules: players start with at least one tile"),
        (("--starting-tiles", "many"), "not a whole number: 'many'"),
        (("--joker-penalty", "-5"), "must not be negative: -5"),
        (("--jokers", "-1"), "must not be negative: -1"),
        (("--pool-out", "coin"), "invalid choice: 'coin'"),
        (("--unmelded", "double"), "invalid choice: 'double'"),
        (("--joker-in-opening", "--no-joker-in-opening"), "not allowed with argument"),
        (("--distinct-group-colours", "--repeated-group-colours"), "not allowed with argument"),
    ],
)
def test_bad_rule_values_exit_2(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], says: str) -> None:
    assert_refused(capsys, "solve", "--rack", "r1", *argv, says=says)


def test_not_melded_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert_refused(capsys, *PRESSMAN_ROUND, "--not-melded", "Zed", says="--not-melded Zed, who is not in --players")
    assert_refused(capsys, *PRESSMAN_ROUND, "--not-melded", "Ann", says="Ann went out, so they made the initial meld")


def test_library_errors_are_translated(capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(capsys, "score", "--players", "Ann", "--out", "Ann", "--lang", "uk", says="rummikub")
    assert "у грі від 2 до 4 гравців, а не 1" in err
    err = assert_refused(capsys, "solve", "--rack", "r1", "--starting-tiles", "0", "--lang", "ro", says="rummikub")
    assert "jucători" in err or "piese" in err
    err = assert_refused(
        capsys, "score", "--players", "Ann", "Ann", "--out", "Ann", "--rack", "Ann=", "--lang", "ru", says="rummikub"
    )
    assert "имена игроков повторяются: Ann" in err


MSO_ROUND = ("score", "--players", "Ann", "Bob", "--out", "Ann", "--rack", "Bob=r5 k7 j", "--rules", "mso")


def test_mso_never_melded_pays_100_or_200_when_they_could_have(capsys: pytest.CaptureFixture[str]) -> None:
    assert scores(run_json(capsys, *MSO_ROUND)) == [62, -62]  # 5 + 7 + joker 50
    assert scores(run_json(capsys, *MSO_ROUND, "--not-melded", "Bob")) == [100, -100]
    assert scores(run_json(capsys, *MSO_ROUND, "--not-melded", "Bob", "--could-have-melded", "bob")) == [200, -200]
    assert_refused(capsys, *MSO_ROUND, "--could-have-melded", "Bob",
                   says="--could-have-melded Bob, who is not in --not-melded")
