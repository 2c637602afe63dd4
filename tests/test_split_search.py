"""The search set by set (:mod:`solver.split_search`): the same optimum as one search, cuts that
never rule out a set with a solution, the descent's hand-over, and the solver's answers with it
still exact."""

from __future__ import annotations

import itertools
import math
import threading

import numpy as np
import pytest

from solver import mip, split_search
from solver.mip import IntegerProgram, Rows, phase_one, solve, solve_linear
from solver.split_search import Split, fixed, set_count, solve_split
from tests.test_search_start import feasible

MELDS, TOUCHED, ITEMS = 6, 2, 8


def _rows(dense: np.ndarray, rhs: np.ndarray) -> Rows:
    rows, cols = np.nonzero(dense)
    return Rows(rows, cols, dense[rows, cols].astype(np.float64), rhs.astype(np.float64))


def _touching(seed: int, needed: int = 1) -> IntegerProgram:
    """Like a move: ``MELDS`` binary "left as laid" columns first, exactly ``TOUCHED`` of them at
    zero; then four pieces per meld (binary), each usable only if its meld is touched, packed over
    items; at least ``needed`` pieces of melds 0 and 1 must be laid, so that many sets have no
    solution. Scores: untouched melds in tens, pieces in units."""
    rng = np.random.default_rng(seed)
    pieces = 4 * MELDS
    n = MELDS + pieces
    owner = np.repeat(np.arange(MELDS), 4)
    equal = np.zeros((1, n))
    equal[0, :MELDS] = 1.0  # melds left as laid
    member = (rng.random((ITEMS, pieces)) < 0.3).astype(float)
    link = np.zeros((pieces, n))
    link[np.arange(pieces), MELDS + np.arange(pieces)] = 1.0
    link[np.arange(pieces), owner] = 1.0  # piece + its meld left as laid <= 1
    need = np.zeros((1, n))
    need[0, MELDS + np.flatnonzero(owner <= 1)] = -1.0
    at_most = np.vstack([np.hstack([np.zeros((ITEMS, MELDS)), member]), link, need])
    rhs = np.r_[np.ones(ITEMS), np.ones(pieces), [-float(needed)]]
    score = np.r_[10.0 * rng.integers(1, 4, size=MELDS), rng.integers(1, 9, size=pieces).astype(float)]
    return IntegerProgram(
        score, np.ones(n), _rows(equal, np.array([MELDS - TOUCHED], float)), _rows(at_most, rhs), np.zeros(n, dtype=bool),
    )


def _start(program: IntegerProgram) -> np.ndarray:
    """A whole solution: melds 0 and 1 touched, the best pieces of theirs found by a search."""
    pinned = np.zeros((MELDS, len(program.objective)))
    pinned[np.arange(MELDS), np.arange(MELDS)] = 1.0
    values = np.r_[0.0, 0.0, np.ones(MELDS - 2)]
    found = solve(_with_equalities(program, pinned, values), 10.0)
    assert found is not None
    return found.values


def _with_equalities(program: IntegerProgram, dense: np.ndarray, rhs: np.ndarray) -> IntegerProgram:
    extra = _rows(dense, rhs)
    return IntegerProgram(program.objective, program.upper, program.equal.stacked(extra), program.at_most, program.continuous)


def _is_the_optimum(program: IntegerProgram, found: mip.Solution) -> bool:
    """Whether ``found`` is marked optimal and scores what one search of ``program`` does."""
    expected = program.objective @ solve(program, 60.0).values
    return found.optimal and program.objective @ found.values == pytest.approx(expected)


def _split(program: IntegerProgram) -> Split:
    melds = np.arange(MELDS)
    return Split(melds, program, melds, 1.0)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("seed", range(20))
def test_set_by_set_finds_the_optimum_of_one_search(monkeypatch, seed: int, workers: int) -> None:
    monkeypatch.setattr(split_search, "SET_WORKERS", workers)
    program = _touching(seed)
    expected = solve(program, 60.0)
    found = solve_split(program, _split(program), solve_linear(program), _start(program), math.inf, 60.0)
    assert found.optimal and feasible(program, found.values)
    assert program.objective @ found.values == pytest.approx(program.objective @ expected.values)


def test_sets_without_a_solution_are_ruled_out_by_cuts_not_searched(monkeypatch) -> None:
    checked = []  # the sets whose surrogate reached an integer program
    inner_best, inner_solve = split_search._best_above, split_search.solve
    in_set = threading.local()  # sets are examined in threads of their own

    def best_above(*args):
        in_set.searching = True
        try:
            return inner_best(*args)
        finally:
            in_set.searching = False

    def solve(program, time_limit_s, start=None, stop=None):
        if not getattr(in_set, "searching", False):
            checked.append(1)
        return inner_solve(program, time_limit_s, start, stop)

    monkeypatch.setattr(split_search, "_best_above", best_above)
    monkeypatch.setattr(split_search, "solve", solve)
    for seed in range(10):
        program = _touching(seed, needed=2)
        checked.clear()
        solve_split(program, _split(program), solve_linear(program), _start(program), math.inf, 60.0)
        # the sets touching neither meld 0 nor 1 (6 of 15) have no relaxation: cut, never checked
        assert len(checked) <= math.comb(MELDS, TOUCHED) - math.comb(MELDS - 2, TOUCHED)


