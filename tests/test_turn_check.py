"""Checking a turn from two readings of the table: what was played, and each rule a turn can break."""

from __future__ import annotations

import pytest

from solver.rules import PRESETS, STANDARD
from solver.tiles import parse_melds, parse_tiles
from solver.turn_check import Side, Spot, TurnCheckError, TurnProblemKind, check_turn

START = parse_melds("r4 r5 r6 | k5 b5 o5 | b9 b10 b11")


def kinds(check) -> list[TurnProblemKind]:
    return [p.kind for p in check.problems]


def test_a_legal_rearrangement_is_legal_and_lists_what_was_played():
    # r7 joins the red run, b12 the blue run; the group of 5s splits off nothing: all valid.
    end = parse_melds("r4 r5 r6 r7 | k5 b5 o5 | b9 b10 b11 b12")
    check = check_turn(START, end, rack=parse_tiles("r7 b12 k1"))
    assert check.legal and check.problems == ()
    assert set(check.played) == set(parse_tiles("r7 b12")) and len(check.played) == 2
    assert check.initial_meld_value is None


def test_moving_tiles_between_melds_is_allowed():
    start = parse_melds("r3 r4 r5 r6 | k5 b5 o5")
    end = parse_melds("r3 r4 r5 | r6 r7 r8 | k5 b5 o5")
    assert check_turn(start, end, rack=parse_tiles("r7 r8")).legal


def test_a_tile_taken_back_to_the_rack_is_reported_and_pointed_at():
    # The player takes the blue 5 off the group (leaving k5 o5 invalid) and plays r7.
    end = parse_melds("r4 r5 r6 r7 | k5 o5 | b9 b10 b11")
    check = check_turn(START, end, rack=parse_tiles("r7"))
    assert not check.legal
    removed = next(p for p in check.problems if p.kind is TurnProblemKind.TILE_REMOVED)
    assert removed.tiles == parse_tiles("b5")
    assert removed.spots == (Spot(Side.START, 1, 1),)  # the blue 5 of the start's second meld
    assert "Taken off the table: blue 5." in removed.message()
    invalid = next(p for p in check.problems if p.kind is TurnProblemKind.INVALID_MELD)
    assert invalid.meld == 1 and invalid.spots == (Spot(Side.END, 1, 0), Spot(Side.END, 1, 1))


def test_a_removed_copy_is_pointed_at_in_the_meld_that_changed():
    start = parse_melds("r7 r8 r9 | r7 b7 k7 o7")
    end = parse_melds("r7 r8 r9 | b7 k7 o7")  # the second red 7 went back to the rack
    removed = check_turn(start, end).problems[0]
    assert removed.kind is TurnProblemKind.TILE_REMOVED
    assert removed.spots == (Spot(Side.START, 1, 0),)  # not the red 7 of the untouched run


def test_a_joker_taken_off_the_table_must_be_played_again():
    start = parse_melds("r4 j r6 | k5 b5 o5")
    end = parse_melds("r4 r5 r6 | k5 b5 o5")  # the joker went to the rack
    check = check_turn(start, end, rack=parse_tiles("r5"))
    assert kinds(check) == [TurnProblemKind.TILE_REMOVED]
    assert check.problems[0].tiles == parse_tiles("j") and check.problems[0].spots == (Spot(Side.START, 0, 1),)


def test_tiles_not_on_the_rack_are_reported():
    end = parse_melds("r4 r5 r6 r7 r8 | k5 b5 o5 | b9 b10 b11")
    check = check_turn(START, end, rack=parse_tiles("r7"))
    assert kinds(check) == [TurnProblemKind.NOT_ON_RACK]
    assert check.problems[0].tiles == parse_tiles("r8") and check.problems[0].spots == (Spot(Side.END, 0, 4),)
    assert check_turn(START, end).legal  # without the rack, every added tile counts as played


def test_an_invalid_meld_at_the_end_is_reported_with_its_reasons():
    end = parse_melds("r4 r5 r6 | k5 b5 o5 | b9 b10 b11 | k1 k2")
    check = check_turn(START, end)
    assert kinds(check) == [TurnProblemKind.INVALID_MELD]
    assert check.problems[0].message() == "Meld 4 at the end of the turn is not valid: a meld needs at least 3 tiles."


