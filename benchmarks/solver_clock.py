"""Where a solve's time goes: inside OR-Tools' LP (GLOP) and MIP (SCIP) calls, or in the rest
(our Python: candidates, building the programs, reading the answer, the steps).

Measured from outside the solver, so the solver carries no timing code: for the duration of
:func:`clocked`, :mod:`solver.mip` gets OR-Tools' model builder with a solver class that times
each GLOP ``solve`` call, and a timed SCIP run. Benchmarks only.
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ortools.linear_solver.python import model_builder_helper as builder

import solver.mip
import solver.split_search


@dataclass
class SolverClock:
    """Seconds spent in OR-Tools' solve calls while the clock ran."""

    glop: float = 0.0
    scip: float = 0.0


@contextmanager
def clocked() -> Iterator[SolverClock]:
    """A clock that the LP and MIP solves of :mod:`solver.mip` run on while inside: GLOP through
    the model builder's solver class and the split's warm first phases, SCIP through
    :func:`solver.mip._scip` (both of its routes)."""
    clock = SolverClock()

    class TimedSolver(builder.ModelSolverHelper):
        def __init__(self, name: str) -> None:
            super().__init__(name)
            self._linear = name == "glop"

        def solve(self, model: builder.ModelBuilderHelper) -> None:
            start = time.perf_counter()
            super().solve(model)
            if self._linear:
                clock.glop += time.perf_counter() - start

    def timed(inner: Callable, part: str) -> Callable:
        """``inner``, its time added to the clock's ``part``."""

        def call(*args):
            start = time.perf_counter()
            try:
                return inner(*args)
            finally:
                setattr(clock, part, getattr(clock, part) + time.perf_counter() - start)

        return call

    inner_scip = solver.mip._scip
    inner_first_phase = solver.split_search._FirstPhase.duals
    timed_builder = types.SimpleNamespace(**{k: getattr(builder, k) for k in dir(builder) if not k.startswith("__")})
    timed_builder.ModelSolverHelper = TimedSolver
    original = solver.mip.builder
    solver.mip.builder, solver.mip._scip = timed_builder, timed(inner_scip, "scip")
    solver.split_search._FirstPhase.duals = timed(inner_first_phase, "glop")
    try:
        yield clock
    finally:
        solver.mip.builder, solver.mip._scip = original, inner_scip
        solver.split_search._FirstPhase.duals = inner_first_phase
