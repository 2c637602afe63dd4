"""The linear relaxation of an integer program, solved with GLOP (OR-Tools), and what it proves.

The solver relaxes a model of the whole table scored on its leading criteria, to learn two
things cheaply: an upper bound on that score for every legal move, and (through the reduced
costs) which columns a move reaching a given score could possibly change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .mip import IntegerProgram, solve_linear

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
    _, linear = solve_linear(program)
    if linear is None:
        return None
    return Relaxation(linear.objective, linear.values, program.upper, np.abs(linear.reduced), linear.duals)
