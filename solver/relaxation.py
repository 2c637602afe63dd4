"""The linear relaxation of an integer program, solved with HiGHS, and what it proves.

The solver relaxes a model of the whole table scored on its leading criteria, to learn two
things cheaply: an upper bound on that score for every legal move, and (through the reduced
costs) which columns a move reaching a given score could possibly change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from highspy import _core as highs

from .mip import IntegerProgram, Rows

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


def _csc(rows: Rows, n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column starts, row indices and values in compressed-column form."""
    order = np.lexsort((rows.rows, rows.cols))
    starts = np.zeros(n_cols + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows.cols, minlength=n_cols), out=starts[1:])
    return starts, rows.rows[order].astype(np.int32), rows.values[order].astype(np.float64)


def relax(program: IntegerProgram) -> Relaxation | None:
    """Solve ``program`` without integrality; ``None`` if HiGHS reports no optimum with valid
    duals (the caller then does without the relaxation)."""
    n = len(program.objective)
    matrix = program.equal.stacked(program.at_most)
    n_equal = len(program.equal)
    lower_row = np.concatenate([program.equal.rhs, np.full(len(program.at_most), -highs.kHighsInf)])
    upper_row = np.concatenate([program.equal.rhs, program.at_most.rhs])
    upper = np.where(np.isfinite(program.upper), program.upper, highs.kHighsInf)
    starts, rows, values = _csc(matrix, n)
    solver = highs._Highs()
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("presolve", "off")  # these LPs are small; presolve doubled the time
    # No "threads" option: HiGHS refuses to run when it differs from the process-wide
    # scheduler another HiGHS user (e.g. cvxpy) already started; the simplex is serial anyway.
    status = solver.passModel(
        n, n_equal + len(program.at_most), len(values), 1, -1, 0.0,
        program.objective.astype(np.float64), np.zeros(n), upper.astype(np.float64),
        lower_row.astype(np.float64), upper_row.astype(np.float64),
        starts, rows, values, np.zeros(n, dtype=np.int32),
    )
    if status == highs.HighsStatus.kError:
        return None
    if solver.run() == highs.HighsStatus.kError or solver.getModelStatus() != highs.HighsModelStatus.kOptimal:
        return None
    solution = solver.getSolution()
    if not solution.dual_valid:
        return None
    return Relaxation(
        float(solver.getInfo().objective_function_value),
        np.asarray(solution.col_value),
        program.upper,
        np.abs(np.asarray(solution.col_dual)),
        np.asarray(solution.row_dual),
    )
