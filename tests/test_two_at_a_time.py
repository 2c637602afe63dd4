"""The descent's searches two at a time (:class:`solver.mip._TwoAtATime`) and what stops a search
(:class:`solver.mip.Stop`, :class:`solver.mip.Beside`): the same optimum as one search, the next
step proven beside the current one, the search that settles the program stopping the other, and
SCIP itself interrupted."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest

from solver import mip, split_search
from solver.mip import IntegerProgram, Rows, solve, solve_linear
from solver.split_search import solve_split
from tests.test_split_search import _is_the_optimum, _split, _start, _touching

#: Long enough that a test waiting on it has failed, never so long that a broken stop hangs CI.
PATIENCE_S = 30.0


def _two_at_a_time(monkeypatch, hand_over_columns: int) -> None:
    """Every descent step of the test programs runs two at a time, handing over from a target
    keeping ``hand_over_columns`` columns on."""
    monkeypatch.setattr(mip, "BESIDE_COLUMNS", 0)
    monkeypatch.setattr(mip, "DESCENT_COLUMN_SHARE", 1.0)
    monkeypatch.setattr(mip, "HAND_OVER_COLUMNS", hand_over_columns)


def _by_split(program: IntegerProgram):
    def hand_over(linear, start, ceiling, left, beside):
        return solve_split(program, _split(program), linear, start, ceiling, left, beside)

    return hand_over


def _first_keeps(program: IntegerProgram, start: np.ndarray) -> tuple[int, int]:
    """How many columns the descent's first two steps keep (as :func:`mip.solve_descending` counts)."""
    linear = solve_linear(program)
    floor = math.floor(program.objective @ start + mip.OBJECTIVE_TOLERANCE)
    loss = linear.losses(program)
    targets = [max(math.ceil(linear.bound - steps), floor) for steps in (1, 2)]
    keeps = [int(np.sum(loss <= linear.slack(target))) for target in targets]
    return keeps[0], keeps[1]


@pytest.mark.parametrize("hand_over", ["at the whole program", "after the first step"])
@pytest.mark.parametrize("seed", range(20))
def test_two_at_a_time_finds_the_optimum_of_one_search(monkeypatch, seed: int, hand_over: str) -> None:
    program = _touching(seed, needed=2)
    start = _start(program)
    first, second = _first_keeps(program, start)
    late = hand_over == "at the whole program"
    _two_at_a_time(monkeypatch, len(program.objective) if late else max(second, first + 1))
    runs = []
    inner = mip._TwoAtATime.run
    monkeypatch.setattr(mip._TwoAtATime, "run", lambda self, *args: runs.append(1) or inner(self, *args))
    before = threading.active_count()
    found = mip.solve_descending(program, 1.0, 60.0, start, hand_over=_by_split(program))
    assert _is_the_optimum(program, found)
    assert threading.active_count() == before  # nothing left running
    assert runs or mip._integral_optimum(program, solve_linear(program)) is not None  # two at a time, if any step


def test_the_next_step_is_proven_beside_the_current_one(monkeypatch) -> None:
    # The first two steps wait for each other: proven one after the other, the first would wait
    # alone and the barrier break.
    together = threading.Barrier(2, timeout=PATIENCE_S)
    calls, lock = [], threading.Lock()
    inner = mip.solve

    def solve_(program, time_limit_s, start=None, stop=None):
        with lock:
            calls.append(threading.get_ident())
            first_two = len(calls) <= 2
        if first_two:
            together.wait()
        return inner(program, time_limit_s, start, stop)

    program = _touching(0, needed=2)
    start = _start(program)
    assert max(_first_keeps(program, start)) < len(program.objective)  # two steps before the hand-over
    _two_at_a_time(monkeypatch, len(program.objective))
    monkeypatch.setattr(mip, "solve", solve_)
    found = mip.solve_descending(program, 1.0, 60.0, start, hand_over=_by_split(program))
    assert len(set(calls[:2])) == 2
    assert _is_the_optimum(program, found)


def _seed_whose_first_step(program_settles: bool) -> tuple[IntegerProgram, np.ndarray]:
    """A test program whose second step keeps more columns than its first, and whose first step
    settles it (has a solution) or not."""
    for seed in range(40):
        program = _touching(seed, needed=2)
        start = _start(program)
        first, second = _first_keeps(program, start)
        linear = solve_linear(program)
        keep = np.flatnonzero(linear.losses(program) <= linear.slack(math.ceil(linear.bound - 1)))
        floor = math.floor(program.objective @ start + mip.OBJECTIVE_TOLERANCE)
        settles = math.ceil(linear.bound - 1) > floor and mip.solve_narrowed(
            program, keep, math.ceil(linear.bound - 1), 60.0) is not None
        loose = mip._integral_optimum(program, linear) is None  # else the relaxation settles it
        if loose and second > first and settles == program_settles:
            return program, start
    raise AssertionError("no such program among the seeds")


