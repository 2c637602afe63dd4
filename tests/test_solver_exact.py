"""The solver's answer is the exact optimum in every criterion, under every rule variant
that changes what a move may be.

Two references of their own: brute force on tiny positions (:mod:`tests.brute`), and an
exact integer program over every run of 3-13 tiles and every group (:mod:`tests.exact`),
which brute force checks in turn. Positions are seeded (``benchmarks.positions``); a
CI-sized sample runs by default, the large sweep (300 positions) is marked ``slow`` and
``sweep`` and left out by default (``-m slow`` or ``-m sweep`` runs it).
"""

from __future__ import annotations

import random

import pytest

from benchmarks.positions import deal_position, restricted_pool
from solver import PRESETS, Objective, Position, parse_melds, parse_tiles
from tests.brute import brute_score
from tests.exact import Score, exact_optimum, score_of, solve_proven
from tests.oracle import assert_legal

VARIANTS = ("standard", "four-jokers", "repeated-colours")


def tiny_position(preset: str, seed: int) -> Position:
    """A table of 0-6 tiles and a rack of 0-5 from a small pool; one in five not opened."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    opened = seed % 5 != 0
    pool = restricted_pool(rng, rules, lowest=1 if opened else 7)
    rack = rng.randint(0, 5) if opened else rng.randint(3, 8)
    return deal_position(rng, rng.choice([0, 3, 4, 5, 6]), rack, rules, initial_meld_done=opened, pool=pool)


def dealt_position(preset: str, seed: int, tables: tuple[int, ...], racks: tuple[int, ...]) -> tuple[Position, Objective]:
    """A position dealt from the rule set's tiles, and the objective to check it under (one
    in four by value; one in eight before the initial meld)."""
    rng = random.Random(seed * 7919 + len(preset))
    opened = seed % 8 != 7
    position = deal_position(rng, rng.choice(tables), rng.choice(racks), PRESETS[preset], initial_meld_done=opened)
    return position, Objective.VALUE if seed % 4 == 1 else Objective.TILES


def solver_score(position: Position, objective: Objective) -> Score:
    suggestion = solve_proven(position, objective)
    assert_legal(position, suggestion)
    return score_of(suggestion)


def describe(position: Position) -> str:
    table = " | ".join(" ".join(t.short for t in meld) for meld in position.table)
    return f"table {table!r}, rack {' '.join(t.short for t in position.rack)!r}, rules {position.rules.name}"


@pytest.mark.parametrize("preset", VARIANTS)
@pytest.mark.parametrize("seed", range(15))
def test_checker_and_solver_match_brute_force_on_tiny_positions(preset: str, seed: int) -> None:
    position = tiny_position(preset, seed)
    for objective in Objective:
        brute = brute_score(position, objective)
        assert exact_optimum(position, objective) == brute, describe(position)
        assert solver_score(position, objective) == brute, describe(position)


def _check(preset: str, seed: int, tables: tuple[int, ...], racks: tuple[int, ...]) -> None:
    position, objective = dealt_position(preset, seed, tables, racks)
    assert solver_score(position, objective) == exact_optimum(position, objective), describe(position)


@pytest.mark.parametrize("preset", VARIANTS)
@pytest.mark.parametrize("seed", range(5))
def test_solver_matches_the_exact_checker(preset: str, seed: int) -> None:
    _check(preset, seed, (9, 12, 15, 18), (3, 5, 8))


#: Tables of the large sweep: the checker's program of every run under four jokers, or of
#: every colour combination in groups, takes minutes at table 60.
SWEEP_TABLES = {"standard": (10, 20, 30, 30, 45, 60), "four-jokers": (10, 20, 30, 30, 45), "repeated-colours": (10, 20, 30, 30, 45)}


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize("preset", VARIANTS)
@pytest.mark.parametrize("seed", range(100))
def test_solver_matches_the_exact_checker_on_large_tables(preset: str, seed: int) -> None:
    _check(preset, seed, SWEEP_TABLES[preset], (5, 10, 14))


def test_the_smallest_case_of_issue_17_moves_three_tiles() -> None:
    # Table r4..r10, rack k8 b8 k9 o9 b10 o10 r2 r3: the groups take r8 r9 r10 and
    # r2 r3 r4 r5 r6 r7 keeps r4..r7 in place (3 moved); runs of 3-5 alone move 4.
    position = Position(parse_melds("r4 r5 r6 r7 r8 r9 r10"), parse_tiles("k8 b8 k9 o9 b10 o10 r2 r3"))
    expected = Score(primary=8, untouched=0, moved=3, value=59, melds=4, firsts=1)
    assert exact_optimum(position) == expected
    assert solver_score(position, Objective.TILES) == expected


def test_the_checker_ranks_keeping_a_meld_above_fewer_melds() -> None:
    # r1 r2 r3 stays as it is and r4 r5 r6 is laid beside it (2 melds) rather than r1..r6
    # (1 meld, the old meld touched); on an empty table r1..r6 is one meld.
    assert exact_optimum(Position(parse_melds("r1 r2 r3"), parse_tiles("r4 r5 r6"))) == Score(3, 1, 0, 15, 2, 1)
    assert exact_optimum(Position((), parse_tiles("r1 r2 r3 r4 r5 r6"))) == Score(6, 0, 0, 21, 1, 0)
