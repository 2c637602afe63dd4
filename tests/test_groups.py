"""Groups counted per number under repeated colours (solver.groups): any 3G-4G tiles of one
number, G of them real, are G valid groups; the rows allow exactly those counts."""

from __future__ import annotations

from collections import Counter
from itertools import product

import numpy as np
import pytest

from solver import PRESETS, Position, parse_melds, parse_tiles, solve
from solver.groups import GROUPS, GroupCounts
from solver.mip import IntegerProgram, Rows
from solver.mip import solve as solve_program
from solver.tiles import JOKER, Tile, parse_tile
from tests.oracle import assert_legal, is_valid_tiles

REPEATED = PRESETS["repeated-colours"]


def usage(text: str) -> np.ndarray:
    row = np.zeros(53, np.int16)
    for tile in parse_tiles(text):
        row[tile.index] += 1
    return row


def test_columns_count_each_colour_and_the_jokers_then_the_groups() -> None:
    counts = GroupCounts.for_tiles(usage("r5 r5 k5 b5 j k9 k9"))
    fives = counts.number == 5
    assert sorted(counts.kind[fives].tolist()) == sorted([GROUPS, parse_tile("r5").index, parse_tile("k5").index,
                                                          parse_tile("b5").index, JOKER.index])
    assert counts.upper[fives & (counts.kind == GROUPS)].tolist() == [1]  # 5 tiles: one group at most
    assert set(counts.number.tolist()) == {5, 9}  # k9 k9 and the joker make a group of three


@pytest.mark.parametrize("reals,jokers,groups", [(3, 0, 1), (4, 0, 1), (2, 1, 1), (6, 0, 2), (5, 2, 2), (7, 1, 2)])
def test_tiles_of_one_number_make_the_groups_counted(reals: int, jokers: int, groups: int) -> None:
    colours = ["r", "r", "k", "k", "b", "b", "o", "o"][:reals]
    counts = GroupCounts.for_tiles(usage(" ".join(f"{c}7" for c in colours) + " j" * jokers))
    values = np.zeros(len(counts))
    for k, kind in enumerate(counts.kind.tolist()):
        values[k] = groups if kind == GROUPS else jokers if kind == JOKER.index else colours.count(Tile.from_index(kind).short[0])
    melds = counts.melds(values)
    assert len(melds) == groups
    assert all(is_valid_tiles(m.tiles, REPEATED) for m in melds)
    assert Counter(t for m in melds for t in m.tiles) == Counter(parse_tiles(" ".join(f"{c}7" for c in colours) + " j" * jokers))


def _feasible(counts: GroupCounts, values: np.ndarray) -> bool:
    rows = counts.rows(0)
    lhs = np.zeros(len(rows.rhs))
    np.add.at(lhs, rows.rows, rows.values * values[rows.cols])
    return bool(np.all(lhs <= rows.rhs + 1e-9))


def test_the_rows_allow_exactly_the_counts_that_make_groups() -> None:
    # Tiles of one number: 0-4 real, 0-2 jokers; G groups; valid iff 3G <= T <= 4G, reals >= G.
    counts = GroupCounts.for_tiles(usage("r3 r3 k3 k3 j j"))
    real_cols = [k for k, kind in enumerate(counts.kind) if kind not in (GROUPS, JOKER.index)]
    joker_col = int(np.nonzero(counts.kind == JOKER.index)[0][0])
    group_col = int(np.nonzero(counts.kind == GROUPS)[0][0])
    for reals in product(range(3), repeat=len(real_cols)):
        for jokers in range(3):
            for g in range(3):
                values = np.zeros(len(counts))
                values[real_cols], values[joker_col], values[group_col] = reals, jokers, g
                total = sum(reals) + jokers
                assert _feasible(counts, values) == (3 * g <= total <= 4 * g and sum(reals) >= g)


def test_a_move_lays_groups_counted_per_number_and_keeps_the_table() -> None:
    position = Position(parse_melds("r5 r6 r7 | k5 b5 o5"), parse_tiles("k5 r5 o5 b9 b9 r9 j"), rules=REPEATED)
    suggestion = solve(position)
    assert_legal(position, suggestion)
    assert suggestion.tiles_placed == 7 and suggestion.melds_untouched == 2
    assert Counter(parse_tiles("b9 b9 r9 j")) in [Counter(new.meld.tiles) for new in suggestion.new_table]


def test_no_tiles_no_group_columns() -> None:
    assert len(GroupCounts.for_tiles(np.zeros(53, np.int16))) == 0
    assert len(GroupCounts.for_tiles(usage("r5 k5"))) == 0  # too few for a group
    program = IntegerProgram(np.zeros(0), np.zeros(0), Rows.empty(), GroupCounts.none().rows(0), np.zeros(0, bool))
    assert solve_program(program, 1.0) is not None
