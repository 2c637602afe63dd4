"""The ``rummikub`` command line: output, JSON schema, exit codes and every error path."""

from __future__ import annotations

import json

import pytest

from app.cli import main

SOLVE_KEYS = {
    "action", "played", "table", "steps", "tiles_placed", "value_placed",
    "melds_untouched", "tiles_moved", "optimal",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code in (0, 1), err
    return json.loads(out)


def assert_refused(capsys: pytest.CaptureFixture[str], *argv: str, says: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert says in err, err
    return err


# --- solve -------------------------------------------------------------------------------


def test_solve_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--table", "r4 r5 r6 | k5 b5 o5", "--rack", "r7 k13")
    assert code == 0
    assert "Play 1 tile(s) worth 7 points: red 7" in out
    assert "Steps:\n  1. " in out and "red 7" in out.split("Steps:")[1]
    assert "  1. [red 4, red 5, red 6, red 7*]" in out
    assert "  2. [black 5, blue 5, orange 5]" in out
    assert "1 meld(s) left untouched, 0 table tile(s) moved." in out


def test_solve_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "solve", "--table", "r4 r5 r6 | k5 b5 o5", "--rack", "r7 k13")
    assert set(data) == SOLVE_KEYS
    assert data["action"] == "play"
    assert data["played"] == ["red-7"]
    assert data["tiles_placed"] == 1 and data["value_placed"] == 7
    assert data["melds_untouched"] == 1 and data["tiles_moved"] == 0
    assert data["optimal"] is True
    assert data["table"] == [
        {"kind": "run", "tiles": ["red-4", "red-5", "red-6", "red-7"],
         "represents": ["red-4", "red-5", "red-6", "red-7"], "sources": [0, 0, 0, "rack"]},
        {"kind": "group", "tiles": ["black-5", "blue-5", "orange-5"],
         "represents": ["black-5", "blue-5", "orange-5"], "sources": [1, 1, 1]},
    ]
    assert len(data["steps"]) == 1 and "red 7" in data["steps"][0]


def test_solve_shows_what_jokers_stand_for(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--table", "r4 r5 j", "--rack", "r7")
    assert code == 0
    assert "[red 4, red 5, joker (red 6), red 7*]" in out
    data = run_json(capsys, "solve", "--table", "r4 r5 j", "--rack", "r7")
    assert data["table"][0]["tiles"] == ["red-4", "red-5", "joker", "red-7"]
    assert data["table"][0]["represents"] == ["red-4", "red-5", "red-6", "red-7"]


def test_solve_no_move_says_draw(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--table", "r4 r5 r6", "--rack", "k13 b1")
    assert code == 0
    assert out.strip().splitlines() == ["No legal move: draw a tile.", "Rules: Standard · initial meld 30 · 2 jokers"]
    data = run_json(capsys, "solve", "--table", "r4 r5 r6", "--rack", "k13 b1")
    assert data["action"] == "draw" and data["played"] == [] and data["tiles_placed"] == 0
    assert data["table"][0]["sources"] == [0, 0, 0]


def test_solve_without_table(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "solve", "--rack", "o1 o2 o3 k9")
    assert data["played"] == ["orange-1", "orange-2", "orange-3"]
    assert data["table"][0]["sources"] == ["rack"] * 3


def test_first_turn_needs_the_threshold_from_the_rack(capsys: pytest.CaptureFixture[str]) -> None:
    # 9 + 10 + 11 = 30 opens; adding r8 to the table's run is not allowed before opening.
    table = ("--table", "r5 r6 r7")
    data = run_json(capsys, "solve", *table, "--rack", "k9 k10 k11 r8", "--first-turn")
    assert data["played"] == ["black-9", "black-10", "black-11"]
    assert data["table"][0]["sources"] == [0, 0, 0]
    assert run_json(capsys, "solve", *table, "--rack", "k9 k10 k11 r8")["tiles_placed"] == 4
    low = run_json(capsys, "solve", *table, "--rack", "k8 k9 k10", "--first-turn")
    assert low["action"] == "draw"  # 27 < 30


def test_rule_options_change_the_threshold(capsys: pytest.CaptureFixture[str]) -> None:
    rack = ("--rack", "k9 k10 k11", "--first-turn")
    assert run_json(capsys, "solve", *rack)["action"] == "play"
    assert run_json(capsys, "solve", *rack, "--rules", "opening-50")["action"] == "draw"
    assert run_json(capsys, "solve", *rack, "--threshold", "31")["action"] == "draw"
    assert run_json(capsys, "solve", *rack, "--rules", "opening-50", "--threshold", "30")["action"] == "play"


def test_objective_value(capsys: pytest.CaptureFixture[str]) -> None:
    # Most tiles: both jokers in low melds (6 tiles); most value: black 13 with both jokers.
    rack = ("--rack", "r1 r2 b1 b2 k13 j j")
    assert run_json(capsys, "solve", *rack)["tiles_placed"] == 6
    data = run_json(capsys, "solve", *rack, "--objective", "value")
    assert data["tiles_placed"] == 3 and data["value_placed"] == 39
    assert sorted(data["played"]) == ["black-13", "joker", "joker"]


def test_jokers_option_allows_more_jokers(capsys: pytest.CaptureFixture[str]) -> None:
    assert_refused(capsys, "solve", "--rack", "j j j r1", says="joker")
    assert run_json(capsys, "solve", "--rack", "j j j r1", "--jokers", "4")["action"] == "play"
    assert run_json(capsys, "solve", "--rack", "j j j r1", "--rules", "four-jokers")["action"] == "play"


@pytest.mark.parametrize("command", ["solve", "check", "score"])
def test_joker_counts_the_solver_does_not_model_are_refused(capsys: pytest.CaptureFixture[str], command: str) -> None:
    """``--jokers 5`` used to place five of ``r5 j j j j j`` and call it optimal."""
    argv = {
        "solve": ("solve", "--rack", "r5 j j j j j"),
        "check": ("check", "--table", "r5 j j j j j"),
        "score": ("score", "--players", "A", "B", "--out", "A", "--rack", "B=j j j j j"),
    }[command]
    err = assert_refused(capsys, *argv, "--jokers", "5", says="invalid rules: at most 4 jokers are supported, not 5")
    assert err.count("\n") == 1  # one line, no traceback


def test_solve_in_another_language_falls_back_to_english(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--rack", "k13", "--lang", "uk")
    assert code == 0 and out.strip()


# --- solve errors ------------------------------------------------------------------------


def test_bad_notation_in_rack_names_the_token(capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(capsys, "solve", "--rack", "r7 x9", says="'x9'")
    assert "unknown colour" in err


def test_bad_notation_in_table_names_the_token(capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(capsys, "solve", "--table", "r4 r5 r66", "--rack", "r7", says="'r66'")
    assert "number must be 1-13" in err


@pytest.mark.parametrize("token", ["r\u0665", "r\uff17", "r\u0967\u0969", "\u212a7"])
def test_non_ascii_digits_and_letters_are_not_tiles(capsys: pytest.CaptureFixture[str], token: str) -> None:
    """Arabic-Indic 5, fullwidth 7, Devanagari 13 and the Kelvin sign used to read as tiles."""
    err = assert_refused(capsys, "solve", "--rack", f"r4 {token} r6", says=f"cannot read tile {token!r}")
    assert "ASCII" in err
    assert_refused(capsys, "check", "--table", f"r4 r5 {token}", says=f"{token!r}")


def test_a_huge_bad_token_is_not_echoed_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(capsys, "solve", "--rack", "r1 " + "z" * 120_000, says="'" + "z" * 20 + "…'")
    assert len(err) < 200


def test_three_red_sevens_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert_refused(capsys, "solve", "--table", "r5 r6 r7 | r7 k7 b7", "--rack", "r7", says="red 7")


def test_too_many_jokers_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(capsys, "solve", "--table", "r4 r5 j", "--rack", "j j", says="Impossible tiles")
    assert err == "rummikub: error: Impossible tiles: more copies of joker than the game has.\n"


def test_invalid_table_is_refused_with_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    err = assert_refused(capsys, "solve", "--table", "r4 r5 r6 | k1 b2 o9", "--rack", "r7", says="meld 2")
    assert "neither a run" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ((), "required: COMMAND"),
        (("deal",), "invalid choice: 'deal'"),
        (("solve",), "required: --rack"),
        (("solve", "--rack", "r1", "--objective", "best"), "invalid choice: 'best'"),
        (("solve", "--rack", "r1", "--rules", "house"), "invalid choice: 'house'"),
        (("solve", "--rack", "r1", "--threshold", "-1"), "must not be negative"),
        (("solve", "--rack", "r1", "--jokers", "two"), "not a whole number"),
        (("solve", "--rack", "r1", "--lang", "xx"), "invalid choice: 'xx'"),
        (("check",), "required: --table"),
        (("score", "--out", "A"), "required: --players"),
        (("score", "--players", "A", "B"), "one of the arguments --out --pool-exhausted is required"),
        (("score", "--players", "A", "B", "--out", "A", "--pool-exhausted"), "not allowed with"),
        (("score", "--players", "A", "B", "--out", "A", "--rack", "B r1"), 'expected NAME="TILES"'),
        (("score", "--players", "A", "B", "--out", "A", "--rack", "=r1"), 'expected NAME="TILES"'),
        (("score", "--players", "A", "B", "--out", "A", "--pool-scoring", "coin"), "invalid choice"),
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], says: str) -> None:
    assert_refused(capsys, *argv, says=says)


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--help")
    assert code == 0 and "--first-turn" in out


# --- check -------------------------------------------------------------------------------


def test_check_valid_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--table", "r4 r5 j | k5 b5 o5")
    assert code == 0
    assert "1. [red 4, red 5, joker]: valid; the joker(s) stand for red 3 or red 6" in out
    assert "2. [black 5, blue 5, orange 5]: valid\n" in out
    assert "All 2 meld(s) valid." in out


def test_check_lists_each_invalid_meld_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    table = "r4 r5 r6 | r1 b2 k9 | k7 k7 o7 | r2 r3 | o1 o3 o6"
    code, out, _ = run(capsys, "check", "--table", table)
    assert code == 1
    assert "1. [red 4, red 5, red 6]: valid" in out
    assert "2. [red 1, blue 2, black 9]: INVALID - neither a run (one colour) nor a group (one number)" in out
    assert "3. [black 7, black 7, orange 7]: INVALID - a group cannot hold the same colour twice" in out
    assert "4. [red 2, red 3]: INVALID - a meld needs at least 3 tiles" in out
    assert "5. [orange 1, orange 3, orange 6]: INVALID - the run has a gap that its jokers cannot fill" in out
    assert "4 of 5 meld(s) invalid." in out


def test_check_lists_joker_combinations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--table", "r12 j j")
    assert code == 0
    assert "(red 10, red 11) or (red 11, red 13)" in out
    assert "(black 12, blue 12) or (black 12, orange 12) or (blue 12, orange 12)" in out


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "check", "--table", "r4 r5 j | k1 b2 o9")
    assert data["valid"] is False
    first, second = data["melds"]
    assert first == {
        "tiles": ["red-4", "red-5", "joker"], "valid": True, "kinds": ["run"], "problems": [],
        "reasons": [], "jokers": [["red-3", "red-6"]], "joker_options": [["red-3"], ["red-6"]],
    }
    assert second["valid"] is False and second["problems"] == ["mixed"]
    assert second["reasons"] == ["neither a run (one colour) nor a group (one number)"]
    assert second["jokers"] == [] and second["joker_options"] == [] and second["kinds"] == []


def test_check_empty_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--table", "")
    assert code == 0 and out.strip() == "The table is empty."
    assert run_json(capsys, "check", "--table", " | ") == {"valid": True, "melds": []}


def test_check_refuses_bad_notation_and_impossible_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert_refused(capsys, "check", "--table", "r4 r5 rr6", says="'rr6'")
    assert_refused(capsys, "check", "--table", "r7 k7 b7 | r7 o7 k7 | r5 r6 r7", says="red 7")
    assert_refused(capsys, "check", "--table", "r4 j r6 | k5 j b5 | o1 o2 j", says="joker")
    code, _, _ = run(capsys, "check", "--table", "r4 j r6 | k5 j b5 | o1 o2 j", "--jokers", "3")
    assert code == 0


# --- score -------------------------------------------------------------------------------

RULEBOOK = ("score", "--players", "A", "B", "C", "D", "--out", "A",
            "--rack", "B=r5", "--rack", "C=k4 o6", "--rack", "D=b1,b2")


def test_score_rulebook_example_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *RULEBOOK)
    assert data == {
        "outcome": "went-out", "went_out": "A", "pool_scoring": "lowest-total-difference",
        "unmelded_scoring": "like-others", "rules": "standard", "winners": ["A"],
        "players": [
            {"name": "A", "rack": [], "rack_total": 0, "score": 18, "winner": True, "made_initial_meld": True},
            {"name": "B", "rack": ["red-5"], "rack_total": 5, "score": -5, "winner": False,
             "made_initial_meld": True},
            {"name": "C", "rack": ["black-4", "orange-6"], "rack_total": 10, "score": -10, "winner": False,
             "made_initial_meld": True},
            {"name": "D", "rack": ["blue-1", "blue-2"], "rack_total": 3, "score": -3, "winner": False,
             "made_initial_meld": True},
        ],
    }


def test_score_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *RULEBOOK)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "A went out."
    assert lines[2].split() == ["Player", "Rack", "Total", "Score"]
    assert lines[3].split() == ["A", "-", "0", "+18"]
    assert lines[5].split() == ["C", "black", "4,", "orange", "6", "10", "-10"]
    assert lines[-2:] == ["Winner(s): A", "Rules: Standard · initial meld 30 · 2 jokers"]


def test_score_joker_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("score", "--players", "Ann", "Bob", "--out", "Ann", "--rack", "Bob=j")
    assert run_json(capsys, *argv)["players"][1]["score"] == -30
    assert run_json(capsys, *argv, "--joker-penalty", "50")["players"][1]["score"] == -50


@pytest.mark.parametrize(
    ("variant", "scores", "winners"),
    [
        (None, [-7, 42, -35], ["B"]),
        ("lowest-total-difference", [-7, 42, -35], ["B"]),
        ("fewest-tiles", [45, -5, -40], ["A"]),
        ("lowest-total-own-rack", [-12, 52, -40], ["B"]),
    ],
)
def test_score_pool_exhausted(
    capsys: pytest.CaptureFixture[str], variant: str | None, scores: list[int], winners: list[str]
) -> None:
    argv = ["score", "--players", "A", "B", "C", "--pool-exhausted",
            "--rack", "A=r12", "--rack", "B=k2 k3", "--rack", "C=j o10"]
    if variant:
        argv += ["--pool-scoring", variant]
    data = run_json(capsys, *argv)
    assert data["outcome"] == "pool-exhausted" and data["went_out"] is None
    assert data["pool_scoring"] == (variant or "lowest-total-difference")
    assert [p["score"] for p in data["players"]] == scores
    assert data["winners"] == winners
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.startswith("Pool exhausted (")


def test_score_empty_rack_is_explicit(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "score", "--players", "A", "B", "--pool-exhausted", "--rack", "A=", "--rack", "B=r1")
    assert [p["score"] for p in data["players"]] == [1, -1]


def test_score_names_follow_one_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """Names are trimmed, their spaces made single and Unicode normalised (NFC), in every
    option, and a name in --rack/--out/--not-melded finds its player whatever its case."""
    nfd, nfc = "Jose\u0301", "Jos\u00e9"
    data = run_json(
        capsys, "score", "--players", " Ann", f"{nfd} ", "Cy  Lee", "--out", "ann",
        "--rack", f"{nfc}=r5", "--rack", " cy lee =k3", "--not-melded", "CY LEE", "--unmelded", "pays-each-player",
    )
    assert [p["name"] for p in data["players"]] == ["Ann", nfc, "Cy Lee"]
    assert data["went_out"] == "Ann" and data["winners"] == ["Ann"]
    assert [p["made_initial_meld"] for p in data["players"]] == [True, True, False]
    assert [p["rack"] for p in data["players"]] == [[], ["red-5"], ["black-3"]]


@pytest.mark.parametrize(
    ("players", "says"),
    [
        (("Ann", " ann "), "duplicate player names: Ann"),
        (("Jos\u00e9", "Jose\u0301"), "duplicate player names: Jos\u00e9"),
        (("Ann", "Bob", "Cy", "Dee", "Eve"), "a game has 2 to 4 players, not 5"),
        (("Ann",), "a game has 2 to 4 players, not 1"),
        (("Ann", "  "), "every player needs a name"),
    ],
)
def test_score_refuses_names_and_counts_the_game_does_not_have(
    capsys: pytest.CaptureFixture[str], players: tuple[str, ...], says: str
) -> None:
    racks = [f"--rack={p}=r1" for p in players[1:] if p.strip()]
    assert_refused(capsys, "score", "--players", *players, "--out", players[0], *racks, says=says)


def test_score_errors(capsys: pytest.CaptureFixture[str]) -> None:
    base = ("score", "--players", "Ann", "Bob", "Cid", "--out", "Ann")
    assert_refused(capsys, *base, "--rack", "Bob=r5", says="no --rack for Cid")
    assert_refused(capsys, *base, "--rack", "Bob=r5", "--rack", "Cid=r1", "--rack", "Dan=r2", says="Dan, who is not in --players")
    assert_refused(capsys, *base, "--rack", "Bob=r5", "--rack", "Bob=r6", "--rack", "Cid=", says="two --rack options for Bob")
    assert_refused(capsys, *base, "--rack", "Bob=r5", "--rack", "Cid=q1", says="'q1'")
    assert_refused(capsys, *base, "--rack", "Bob=r5 r5", "--rack", "Cid=r5", says="red 5")
    assert_refused(capsys, *base, "--rack", "Ann=r1", "--rack", "Bob=", "--rack", "Cid=", says="Ann went out but still holds 1 tile")
    assert_refused(capsys, "score", "--players", "Ann", "--out", "Ann", says="2 to 4 players")
    assert_refused(capsys, "score", "--players", "Ann", "Ann", "--out", "Ann", "--rack", "Ann=", says="duplicate")
    assert_refused(capsys, "score", "--players", "Ann", "Bob", "--out", "Zed", "--rack", "Ann=", "--rack", "Bob=", says="'Zed' went out")


# --- stdout closed early -----------------------------------------------------------------------


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """``rummikub solve --json ... | head -c 5``: the pipe closes before the answer is written."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    argv = [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main())",
            "solve", "--json", "--table", "r4 r5 r6 | k5 b5 o5", "--rack", "r7 j k13 b1 b2 b3"]
    child = subprocess.Popen(argv, cwd=root, env=os.environ | {"PYTHONPATH": str(root)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # like head after its 5 bytes: nobody reads the answer
    _, err = child.communicate(timeout=120)
    assert child.returncode == 1, err
    assert err.decode() == ""  # no BrokenPipeError, no "Exception ignored" at exit
