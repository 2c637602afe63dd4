"""The linear relaxation of an integer program, solved with GLOP (OR-Tools), and what it proves.

The solver relaxes a model of the whole table scored on its leading criteria, to learn two
things cheaply: an upper bound on that score for every legal move, and (through the reduced
costs) which columns a move reaching a given score could possibly change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.linear_solver.python import model_builder_helper as builder

from .mip import IntegerProgram, model_of

#: Numbers below this count as zero in the relaxation's solution.
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Relaxation:
    """The relaxation's optimum: ``bound`` >= the objective of every integer solution."""

    bound: float
    values: np.ndarray
    upper: np.ndarray
    #: Per column, how much the bound drops per unit the column moves off its value.
    reduced: np.ndarray
    #: Per row (equalities first, then the at-most rows), its dual value.
    duals: np.ndarray

    @property
    def best_possible(self) -> int:
        """No integer solution scores more than this (objectives are integers)."""
        return int(np.floor(self.bound + self._slack_tolerance))

    @property
    def _slack_tolerance(self) -> float:
        return TOLERANCE * max(1.0, abs(self.bound))

    def slack(self, target: int) -> float:
        """How far below the bound ``target`` lies (with a little tolerance)."""
        return self.bound - target + self._slack_tolerance

    def may_change(self, target: int) -> np.ndarray:
        """Mask of the columns at their upper bound that a solution scoring at least
        ``target`` may lower, and of every column not at its upper bound.

        Linear programming duality: a solution that lowers such a column by one scores at
        most ``bound - reduced``, and the drops add up, so a column whose reduced cost exceeds
        ``bound - target`` stays at its upper bound in every solution reaching ``target``.
        """
        return (self.values < self.upper - TOLERANCE) | (self.reduced <= self.slack(target))


def relax(program: IntegerProgram) -> Relaxation | None:
    """Solve ``program`` without integrality; ``None`` if GLOP reports no optimum (the caller
    then does without the relaxation). GLOP's reduced costs follow the convention
    reduced cost = objective - duals . column."""
    solver = builder.ModelSolverHelper("glop")
    solver.set_solver_specific_parameters("use_preprocessing:false")  # faster on these small LPs
    solver.solve(model_of(program, integer=False))
    if solver.status() != builder.SolveStatus.OPTIMAL:
        return None
    return Relaxation(
        float(solver.objective_value()),
        np.asarray(solver.variable_values(), dtype=np.float64),
        program.upper,
        np.abs(np.asarray(solver.reduced_costs(), dtype=np.float64)),
        np.asarray(solver.dual_values(), dtype=np.float64),
    )