def test_the_hand_over_ending_first_stops_the_step_under_way(monkeypatch) -> None:
    program, start = _seed_whose_first_step(program_settles=False)
    first, _ = _first_keeps(program, start)
    _two_at_a_time(monkeypatch, first + 1)  # the first step, and the hand-over beside it
    stopped = []

    def endless_step(program, keep, target, time_limit_s, start=None, stop=None):
        """A step that ends only when stopped."""
        deadline = time.monotonic() + PATIENCE_S
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.001)
        stopped.append(stop.is_set())
        raise mip.Stopped("stopped for the test")

    monkeypatch.setattr(mip, "solve_narrowed", endless_step)
    before = threading.active_count()
    found = mip.solve_descending(program, 1.0, 60.0, start, hand_over=_by_split(program))
    assert stopped == [True]
    assert _is_the_optimum(program, found)
    assert threading.active_count() == before


def test_a_step_settling_the_program_stops_the_hand_over(monkeypatch) -> None:
    program, start = _seed_whose_first_step(program_settles=True)
    first, _ = _first_keeps(program, start)
    _two_at_a_time(monkeypatch, first + 1)
    stopped = []

    def endless_hand_over(linear, start, ceiling, left, beside):
        """A hand-over that ends only when stopped, with the start (not optimal)."""
        deadline = time.monotonic() + PATIENCE_S
        while not beside.stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.001)
        stopped.append(beside.stop.is_set())
        return mip.Solution(start, False)

    found = mip.solve_descending(program, 1.0, 60.0, start, hand_over=endless_hand_over)
    assert stopped == [True]
    assert _is_the_optimum(program, found)


def _market_split(rows: int = 4, columns: int = 30, seed: int = 0) -> IntegerProgram:
    """A market split instance (Cornuejols and Dawande): binary columns whose weighted sums must
    each hit half their total; SCIP takes far longer than any test waits on these sizes."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 100, size=(rows, columns)).astype(float)
    r, c = np.nonzero(weights)
    equal = Rows(r, c, weights[r, c], np.floor(weights.sum(axis=1) / 2))
    return IntegerProgram(np.zeros(columns), np.ones(columns), equal, Rows.empty(), np.zeros(columns, dtype=bool))


def test_a_stop_interrupts_scip_under_way() -> None:
    stop = mip.Stop()
    outcome = []

    def searching() -> None:
        try:
            outcome.append(solve(_market_split(), 10 * PATIENCE_S, stop=stop))
        except mip.Stopped as stopped:
            outcome.append(stopped)

    thread = threading.Thread(target=searching)
    thread.start()
    deadline = time.monotonic() + PATIENCE_S
    while not stop._running and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert stop._running, "SCIP never started on the market split"
    stop.set()  # returns once the run has ended
    thread.join(PATIENCE_S)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], mip.Stopped)


def test_a_search_after_the_stop_does_not_start() -> None:
    stop = mip.Stop()
    stop.set()
    with pytest.raises(mip.Stopped):
        solve(_market_split(), 10 * PATIENCE_S, stop=stop)


def test_beside_a_descent_the_split_examines_one_set_at_a_time(monkeypatch) -> None:
    inside, most, lock = [0], [0], threading.Lock()
    inner = split_search.solve_linear

    def counting(*args):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            time.sleep(0.002)  # long enough for a second set to come in, were it let
            return inner(*args)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(split_search, "SET_WORKERS", 2)
    monkeypatch.setattr(split_search, "solve_linear", counting)
    program = _touching(4)
    beside = mip.Beside(mip.Stop(), threading.Event())  # the descent still runs
    found = solve_split(program, _split(program), inner(program), _start(program), math.inf, 60.0, beside)
    assert most[0] == 1
    assert _is_the_optimum(program, found)


def test_a_stopped_split_gives_its_start_not_marked_optimal(monkeypatch) -> None:
    program = _touching(3)
    start = _start(program)
    monkeypatch.setattr(split_search, "solve", lambda *args, **kwargs: pytest.fail("no set examined"))
    alone = threading.Event()
    alone.set()
    beside = mip.Beside(mip.Stop(), alone)
    beside.stop.set()
    found = solve_split(program, _split(program), solve_linear(program), start, math.inf, 60.0, beside)
    assert not found.optimal and np.array_equal(found.values, start)


def test_a_step_stopped_by_its_time_with_a_solution_hands_over_from_it(monkeypatch) -> None:
    # The first step ends out of time with a solution (not optimal) after the second step found
    # one: the second cannot settle the program, the hand-over must, from the first's solution.
    program, start = _seed_whose_first_step(program_settles=False)
    _two_at_a_time(monkeypatch, len(program.objective))
    optimum = solve(program, 60.0).values
    first_target = []

    def step(program, keep, target, time_limit_s, start=None, stop=None):
        if not first_target:
            first_target.append(target)
        if target == first_target[0]:
            time.sleep(0.05)  # the second step ends first
            return mip.Solution(optimum, False)
        return mip.Solution(optimum, True)

    handed = []

    def hand_over(linear, start, ceiling, left, beside):
        handed.append(start)
        return mip.Solution(start, True)

    monkeypatch.setattr(mip, "solve_narrowed", step)
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(
        mip.solve_descending(program, 1.0, 60.0, start, hand_over=hand_over)))
    thread.start()
    thread.join(PATIENCE_S)
    assert not thread.is_alive(), "the descent never settled"
    assert len(handed) == 1 and np.array_equal(handed[0], optimum)
    assert outcome[0].optimal and np.array_equal(outcome[0].values, optimum)
