"""Where a solve's time goes: inside OR-Tools' LP (GLOP) and MIP (SCIP) calls, or in the rest
(our Python: candidates, building the programs, reading the answer, the steps).

Measured from outside the solver, so the solver carries no timing code: for the duration of
:func:`clocked`, :mod:`solver.mip` gets OR-Tools' model builder with a solver class that
times each ``solve`` call. Benchmarks only.
"""

from __future__ import annotations

import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ortools.linear_solver.python import model_builder_helper as builder

import solver.mip


@dataclass
class SolverClock:
    """Seconds spent in OR-Tools' solve calls while the clock ran."""

    glop: float = 0.0
    scip: float = 0.0


@contextmanager
def clocked() -> Iterator[SolverClock]:
    """A clock that the LP and MIP solves of :mod:`solver.mip` run on while inside."""
    clock = SolverClock()

    class TimedSolver(builder.ModelSolverHelper):
        def __init__(self, name: str) -> None:
            super().__init__(name)
            self._linear = name == "glop"

        def solve(self, model: builder.ModelBuilderHelper) -> None:
            start = time.perf_counter()
            super().solve(model)
            spent = time.perf_counter() - start
            if self._linear:
                clock.glop += spent
            else:
                clock.scip += spent

    timed = types.SimpleNamespace(**{k: getattr(builder, k) for k in dir(builder) if not k.startswith("__")})
    timed.ModelSolverHelper = TimedSolver
    original = solver.mip.builder
    solver.mip.builder = timed
    try:
        yield clock
    finally:
        solver.mip.builder = original
