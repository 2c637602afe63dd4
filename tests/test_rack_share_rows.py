"""The free groups hold no more of the rack's tiles than the rack has per group
(``move_program._rack_share_rows``, repeated colours): every move meets the rows, and they stop
the relaxation from laying a lone rack tile in a fraction of a group."""

from __future__ import annotations

import numpy as np
import pytest

from solver import PRESETS, Position, mip, move_program, parse_melds, parse_tiles, search
from solver.mip import Rows
from solver.position import Objective
from solver.problem import Scope, scoped_weights
from tests.test_search_start import feasible, problem_for, problem_of, program_of

# An orange 8 has two mates on the table, each holding a run together: laying it in a group
# breaks both runs, so no move lays it; the relaxation without the rows laid it in a quarter of
# a group of its own and kept every meld.
TABLE = "k7 k8 k9 | b6 b7 b8 | r1 r2 r3 | o11 o12 o13"
RACK = "o8"


def _problem(table: str, rack: str):
    return problem_for(Position(parse_melds(table), parse_tiles(rack), rules=PRESETS["repeated-colours"]))


def _bound(problem, scope: Scope) -> float:
    _, program = program_of(problem, scope)
    relaxed = mip.solve_linear(program)
    assert relaxed is not None
    return relaxed.bound


def test_the_rows_keep_the_relaxation_from_laying_a_lone_rack_tile(monkeypatch) -> None:
    problem = _problem(TABLE, RACK)
    weights = scoped_weights(problem, Objective.TILES, Scope.LEADING)
    with_rows = _bound(problem, Scope.LEADING)
    monkeypatch.setattr(move_program, "_rack_share_rows", lambda *args: Rows.empty())
    without = _bound(problem, Scope.LEADING)
    # Without the rows the relaxation places o8 and keeps all four melds; the move places nothing.
    assert without == pytest.approx(weights.primary + 4 * weights.kept)
    assert with_rows <= without - 1.0


def test_no_move_lays_the_lone_rack_tile() -> None:
    suggestion = search.solve(Position(parse_melds(TABLE), parse_tiles(RACK), rules=PRESETS["repeated-colours"]))
    assert suggestion.optimal and suggestion.tiles_placed == 0


@pytest.mark.parametrize("seed", range(6))
def test_every_move_found_meets_the_rows(seed: int, monkeypatch) -> None:
    # The optimum of the program without the rows is a move; it must meet them.
    problem = problem_of("repeated-colours", seed, table=30, rack=14)
    share_rows = move_program._rack_share_rows
    monkeypatch.setattr(move_program, "_rack_share_rows", lambda *args: Rows.empty())
    columns, program = program_of(problem, Scope.LEADING)
    rows = share_rows(problem, columns, [columns.first(p) for p in range(move_program.Z + 1)])
    assert len(rows) > 0
    solution = mip.solve(program, 60.0)
    assert solution is not None and feasible(program, solution.values)
    lhs = np.bincount(rows.rows, weights=rows.values * solution.values[rows.cols], minlength=len(rows))
    assert np.all(lhs <= rows.rhs + 1e-9)


def test_a_continuations_old_meld_is_found_among_the_free_melds_in_any_order():
    """The rows of a program look each continuation's old meld up among the free melds; the
    free melds need not be listed in increasing order for that."""
    from dataclasses import replace

    columns = move_program.columns(_problem(TABLE, RACK), Scope.TIE_BREAK)
    for free in (np.array([3, 7, 12]), np.array([12, 3, 7])):
        shuffled = replace(columns, free=free)
        assert move_program._free_rows(shuffled, np.array([7, 12, 3, 12])).tolist() == [
            free.tolist().index(m) for m in (7, 12, 3, 12)
        ]