@pytest.mark.parametrize("seed", range(10))
def test_a_cut_never_rules_out_a_set_whose_relaxation_has_a_solution(seed: int) -> None:
    program = _touching(seed, needed=2)
    melds = np.arange(MELDS)
    sets = [np.array([0.0 if m in zeros else 1.0 for m in melds]) for zeros in itertools.combinations(melds, TOUCHED)]
    relaxed = []
    for values in sets:
        first = solve_linear(phase_one(fixed(program, melds, values, False).program))
        relaxed.append(first.bound > -1e-9)
    cuts = 0
    for values in sets:
        first = solve_linear(phase_one(fixed(program, melds, values, False).program))
        slope, level = split_search._cut(program, melds, first.duals)
        ruled_out = [level + slope @ other < -mip.FIRST_PHASE_TOLERANCE for other in sets]
        assert not any(out and ok for out, ok in zip(ruled_out, relaxed))
        cuts += sum(ruled_out)
    assert cuts > 0  # and they do rule sets out


def test_the_first_phase_is_zero_exactly_when_the_rows_can_be_met() -> None:
    program = _touching(0, needed=1)
    untouched = np.ones(MELDS)
    untouched[[4, 5]] = 0.0  # neither meld 0 nor 1: no piece of theirs can be laid
    assert solve_linear(phase_one(fixed(program, np.arange(MELDS), untouched, False).program)).bound < -0.5
    touched = np.ones(MELDS)
    touched[[0, 5]] = 0.0
    assert solve_linear(phase_one(fixed(program, np.arange(MELDS), touched, False).program)).bound == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(10))
