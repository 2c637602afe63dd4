"""An integer program solved set by set: the sets of binary columns at zero.

The tie-break program of a large table under repeated colours has a relaxation several tiles
staying above its optimum, and descending from its bound (:func:`solver.mip.solve_descending`)
can take seconds (``benchmarks/README.md``, session 24). Yet every one of its moves touches
exactly as many free old melds as the move that proved the best score (they all keep exactly
the most melds the best score allows), and of the sets of that many melds nearly none can be
touched by a move. So the program splits: for each set ``S`` of the "left as laid" columns at
zero (the others at one), the program with those columns fixed is small, and the optimum is the
best of the sets' optima.

Exactness. Let every solution of ``program`` hold exactly ``T`` of the :attr:`Split.columns` at
zero and the rest at one (the caller's guarantee; ``T`` is read from the known solution). Then
the optimum is the maximum over the sets of ``T`` columns of the program with them fixed, and a
set may be passed over only when a proof says it holds no solution better than the best found:

* *the program's relaxation* (weak duality, :func:`solver.mip.with_proof`): a solution scores
  at most the bound less each fixed column's loss against its reduced cost;
* *the surrogate's first phase*: :attr:`Split.surrogate` is a program over the same columns
  (the same fixed values) that has a solution whenever ``program`` has one with those values.
  Its first-phase relaxation (slacks on every row, their sum minimised) at one set gives duals
  ``w``, and for every set ``w . (rhs - B u) + sum_j upper_j max(-w . A_j, 0) >= 0`` must hold if
  the surrogate's relaxation has a solution at ``u`` (weak duality again; no column's bound
  depends on the set, and ``B`` holds the fixed columns' coefficients). A set where this fails,
  and every set the same duals rule out, has no solution;
* *the surrogate itself*: a set where its integer program has no solution has none.

Each remaining set's program is solved exactly after bound propagation drops the columns its
rows hold at zero (each such column is zero in every solution with those values), descending
from the set's own bound (the relaxation's bound less the fixed columns' losses, or the set's
own relaxation where that is tighter) as the whole program's descent does, down to one unit
above the best found; sets are taken best bound first, two at a time in threads of their own
(:data:`SET_WORKERS`; SCIP and GLOP let go of Python's lock while they solve; one at a time while
the descent still runs a step beside, :class:`solver.mip.Beside`), until no set's bound reaches one
unit above the best found. A ceiling (a score known out of
reach) ends the search once the best found lies one unit below it.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

import numpy as np
from ortools.linear_solver import linear_solver_pb2, pywraplp
from ortools.linear_solver.python import model_builder_helper as builder

from .deadline import MIN_CALL_S
from .mip import (
    FIRST_PHASE_TOLERANCE, GLOP_PARAMETERS, INTEGRALITY_TOLERANCE, LINEAR_TIME_LIMIT_S, OBJECTIVE_TOLERANCE, Beside,
    IntegerProgram, LinearSolution, OutOfTime, Rows, Solution, SolverError, Stop, Stopped, _columns, descent_target,
    milliseconds, model_of, phase_one, solve, solve_from, solve_linear, solve_narrowed, with_proof,
)

#: More sets than this and the split is not tried (one search of the whole program instead); the
#: positions measured had at most 7,315 (22 free melds, 4 touched).
MAX_SETS = 20_000
#: Sets examined at once, each in a thread of its own: a laptop has two cores or more (on the 2-core
#: machine the slowest moves of the variant benchmark took 10-40 % less, ``benchmarks/README.md``, session 29).
SET_WORKERS = 2
#: A set's search of this many columns or more may be stopped (:class:`solver.mip.Stop`): those
#: took up to 0.4 s (table 60 + rack 8 under repeated colours, session 30), where a smaller one
#: ends in milliseconds, less than the 3 ms a search that can be stopped costs to start.
STOPPABLE_COLUMNS = 1_000
#: Seconds between two looks, beside a descent, at whether it has ended (:class:`solver.mip.Beside`).
ALONE_POLL_S = 0.005


@dataclass(frozen=True)
class Split:
    """How a program splits: its binary ``columns`` (each 0 or 1 in every solution) and a
    smaller ``surrogate`` program whose columns ``surrogate_columns`` stand for the same choices
    (see the module docstring for what it must promise)."""

    columns: np.ndarray
    surrogate: IntegerProgram
    surrogate_columns: np.ndarray
    #: The unit the relaxation is loose in (one tile staying in place): each set's program is
    #: solved descending from its bound in these steps.
    step: float


def set_count(split: Split, start: np.ndarray) -> int:
    """How many sets the split of ``start``'s program would look at."""
    zeros = int(np.sum(start[split.columns] < 0.5))
    return math.comb(len(split.columns), zeros)


