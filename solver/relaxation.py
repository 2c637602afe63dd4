"""The linear relaxation of an integer program, solved with GLOP (OR-Tools), and what it proves.

The solver relaxes a model of the whole table scored on its leading criteria, to learn two
things cheaply: an upper bound on that score for every legal move, and (through the reduced
costs) which columns a move reaching a given score could possibly change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .mip import IntegerProgram, LinearSolution, solve_linear

#: Numbers below this count as zero in the relaxation's solution.
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Relaxation:
    """The relaxation's optimum: ``bound`` >= the objective of every integer solution, proven
    by weak duality from the duals (see :class:`solver.mip.LinearSolution`)."""

    bound: float
    values: np.ndarray
    #: Per column, ``objective - duals . column``: a solution that lowers a column from its
    #: upper bound by one unit scores at most ``bound - reduced`` (when ``reduced`` > 0).
    reduced: np.ndarray
    #: Per row (equalities first, then the at-most rows), its dual value.
    duals: np.ndarray

    @staticmethod
    def of(linear: LinearSolution) -> Relaxation:
        return Relaxation(linear.bound, linear.values, linear.reduced, linear.duals)

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
        """Mask of the columns that a solution scoring at least ``target`` may lower from
        their upper bound.

        Weak duality: every solution scores at most ``bound`` minus, for each column, its
        reduced cost times how far it lies below its upper bound (when the reduced cost is
        positive), so a column whose reduced cost exceeds ``bound - target`` stays at its
        upper bound in every solution reaching ``target``.
        """
        return self.reduced <= self.slack(target)


def relax(program: IntegerProgram) -> Relaxation | None:
    """Solve ``program`` without integrality; ``None`` if GLOP reports no optimum (the caller
    then does without the relaxation)."""
    linear = solve_linear(program)
    return None if linear is None else Relaxation.of(linear)
