"""GLPK and HiGHS stand-ins for the solver's two optimiser calls, for :mod:`benchmarks.backend_comparison`.

The solver ships OR-Tools: SCIP for its integer programs, GLOP for the linear relaxation.
GLPK (through cvxopt) and HiGHS (highspy) measured faster on the same models, but cvxopt's
GLPK is GPL-licensed (this project is MIT) and its presolve can abort the whole process on
some degenerate programs (``glp_add_cols: ncs = 0``, an assertion in ``npp_implied_value``),
which would take the app down. They are kept here, with the guard that answers the aborting
programs it can recognise, so the measurement can be repeated:
``pip install -e ".[bench]"`` installs cvxopt and highspy.
"""

from __future__ import annotations

from dataclasses import replace

import cvxopt
import numpy as np
from cvxopt import glpk
from highspy import _core as highs

from solver.mip import IntegerProgram, LinearSolution, Rows, Solution, SolverError, Stop, Stopped, solve, with_proof

#: GLPK's relative objective tolerance: well below 1 / (largest objective the models reach).
OBJECTIVE_TOLERANCE = 1e-10


def _spmatrix(rows: Rows, n_rows: int, n_cols: int) -> cvxopt.spmatrix:
    return cvxopt.spmatrix(
        cvxopt.matrix(rows.values.astype(np.float64)),
        cvxopt.matrix(rows.rows.astype(np.int32)),
        cvxopt.matrix(rows.cols.astype(np.int32)),
        (n_rows, n_cols),
    )


def _divided_by_gcd(rows: Rows, integer: np.ndarray, equal: bool) -> Rows | None:
    """``rows`` with each row over integer columns and integer coefficients divided by their
    gcd, an at-most row's bound rounded down; ``None`` if an equality cannot hold."""
    if not len(rows):
        return rows
    coefficients = np.round(rows.values)
    whole = np.ones(len(rows), dtype=bool)
    np.logical_and.at(whole, rows.rows, integer[rows.cols] & (rows.values == coefficients))
    gcd = np.zeros(len(rows), dtype=np.int64)
    np.gcd.at(gcd, rows.rows, np.abs(coefficients).astype(np.int64))
    divisor = np.where(whole & (gcd > 1), gcd, 1).astype(np.float64)
    rhs = rows.rhs / divisor
    if equal:
        if np.any(rhs != np.round(rhs)):
            return None
    else:
        rhs = np.where(divisor > 1, np.floor(rhs + 1e-9), rhs)
    return Rows(rows.rows, rows.cols, rows.values / divisor[rows.rows], rhs)


def solve_with_glpk(
    program: IntegerProgram, time_limit_s: float, start: np.ndarray | None = None, stop: Stop | None = None,
) -> Solution | None:
    """Same contract as :func:`solver.mip.solve`, through GLPK (cvxopt), which takes no start and
    cannot be interrupted: a ``stop`` set before it starts or while it runs raises
    :class:`solver.mip.Stopped` as it would start or end."""
    if stop is not None and stop.is_set():
        raise Stopped("stopped before the search began")
    found = _glpk(program, time_limit_s)
    if stop is not None and stop.is_set():
        raise Stopped("stopped during the search")
    return found


def _glpk(program: IntegerProgram, time_limit_s: float) -> Solution | None:
    n = len(program.objective)
    if n == 0 or (not len(program.equal) and not len(program.at_most)):
        return solve(program, time_limit_s)  # no columns or no rows: nothing for GLPK to do
    equal = _divided_by_gcd(program.equal, ~program.continuous, equal=True)
    if equal is None:
        return None
    program = replace(program, equal=equal, at_most=_divided_by_gcd(program.at_most, ~program.continuous, equal=False))
    integer = ~program.continuous
    binary = integer & (program.upper == 1)
    # GLPK through cvxopt takes no bounds: 0 <= v and v <= upper become rows, except for
    # binaries, which GLPK bounds itself.
    bounded = np.nonzero(~binary)[0]
    if not len(program.at_most) and not len(bounded):
        bounded = np.array([0])  # cvxopt wants at least one at-most row
    capped = np.nonzero(~binary & np.isfinite(program.upper))[0]
    bounds = Rows(
        np.arange(len(bounded) + len(capped)),
        np.concatenate([bounded, capped]),
        np.concatenate([-np.ones(len(bounded)), np.ones(len(capped))]),
        np.concatenate([np.zeros(len(bounded)), program.upper[capped]]),
    )
    at_most = program.at_most.stacked(bounds)
    status, x = glpk.ilp(
        cvxopt.matrix(-program.objective.astype(np.float64)),
        _spmatrix(at_most, len(at_most), n),
        cvxopt.matrix(at_most.rhs.astype(np.float64)),
        _spmatrix(program.equal, len(program.equal), n),
        cvxopt.matrix(program.equal.rhs.astype(np.float64)),
        set(np.nonzero(integer & ~binary)[0].tolist()),
        set(np.nonzero(binary)[0].tolist()),
        options={
            "msg_lev": "GLP_MSG_OFF",
            "tm_lim": max(1, int(time_limit_s * 1000)),
            "tol_obj": OBJECTIVE_TOLERANCE,
        },
    )
    if status in ("infeasible problem", "LP relaxation is primal infeasible"):
        return None
    if x is None or status not in ("optimal", "feasible"):
        raise SolverError(f"the MIP solver returned status {status!r}")
    values = np.array(x).ravel()
    values = np.where(integer, np.round(values), values)
    return Solution(values, status == "optimal")


def _csc(rows: Rows, n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column starts, row indices and values in compressed-column form."""
    order = np.lexsort((rows.rows, rows.cols))
    starts = np.zeros(n_cols + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows.cols, minlength=n_cols), out=starts[1:])
    return starts, rows.rows[order].astype(np.int32), rows.values[order].astype(np.float64)


def relax_with_highs(program: IntegerProgram) -> LinearSolution | None:
    """Same contract as :func:`solver.mip.solve_linear`, through HiGHS (highspy)."""
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
    return with_proof(program, np.asarray(solution.col_value), np.asarray(solution.row_dual))
