"""A small integer program held as arrays, solved exactly with GLPK (through cvxopt).

The solver's models are built with numpy in one go (no per-coefficient Python calls) and
handed to GLPK's branch and cut, which measured several times faster than CBC and SCIP
through OR-Tools on these small, tight models (its root processing is light). Objectives
are integers, so the objective tolerance is set tight enough that no integer improvement is
ever lost.

GLPK's MIP presolver (always on under cvxopt) aborts the whole process, not just the call,
on some degenerate programs: when it removes every column (``glp_add_cols: ncs = 0``) and on
some infeasible equality systems (an assertion in ``npp_implied_value``). :func:`solve`
therefore answers the programs it can settle by itself without GLPK (no columns, no rows, an
equality no integer point meets) and divides every row over integer columns by the gcd of
its coefficients first, which is the rounding step after which the presolver was seen to
empty a program.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cvxopt
import numpy as np
from cvxopt import glpk

#: GLPK's relative objective tolerance: well below 1 / (largest objective the models reach).
OBJECTIVE_TOLERANCE = 1e-10


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


def _without_rows(program: IntegerProgram) -> Solution:
    """Each column at the bound its objective prefers (the program has no rows)."""
    if np.any((program.objective > 0) & ~np.isfinite(program.upper)):
        raise SolverError("the program is unbounded")
    return Solution(np.where(program.objective > 0, program.upper, 0.0), True)


def solve(program: IntegerProgram, time_limit_s: float) -> Solution | None:
    """Solve ``program`` to optimality (zero gap) unless the time limit stops the search;
    ``None`` when it has no solution."""
    n = len(program.objective)
    if n == 0:
        feasible = np.all(program.equal.rhs == 0) and np.all(program.at_most.rhs >= 0)
        return Solution(np.zeros(0), True) if feasible else None
    if not len(program.equal) and not len(program.at_most):
        return _without_rows(program)
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
