"""The large-table path of the solver: the relaxation that proves which melds stay, the
array MIP, and the candidate catalogue, each checked against a plain construction."""

from __future__ import annotations

import random

import numpy as np
import pytest

from benchmarks.positions import deal_position
from solver import PRESETS, Objective, Position, parse_melds, parse_tiles, solve
from solver import search
from tests.exact import solve_proven
from solver.mip import IntegerProgram, Rows, solve_linear
from solver.mip import solve as solve_program
from tests.oracle import assert_legal


def _criteria(suggestion, objective: Objective) -> tuple[int | None, ...]:
    """What the lexicographic objective ranks (under the value objective the tile count is
    no criterion, so equal moves may differ in it)."""
    placed = suggestion.tiles_placed if objective is Objective.TILES else None
    return (
        placed,
        suggestion.value_placed,
        suggestion.melds_untouched,
        suggestion.tiles_moved,
        len(suggestion.new_table),
    )


def _medium_position(seed: int) -> Position:
    rng = random.Random(seed)
    return deal_position(rng, rng.choice([9, 15, 24, 30]), rng.randint(3, 16))


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("objective", list(Objective))
def test_large_table_path_matches_opening_the_whole_table(
    seed: int, objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The relaxation opens only some melds and candidates; the answer must be the one the
    # whole table's MIP gives, in every criterion of the tie-break.
    position = _medium_position(seed)
    monkeypatch.setattr(search, "SMALL_TABLE_MELDS", 0)  # every table takes the large path
    fast = solve_proven(position, objective)
    assert_legal(position, fast)
    monkeypatch.setattr(search, "SMALL_TABLE_MELDS", 10**6)
    monkeypatch.setattr(search, "SMALL_TABLE_CANDIDATES", 10**9)
    whole = solve_proven(position, objective)
    assert _criteria(fast, objective) == _criteria(whole, objective)


def test_moves_placing_the_most_tiles_the_bound_allows_settle_a_loose_bound_on_melds_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Big racks on mid-size tables: the bound on melds kept is often a few melds too
    # optimistic; the search among moves placing the most tiles the bound allows must then
    # give the whole table's answer, and it must be what ends some of these searches.
    calls: list[str] = []
    reaching, rearrange = search._solve_reaching, search._solve_rearrange

    def spy_reaching(*args, **kwargs):
        outcome = reaching(*args, **kwargs)
        calls.append(f"{'reached' if outcome is not None else 'missed'} {args[-1].name}")
        return outcome

    def spy_rearrange(*args, **kwargs):
        calls.append("touched")
        return rearrange(*args, **kwargs)

    ended_there = 0
    for seed in range(10):
        rng = random.Random(1000 + seed)
        position = deal_position(rng, rng.choice([24, 30]), rng.randint(24, 30))
        calls.clear()
        monkeypatch.setattr(search, "_solve_reaching", spy_reaching)
        monkeypatch.setattr(search, "_solve_rearrange", spy_rearrange)
        monkeypatch.setattr(search, "SMALL_TABLE_MELDS", 0)
        fast = solve_proven(position, Objective.TILES)
        # The bound and one below missed, the most tiles the bound allows reached, then the
        # tie-break aimed at that score.
        ended_there += calls == ["missed TIE_BREAK", "missed LEADING", "reached LEADING", "reached TIE_BREAK"]
        monkeypatch.undo()
        monkeypatch.setattr(search, "SMALL_TABLE_MELDS", 10**6)
        monkeypatch.setattr(search, "SMALL_TABLE_CANDIDATES", 10**9)
        whole = solve_proven(position, Objective.TILES)
        monkeypatch.undo()
        assert_legal(position, fast)
        assert _criteria(fast, Objective.TILES) == _criteria(whole, Objective.TILES)
    assert ended_there > 0


def test_a_small_table_with_thousands_of_candidates_takes_the_large_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # Four melds, but four jokers and 50 tiles make 5,000+ candidates: the whole table's
    # program took 3 s; the relaxation path leaves most out, with the same answer.
    position = deal_position(random.Random(2 * 1_000_003 + 30 * 1_000 + 20), 30, 20, PRESETS["four-jokers"])
    monkeypatch.setattr(search, "SMALL_TABLE_MELDS", len(position.table))  # few enough melds to open whole
    paths: list[str] = []
    large = search._solve_large

    def spy(*args, **kwargs):
        paths.append("large")
        return large(*args, **kwargs)

    monkeypatch.setattr(search, "_solve_large", spy)
    fast = solve_proven(position)
    assert paths == ["large"]
    monkeypatch.setattr(search, "SMALL_TABLE_CANDIDATES", 10**9)
    whole = solve_proven(position)
    assert paths == ["large"]
    assert_legal(position, fast)
    assert _criteria(fast, Objective.TILES) == _criteria(whole, Objective.TILES)


def test_large_table_adds_a_tile_to_a_run_and_touches_nothing_else() -> None:
    melds = "k1 k2 k3 | b5 b6 b7 | o9 o10 o11 | r2 r3 r4 | k7 b7 o7 | b11 b12 b13 | o1 o2 o3 o4"
    position = Position(parse_melds(melds), parse_tiles("r5"))
    assert len(position.table) > search.SMALL_TABLE_MELDS
    suggestion = solve(position)
    assert_legal(position, suggestion)
    assert suggestion.tiles_placed == 1
    assert suggestion.melds_untouched == len(position.table) - 1
    assert suggestion.tiles_moved == 0


def _knapsack() -> IntegerProgram:
    # max 5a + 4b + 3c  s.t.  2a + 2b + 2c <= 5, a, b, c in {0, 1}: LP 10.5, integer 9.
    return IntegerProgram(
        np.array([5.0, 4.0, 3.0]),
        np.ones(3),
        Rows.empty(),
        Rows(np.zeros(3, np.int64), np.arange(3), np.full(3, 2.0), np.array([5.0])),
        np.zeros(3, dtype=bool),
    )


def test_mip_solves_to_the_integer_optimum() -> None:
    solution = solve_program(_knapsack(), time_limit_s=5.0)
    assert solution is not None and solution.optimal
    assert list(solution.values) == [1.0, 1.0, 0.0]


def test_mip_reports_an_infeasible_program_as_none() -> None:
    program = _knapsack()
    # a + b + c == 4 cannot hold for binaries.
    infeasible = IntegerProgram(
        program.objective, program.upper,
        Rows(np.zeros(3, np.int64), np.arange(3), np.ones(3), np.array([4.0])),
        program.at_most, program.continuous,
    )
    assert solve_program(infeasible, time_limit_s=5.0) is None


def test_relaxation_bounds_the_integer_optimum_and_fixes_what_cannot_change() -> None:
    relaxation = solve_linear(_knapsack())
    assert relaxation is not None
    assert relaxation.bound == pytest.approx(10.5)
    assert relaxation.best_possible == 10
    # At the LP optimum a = b = 1 and c = 0.5; lowering a costs 2, lowering b costs 1.
    # Reaching 9 allows losing 1.5: a stays at 1 (the integer optimum a = b = 1 agrees).
    assert list(relaxation.may_change(9)) == [False, True, True]
    # Reaching 10 allows losing 0.5: a and b both stay at 1.
    assert list(relaxation.may_change(10)) == [False, False, True]