def solve_split(
    program: IntegerProgram, split: Split, linear: LinearSolution, start: np.ndarray, ceiling: float,
    time_limit_s: float, beside: Beside | None = None,
) -> Solution:
    """The optimum of ``program`` found set by set (module docstring), from ``start``, a whole
    solution; ``linear`` is the program's relaxation, ``ceiling`` a score no solution reaches
    (``inf`` if none is known; ``beside.ceiling()`` may prove a lower one meanwhile). When the time
    limit stops the search, the best solution found (``start`` at worst), not marked optimal, and
    the same soon after ``beside.stop`` is set (no set is started after it, and the searches that
    can be stopped are); if SCIP fails on a set's program, one search of the whole program from the
    best solution found. Until ``beside.alone`` is set, one set at a time (a descent runs beside,
    :class:`solver.mip.Beside`).

    The sets with the best bounds are examined :data:`SET_WORKERS` at a time, each in a thread of
    its own (SCIP and GLOP let go of Python's lock while they solve): a set examined beside one
    whose answer would have ruled it out costs time on another core, never the answer, since
    each set is either searched or ruled out by a proof that holds whatever was found first."""
    began = time.monotonic()
    beside = Beside.nobody() if beside is None else beside

    def left() -> float:
        return max(time_limit_s - (time.monotonic() - began), MIN_CALL_S)

    def out_of_reach() -> float:
        """The lowest score known out of reach: ``ceiling``, or lower since proven beside."""
        return min(ceiling, beside.ceiling())

    cols = split.columns
    t = int(np.sum(start[cols] < 0.5))
    sets = np.ones((math.comb(len(cols), t), len(cols)))
    for i, zeros in enumerate(itertools.combinations(range(len(cols)), t)):
        sets[i, list(zeros)] = 0.0
    loss = linear.losses(program)
    reduced = linear.reduced[cols]
    bound = linear.bound - sets @ np.maximum(-reduced, 0.0) - (1.0 - sets) @ np.maximum(reduced, 0.0)
    tolerance = INTEGRALITY_TOLERANCE * max(1.0, abs(linear.bound))
    open_sets = np.ones(len(sets), dtype=bool)
    best, best_score = start, float(program.objective @ start)
    first_phase = _FirstPhase(split.surrogate, split.surrogate_columns)

    def examine(i: int, best_score: float) -> _Examined:
        """Set ``i``: ruled out by the surrogate (with the other sets its duals rule out), or its
        best solution above ``best_score`` (None if it has none)."""
        values = sets[i]
        duals = first_phase.duals(values, left())
        if duals is not None:
            slope, level = _cut(split.surrogate, split.surrogate_columns, duals)
            proven = level + sets @ slope < -FIRST_PHASE_TOLERANCE
            if proven[i]:  # the relaxation has no solution here, nor where the same duals say so
                return _Examined(proven, None)
        if solve(fixed(split.surrogate, split.surrogate_columns, values).program, left()) is None:
            return _Examined(None, None)
        part = fixed(program, cols, values)
        constant = round(float(program.objective @ part.constant))  # the fixed columns' score
        better = math.floor(best_score + OBJECTIVE_TOLERANCE) + 1 - constant
        found = _best_above(
            part.program, loss[part.kept], bound[i] - constant, better, out_of_reach() - constant, split.step,
            tolerance, left, beside.stop,
        )
        if found is None:
            return _Examined(None, None)
        return _Examined(None, Solution(part.whole(found.values), found.optimal))

    running: set[Future] = set()
    with ThreadPoolExecutor(max_workers=SET_WORKERS) as workers:  # on leaving, the sets under way end first
        try:
            while True:
                if best_score + 1.0 >= out_of_reach() - tolerance:
                    return Solution(best, True)
                worth = np.flatnonzero(open_sets & (bound >= best_score + 1.0 - tolerance))
                if not len(worth) and not running:
                    return Solution(best, True)
                if time.monotonic() - began >= time_limit_s or beside.stop is not None and beside.stop.is_set():
                    return Solution(best, False)
                cores = SET_WORKERS if beside.alone.is_set() else 1
                for i in worth[np.argsort(-bound[worth], kind="stable")[:max(cores - len(running), 0)]].tolist():
                    open_sets[i] = False
                    running.add(workers.submit(examine, i, best_score))
                # Beside a descent, look again as soon as it ends (a second set may start then).
                poll = None if beside.alone.is_set() else ALONE_POLL_S
                done, _ = wait(running, timeout=poll, return_when=FIRST_COMPLETED)
                for answer in done:
                    running.remove(answer)
                    result = answer.result()
                    if result.proven is not None:
                        open_sets &= ~result.proven
                    if result.found is None:
                        continue
                    score = float(program.objective @ result.found.values)
                    if score > best_score:
                        best, best_score = result.found.values, score
                    if not result.found.optimal:
                        return Solution(best, False)
        except (OutOfTime, Stopped):
            return Solution(best, False)
        except SolverError:
            pass  # SCIP failed on one of the many small programs: below, once no set is under way
    return solve_from(program, left(), best, beside.stop)  # one search of the whole program


