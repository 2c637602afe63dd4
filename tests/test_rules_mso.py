"""The Mind Sports Olympiad preset: two players, joker 50, a fixed charge for never melding
(100, or 200 when the player could have melded), one joker dealt to each player; zero-sum rounds."""

from __future__ import annotations

import pytest

from app.codec import round_from_dict, round_to_dict, rules_from_dict, rules_to_dict
from app.rules_text import preset_label, rules_summary, unmelded_label
from solver.i18n import LANGUAGES, error_text
from solver.rules import PRESETS, STANDARD, RuleSet, RulesError, UnmeldedScoring, preset_for
from solver.scoring import PlayerRack, PoolExhausted, ScoringError, WentOut, score_round
from solver.tiles import parse_tiles

MSO = PRESETS["mso"]


def rack(name: str, text: str = "", melded: bool = True, could: bool = False) -> PlayerRack:
    return PlayerRack(name, parse_tiles(text), melded, could)


def scores(result) -> dict[str, int]:
    return {s.name: s.score for s in result.scores}


def test_the_preset_holds_the_tournament_settings():
    assert (MSO.players, MSO.joker_penalty, MSO.starting_jokers, MSO.starting_tiles) == (2, 50, 1, 14)
    assert MSO.unmelded_scoring is UnmeldedScoring.FIXED_CHARGE
    assert (MSO.initial_meld_threshold, MSO.jokers, MSO.jokers_in_initial_meld) == (30, 2, True)
    assert preset_for(STANDARD.with_(players=2, joker_penalty=50, unmelded_scoring=UnmeldedScoring.FIXED_CHARGE,
                                     starting_jokers=1)) == "mso"


def test_a_joker_left_on_a_rack_costs_50():
    result = score_round([rack("Ann"), rack("Bob", "j r3")], WentOut("Ann"), MSO)
    assert scores(result) == {"Ann": 53, "Bob": -53}


@pytest.mark.parametrize("could, charge", [(False, 100), (True, 200)])
def test_a_player_who_never_melded_pays_the_fixed_charge(could, charge):
    result = score_round([rack("Ann"), rack("Bob", "r13 k12 j", melded=False, could=could)], WentOut("Ann"), MSO)
    assert scores(result) == {"Ann": charge, "Bob": -charge}  # the charge replaces the rack's 75
    assert result.by_name["Bob"].rack_total == 75  # the rack itself is still recorded


def test_the_player_who_went_out_has_melded_whatever_the_flag_says():
    result = score_round([rack("Ann", melded=False), rack("Bob", "r5")], WentOut("Ann"), MSO)
    assert scores(result) == {"Ann": 5, "Bob": -5}


def test_pool_exhausted_the_unmelded_player_cannot_win_and_pays_the_charge():
    # Bob's rack is lower, but he never melded: Ann wins and Bob pays 100.
    result = score_round([rack("Ann", "r9 k9"), rack("Bob", "r2", melded=False)], PoolExhausted(), MSO)
    assert result.winners == ("Ann",) and scores(result) == {"Ann": 100, "Bob": -100}


def test_pool_exhausted_with_nobody_melded_scores_zero():
    racks = [rack("Ann", "r9", melded=False), rack("Bob", "r2", melded=False, could=True)]
    result = score_round(racks, PoolExhausted(), MSO)
    assert result.winners == () and scores(result) == {"Ann": 0, "Bob": 0}


def test_the_charge_is_only_read_when_the_player_never_melded():
    result = score_round([rack("Ann"), rack("Bob", "r5", melded=True, could=True)], WentOut("Ann"), MSO)
    assert scores(result) == {"Ann": 5, "Bob": -5}


def test_the_charge_splits_between_tied_winners_and_every_round_sums_to_zero():
    rules = MSO.with_(players=0)  # the same scoring for three players
    racks = [rack("Ann", "r4"), rack("Bob", "k4"), rack("Cy", "r1", melded=False, could=True)]
    result = score_round(racks, PoolExhausted(), rules)
    assert set(result.winners) == {"Ann", "Bob"} and scores(result) == {"Ann": 100, "Bob": 100, "Cy": -200}
    assert sum(scores(result).values()) == 0


def test_a_tournament_round_needs_exactly_two_players():
    with pytest.raises(ScoringError, match="these rules are for 2 players, this game has 3") as err:
        score_round([rack("Ann"), rack("Bob", "r1"), rack("Cy", "r2")], WentOut("Ann"), MSO)
    assert error_text(err.value, "uk") != str(err.value)


@pytest.mark.parametrize(
    "changes",
    [{"players": 1}, {"players": -2}, {"starting_jokers": 3}, {"starting_jokers": -1},
     {"players": 3, "starting_jokers": 1}],
)
def test_impossible_settings_are_refused(changes):
    with pytest.raises(RulesError):
        RuleSet(**changes)


def test_the_could_have_melded_flag_is_stored_with_the_round():
    racks = (rack("Ann"), rack("Bob", "r5 j", melded=False, could=True))
    result = score_round(racks, WentOut("Ann"), MSO)
    stored_racks, stored = round_from_dict(round_to_dict(racks, result), MSO)
    assert stored_racks == racks and stored.scores == result.scores
    old_row = round_to_dict(racks, result)
    for player in old_row["players"]:
        del player["could_have_melded"]  # a round saved before the flag existed
    assert round_from_dict(old_row, MSO)[0][1].could_have_melded is False


def test_the_rules_round_trip_and_old_rows_read_as_before():
    assert rules_from_dict(rules_to_dict(MSO)) == MSO
    old = rules_to_dict(STANDARD)
    del old["players"], old["starting_jokers"]
    assert rules_from_dict(old) == STANDARD


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_preset_and_its_settings_are_named_in_every_language(lang):
    assert preset_label("mso", lang) != "mso"
    summary = rules_summary(MSO, lang)
    assert summary.count(" · ") >= 5  # name, meld, jokers + players, joker dealt, joker cost, charge
    assert unmelded_label(UnmeldedScoring.FIXED_CHARGE, lang)


def test_a_tournament_game_of_three_is_refused_and_nothing_is_saved(tmp_path):
    from app.storage import ScoreStore

    store = ScoreStore(tmp_path / "scores.sqlite3")
    with pytest.raises(ScoringError, match="for 2 players"):
        store.create_game(["Ann", "Bob", "Cy"], MSO)
    assert store.games() == ()
    assert store.create_game(["Ann", "Bob"], MSO).rules == MSO
