"""The rule set: defaults, variants as settings, and impossible tile counts."""

import pytest

from solver.rules import MAX_JOKERS, PRESETS, STANDARD, ImpossibleStateError, RuleSet, RulesError, check_tile_limits
from solver.position import Position
from solver.tiles import JOKER, parse_melds, parse_tiles


def test_standard_game_defaults() -> None:
    assert (STANDARD.copies, STANDARD.jokers, STANDARD.min_meld_size) == (2, 2, 3)
    assert (STANDARD.initial_meld_threshold, STANDARD.joker_penalty, STANDARD.starting_tiles) == (30, 30, 14)
    assert STANDARD.total_tiles == 106


def test_presets_are_variants_of_one_value() -> None:
    assert PRESETS["opening-50"].initial_meld_threshold == 50
    assert PRESETS["four-jokers"].total_tiles == 108
    assert PRESETS["sixteen-tiles"].starting_tiles == 16
    assert not PRESETS["no-joker-opening"].jokers_in_initial_meld


@pytest.mark.parametrize("changes", [{"copies": 0}, {"jokers": -1}, {"initial_meld_threshold": -5},
                                     {"min_meld_size": 1}, {"starting_tiles": 0}])
def test_inconsistent_rule_sets_are_refused(changes: dict) -> None:
    with pytest.raises(RulesError):
        RuleSet(**changes)


def test_three_red_sevens_are_impossible() -> None:
    with pytest.raises(ImpossibleStateError) as err:
        check_tile_limits(parse_tiles("r7 r7 r7"))
    assert "red-7" in str(err.value)


def test_joker_limit_follows_the_rules() -> None:
    with pytest.raises(ImpossibleStateError):
        check_tile_limits([JOKER] * 3)
    check_tile_limits([JOKER] * 4, PRESETS["four-jokers"])


def test_position_counts_table_and_rack_together() -> None:
    with pytest.raises(ImpossibleStateError):
        Position(parse_melds("r7 r8 r9 | r7 k7 b7"), parse_tiles("r7"))


@pytest.mark.parametrize("jokers", [5, 6, 100])
def test_joker_counts_the_solver_does_not_model_are_refused(jokers: int) -> None:
    """With five jokers ``r5 j j j j j`` is a run of six, which no candidate meld holds: the
    solver would place five tiles and call it optimal. Refused, in the preset path too."""
    with pytest.raises(RulesError, match=f"at most {MAX_JOKERS} jokers") as err:
        RuleSet(jokers=jokers)
    assert err.value.params == {"limit": 4, "jokers": jokers}
    with pytest.raises(RulesError):
        STANDARD.with_(jokers=jokers)


@pytest.mark.parametrize("jokers", range(MAX_JOKERS + 1))
def test_every_modelled_joker_count_plays_a_lone_tile_with_all_its_jokers(jokers: int) -> None:
    from solver.search import solve

    rack = parse_tiles("r5" + " j" * jokers)
    suggestion = solve(Position((), rack, True, RuleSet(jokers=jokers)))
    assert suggestion.tiles_placed == (len(rack) if jokers >= 2 else 0) and suggestion.optimal
