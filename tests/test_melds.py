"""Meld validation: runs, groups, jokers and what they stand for, and why a meld fails."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.melds import MeldKind, Problem, check_meld, group_meld, run_meld
from solver.rules import STANDARD, RuleSet
from solver.tiles import Colour, Tile, parse_tiles


def check(text: str, rules: RuleSet = STANDARD):
    return check_meld(parse_tiles(text), rules)


@pytest.mark.parametrize("text", ["r4 r5 r6", "k11 k12 k13", "b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13",
                                  "k5 b5 o5", "k5 b5 o5 r5", "r6 r4 r5", "r4 j r6", "j j r1", "k7 j o7 r7"])
def test_valid_melds(text: str) -> None:
    assert check(text).valid


@pytest.mark.parametrize(
    "text, problem",
    [
        ("r4 r5", Problem.TOO_FEW_TILES),
        ("j j j", Problem.ONLY_JOKERS),
        ("r4 k5 o6", Problem.MIXED),
        ("r12 r13 r1", Problem.RUN_GAP),  # no wrap from 13 to 1
        ("r4 r4 r5", Problem.RUN_DUPLICATE_NUMBER),
        ("r1 r2 r4", Problem.RUN_GAP),
        ("k5 k5 b5", Problem.GROUP_REPEATED_COLOUR),
        ("k5 b5 o5 r5 j", Problem.GROUP_TOO_BIG),
    ],
)
def test_invalid_melds_say_why(text: str, problem: Problem) -> None:
    result = check(text)
    assert not result.valid
    assert problem in result.problems


def test_run_off_the_end_with_too_many_jokers() -> None:
    tiles = parse_tiles("r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 r13 j")
    assert Problem.RUN_TOO_LONG in check_meld(tiles).problems


def test_joker_in_the_middle_has_one_meaning() -> None:
    result = check("r4 j r6")
    assert result.joker_choices() == (frozenset({Tile(Colour.RED, 5)}),)


def test_joker_at_either_end_of_a_run_is_ambiguous() -> None:
    result = check("j r5 r6")
    assert result.joker_choices() == (frozenset({Tile(Colour.RED, 4), Tile(Colour.RED, 7)}),)
    assert {m.value for m in result.interpretations} == {15, 18}
    assert result.best is not None and result.best.value == 18


def test_joker_next_to_13_can_only_go_below() -> None:
    result = check("r12 r13 j")
    assert [m.jokers for m in result.interpretations] == [(Tile(Colour.RED, 11),)]


def test_joker_in_a_group_stands_for_a_missing_colour() -> None:
    result = check("k7 b7 j")
    assert {m.kind for m in result.interpretations} == {MeldKind.GROUP}
    assert result.joker_choices() == (frozenset({Tile(Colour.ORANGE, 7), Tile(Colour.RED, 7)}),)


def test_repeated_group_colours_are_a_rule_setting() -> None:
    relaxed = RuleSet(group_colours_distinct=False)
    assert not check("k5 k5 b5").valid
    assert check("k5 k5 b5", relaxed).valid


def test_meld_values_count_jokers_as_what_they_stand_for() -> None:
    assert run_meld(Colour.RED, 9, 3, [2]).value == 30
    assert group_meld(10, [Colour.RED, Colour.BLUE], [Colour.BLACK]).value == 30
    assert run_meld(Colour.RED, 9, 3, [2]).tiles == parse_tiles("r9 r10 j")


@settings(max_examples=200, derandomize=True)
@given(colour=st.sampled_from(list(Colour)), start=st.integers(1, 11), data=st.data())
def test_every_run_with_any_jokers_validates(colour: Colour, start: int, data: st.DataObject) -> None:
    length = data.draw(st.integers(3, 14 - start))
    jokers = data.draw(st.sets(st.integers(0, length - 1), max_size=min(2, length - 1)))
    meld = run_meld(colour, start, length, jokers)
    result = check_meld(meld.tiles)
    assert result.valid
    assert meld in result.interpretations


@settings(max_examples=200, derandomize=True)
@given(number=st.integers(1, 13), colours=st.lists(st.sampled_from(list(Colour)), min_size=3, max_size=5))
def test_groups_valid_exactly_when_three_or_four_distinct_colours(number: int, colours: list[Colour]) -> None:
    tiles = [Tile(c, number) for c in colours]
    assert check_meld(tiles).valid == (len(set(colours)) == len(colours) <= 4)
