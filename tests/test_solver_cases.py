"""Hand-made solver cases: tie-breaks, jokers, the initial meld, rule variants, and the
positions the reference package ``rummikub-solver`` 1.0 gets wrong."""

from __future__ import annotations

from collections import Counter

import pytest

from solver import (
    JOKER,
    PRESETS,
    Action,
    ImpossibleStateError,
    InvalidTableError,
    Objective,
    Position,
    StepKind,
    parse_melds,
    parse_tiles,
    solve,
)
from tests.brute import brute_optimum
from tests.oracle import assert_legal


def position(table: str, rack: str, opened: bool = True, rules: str = "standard") -> Position:
    return Position(parse_melds(table), parse_tiles(rack), initial_meld_done=opened, rules=PRESETS[rules])


def solved(pos: Position, objective: Objective = Objective.TILES):
    suggestion = solve(pos, objective)
    assert_legal(pos, suggestion)
    return suggestion


def new_melds(suggestion) -> list[Counter]:
    return [Counter(new.meld.tiles) for new in suggestion.new_table]


def played(suggestion) -> Counter:
    return Counter(suggestion.played)


# --- least disruption -------------------------------------------------------------------


def test_adding_a_tile_to_the_end_of_a_run_leaves_everything_else_alone() -> None:
    pos = position("r4 r5 r6 | r7 r8 r9 | k7 b7 o7 | b1 b2 b3 b4", "r10")
    suggestion = solved(pos)
    assert played(suggestion) == Counter(parse_tiles("r10"))
    assert suggestion.melds_untouched == 3
    assert suggestion.tiles_moved == 0
    grown = [new for new in suggestion.new_table if not new.unchanged]
    assert len(grown) == 1 and grown[0].continues == 1
    assert Counter(grown[0].meld.tiles) == Counter(parse_tiles("r7 r8 r9 r10"))
    assert [step.kind for step in suggestion.steps] == [StepKind.ADD]
    assert suggestion.touched_melds == (1,)  # the run the tile joins; the other three are as they were


def test_touched_melds_are_every_old_meld_a_rearrangement_changes() -> None:
    # r7 fits at the end of either run (or joins them into one); the group of 3s stays as it was
    pos = position("r4 r5 r6 | r8 r9 r10 | k3 b3 o3", "r7")
    suggestion = solved(pos)
    kept = {new.continues for new in suggestion.new_table if new.unchanged}
    assert set(suggestion.touched_melds) == set(range(3)) - kept
    assert 2 not in suggestion.touched_melds  # the group of 3s is left alone
    assert suggestion.touched_melds  # the red tiles were joined or extended


def test_a_tile_that_fits_two_places_moves_no_table_tile() -> None:
    # r7 ends the run or completes the group; either way the other meld stays as it is.
    pos = position("r4 r5 r6 | k7 b7 o7", "r7")
    suggestion = solved(pos)
    assert suggestion.tiles_placed == 1
    assert suggestion.tiles_moved == 0
    assert suggestion.melds_untouched == 1


def test_extending_a_run_below_moves_only_the_joker_it_must() -> None:
    # Best: o2 o3 o4 o5 o6 j stays in place (one joker kept), the other joker joins k4 k5.
    suggestion = solved(position("o4 o5 o6 j j", "k4 k5 o2 o3"))
    assert suggestion.tiles_placed == 4
    assert suggestion.tiles_moved == 1


def test_a_far_meld_may_lend_its_joker_to_disturb_less() -> None:
    # Best: take the joker off r8 r9 r10 (still a run) for j b2 r2; k2..k9 stays untouched.
    suggestion = solved(position("r8 r9 r10 j | k2 k3 k4 k5 k6 k7 k8 k9", "b2 r2"))
    assert suggestion.tiles_placed == 2
    assert suggestion.melds_untouched == 1
    assert suggestion.tiles_moved == 1


def test_a_run_keeps_its_joker_when_a_real_tile_takes_its_place() -> None:
    # Best: r3 r4 r5 r6 r7 j, the joker now r8 (or r2); the old run stays together.
    suggestion = solved(position("r4 r5 r6 j", "r3 r7"))
    assert suggestion.tiles_placed == 2
    assert suggestion.tiles_moved <= 1
    assert any(not Counter(parse_tiles("r4 r5 r6 j")) - c for c in new_melds(suggestion))


