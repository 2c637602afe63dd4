"""The last search starts from the move that proved the best score (``move_program.carried``):
that move, written in the columns of the whole tie-break, is a solution there, and a start the
program cannot take is refused rather than given wrong."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from benchmarks.positions import deal_position
from benchmarks.solver_benchmark import position_seed
from solver import PRESETS, mip, move_program
from solver import search
from solver.position import Objective
from solver.problem import Scope, scoped_weights
from solver.table import check_table, interpret_as_laid


def feasible(program: mip.IntegerProgram, values: np.ndarray) -> bool:
    """Every equality met exactly, every at-most row and bound kept, integers whole (its own check)."""
    if np.isnan(values).any() or (values < -1e-9).any() or (values > program.upper + 1e-9).any():
        return False
    whole = ~program.continuous
    if (np.abs(values[whole] - np.round(values[whole])) > 1e-9).any():
        return False
    for rows, exact in ((program.equal, True), (program.at_most, False)):
        lhs = np.bincount(rows.rows, weights=rows.values * values[rows.cols], minlength=len(rows))
        if exact and (np.abs(lhs - rows.rhs) > 1e-9).any() or not exact and (lhs > rows.rhs + 1e-9).any():
            return False
    return True


def problem_of(rules: str, seed: int, table: int = 30, rack: int = 14):
    return problem_for(deal_position(random.Random(position_seed(seed, table, rack)), table, rack, rules=PRESETS[rules]))


def problem_for(position):
    """The problem of ``position`` with every old meld free."""
    check = check_table(position.table, position.rules)
    old = tuple(interpret_as_laid(m, c) for m, c in zip(position.table, check.melds))
    return search._prepare(position, old, tuple(range(len(old))))


def program_of(problem, scope: Scope):
    columns = move_program.columns(problem, scope)
    return columns, move_program.program(problem, columns, Objective.TILES, scoped_weights(problem, Objective.TILES, scope))


@pytest.mark.parametrize("rules", ["standard", "four-jokers", "repeated-colours"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_leading_move_is_a_solution_of_the_whole_tie_break(rules: str, seed: int) -> None:
    problem = problem_of(rules, seed)
    lead_columns, lead = program_of(problem, Scope.LEADING)
    solution = mip.solve(lead, 60.0)
    assert solution is not None and feasible(lead, solution.values)
    columns, whole = program_of(problem, Scope.TIE_BREAK)
    start = move_program.carried(problem, lead_columns, solution.values, problem, columns, len(whole.objective))
    assert start is not None and feasible(whole, start)
    # The same move: the same tiles played, the same melds left untouched.
    played = lambda c, v: v[c.first(move_program.Y):c.first(move_program.Z)]  # noqa: E731
    untouched = lambda c, v: v[c.first(move_program.U):c.first(move_program.COUNTS)]  # noqa: E731
    assert (played(columns, start) == played(lead_columns, solution.values)).all()
    assert (untouched(columns, start) == untouched(lead_columns, solution.values)).all()


def test_a_start_is_found_by_what_its_columns_stand_for_in_a_catalogue_cut_otherwise() -> None:
    problem = problem_of("standard", 3)
    lead_columns, lead = program_of(problem, Scope.LEADING)
    solution = mip.solve(lead, 60.0)
    assert solution is not None
    laid = set(lead_columns.laid[solution.values[:len(lead_columns.laid)] > 0.5].tolist())
    assert laid, "the move lays a new meld"
    # The target's catalogue: reversed, with every other candidate the move does not use gone.
    keep = np.array([k for k in range(len(problem.catalogue.usage)) if k in laid or k % 2][::-1])
    other = replace(problem, catalogue=problem.catalogue.rows(keep))
    columns, whole = program_of(other, Scope.TIE_BREAK)
    start = move_program.carried(problem, lead_columns, solution.values, other, columns, len(whole.objective))
    assert start is not None and feasible(whole, start)


def test_a_start_whose_melds_the_target_cannot_lay_is_refused() -> None:
    problem = problem_of("standard", 3)
    lead_columns, lead = program_of(problem, Scope.LEADING)
    solution = mip.solve(lead, 60.0)
    assert solution is not None
    used = lead_columns.laid[solution.values[:len(lead_columns.laid)] > 0.5]
    other = replace(problem, catalogue=problem.catalogue.rows(np.setdiff1d(np.arange(len(problem.catalogue.usage)), used)))
    columns, whole = program_of(other, Scope.TIE_BREAK)
    assert move_program.carried(problem, lead_columns, solution.values, other, columns, len(whole.objective)) is None


def test_a_start_is_checked_by_the_solver_so_a_wrong_one_changes_no_answer() -> None:
    problem = problem_of("standard", 6)
    columns, whole = program_of(problem, Scope.TIE_BREAK)
    linear = mip.solve_linear(whole)
    assert linear is not None and mip._integral_optimum(whole, linear) is None  # SCIP searches, with the start
    exact = mip.solve(whole, 60.0)
    wrong = np.full(len(whole.objective), 1.0)  # breaks the tile equalities
    assert not feasible(whole, wrong)
    started = mip.solve(whole, 60.0, start=wrong)
    assert exact is not None and started is not None and started.optimal
    assert whole.objective @ started.values == pytest.approx(whole.objective @ exact.values)
