"""The array MIP (:mod:`solver.mip`): exact at the solver's large lexicographic weights,
degenerate programs answered, infeasible ones reported, and a stopped search marked."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from solver import mip
from solver.mip import (
    IntegerProgram,
    Rows,
    SolverError,
    solve,
    solve_linear,
    with_proof,
)
from tests.test_search_start import feasible

#: Weight of the leading criterion, about the largest objective the solver's models reach on
#: a 90-tile table: a relative gap of 1e-4 (a MIP solver's usual default) would hide 10^5 units.
BIG = 10.0**9


def _rows(dense: np.ndarray, rhs: np.ndarray) -> Rows:
    rows, cols = np.nonzero(dense)
    return Rows(rows, cols, dense[rows, cols].astype(np.float64), rhs.astype(np.float64))


def _random_program(seed: int) -> IntegerProgram:
    """Eight binaries and two integers in 0..2 under random rows; the objective ranks a
    leading score at weight BIG and a tie-break in units."""
    rng = np.random.default_rng(seed)
    n = 10
    upper = np.r_[np.ones(8), 2.0, 2.0]
    leading = rng.integers(0, 3, size=n)
    tiebreak = rng.integers(-4, 5, size=n)
    equal = _rows(rng.integers(0, 2, size=(1, n)) * (rng.random((1, n)) < 0.4), rng.integers(1, 4, size=1))
    at_most = _rows(rng.integers(-1, 3, size=(3, n)), rng.integers(1, 5, size=3))
    return IntegerProgram(BIG * leading + tiebreak, upper, equal, at_most, np.zeros(n, dtype=bool))


def _brute_force(program: IntegerProgram) -> float | None:
    """Best objective over every integer point, exactly (Python integers); None if none."""
    n = len(program.objective)
    best = None
    for point in itertools.product(*(range(int(u) + 1) for u in program.upper)):
        x = np.array(point, dtype=np.float64)
        lhs = np.zeros(len(program.equal))
        np.add.at(lhs, program.equal.rows, program.equal.values * x[program.equal.cols])
        if not np.array_equal(lhs, program.equal.rhs):
            continue
        lhs = np.zeros(len(program.at_most))
        np.add.at(lhs, program.at_most.rows, program.at_most.values * x[program.at_most.cols])
        if np.any(lhs > program.at_most.rhs):
            continue
        score = sum(int(c) * int(v) for c, v in zip(program.objective, point))
        best = score if best is None else max(best, score)
    assert n == len(program.upper)
    return best


@pytest.mark.parametrize("seed", range(12))
def test_solution_is_exact_in_the_unit_tie_break_under_a_huge_leading_weight(seed: int) -> None:
    program = _random_program(seed)
    expected = _brute_force(program)
    solution = solve(program, time_limit_s=10.0)
    if expected is None:
        assert solution is None
        return
    assert solution is not None and solution.optimal
    assert sum(int(c) * int(v) for c, v in zip(program.objective, solution.values)) == expected


def test_integral_relaxations_answer_exactly_and_fractional_ones_go_to_the_search(monkeypatch) -> None:
    # Over many random programs both ways are taken, and every answer matches brute force.
    shortcut = []
    integral_optimum = mip._integral_optimum

    def spy(program: IntegerProgram, linear: mip.LinearSolution):
        values = integral_optimum(program, linear)
        shortcut.append(values is not None)
        return values

    monkeypatch.setattr(mip, "_integral_optimum", spy)
    for seed in range(100, 160):
        program = _random_program(seed)
        expected = _brute_force(program)
        solution = solve(program, time_limit_s=10.0)
        got = None if solution is None else sum(int(c) * int(v) for c, v in zip(program.objective, solution.values))
        assert got == expected, seed
    assert 0 < sum(shortcut) < len(shortcut)


@pytest.mark.parametrize("seed", range(8))
def test_bound_proven_from_any_duals_holds_for_every_integer_solution(seed: int) -> None:
    # Weak duality: whatever duals an LP solver hands back (here GLOP's, then spoilt at
    # random), the bound they prove is never below the best integer solution.
    program = _random_program(seed)
    expected = _brute_force(program)
    linear = solve_linear(program)
    if expected is None or linear is None:
        return
    assert linear.bound >= expected - 1e-6
    rng = np.random.default_rng(seed)
    for _ in range(20):
        noisy = linear.duals + rng.normal(0.0, BIG, size=len(linear.duals)) * (rng.random(len(linear.duals)) < 0.5)
        assert with_proof(program, linear.values, noisy).bound >= expected - 1e-6


def test_fractional_relaxation_is_not_taken_for_an_integer_solution() -> None:
    # max a + b with 2a + 2b <= 3: the relaxation's optimum 1.5 is no integer point.
    program = IntegerProgram(
        np.ones(2), np.ones(2), Rows.empty(), _rows(np.array([[2, 2]]), np.array([3])), np.zeros(2, dtype=bool)
    )
    linear = solve_linear(program)
    assert linear is not None and linear.bound == pytest.approx(1.5)
    assert mip._integral_optimum(program, linear) is None
    solution = solve(program, time_limit_s=1.0)
    assert solution is not None and solution.values.sum() == 1.0


def test_infeasible_relaxation_has_no_solution() -> None:
    # a + b == 3 over binaries: already the relaxation has no point.
    program = IntegerProgram(
        np.ones(2), np.ones(2), _rows(np.ones((1, 2)), np.array([3])), Rows.empty(), np.zeros(2, dtype=bool)
    )
    assert solve_linear(program) is None
    assert solve(program, time_limit_s=1.0) is None


def _stored_program(name: str) -> IntegerProgram:
    data = np.load(Path(__file__).parent / "data" / f"{name}.npz")
    return IntegerProgram(
        data["objective"], data["upper"],
        Rows(data["eq_rows"], data["eq_cols"], data["eq_values"], data["eq_rhs"]),
        Rows(data["le_rows"], data["le_cols"], data["le_values"], data["le_rhs"]),
        data["continuous"],
    )


@pytest.mark.parametrize("glop_parameters", ["use_preprocessing:false,initial_basis:NONE", mip.GLOP_PARAMETERS])
def test_glop_calling_a_feasible_program_infeasible_does_not_lose_its_solution(glop_parameters, monkeypatch) -> None:
    # A restricted move program of a large table: GLOP with scaling called its relaxation
    # infeasible, yet it has integer solutions. Whatever GLOP says, the answer is SCIP's.
    program = _stored_program("glop_false_infeasible")
    monkeypatch.setattr(mip, "GLOP_PARAMETERS", glop_parameters)
    solution = solve(program, time_limit_s=10.0)
    assert solution is not None and solution.optimal
    assert program_objective(program, solution.values) == program_objective(program, _scip_only(program, monkeypatch))


@pytest.mark.parametrize("name", ["glop_abnormal", "glop_false_infeasible"])
def test_relaxations_glop_got_wrong_with_scaling_are_solved_without_it(name: str) -> None:
    program = _stored_program(name)
    linear = solve_linear(program)
    assert linear is not None
    solution = solve(program, time_limit_s=10.0)
    assert solution is not None and program_objective(program, solution.values) <= linear.bound + 1e-6


def test_relaxation_out_of_time_counts_as_unsolved_and_the_search_still_answers(monkeypatch) -> None:
    program = _stored_program("glop_abnormal")
    expected = solve(program, time_limit_s=10.0)
    monkeypatch.setattr(mip, "LINEAR_TIME_LIMIT_S", 1e-9)
    assert solve_linear(program) is None
    solution = solve(program, time_limit_s=10.0)
    assert solution is not None and expected is not None and solution.optimal
    assert program_objective(program, solution.values) == program_objective(program, expected.values)


def _scip_only(program: IntegerProgram, monkeypatch) -> np.ndarray:
    with monkeypatch.context() as patch:
        patch.setattr(mip, "solve_linear", lambda *args, **kwargs: None)
        solution = solve(program, time_limit_s=10.0)
    assert solution is not None
    return solution.values


def program_objective(program: IntegerProgram, values: np.ndarray) -> float:
    return float(program.objective @ values)


def test_a_unit_below_a_huge_score_is_not_given_away() -> None:
    # max BIG a + (BIG + 1) b with a + b <= 1: only b is optimal, by one unit in 10^9.
    program = IntegerProgram(
        np.array([BIG, BIG + 1]), np.ones(2), Rows.empty(), _rows(np.ones((1, 2)), np.ones(1)), np.zeros(2, dtype=bool)
    )
    solution = solve(program, time_limit_s=10.0)
    assert solution is not None and solution.optimal
    assert list(solution.values) == [0.0, 1.0]


def test_program_without_columns_has_the_empty_solution() -> None:
    empty = IntegerProgram(np.zeros(0), np.zeros(0), Rows.empty(), Rows.empty(), np.zeros(0, dtype=bool))
    solution = solve(empty, time_limit_s=1.0)
    assert solution is not None and solution.optimal and len(solution.values) == 0


def test_program_without_rows_takes_each_column_at_its_best_bound() -> None:
    program = IntegerProgram(
        np.array([3.0, -2.0, 1.0]), np.array([2.0, 1.0, 1.0]), Rows.empty(), Rows.empty(), np.zeros(3, dtype=bool)
    )
    solution = solve(program, time_limit_s=1.0)
    assert solution is not None and solution.optimal
    assert list(solution.values) == [2.0, 0.0, 1.0]


def test_equality_that_no_integer_point_meets_is_infeasible() -> None:
    # 2a + 2b == 3 over integers.
    program = IntegerProgram(
        np.ones(2), np.full(2, 3.0), _rows(np.array([[2, 2]]), np.array([3])), Rows.empty(), np.zeros(2, dtype=bool)
    )
    assert solve(program, time_limit_s=1.0) is None


def test_equalities_alone_are_solved() -> None:
    # a + b == 1 over binaries, no at-most row (cvxopt refuses a program without one).
    program = IntegerProgram(
        np.array([1.0, 2.0]), np.ones(2), _rows(np.ones((1, 2)), np.ones(1)), Rows.empty(), np.zeros(2, dtype=bool)
    )
    solution = solve(program, time_limit_s=1.0)
    assert solution is not None and solution.optimal
    assert list(solution.values) == [0.0, 1.0]


def test_a_column_listed_twice_in_one_row_counts_twice() -> None:
    # a + a + b <= 2 and b >= 1 (as -b <= -1), maximise a + b over 0..2: a row's repeated entries
    # add up (2a + b <= 2 gives a = 0, b = 2), as the rows' own arithmetic (a start's check) reads them.
    at_most = Rows(
        np.array([0, 0, 0, 1]), np.array([0, 0, 1, 1]), np.array([1.0, 1.0, 1.0, -1.0]), np.array([2.0, -1.0])
    )
    program = IntegerProgram(np.ones(2), np.full(2, 2.0), Rows.empty(), at_most, np.zeros(2, dtype=bool))
    solution = solve(program, time_limit_s=1.0)
    assert solution is not None and solution.optimal
    assert list(solution.values) == [0.0, 2.0]
    assert not mip._meets_rows(program, np.array([1.0, 1.0]))  # 1 + 1 + 1 > 2
    assert mip._meets_rows(program, np.array([0.0, 2.0]))


@pytest.mark.parametrize("seed", range(5))
def test_the_models_matrix_is_the_rows_sum(seed: int) -> None:
    # Random rows with repeated entries: the matrix handed to OR-Tools is their sum per row and column.
    rng = np.random.default_rng(seed)
    rows = Rows(rng.integers(0, 6, 80), rng.integers(0, 9, 80), rng.integers(-3, 4, 80).astype(np.float64), np.zeros(6))
    expected = np.zeros((6, 9))
    np.add.at(expected, (rows.rows, rows.cols), rows.values)
    matrix = mip._csr(rows, 9)
    assert np.array_equal(matrix.toarray(), expected)
    # One entry per row and column (OR-Tools refuses a model that lists one twice).
    assert matrix.nnz == len(set(zip(rows.rows.tolist(), rows.cols.tolist())))


def test_unbounded_program_without_rows_is_an_error() -> None:
    program = IntegerProgram(np.ones(1), np.array([np.inf]), Rows.empty(), Rows.empty(), np.zeros(1, dtype=bool))
    with pytest.raises(SolverError, match="unbounded"):
        solve(program, time_limit_s=1.0)


def test_infeasible_equalities_are_reported_as_none() -> None:
    # -2a + b == 2, -a + 2b == 3: a = -1/3 < 0 (this system made GLPK's presolve abort the process).
    equal = Rows(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([-2.0, 1.0, -1.0, 2.0]), np.array([2.0, 3.0]))
    program = IntegerProgram(
        np.array([3.0, -2.0, 2.0]), np.array([np.inf, np.inf, 2.0]), equal, Rows.empty(), np.zeros(3, dtype=bool)
    )
    assert solve(program, time_limit_s=5.0) is None


def test_programs_that_aborted_glpk_are_solved() -> None:
    # max 2a - 3b + 2c - d, 2b + 2c <= 1, a, b, c binary, d in 0..3: a = 1, the rest 0.
    program = IntegerProgram(
        np.array([2.0, -3.0, 2.0, -1.0]), np.array([1.0, 1.0, 1.0, 3.0]), Rows.empty(),
        _rows(np.array([[0, 2, 2, 0]]), np.array([1])), np.zeros(4, dtype=bool),
    )
    solution = solve(program, time_limit_s=5.0)
    assert solution is not None and solution.optimal and list(solution.values) == [1.0, 0.0, 0.0, 0.0]


def test_search_stopped_by_the_time_limit_returns_a_solution_not_marked_optimal() -> None:
    # Subset sum with even weights and an odd capacity: a solution is found at once, but
    # proving that nothing fills the capacity is far beyond a branch and bound in 0.2 s.
    rng = np.random.default_rng(7)
    weights = 2.0 * rng.integers(10**6, 2 * 10**6, size=60)
    capacity = weights.sum() / 2 + 1
    program = IntegerProgram(
        weights, np.ones(60), Rows.empty(), _rows(weights[None, :], np.array([capacity])), np.zeros(60, dtype=bool)
    )
    solution = solve(program, time_limit_s=0.2)
    assert solution is not None and not solution.optimal
    assert weights @ solution.values <= capacity


def test_time_limit_before_any_solution_is_out_of_time_not_infeasible(monkeypatch) -> None:
    # "No solution within the time" must not read as "no solution": the solver would then
    # take a reachable score for an unreachable one.
    program = _stored_program("glop_abnormal")
    monkeypatch.setattr(mip, "solve_linear", lambda *args, **kwargs: None)  # straight to the search
    stopped = mip.ScipRun(mip.builder.SolveStatus.NOT_SOLVED, None)
    monkeypatch.setattr(mip, "_scip", lambda model, parameters, time_limit_s, stop: stopped)
    with pytest.raises(mip.OutOfTime, match="time limit"):
        solve(program, time_limit_s=0.5)


def test_program_that_ended_scips_light_root_in_an_error_is_solved() -> None:
    # SCIP's light root (no presolve, no root cuts; OR-Tools 9.15) ends this infeasible restricted move
    # program (groups repeating colours) with "invalid SCIP status"; it must still be decided.
    assert solve(_stored_program("scip_unknown_status"), time_limit_s=10.0) is None


@pytest.mark.parametrize(
    ("statuses", "outcome"),
    [
        (["UNKNOWN_STATUS", "INFEASIBLE"], None),
        (["UNKNOWN_STATUS", "UNKNOWN_STATUS"], mip.SolverError),
        (["INVALID_SOLVER_PARAMETERS", "INFEASIBLE"], None),
        (["INFEASIBLE"], None),
    ],
)
def test_an_error_status_is_retried_once_with_scips_own_settings(monkeypatch, statuses, outcome) -> None:
    program = _stored_program("glop_abnormal")
    monkeypatch.setattr(mip, "solve_linear", lambda *args, **kwargs: None)  # straight to the search
    used: list[str] = []
    answers = iter(statuses)

    def scip(model, parameters: str, time_limit_s: float, stop) -> mip.ScipRun:
        used.append(parameters)
        return mip.ScipRun(getattr(mip.builder.SolveStatus, next(answers)), None)

    monkeypatch.setattr(mip, "_scip", scip)
    if outcome is None:
        assert solve(program, time_limit_s=1.0) is None
    else:
        with pytest.raises(outcome, match="UNKNOWN_STATUS"):
            solve(program, time_limit_s=1.0)
    assert used == [mip.SCIP_PARAMETERS, mip.SCIP_CAREFUL_PARAMETERS][:len(statuses)]


def test_the_installed_scip_knows_every_setting_of_the_light_root() -> None:
    """A setting SCIP does not know makes every search fall back to SCIP's own, slower settings
    (see mip.SCIP_CAREFUL_PARAMETERS): an OR-Tools upgrade that renames one must fail here."""
    program = _stored_program("glop_abnormal")
    model = mip.model_of(program)
    mip._require_integers(model, program)
    bad_parameters = mip.SCIP_PARAMETERS + "heuristics/nosuchheuristic/freq = -1\n"
    for stop in (None, mip.Stop()):  # both routes to SCIP (see mip.Stop)
        status = mip._scip(model, mip.SCIP_PARAMETERS, 10.0, stop).status
        assert status in (mip.builder.SolveStatus.OPTIMAL, mip.builder.SolveStatus.INFEASIBLE)
        bad = mip._scip(model, bad_parameters, 10.0, stop)
        assert bad.status == mip.builder.SolveStatus.INVALID_SOLVER_PARAMETERS


def test_the_callers_time_left_also_bounds_the_relaxation() -> None:
    program = _stored_program("glop_abnormal")
    assert solve_linear(program, time_limit_s=10.0) is not None  # LINEAR_TIME_LIMIT_S still caps it
    assert solve_linear(program, time_limit_s=1e-9) is None


def _packing(seed: int, columns: int = 60, items: int = 12) -> IntegerProgram:
    """Set packing: binary columns, each a random set of items, each item in at most one
    chosen column; scores in units (plus a unit tie-break). Loose relaxations, and leaving
    every column out is a solution."""
    rng = np.random.default_rng(seed)
    member = (rng.random((items, columns)) < 0.25).astype(float)
    score = 10 * rng.integers(1, 6, size=columns) + rng.integers(0, 3, size=columns)
    return IntegerProgram(
        score.astype(float), np.ones(columns), Rows.empty(), _rows(member, np.ones(items)), np.zeros(columns, dtype=bool)
    )


@pytest.mark.parametrize("seed", range(25))
def test_descending_from_the_bound_finds_the_same_optimum(seed: int) -> None:
    program = _packing(seed)
    expected = solve(program, 60.0)
    found = mip.solve_descending(program, 10.0, 60.0, np.zeros(len(program.objective)))
    assert found is not None and found.optimal
    assert program.objective @ found.values == program.objective @ expected.values
    assert feasible(program, found.values)


def test_descending_solves_programs_without_the_columns_no_target_can_use(monkeypatch) -> None:
    sizes = []
    inner = mip.solve

    def recording(program, time_limit_s, start=None, stop=None):
        sizes.append(len(program.objective))
        return inner(program, time_limit_s, start, stop)

    monkeypatch.setattr(mip, "solve", recording)
    narrowed = 0
    for seed in range(25):
        program = _packing(seed)
        sizes.clear()
        mip.solve_descending(program, 10.0, 60.0, np.zeros(len(program.objective)))
        narrowed += any(size < len(program.objective) for size in sizes)
    assert narrowed >= 5


def _counting(calls: list, inner):
    """``inner`` (a ``solve``) that also notes the size of each program it is given in ``calls``."""

    def solve_(p, t, start=None, stop=None):
        calls.append(len(p.objective))
        return inner(p, t, start, stop)

    return solve_


def test_descending_without_a_whole_start_solves_the_program_whole(monkeypatch) -> None:
    program = _packing(3)
    calls = []
    inner = mip.solve
    monkeypatch.setattr(mip, "solve", _counting(calls, inner))
    start = np.zeros(len(program.objective))
    start[0] = np.nan  # a column the start leaves open
    found = mip.solve_descending(program, 10.0, 60.0, start)
    assert calls == [len(program.objective)]
    assert program.objective @ found.values == program.objective @ inner(program, 60.0).values
    calls.clear()
    infeasible_start = np.ones(len(program.objective))  # every item taken many times over
    mip.solve_descending(program, 10.0, 60.0, infeasible_start)
    assert calls == [len(program.objective)]


@pytest.mark.parametrize("step", [0.0, -1.0])
def test_descending_needs_a_positive_step(step: float) -> None:
    with pytest.raises(ValueError, match="step"):
        mip.solve_descending(_packing(0), step, 1.0, np.zeros(60))


def _loose_packing() -> IntegerProgram:
    """A packing program whose descent solves at least one narrowed program (found by search)."""
    for seed in range(25):
        program = _packing(seed)
        linear = solve_linear(program)
        if linear is not None and mip._integral_optimum(program, linear) is None:
            return program
    raise AssertionError("no loose packing program among the seeds")


def test_a_narrowed_program_out_of_time_hands_over_to_the_whole_program_from_the_start(monkeypatch) -> None:
    program = _loose_packing()
    calls = []
    inner = mip.solve

    def first_out_of_time(p, t, start=None, stop=None):
        calls.append((len(p.objective), start is not None))
        if len(calls) == 1:
            raise mip.OutOfTime("stopped for the test")
        return inner(p, t, start, stop)

    monkeypatch.setattr(mip, "solve", first_out_of_time)
    found = mip.solve_descending(program, 10.0, 60.0, np.zeros(len(program.objective)))
    assert calls[0][0] < len(program.objective)  # a narrowed program first
    assert calls[1:] == [(len(program.objective), True)]  # then the whole one, from the start
    assert found.optimal and program.objective @ found.values == program.objective @ inner(program, 60.0).values


def test_a_target_keeping_too_many_columns_hands_over_at_once(monkeypatch) -> None:
    program = _loose_packing()
    calls = []
    inner = mip.solve
    monkeypatch.setattr(mip, "DESCENT_COLUMN_SHARE", 0.0)
    monkeypatch.setattr(mip, "solve", _counting(calls, inner))
    found = mip.solve_descending(program, 10.0, 60.0, np.zeros(len(program.objective)))
    assert calls == [len(program.objective)]
    assert found.optimal and program.objective @ found.values == program.objective @ inner(program, 60.0).values


def _relaxation_without_solutions() -> IntegerProgram:
    """x + y == 2 and x + y <= 1.5 with x, y in [0, 1]: not even the relaxation has a solution."""
    equal = Rows(np.zeros(2, np.int64), np.arange(2), np.ones(2), np.array([2.0]))
    at_most = Rows(np.zeros(2, np.int64), np.arange(2), np.ones(2), np.array([1.5]))
    return IntegerProgram(np.ones(2), np.ones(2), equal, at_most, np.zeros(2, dtype=bool))


def test_a_program_whose_relaxation_is_proven_empty_has_no_solution_without_scip(monkeypatch) -> None:
    inner_linear = solve_linear

    def glop_says_nothing_of_the_program(program, *args, **kwargs):
        first_phase = program.continuous.all()
        return inner_linear(program, *args, **kwargs) if first_phase else None

    monkeypatch.setattr(mip, "solve_linear", glop_says_nothing_of_the_program)
    monkeypatch.setattr(mip, "_scip", lambda *args: pytest.fail("the first phase proves it empty"))
    assert solve(_relaxation_without_solutions(), 10.0) is None


def test_a_relaxation_not_proven_empty_goes_on_to_scip(monkeypatch) -> None:
    # 2x + 2y == 3 over integers: the relaxation has solutions (x + y = 1.5), the program none.
    equal = Rows(np.zeros(2, np.int64), np.arange(2), np.full(2, 2.0), np.array([3.0]))
    program = IntegerProgram(np.ones(2), np.ones(2), equal, Rows.empty(), np.zeros(2, dtype=bool))
    assert not mip._relaxation_proven_empty(program, 10.0)
    runs = []
    inner = mip._scip
    monkeypatch.setattr(mip, "_scip", lambda *args: runs.append(1) or inner(*args))
    assert solve(program, 10.0) is None
    assert runs


def test_a_search_from_a_solution_that_is_stopped_gives_that_solution() -> None:
    program = _loose_packing()
    start = np.zeros(len(program.objective))
    stop = mip.Stop()
    stop.set()
    found = mip.solve_from(program, 60.0, start, stop)
    assert not found.optimal and np.array_equal(found.values, start)
    assert mip.solve_from(program, 60.0, start, None).optimal
