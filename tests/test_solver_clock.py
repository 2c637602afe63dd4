"""The benchmark's clock (:mod:`benchmarks.solver_clock`): it times GLOP and SCIP apart,
and leaves the solver as it found it, also when a solve fails."""

from __future__ import annotations

import numpy as np
import pytest
from ortools.linear_solver.python import model_builder_helper as builder

import solver.mip
from benchmarks.solver_clock import clocked
from solver.mip import IntegerProgram, Rows


def _program(rhs: float) -> IntegerProgram:
    """Maximise x + y with 2x + 2y <= rhs over 0/1: integral relaxation at rhs 2, a
    fractional one (1.5 against an integer optimum of 1) at rhs 3."""
    at_most = Rows(np.zeros(2, np.int64), np.arange(2), np.full(2, 2.0), np.array([rhs]))
    return IntegerProgram(np.ones(2), np.ones(2), Rows.empty(), at_most, np.zeros(2, dtype=bool))


def test_an_integral_relaxation_runs_only_glop() -> None:
    with clocked() as clock:
        solution = solver.mip.solve(_program(2.0), 10.0)
    assert solution is not None and solution.values.sum() == 1
    assert clock.glop > 0 and clock.scip == 0


def test_a_fractional_relaxation_also_runs_scip() -> None:
    with clocked() as clock:
        solution = solver.mip.solve(_program(3.0), 10.0)
    assert solution is not None and solution.values.sum() == 1
    assert clock.glop > 0 and clock.scip > 0


def test_the_solver_gets_its_model_builder_back_even_after_an_error() -> None:
    with pytest.raises(RuntimeError, match="boom"), clocked():
        assert solver.mip.builder is not builder
        raise RuntimeError("boom")
    assert solver.mip.builder is builder


def test_a_scip_run_that_may_be_stopped_is_timed_too() -> None:
    with clocked() as clock:
        solution = solver.mip.solve(_program(3.0), 10.0, stop=solver.mip.Stop())
    assert solution is not None and solution.values.sum() == 1
    assert clock.scip > 0
    assert solver.mip._scip.__name__ == "_scip"  # given back


def test_the_splits_warm_first_phase_counts_as_glop() -> None:
    from solver.split_search import _FirstPhase
    from tests.test_split_search import MELDS, _touching

    inner = _FirstPhase.duals
    with clocked() as clock:
        duals = _FirstPhase(_touching(0), np.arange(MELDS)).duals(np.r_[0.0, 0.0, np.ones(MELDS - 2)], 10.0)
    assert duals is not None and clock.glop > 0 and clock.scip == 0
    assert _FirstPhase.duals is inner  # given back