@dataclass(frozen=True)
class _Examined:
    """What examining one set gave: the sets its surrogate's duals rule out (itself among them),
    or its best solution above the best known (in the whole program's columns; None: none)."""

    proven: np.ndarray | None
    found: Solution | None


def _best_above(
    program: IntegerProgram, loss: np.ndarray, bound: float, better: int, ceiling: float, step: float,
    tolerance: float, left: Callable[[], float], stop: Stop | None = None,
) -> Solution | None:
    """The optimum of one set's ``program`` if it scores at least ``better``, else None, by targets
    descending from the set's ``bound`` in steps of ``step``, as :func:`solver.mip.solve_descending`
    does: a solution reaching a target leaves at zero every column whose ``loss`` (against the
    relaxation's duals) exceeds ``bound - target``, so the first target some solution reaches
    gives the optimum, and each target's program is a few hundred columns. Targets from
    ``ceiling`` up are known out of reach and skipped; ``tolerance``: the rounding allowed on the
    whole program's bound; ``stop`` stops its searches of :data:`STOPPABLE_COLUMNS` or more.

    The set's own relaxation (a few hundred columns, milliseconds) usually bounds it tighter than
    the whole program's duals do: then its bound and reduced costs take their place, and a set
    it puts below ``better`` needs no search at all (session 25: the sets' descents of table
    90 + rack 14 under repeated colours 0.25-0.58 s -> 0.02-0.11 s)."""
    own = solve_linear(program, None, left())
    if own is not None and own.bound < bound:
        if own.best_possible < better:
            return None
        bound, loss, slack = own.bound, own.losses(program), own.slack
    else:
        slack = lambda target: bound - target + tolerance  # noqa: E731
    steps = 1
    while math.ceil(bound - steps * step) >= ceiling:
        steps += 1
    while True:
        target = descent_target(bound, steps, step, better)
        keep = np.flatnonzero(loss <= slack(target))
        found = solve_narrowed(program, keep, target, left(), None, stop if len(keep) >= STOPPABLE_COLUMNS else None)
        if found is not None:
            return found
        if target == better:
            return None
        steps += 1


@dataclass(frozen=True)
class Fixed:
    """A program with some columns fixed: what is left of it, and the way back."""

    program: IntegerProgram
    kept: np.ndarray  # the original index of each column left
    constant: np.ndarray  # every column's fixed value (zero for those left)

    def whole(self, values: np.ndarray) -> np.ndarray:
        """A solution of the original program from one of :attr:`program`."""
        whole = self.constant.copy()
        whole[self.kept] = values
        return whole