def test_inserting_a_tile_splits_a_long_run_in_two() -> None:
    # Best: b3..b8 stays, the rack's b8 starts b8..b13 (five tiles moved), as a player would do.
    suggestion = solved(position("b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13", "b8"))
    assert suggestion.tiles_placed == 1
    assert len(suggestion.new_table) == 2
    assert suggestion.tiles_moved == 5


# --- positions rummikub-solver 1.0 cannot solve -------------------------------------------


def test_a_joker_joins_a_group_of_three() -> None:
    suggestion = solved(position("k5 b5 o5", "j"))
    assert suggestion.action is Action.PLAY
    assert played(suggestion) == Counter([JOKER])
    (meld,) = suggestion.new_table
    assert meld.meld.jokers == parse_tiles("r5")


def test_a_tile_extends_a_run_that_ends_in_a_joker() -> None:
    suggestion = solved(position("r4 r5 r6 j", "r7"))
    assert suggestion.action is Action.PLAY
    assert played(suggestion) == Counter(parse_tiles("r7"))
    assert new_melds(suggestion) == [Counter(parse_tiles("r4 r5 r6 r7 j"))]


# --- objectives ---------------------------------------------------------------------------


def test_value_objective_picks_the_more_valuable_of_two_melds() -> None:
    # k10 can go in the group (30 points) or the run (33 points), not both.
    pos = position("", "k10 b10 o10 k11 k12")
    suggestion = solved(pos, Objective.VALUE)
    assert played(suggestion) == Counter(parse_tiles("k10 k11 k12"))
    assert suggestion.value_placed == 33


def test_value_objective_may_place_fewer_tiles_than_the_tile_objective() -> None:
    # One joker: k1 j k3 k4 (4 tiles, 10 points) or k12 k13 with the joker as k11 (36 points).
    pos = position("", "k1 k3 k4 k12 k13 j")
    by_tiles = solved(pos, Objective.TILES)
    by_value = solved(pos, Objective.VALUE)
    assert played(by_tiles) == Counter(parse_tiles("k1 k3 k4 j"))
    assert played(by_value) == Counter(parse_tiles("k12 k13 j"))
    assert by_value.value_placed == 36


def test_a_rack_joker_counts_as_the_tile_it_stands_for() -> None:
    # In the group the joker is a 5; at the end of the run it is a 7.
    pos = position("k5 b5 o5 | r4 r5 r6", "j")
    suggestion = solved(pos, Objective.VALUE)
    assert suggestion.value_placed == 7
    assert any(new.meld.jokers == parse_tiles("r7") for new in suggestion.new_table)


def test_value_placed_is_the_worth_of_the_rack_tiles_played() -> None:
    # The table joker moves from r4 to k9; that is not value the player placed.
    suggestion = solved(position("j r5 r6 r7 r8 r9", "o9"), Objective.VALUE)
    assert played(suggestion) == Counter(parse_tiles("o9"))
    assert suggestion.value_placed == 9


def test_value_placed_is_not_charged_for_a_table_joker_read_lower() -> None:
    suggestion = solved(position("j k11 k12 k13", "k1 k2"))
    assert played(suggestion) == Counter(parse_tiles("k1 k2"))
    assert suggestion.value_placed == 3


def test_value_objective_plays_when_the_only_move_moves_a_table_joker_lower() -> None:
    suggestion = solved(position("j k11 k12 k13", "k1 k2"), Objective.VALUE)
    assert suggestion.action is Action.PLAY
    assert suggestion.value_placed == 3


def test_a_rack_joker_never_counts_negative() -> None:
    suggestion = solved(position("j k11 k12 k13", "k1 k2 j b1 o1"))
    assert suggestion.tiles_placed == 5
    assert suggestion.value_placed >= 1 + 2 + 1 + 1


def test_only_the_untouched_meld_keeps_its_jokers_reading_as_laid() -> None:
    # j r4 r5 lies as r3 r4 r5 and stays; the rack's r4 r5 j beside it reads r4 r5 r6 (15), not
    # the old meld's r3 r4 r5 (12) because it holds the same tiles.
    suggestion = solved(position("j r4 r5", "r4 r5 j"))
    assert suggestion.melds_untouched == 1
    assert suggestion.value_placed == 15
    assert [new.meld.represented for new in suggestion.new_table] == [parse_tiles("r3 r4 r5"), parse_tiles("r4 r5 r6")]