def test_more_copies_than_the_game_has_are_reported():
    end = parse_melds("r4 r5 r6 | k5 b5 o5 | b9 b10 b11 | k5 b5 o5 | r5 k5 b5")
    check = check_turn(START, end)
    limit = next(p for p in check.problems if p.kind is TurnProblemKind.COPY_LIMIT)
    assert set(limit.tiles) == set(parse_tiles("k5 b5"))
    assert len(limit.spots) == 6


def test_a_drawn_turn_changes_nothing_and_is_legal():
    check = check_turn(START, START, rack=parse_tiles("k1"), initial_meld_done=False)
    assert check.legal and check.played == () and check.initial_meld_value is None


def test_an_initial_meld_from_the_rack_reaching_the_threshold_is_legal():
    end = parse_melds("r4 r5 r6 | k5 b5 o5 | b9 b10 b11 | k10 k11 k12")
    check = check_turn(START, end, rack=parse_tiles("k10 k11 k12 o1"), initial_meld_done=False)
    assert check.legal and check.initial_meld_value == 33


def test_an_initial_meld_below_the_threshold_is_reported():
    end = parse_melds("r4 r5 r6 | k5 b5 o5 | b9 b10 b11 | k1 k2 k3 | o4 b4 r4")
    check = check_turn(START, end, initial_meld_done=False)
    assert kinds(check) == [TurnProblemKind.INITIAL_MELD_TOO_LOW]
    problem = check.problems[0]
    assert (problem.points, problem.threshold) == (18, 30) and check.initial_meld_value == 18
    assert problem.spots[0] == Spot(Side.END, 3, 0) and len(problem.spots) == 6
    assert problem.message() == "The initial meld is worth 18 points; it needs at least 30."
    assert kinds(check_turn(START, end, initial_meld_done=False, rules=PRESETS["opening-50"])) == kinds(check)


def test_an_initial_meld_may_not_use_the_table():
    # 30 points, but r7 was laid on the red run and b12 on the blue run instead of a meld of their own.
    end = parse_melds("r4 r5 r6 r7 | k5 b5 o5 | b9 b10 b11 b12 | k10 o10 b10")
    check = check_turn(START, end, initial_meld_done=False)
    assert TurnProblemKind.INITIAL_MELD_TOUCHED_TABLE in kinds(check)
    touched = next(p for p in check.problems if p.kind is TurnProblemKind.INITIAL_MELD_TOUCHED_TABLE)
    assert {s.meld for s in touched.spots} == {0, 2} and all(s.side is Side.START for s in touched.spots)
    assert check_turn(START, end, initial_meld_done=True).legal  # after the initial meld it is fine


def test_a_joker_in_the_initial_meld_is_reported_only_when_the_rules_forbid_it():
    end = parse_melds("r4 r5 r6 | k5 b5 o5 | b9 b10 b11 | k10 j k12")
    assert check_turn(START, end, initial_meld_done=False).legal
    check = check_turn(START, end, initial_meld_done=False, rules=PRESETS["european"])
    assert kinds(check) == [TurnProblemKind.INITIAL_MELD_JOKER]
    assert check.problems[0].spots == (Spot(Side.END, 3, 1),)


def test_an_invalid_start_reading_is_flagged():
    start = parse_melds("r4 r5 r7 | k5 b5 o5")
    check = check_turn(start, start)
    assert kinds(check) == [TurnProblemKind.START_INVALID]
    assert check.problems[0].spots[0].side is Side.START
    assert "at the start of the turn is not valid" in check.problems[0].message()


def test_two_different_tables_are_refused_with_a_clear_message():
    other = parse_melds("k1 k2 k3 | o11 o12 o13 | r10 o10 k10")
    with pytest.raises(TurnCheckError, match=r"different tables: only 0 of the 9 tiles"):
        check_turn(START, other)
    with pytest.raises(TurnCheckError):
        check_turn(START, ())  # nothing read on the second photo


def test_messages_are_translated():
    end = parse_melds("r4 r5 r6 r7 | k5 o5 | b9 b10 b11")
    problem = check_turn(START, end, rules=STANDARD).problems[0]
    assert problem.message("uk") != problem.message("en")
