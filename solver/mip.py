"""A small integer program held as arrays, solved exactly with SCIP through OR-Tools.

The solver's models are built with numpy in one go (no per-coefficient Python calls) and
handed to OR-Tools' model builder as one sparse matrix. SCIP runs single-threaded with zero
gap and a light root (no presolve rounds, no cutting planes, the costly heuristics off): on
these small, tight models its full root took longer than the search. Objectives are integers
with lexicographic weights up to about 10^9; tests/test_mip.py checks a one-unit tie-break
survives under such a weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
from ortools.linear_solver.python import model_builder_helper as builder

#: Exact (zero gap), single-threaded, light root (see the module docstring).
SCIP_PARAMETERS = """\
limits/gap = 0
limits/absgap = 0
parallel/maxnthreads = 1
lp/threads = 1
presolving/maxrounds = 0
separating/maxroundsroot = 0
separating/maxrounds = 0
heuristics/feaspump/freq = -1
heuristics/rens/freq = -1
heuristics/alns/freq = -1
heuristics/rins/freq = -1
heuristics/crossover/freq = -1
heuristics/locks/freq = -1
heuristics/trivial/freq = -1
"""


class SolverError(RuntimeError):
    """The optimiser failed to produce an answer (should not happen on valid input)."""


@dataclass(frozen=True)
class Rows:
    """Linear rows ``sum(values[t] * v[cols[t]] for t with rows[t] == r) <= / == rhs[r]``."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    rhs: np.ndarray

    @staticmethod
    def empty() -> Rows:
        return Rows(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))

    def __len__(self) -> int:
        return len(self.rhs)

    def stacked(self, other: Rows) -> Rows:
        return Rows(
            np.concatenate([self.rows, other.rows + len(self)]),
            np.concatenate([self.cols, other.cols]),
            np.concatenate([self.values, other.values]),
            np.concatenate([self.rhs, other.rhs]),
        )


@dataclass(frozen=True)
class IntegerProgram:
    """Maximise ``objective . v`` subject to ``equal``, ``at_most`` and ``0 <= v <= upper``.

    Every variable is integer except those marked ``continuous``.
    """

    objective: np.ndarray
    upper: np.ndarray  # np.inf for none
    equal: Rows
    at_most: Rows
    continuous: np.ndarray  # bool


@dataclass(frozen=True)
class Solution:
    values: np.ndarray  # integer variables rounded
    optimal: bool


def model_of(program: IntegerProgram, integer: bool = True) -> builder.ModelBuilderHelper:
    """``program`` as one sparse OR-Tools model (equalities first, then the at-most rows);
    with ``integer`` False, its linear relaxation."""
    n = len(program.objective)
    rows = program.equal.stacked(program.at_most)
    matrix = scipy.sparse.csr_matrix((rows.values.astype(np.float64), (rows.rows, rows.cols)), shape=(len(rows), n))
    model = builder.ModelBuilderHelper()
    model.fill_model_from_sparse_data(
        np.zeros(n),
        program.upper.astype(np.float64),
        program.objective.astype(np.float64),
        np.concatenate([program.equal.rhs, np.full(len(program.at_most), -np.inf)]).astype(np.float64),
        rows.rhs.astype(np.float64),
        matrix,
    )
    model.set_maximize(True)
    if integer:
        for column in np.nonzero(~program.continuous)[0].tolist():
            model.set_var_integrality(column, True)
    return model


def _without_rows(program: IntegerProgram) -> Solution:
    """Each column at the bound its objective prefers (the program has no rows)."""
    if np.any((program.objective > 0) & ~np.isfinite(program.upper)):
        raise SolverError("the program is unbounded")
    return Solution(np.where(program.objective > 0, program.upper, 0.0), True)


def solve(program: IntegerProgram, time_limit_s: float) -> Solution | None:
    """Solve ``program`` to optimality (zero gap) unless the time limit stops the search;
    ``None`` when it has no solution."""
    if len(program.objective) == 0:
        feasible = np.all(program.equal.rhs == 0) and np.all(program.at_most.rhs >= 0)
        return Solution(np.zeros(0), True) if feasible else None
    if not len(program.equal) and not len(program.at_most):
        return _without_rows(program)
    solver = builder.ModelSolverHelper("scip")
    solver.set_solver_specific_parameters(SCIP_PARAMETERS)
    solver.set_time_limit_in_seconds(time_limit_s)
    solver.solve(model_of(program))
    status = solver.status()
    if status == builder.SolveStatus.INFEASIBLE:
        return None
    if status not in (builder.SolveStatus.OPTIMAL, builder.SolveStatus.FEASIBLE) or not solver.has_solution():
        raise SolverError(f"the MIP solver returned status {status.name}")
    values = np.asarray(solver.variable_values(), dtype=np.float64)
    return Solution(np.where(program.continuous, values, np.round(values)), status == builder.SolveStatus.OPTIMAL)