def test_value_objective_finds_at_least_the_value_of_the_tile_objective() -> None:
    pos = position("j b4 b5 | b4 b5 b6", "b7 b8 r7 r8 j")
    assert solved(pos, Objective.VALUE).value_placed >= solved(pos, Objective.TILES).value_placed


# --- jokers -------------------------------------------------------------------------------


def test_a_joker_freed_from_the_table_is_played_in_the_same_turn() -> None:
    pos = position("r3 j r5", "r4 k9 k10")
    suggestion = solved(pos)
    assert played(suggestion) == Counter(parse_tiles("r4 k9 k10"))
    assert Counter(parse_tiles("r3 r4 r5")) in new_melds(suggestion)
    assert Counter(parse_tiles("k9 k10 j")) in new_melds(suggestion)
    joker_meld = next(new for new in suggestion.new_table if JOKER in new.meld.tiles)
    assert [s for t, s in zip(joker_meld.meld.tiles, joker_meld.sources) if t == JOKER] == [0]


def test_no_joker_is_taken_from_the_table_before_the_initial_meld() -> None:
    suggestion = solved(position("r3 j r5", "r4 k9 k10", opened=False))
    assert suggestion.action is Action.DRAW


# --- nothing to play ---------------------------------------------------------------------


def test_no_legal_move_means_draw() -> None:
    pos = position("r1 r2 r3", "k9 b2")
    suggestion = solved(pos)
    assert suggestion.action is Action.DRAW
    assert suggestion.played == ()
    assert suggestion.tiles_placed == 0


def test_empty_rack_means_draw() -> None:
    assert solved(position("r1 r2 r3", "")).action is Action.DRAW


def test_empty_table_lays_down_from_the_rack() -> None:
    suggestion = solved(position("", "k10 b10 o10 r2"))
    assert played(suggestion) == Counter(parse_tiles("k10 b10 o10"))
    assert [step.kind for step in suggestion.steps] == [StepKind.LAY_DOWN]


def test_an_invalid_table_is_refused() -> None:
    with pytest.raises(InvalidTableError):
        solve(position("r1 r2 k3", "r4"))


# --- the initial meld --------------------------------------------------------------------


def test_initial_meld_of_29_points_is_not_enough() -> None:
    # b2 b3 b4 (9) + k5 b5 o5 r5 (20), or b2 b3 b4 b5 (14) + k5 o5 r5 (15): 29 either way.
    suggestion = solved(position("", "b2 b3 b4 k5 b5 o5 r5", opened=False))
    assert suggestion.action is Action.DRAW


def test_initial_meld_of_30_points_is_played() -> None:
    suggestion = solved(position("", "b3 b4 b5 k6 b6 o6", opened=False))
    assert played(suggestion) == Counter(parse_tiles("b3 b4 b5 k6 b6 o6"))
    assert suggestion.value_placed == 30


def test_a_joker_counts_as_what_it_stands_for_in_the_initial_meld() -> None:
    suggestion = solved(position("", "k9 k10 j", opened=False))
    assert suggestion.action is Action.PLAY
    assert suggestion.new_table[0].meld.jokers == parse_tiles("k11")


def test_initial_meld_leaves_the_table_untouched() -> None:
    # r7 would fit the table's run, but the opening turn may only lay down rack melds.
    pos = position("r4 r5 r6", "r7 k10 b10 o10", opened=False)
    suggestion = solved(pos)
    assert played(suggestion) == Counter(parse_tiles("k10 b10 o10"))
    assert suggestion.melds_untouched == 1
    assert suggestion.tiles_moved == 0


# --- rule variants -----------------------------------------------------------------------


def test_opening_50_needs_fifty_points() -> None:
    assert solved(position("", "k10 k11 k12", opened=False, rules="opening-50")).action is Action.DRAW
    assert solved(position("", "k10 k11 k12", opened=False)).action is Action.PLAY
    suggestion = solved(position("", "k10 k11 k12 b13 o13 r13", opened=False, rules="opening-50"))
    assert suggestion.tiles_placed == 6