def test_fixing_drops_only_columns_the_rows_hold_at_zero(seed: int) -> None:
    program = _touching(seed)
    melds = np.arange(MELDS)
    for zeros in itertools.combinations(range(MELDS), TOUCHED):
        values = np.ones(MELDS)
        values[list(zeros)] = 0.0
        part = fixed(program, melds, values)
        pinned = np.zeros((MELDS, len(program.objective)))
        pinned[melds, melds] = 1.0
        expected = solve(_with_equalities(program, pinned, values), 10.0)
        found = solve(part.program, 10.0)
        assert (found is None) == (expected is None)
        if found is not None:
            whole = part.whole(found.values)
            assert feasible(program, whole)
            assert program.objective @ whole == pytest.approx(program.objective @ expected.values)
        # no column dropped is free to be one with these melds: pieces of untouched melds only
        dropped = np.setdiff1d(np.arange(MELDS, len(program.objective)), part.kept)
        assert all(values[(column - MELDS) // 4] == 1.0 for column in dropped)


@pytest.mark.parametrize("seed", range(10))
def test_a_sets_own_relaxation_bounds_its_search(monkeypatch, seed: int) -> None:
    """One set's search starts from its own relaxation's bound when that is tighter than the
    whole program's: the same optimum, no search at all when the bound lies below ``better``."""
    program = _touching(seed)
    linear = solve_linear(program)
    values = np.r_[0.0, 0.0, np.ones(MELDS - 2)]
    part = fixed(program, np.arange(MELDS), values)
    constant = float(program.objective @ part.constant)
    loss = linear.losses(program)[part.kept]
    loose = linear.bound - constant  # the whole program's bound is no tighter than the set's
    own = solve_linear(part.program)
    optimum = solve(part.program, 60.0)
    assert own is not None and optimum is not None and own.bound <= loose + 1e-9
    score = part.program.objective @ optimum.values
    left = lambda: 60.0  # noqa: E731
    found = split_search._best_above(part.program, loss, loose, math.floor(score) - 5, math.inf, 1.0, 1e-6, left)
    assert found is not None and part.program.objective @ found.values == pytest.approx(score)
    steps = []
    inner = split_search.solve_narrowed
    monkeypatch.setattr(split_search, "solve_narrowed", lambda *args: steps.append(1) or inner(*args))
    assert split_search._best_above(part.program, loss, loose, own.best_possible + 1, math.inf, 1.0, 1e-6, left) is None
    assert not steps


def test_the_sets_with_the_best_bounds_are_examined_at_once(monkeypatch) -> None:
    # The first two sets' first relaxations wait for each other: examined one after the other,
    # the first would wait alone and the barrier break.
    together = threading.Barrier(2, timeout=20.0)
    calls, lock = [], threading.Lock()
    inner = split_search.solve_linear

    def solve_linear(*args):
        with lock:
            calls.append(threading.get_ident())
            first_two = len(calls) <= 2
        if first_two:
            together.wait()
        return inner(*args)

    monkeypatch.setattr(split_search, "SET_WORKERS", 2)
    monkeypatch.setattr(split_search, "solve_linear", solve_linear)
    program = _touching(4)
    found = solve_split(program, _split(program), inner(program), _start(program), math.inf, 60.0)
    assert len(set(calls[:2])) == 2  # two threads
    assert _is_the_optimum(program, found)


def test_a_score_proven_out_of_reach_ends_the_search_at_once(monkeypatch) -> None:
    program = _touching(3)
    start = _start(program)
    monkeypatch.setattr(split_search, "solve", lambda *args, **kwargs: pytest.fail("no search needed"))
    found = solve_split(program, _split(program), solve_linear(program), start, program.objective @ start + 1, 60.0)
    assert found.optimal and np.array_equal(found.values, start)


def test_out_of_time_it_gives_the_best_found_not_marked_optimal() -> None:
    program = _touching(3)
    start = _start(program)
    linear = solve_linear(program)
    assert program.objective @ solve(program, 60.0).values > program.objective @ start  # there is better
    found = solve_split(program, _split(program), linear, start, math.inf, 0.0)
    assert not found.optimal and np.array_equal(found.values, start)


def test_a_set_out_of_time_stops_the_search_after_the_set_beside_it(monkeypatch) -> None:
    program = _touching(3)
    start = _start(program)
    inner, stopped = split_search._best_above, []

    def out_of_time_once(*args):
        if not stopped:
            stopped.append(True)
            raise mip.OutOfTime("stopped for the test")
        return inner(*args)

    monkeypatch.setattr(split_search, "_best_above", out_of_time_once)
    before = threading.active_count()
    found = solve_split(program, _split(program), solve_linear(program), start, math.inf, 60.0)
    assert not found.optimal and feasible(program, found.values)
    assert program.objective @ found.values >= program.objective @ start
    assert threading.active_count() == before  # no set left under way


def test_the_count_of_sets_is_read_from_the_start() -> None:
    program = _touching(0)
    assert set_count(_split(program), _start(program)) == math.comb(MELDS, TOUCHED)


def test_the_descent_hands_over_before_a_large_step_with_the_score_it_proved_out_of_reach(monkeypatch) -> None:
    monkeypatch.setattr(mip, "DESCENT_COLUMN_SHARE", 1.0)  # only the size of a step hands over
    inner = mip.solve
    handed_over = 0
    for seed in range(30):
        program = _touching(seed, needed=2)
        expected = program.objective @ inner(program, 60.0).values
        sizes = []

        def recording(p, t, start=None, stop=None):
            sizes.append(len(p.objective))
            return inner(p, t, start, stop)

        monkeypatch.setattr(mip, "solve", recording)
        mip.solve_descending(program, 1.0, 60.0, _start(program))  # no hand-over: every step
        monkeypatch.setattr(mip, "solve", inner)
        if len(sizes) < 2 or not sizes[0] < sizes[1] < len(program.objective):
            continue  # solved at its first step, by one whole search, or its second step no larger
        handed = []

        def hand_over(linear, start, ceiling, left, beside):
            handed.append(ceiling)
            return solve_split(program, _split(program), linear, start, ceiling, left, beside)

        monkeypatch.setattr(mip, "HAND_OVER_COLUMNS", sizes[1])  # the second step is too large
        found = mip.solve_descending(program, 1.0, 60.0, _start(program), hand_over=hand_over)
        assert found.optimal and program.objective @ found.values == pytest.approx(expected)
        # after one step that proved its target, bound - 1, out of reach
        assert handed == [math.ceil(solve_linear(program).bound - 1.0)] and handed[0] > expected
        handed_over += 1
    assert handed_over >= 3


@pytest.mark.parametrize("stop", ["column share", "out of time"])
@pytest.mark.parametrize("large", [True, False])
def test_a_descent_that_stops_early_over_a_large_program_hands_over_instead_of_searching_it_whole(
    monkeypatch, stop: str, large: bool,
) -> None:
    """Where the descent stops before its last step (a target keeping most columns, or a step out
    of its time), the split takes over from one search of the whole program when that program is
    large (session 25: a table 60 + rack 14 under repeated colours ran out of time in that search);
    a small one is searched whole (quicker than the split)."""
    program = _touching(3)
    inner = mip.solve
    expected = program.objective @ inner(program, 60.0).values
    whole = len(program.objective)
    searched = []

    def solve(p, t, start=None, signal=None):
        searched.append(len(p.objective))
        if stop == "out of time" and len(p.objective) < whole:
            raise mip.OutOfTime("stopped for the test")
        return inner(p, t, start, signal)

    monkeypatch.setattr(mip, "DESCENT_COLUMN_SHARE", 0.0 if stop == "column share" else 1.0)
    monkeypatch.setattr(mip, "HAND_OVER_COLUMNS", whole if large else whole + 1)
    monkeypatch.setattr(mip, "solve", solve)
    handed = []

    def hand_over(linear, start, ceiling, left, beside):
        handed.append(ceiling)
        monkeypatch.setattr(mip, "solve", inner)
        return solve_split(program, _split(program), linear, start, ceiling, left, beside)

    found = mip.solve_descending(program, 1.0, 60.0, _start(program), hand_over=hand_over)
    narrowed = [True] if stop == "out of time" else []  # the one narrowed step tried
    if large:
        assert handed == [math.inf]  # nothing proven out of reach before
        assert [size < whole for size in searched] == narrowed
    else:
        assert not handed and [size < whole for size in searched] == narrowed + [False]
    assert found.optimal and program.objective @ found.values == pytest.approx(expected)


#: Seeds of the exact-checker sweep (tests/test_solver_exact.py) whose tie-break descends, small
#: enough to check in CI.
DESCENDING_SEEDS = (9, 21, 29, 33, 34, 40)


@pytest.mark.parametrize("seed", DESCENDING_SEEDS)
def test_the_solver_split_at_once_by_the_melds_touched_stays_exact(monkeypatch, seed: int) -> None:
    from solver import search
    from tests.test_solver_exact import SWEEP_TABLES, dealt_position, exact_optimum, solver_score

    monkeypatch.setattr(mip, "HAND_OVER_COLUMNS", 0)  # every descent hands over before its first step
    splits = []
    inner = search.solve_split
    monkeypatch.setattr(search, "solve_split", lambda *args: splits.append(1) or inner(*args))
    position, objective = dealt_position("repeated-colours", seed, SWEEP_TABLES["repeated-colours"], (5, 10, 14))
    assert solver_score(position, objective) == exact_optimum(position, objective)
    assert splits


def test_too_many_sets_hand_over_to_one_search_of_the_whole_program(monkeypatch) -> None:
    from solver import search

    program = _touching(4)
    linear = solve_linear(program)
    expected = program.objective @ solve(program, 60.0).values
    monkeypatch.setattr(search, "solve_split", lambda *args: pytest.fail("the sets are too many to search"))
    monkeypatch.setattr(search, "MAX_SETS", math.comb(MELDS, TOUCHED) - 1)
    hand_over = search._by_touched_melds(program, lambda: _split(program))
    found = hand_over(linear, _start(program), math.inf, 60.0, mip.Beside.nobody())
    assert found.optimal and program.objective @ found.values == pytest.approx(expected)


def test_a_solver_failure_on_a_set_falls_back_to_one_search_of_the_whole_program(monkeypatch) -> None:
    program = _touching(2)
    expected = program.objective @ solve(program, 60.0).values
    inner = split_search.solve
    calls = []

    def failing_once(p, t, start=None, stop=None):
        calls.append(len(p.objective))
        if len(calls) == 1:
            raise mip.SolverError("the MIP solver returned status ABNORMAL")
        return inner(p, t, start, stop)

    monkeypatch.setattr(split_search, "solve", failing_once)
    monkeypatch.setattr(mip, "solve", failing_once)  # the whole search, through mip.solve_from
    found = solve_split(program, _split(program), solve_linear(program), _start(program), math.inf, 60.0)
    assert calls[-1] == len(program.objective)  # the whole program, after the failure
    assert found.optimal and program.objective @ found.values == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(5))
def test_the_warm_first_phase_proves_what_a_fresh_one_proves_at_each_set(seed: int) -> None:
    """One GLOP kept across the sets (only the set's columns' bounds change) reaches each set's
    first-phase optimum, so the cut it gives is as tight at that set as a fresh solve's."""
    program = _touching(seed, needed=2)
    melds = np.arange(MELDS)
    first_phase = split_search._FirstPhase(program, melds)
    proven = 0
    for zeros in itertools.combinations(range(MELDS), TOUCHED):
        values = np.ones(MELDS)
        values[list(zeros)] = 0.0
        fresh = solve_linear(phase_one(fixed(program, melds, values, False).program))
        duals = first_phase.duals(values, 10.0)
        assert fresh is not None and duals is not None
        slope, level = split_search._cut(program, melds, duals)
        assert level + slope @ values == pytest.approx(min(fresh.bound, 0.0), abs=1e-6)
        proven += fresh.bound < -0.5
    assert proven  # some sets have no solution, even relaxed