def fixed(program: IntegerProgram, columns: np.ndarray, values: np.ndarray, propagate: bool = True) -> Fixed:
    """``program`` with ``columns`` held at ``values``, and (``propagate``) without the columns
    its rows then hold at zero (one pass of bound propagation: a column of positive coefficient
    ``a`` in a row of right-hand side ``b`` is at most ``(b - least activity of the others) / a``)."""
    n = len(program.objective)
    constant = np.zeros(n)
    constant[columns] = values
    free = np.ones(n, dtype=bool)
    free[columns] = False
    upper = np.where(free, program.upper, 0.0)

    def shifted(rows: Rows) -> Rows:
        used = np.bincount(rows.rows, weights=rows.values * constant[rows.cols], minlength=len(rows))
        return Rows(rows.rows, rows.cols, rows.values, rows.rhs - used)

    equal, at_most = shifted(program.equal), shifted(program.at_most)
    for rows in (equal, at_most) if propagate else ():
        live = free[rows.cols]
        r, c, a = rows.rows[live], rows.cols[live], rows.values[live]
        least = np.where(a < 0, a * np.minimum(upper[c], 1e12), 0.0)
        floor = np.bincount(r, weights=least, minlength=len(rows))
        positive = a > 0
        limit = (rows.rhs[r[positive]] - floor[r[positive]]) / a[positive]
        limit = np.where(program.continuous[c[positive]], limit, np.floor(limit + INTEGRALITY_TOLERANCE))
        np.minimum.at(upper, c[positive], np.maximum(limit, 0.0))
    kept = np.flatnonzero(free & ((upper > 0) | program.continuous))
    shrunk = IntegerProgram(program.objective, upper, equal, at_most, program.continuous)
    return Fixed(_columns(shrunk, kept), kept, constant)


class _FirstPhase:
    """The first phase of a split's surrogate (:func:`solver.mip.phase_one`) with every column kept,
    the set's columns held by their bounds: its duals must price the columns other sets free (see
    :func:`_cut`). One GLOP per thread, through ``pywraplp``, which keeps its basis when only
    bounds change, where the model builder builds and solves each program anew: 0.9-1.2 ms a set
    against 2.4-2.7 ms (90 + 8 under repeated colours, session 30). Its duals may differ from a
    fresh solve's where the first phase is degenerate; any duals make a valid cut (:func:`_cut`)."""

    def __init__(self, surrogate: IntegerProgram, columns: np.ndarray) -> None:
        self._proto = builder.to_mpmodel_proto(model_of(phase_one(surrogate)))
        self._columns = columns.tolist()
        self._local = threading.local()

    def duals(self, values: np.ndarray, time_limit_s: float) -> np.ndarray | None:
        """The first phase's duals (equalities first) with the columns at ``values``; None unless
        GLOP reports an optimum."""
        solver = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = pywraplp.Solver.CreateSolver("GLOP")
            solver.LoadModelFromProto(self._proto)
            solver.SetSolverSpecificParametersAsString(GLOP_PARAMETERS)
            self._local.variables = solver.variables()
        for column, value in zip(self._columns, values.tolist()):
            self._local.variables[column].SetBounds(value, value)
        solver.SetTimeLimit(milliseconds(min(time_limit_s, LINEAR_TIME_LIMIT_S)))
        if solver.Solve() != pywraplp.Solver.OPTIMAL:
            return None
        response = linear_solver_pb2.MPSolutionResponse()
        solver.FillSolutionResponseProto(response)
        return np.asarray(response.dual_value, dtype=np.float64)


def _cut(program: IntegerProgram, columns: np.ndarray, duals: np.ndarray) -> tuple[np.ndarray, float]:
    """``(slope, level)``: for every value ``u`` of ``columns``, ``level + slope . u`` bounds the
    first-phase optimum of ``program`` with ``columns`` at ``u`` from above (negative: no
    solution). ``duals``: the first phase's (equalities first).

    Any duals prove such a bound once the slacks price at or below zero (an equality's dual
    within [-1, 1], an at-most row's within [0, 1]): they are clipped and scaled into that box
    (a bound from scaled duals is the scaled bound), so a solver's tolerances never make a
    cut that a solution violates."""
    duals = duals.copy()
    duals[len(program.equal):] = np.maximum(duals[len(program.equal):], 0.0)
    duals /= max(1.0, float(np.max(np.abs(duals), initial=0.0)))
    n = len(program.objective)
    # The bound of the program scored on nothing, at these duals, less the fixed columns' part.
    proof = with_proof(replace(program, objective=np.zeros(n)), np.zeros(n), duals)
    slope = proof.reduced[columns]
    return slope, proof.bound - float(np.sum(np.where(slope > 0, program.upper[columns] * slope, 0.0)))


__all__ = ["MAX_SETS", "Split", "fixed", "set_count", "solve_split"]