def test_four_jokers_allow_three_on_one_rack() -> None:
    with pytest.raises(ImpossibleStateError):
        position("", "j j j k5")
    suggestion = solved(position("", "j j j k5", rules="four-jokers"))
    assert suggestion.tiles_placed == 4


def test_no_joker_opening_keeps_jokers_out_of_the_initial_meld() -> None:
    assert solved(position("", "k9 k10 j", opened=False, rules="no-joker-opening")).action is Action.DRAW
    suggestion = solved(position("", "k9 k10 k11 j", opened=False, rules="no-joker-opening"))
    assert played(suggestion) == Counter(parse_tiles("k9 k10 k11"))
    assert solved(position("", "k9 k10 k11 j", opened=False)).tiles_placed == 4


# --- jokers moving with their meld (cases brute force found) ------------------------------


@pytest.mark.parametrize(
    "table,rack,moved",
    [
        ("j b7 o7 j", "b8 b9 o6 o8 o10", 1),  # o7 and both jokers stay together in o6..o11
        ("k11 k12 k13 | j j o9", "o10 o12 o13", 0),  # [j j o9] grows into o8..o13
        ("j j o11", "o7 o9 o10 r10", 0),
        ("r7 r8 r9 r10 j", "r11 j", 0),  # r11 takes the joker's place; both jokers end the run
        ("j o5 j", "o3 o4 o6", 0),
        ("b7 b8 j b10", "b9 j", 0),
        ("b8 b9 j | j b7 r7", "r5 r9", 2),  # a group lends its joker and r7 to r5..r9
        ("j j b6 | r6 r7 r8", "r8 r10", 2),
    ],
)
def test_jokers_stay_with_their_meld_when_that_moves_fewer_tiles(table: str, rack: str, moved: int) -> None:
    pos = position(table, rack)
    suggestion = solved(pos)
    optimum = brute_optimum(pos)
    assert suggestion.tiles_placed == optimum.tiles
    assert (suggestion.melds_untouched, suggestion.tiles_moved) == (
        optimum.untouched_at_max_tiles,
        optimum.moved_at_max_tiles,
    )
    assert suggestion.tiles_moved == moved


def test_jokers_may_stay_together_in_a_long_run_of_another_colour() -> None:
    # Best: [k3 k4 k5] and the four jokers stay, b1 and b5 join them as b1..b6 (2 moved);
    # without runs of 6 of another colour than the old meld's, three jokers moved instead.
    pos = position("k4 k5 j j j j", "k3 b1 b5", rules="four-jokers")
    suggestion = solved(pos)
    optimum = brute_optimum(pos)
    assert (suggestion.tiles_placed, optimum.tiles) == (3, 3)
    assert suggestion.tiles_moved == optimum.moved_at_max_tiles == 2


def test_a_long_run_keeps_the_tiles_of_an_old_run_in_place() -> None:
    # The smallest case of issue 17: r4 r5 r6 r7 stay in r2..r7 (3 moved: r8 r9 r10 go to
    # the groups), where runs of 3-5 alone move 4 (r2 r3 r4 and r5 r6 r7).
    pos = position("r4 r5 r6 r7 r8 r9 r10", "k8 b8 k9 o9 b10 o10 r2 r3")
    suggestion = solved(pos)
    assert suggestion.tiles_placed == 8
    assert suggestion.tiles_moved == 3
    assert Counter(parse_tiles("r2 r3 r4 r5 r6 r7")) in new_melds(suggestion)
    assert len(suggestion.new_table) == 4


def test_a_long_run_from_the_rack_is_one_meld() -> None:
    # Fewest melds: r1..r7 is one run, not r1 r2 r3 and r4..r7.
    suggestion = solved(position("", "r1 r2 r3 r4 r5 r6 r7"))
    assert new_melds(suggestion) == [Counter(parse_tiles("r1 r2 r3 r4 r5 r6 r7"))]


def test_an_opening_counts_a_long_run_with_three_jokers_at_its_best_reading() -> None:
    # j j j r4 r5 r6 is r4..r9 (39 points); its tiles split into runs of 3-5 worth 36 at most.
    pos = position("", "r4 r5 r6 j j j", opened=False, rules="four-jokers")
    suggestion = solved(pos, Objective.VALUE)
    assert suggestion.value_placed == 39
    assert [new.meld.jokers for new in suggestion.new_table] == [parse_tiles("r7 r8 r9")]
