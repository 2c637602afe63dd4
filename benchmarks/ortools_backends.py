"""OR-Tools stand-ins for the solver's two optimiser calls, for :mod:`benchmarks.backend_comparison`.

The solver ships GLPK (through cvxopt) for its integer programs and HiGHS for the linear
relaxation. These functions take the same arrays (:class:`solver.mip.IntegerProgram`) and
answer the same way through OR-Tools' model builder: SCIP for the MIP (single-threaded, zero
gap, the light root that measured fastest on these models) and GLOP for the relaxation. They
are kept here so the measurement that decided the backends can be repeated.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from ortools.linear_solver.python import model_builder_helper as builder

from solver.mip import IntegerProgram, Solution, SolverError
from solver.relaxation import Relaxation

#: Exact (zero gap), single-threaded, and a light root: no presolve rounds, no cutting
#: planes, the costly heuristics off (SCIP's full root took longer than the search).
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


def solve_with_scip(program: IntegerProgram, time_limit_s: float) -> Solution | None:
    """Same contract as :func:`solver.mip.solve`."""
    solver = builder.ModelSolverHelper("scip")
    solver.set_solver_specific_parameters(SCIP_PARAMETERS)
    solver.set_time_limit_in_seconds(time_limit_s)
    solver.solve(model_of(program))
    status = solver.status()
    if status == builder.SolveStatus.INFEASIBLE:
        return None
    if status not in (builder.SolveStatus.OPTIMAL, builder.SolveStatus.FEASIBLE) or not solver.has_solution():
        raise SolverError(f"SCIP returned status {status.name}")
    values = np.asarray(solver.variable_values(), dtype=np.float64)
    return Solution(np.where(program.continuous, values, np.round(values)), status == builder.SolveStatus.OPTIMAL)


def relax_with_glop(program: IntegerProgram) -> Relaxation | None:
    """Same contract as :func:`solver.relaxation.relax` (GLOP's duals and reduced costs follow
    the same sign convention as HiGHS': reduced cost = objective - duals . column)."""
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
