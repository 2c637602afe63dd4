"""Meld validation: runs, groups, jokers and what they stand for, and why a meld fails."""

import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.melds import Meld, MeldKind, Problem, check_meld, group_meld, run_meld
from solver.rules import STANDARD, RuleSet
from solver.table import check_table
from solver.tiles import ALL_KINDS, JOKER, Colour, Tile, parse_melds, parse_tiles


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


def test_meld_properties_are_stable_and_not_fields() -> None:
    meld = run_meld(Colour.RED, 9, 3, [2])
    assert meld.tiles is meld.tiles and meld.tiles == parse_tiles("r9 r10 j")
    assert meld.jokers == (Tile(Colour.RED, 11),) and meld.value == 30
    assert [f.name for f in dataclasses.fields(Meld)] == ["kind", "represented", "joker_mask"]
    assert repr(meld).startswith("Meld(kind=<MeldKind.RUN: 'run'>, represented=(Tile(colour=<Colour.RED: 'red'>")
    assert "tiles=" not in repr(meld) and "value=" not in repr(meld)


def test_equal_melds_hash_equal_and_survive_pickle() -> None:
    built = run_meld(Colour.BLUE, 4, 4, [0])
    typed = Meld(MeldKind.RUN, tuple(Tile(Colour.BLUE, n) for n in range(4, 8)), (True, False, False, False))
    assert built == typed and hash(built) == hash(typed)
    assert built.value == typed.value  # caches filled on one, not the other
    assert hash(built) == hash(typed) and {built: 1}[typed] == 1
    copy = pickle.loads(pickle.dumps(built))
    assert copy == built and hash(copy) == hash(built) and copy.tiles == built.tiles
    assert dataclasses.replace(built, joker_mask=(False,) * 4).tiles == parse_tiles("b4 b5 b6 b7")


@settings(max_examples=150, derandomize=True)
@given(st.lists(st.sampled_from(ALL_KINDS), min_size=1, max_size=6))
def test_check_meld_answers_equal_inputs_alike_and_keeps_the_given_order(tiles: list[Tile]) -> None:
    fresh = [Tile(t.colour, t.number) for t in tiles]
    first, again = check_meld(tiles), check_meld(tuple(fresh))
    assert first == again
    assert again.tiles == tuple(tiles)
    reversed_check = check_meld(tiles[::-1])
    assert reversed_check.tiles == tuple(tiles[::-1])
    assert set(reversed_check.interpretations) == set(first.interpretations)


def test_check_meld_results_depend_on_the_rules_it_reads() -> None:
    pair = parse_tiles("r5 r6")
    assert not check_meld(pair).valid
    assert check_meld(pair, RuleSet(min_meld_size=2)).valid
    assert not check_meld(pair).valid
    repeated = parse_tiles("k5 k5 b5")
    assert check_meld(repeated).problems == (Problem.GROUP_REPEATED_COLOUR,)
    assert check_meld(repeated, RuleSet(group_colours_distinct=False)).valid
    assert check_meld(repeated).problems == (Problem.GROUP_REPEATED_COLOUR,)


def test_check_table_names_tiles_over_their_limit_in_index_order() -> None:
    table = parse_melds("r7 r8 r9 | r7 k7 b7 | r7 r8 r9 | k7 b7 o7 | k7 b7 r7 | j r10 r11 | j o2 o3 | j k2 k3")
    result = check_table(table)
    assert result.over_limit == (Tile(Colour.BLACK, 7), Tile(Colour.BLUE, 7), Tile(Colour.RED, 7), JOKER)
    assert not result.valid and not result.invalid
    assert check_table(table, RuleSet(copies=4, jokers=3)).valid
    assert check_table(()).over_limit == ()
