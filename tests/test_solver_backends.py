"""The GLPK and HiGHS stand-ins of the benchmark's backend comparison answer like the shipped
OR-Tools calls, so the comparison times equal work (skipped without the bench extra)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("cvxopt")
pytest.importorskip("highspy")

from benchmarks.backend_comparison import CONFIGURATIONS, configured, criteria  # noqa: E402
from benchmarks.glpk_backends import relax_with_highs, solve_with_glpk  # noqa: E402
from benchmarks.positions import deal_position
from solver import Objective, mip
from solver import search
from solver.mip import IntegerProgram, Rows, solve_linear


def _knapsack() -> IntegerProgram:
    # max 5a + 4b + 3c  s.t.  2a + 2b + 2c <= 5, binaries: LP 10.5, integer 9.
    return IntegerProgram(
        np.array([5.0, 4.0, 3.0]), np.ones(3), Rows.empty(),
        Rows(np.zeros(3, np.int64), np.arange(3), np.full(3, 2.0), np.array([5.0])), np.zeros(3, dtype=bool),
    )


def test_glpk_stand_in_finds_the_integer_optimum_and_reports_infeasibility() -> None:
    solution = solve_with_glpk(_knapsack(), time_limit_s=5.0)
    assert solution is not None and solution.optimal
    assert list(solution.values) == [1.0, 1.0, 0.0]
    infeasible = IntegerProgram(
        np.ones(1), np.ones(1), Rows(np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1), np.array([2.0])),
        Rows.empty(), np.zeros(1, dtype=bool),
    )
    assert solve_with_glpk(infeasible, time_limit_s=5.0) is None


def test_highs_stand_in_gives_the_same_bound_and_proof_as_glop() -> None:
    glop, highs = solve_linear(_knapsack()), relax_with_highs(_knapsack())
    assert glop is not None and highs is not None
    assert glop.bound == pytest.approx(highs.bound)
    assert list(glop.may_change(9)) == list(highs.may_change(9))
    assert list(glop.may_change(10)) == list(highs.may_change(10))


@pytest.mark.parametrize("seed", range(4))
def test_every_configuration_gives_the_same_answer(seed: int) -> None:
    position = deal_position(random.Random(seed), 30, 14)
    answers = set()
    for name in CONFIGURATIONS:
        with configured(name):
            answers.add(criteria(search.solve(position, Objective.TILES)))
    assert len(answers) == 1


def test_configuration_is_undone_afterwards() -> None:
    shipped = mip.solve, search.relax
    with configured("GLPK + HiGHS"):
        assert mip.solve is solve_with_glpk and search.relax is relax_with_highs
    assert (mip.solve, search.relax) == shipped


def test_glpk_stand_in_heeds_a_stop_set_before_it_starts() -> None:
    stop = mip.Stop()
    stop.set()
    with pytest.raises(mip.Stopped):
        solve_with_glpk(_knapsack(), time_limit_s=5.0, stop=stop)
