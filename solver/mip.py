"""A small integer program held as arrays, solved exactly with SCIP through OR-Tools.

The solver's models are built with numpy in one go (no per-coefficient Python calls) and
handed to OR-Tools' model builder as one sparse matrix. Each program is first solved without
integrality by GLOP (a fraction of a millisecond on these models): when that optimum is
already integral and its duals prove no integer point scores more, it is the integer
optimum, and SCIP is not started (about two thirds of the programs of small tables end
there). Otherwise SCIP runs single-threaded with zero gap and a light root (no presolve
rounds, no cutting planes, the costly heuristics off): on these small, tight models its full
root took longer than the search. Objectives are integers with lexicographic weights up to
about 10^9; tests/test_mip.py checks a one-unit tie-break survives under such a weight.
A program whose relaxation is loose by a few units of a known size, with a solution known, can
be solved by descending from the bound (:func:`solve_descending`): a few programs without the
columns the relaxation's reduced costs rule out, each exact for the target it is solved at; the
caller may give it a hand-over for when the steps grow dear (the move solver splits the program
by the old melds a move touches, :mod:`solver.split_search`). Once the steps keep a thousand
columns, two searches run at a time: the next step beside the current one, then the hand-over
beside the last steps, the first answer that settles the program stopping the other search
(:class:`Stop`: SCIP is interrupted).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse
from ortools.linear_solver import linear_solver_pb2, pywraplp
from ortools.linear_solver.python import model_builder_helper as builder

from .deadline import MIN_CALL_S, Deadline

#: Primal heuristics SCIP runs by default that these programs do without: the searches start from
#: a known solution or prove a target out of reach, where a heuristic's solution is either not
#: needed or cannot exist. Measured on the steps of the tie-break's descent of table 90 + rack 14
#: under repeated colours (session 25, ``benchmarks/README.md``): of 0.8 s on one step, diving
#: heuristics took 0.15 s and a restart after the root's strong branching most of the rest; the
#: heuristics that complete and try given solutions (``completesol``, ``trysol``) stay on, since
#: a caller's start (:func:`solve`) reaches SCIP through them.
_HEURISTICS_OFF = (
    "feaspump", "rens", "alns", "rins", "crossover", "locks", "trivial",
    "actconsdiving", "adaptivediving", "coefdiving", "conflictdiving", "distributiondiving", "farkasdiving",
    "fracdiving", "guideddiving", "linesearchdiving", "objpscostdiving", "pscostdiving", "rootsoldiving",
    "veclendiving", "dins", "gins", "mutation", "trustregion", "lpface", "dps", "padm", "ofins", "undercover",
    "multistart", "subnlp", "shiftandpropagate", "bound", "clique", "vbounds", "intshifting", "shifting",
    "oneopt", "zirounding", "simplerounding", "rounding", "randrounding",
)
#: Exact (zero gap), single-threaded, light root (see the module docstring): no presolve rounds,
#: no cutting planes, no restart and the heuristics above off. Symmetry handling is left as SCIP
#: has it: turned off here, ``pywraplp``'s SCIP (:class:`Stop`) printed an error on restoring it
#: after every run, and turning it off changed no time measured (variant benchmark, session 30).
SCIP_PARAMETERS = """\
limits/gap = 0
limits/absgap = 0
parallel/maxnthreads = 1
lp/threads = 1
presolving/maxrounds = 0
presolving/maxrestarts = 0
separating/maxroundsroot = 0
separating/maxrounds = 0
""" + "".join(f"heuristics/{name}/freq = -1\n" for name in _HEURISTICS_OFF)
#: SCIP with its own presolve, cuts and heuristics (still exact and single-threaded): for the
#: rare program on which the light root ends in an internal error (UNKNOWN_STATUS, "invalid
#: SCIP status"; tests/data/scip_unknown_status.npz, an infeasible program, is one), and for a
#: SCIP that does not know one of the light root's settings (INVALID_SOLVER_PARAMETERS: a newer
#: OR-Tools whose SCIP renamed a heuristic answers more slowly, never not at all;
#: tests/test_mip.py checks the installed one knows them all).
SCIP_CAREFUL_PARAMETERS = """\
limits/gap = 0
limits/absgap = 0
parallel/maxnthreads = 1
lp/threads = 1
"""


#: How far from a whole number (or from a row's bound) a relaxation's value may lie and
#: still count as meeting it exactly.
INTEGRALITY_TOLERANCE = 1e-6
#: How far below the relaxation's proven bound an integral solution may score and still be
#: taken as optimal: objectives are integers, so anything under one unit will do.
OBJECTIVE_TOLERANCE = 0.5


class SolverError(RuntimeError):
    """The optimiser failed to produce an answer (should not happen on valid input)."""


class OutOfTime(SolverError):
    """The time limit stopped the search before it found any solution: unlike ``None``
    (no solution exists), nothing is known."""


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
class LinearSolution:
    """The optimum of a program without integrality (GLOP), with a bound proven from its duals,
    and what that bound proves about the integer solutions (:meth:`may_change`).

    ``bound`` comes from weak duality, ``objective . v <= duals . rhs + sum(upper * max(reduced, 0))``
    for every solution ``v``, computed here from GLOP's duals (at-most rows' duals clipped at 0)
    rather than taken from GLOP's reported objective: a vertex GLOP accepts within its
    tolerances, a unit short of the optimum under the solver's 10^9 weights, then gives a
    bound a unit too high, which costs time, never exactness.
    """

    values: np.ndarray
    #: Per column, ``objective - duals . column``: how much the bound drops per unit the
    #: column moves away from the bound its sign prefers (upper if positive, zero if negative).
    reduced: np.ndarray
    #: Per row (equalities first, then the at-most rows), its dual value.
    duals: np.ndarray
    bound: float

    @property
    def best_possible(self) -> int:
        """No integer solution scores more than this (objectives are integers)."""
        return int(np.floor(self.bound + self._slack_tolerance))

    @property
    def _slack_tolerance(self) -> float:
        return INTEGRALITY_TOLERANCE * max(1.0, abs(self.bound))

    def slack(self, target: int) -> float:
        """How far below the bound ``target`` lies (with a little tolerance)."""
        return self.bound - target + self._slack_tolerance

    def losses(self, program: IntegerProgram) -> np.ndarray:
        """Per column of ``program``, how much the bound drops per unit the column rises from
        zero (minus its reduced cost): a descent leaves out every integer column whose loss
        exceeds the slack of its target; continuous columns are never left out (``-inf``)."""
        return np.where(program.continuous, -np.inf, -self.reduced)

    def may_change(self, target: int) -> np.ndarray:
        """Mask of the columns that a solution scoring at least ``target`` may lower from
        their upper bound.

        Weak duality: every solution scores at most ``bound`` minus, for each column, its
        reduced cost times how far it lies below its upper bound (when the reduced cost is
        positive), so a column whose reduced cost exceeds ``bound - target`` stays at its
        upper bound in every solution reaching ``target``.
        """
        return self.reduced <= self.slack(target)


@dataclass(frozen=True)
class Solution:
    values: np.ndarray  # integer variables rounded
    optimal: bool


def model_of(program: IntegerProgram) -> builder.ModelBuilderHelper:
    """``program`` as one sparse OR-Tools model (equalities first, then the at-most rows),
    without integrality: its linear relaxation, until :func:`_require_integers`."""
    n = len(program.objective)
    rows = program.equal.stacked(program.at_most)
    matrix = _csr(rows, n)
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
    return model


def _csr(rows: Rows, n: int) -> scipy.sparse.csr_matrix:
    """``rows`` as a sparse matrix of ``n`` columns, built in compressed form at once. SciPy's
    route through coordinates took 2-2.5 times as long (120-140 against 55-60 microseconds on the
    programs of table 10 + rack 14), and every relaxation and search of a move builds one: the
    median move of tables 0-60 took up to a quarter less, most 5-15 % (``benchmarks/README.md``,
    session 26). Entries repeated at one row and column are summed, as that route sums them:
    OR-Tools refuses a model that lists one twice."""
    order = np.lexsort((rows.cols, rows.rows))
    at, cols, values = rows.rows[order], rows.cols[order], rows.values[order].astype(np.float64)
    repeated = (at[1:] == at[:-1]) & (cols[1:] == cols[:-1])
    if repeated.any():
        starts = np.flatnonzero(np.r_[True, ~repeated])
        at, cols, values = at[starts], cols[starts], np.add.reduceat(values, starts)
    indptr = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(np.bincount(at, minlength=len(rows)), out=indptr[1:])
    return scipy.sparse.csr_matrix((values, cols, indptr), shape=(len(rows), n))


def _require_integers(model: builder.ModelBuilderHelper, program: IntegerProgram) -> None:
    for column in np.nonzero(~program.continuous)[0].tolist():
        model.set_var_integrality(column, True)


def _without_rows(program: IntegerProgram) -> Solution:
    """Each column at the bound its objective prefers (the program has no rows)."""
    if np.any((program.objective > 0) & ~np.isfinite(program.upper)):
        raise SolverError("the program is unbounded")
    return Solution(np.where(program.objective > 0, program.upper, 0.0), True)


#: GLOP on these small LPs: no presolve, a slack starting basis and no scaling were fastest
#: (about 4x less time in GLOP over a few hundred solves), and with scaling GLOP gave up on
#: some programs (ABNORMAL) and called some feasible ones infeasible. Its dual simplex
#: cycled on a degenerate program. A time limit guards against the unforeseen.
GLOP_PARAMETERS = "use_preprocessing:false,initial_basis:NONE,use_scaling:false"
#: A relaxation that takes longer than this has gone wrong (they take milliseconds): it then
#: counts as unsolved and the caller does without it.
LINEAR_TIME_LIMIT_S = 1.0


def solve_linear(
    program: IntegerProgram,
    model: builder.ModelBuilderHelper | None = None,
    time_limit_s: float | None = None,
    dual: bool = False,
) -> LinearSolution | None:
    """Solve ``program`` without integrality (GLOP); ``None`` unless GLOP reports an optimum.
    ``model`` is the program as built by :func:`model_of`, when the caller has it already;
    ``time_limit_s`` shortens :data:`LINEAR_TIME_LIMIT_S` (the caller's time left).

    GLOP's word is never taken alone: an optimum comes with the bound its duals prove
    (:func:`with_proof`), and "infeasible" counts as no answer, because GLOP said it of
    feasible programs.
    """
    solver = builder.ModelSolverHelper("glop")
    solver.set_solver_specific_parameters(GLOP_PARAMETERS + (",use_dual_simplex:true" if dual else ""))
    limit = LINEAR_TIME_LIMIT_S if time_limit_s is None else min(LINEAR_TIME_LIMIT_S, time_limit_s)
    solver.set_time_limit_in_seconds(limit)
    solver.solve(model_of(program) if model is None else model)
    if solver.status() != builder.SolveStatus.OPTIMAL:
        return None
    values = np.asarray(solver.variable_values(), dtype=np.float64)
    return with_proof(program, values, np.asarray(solver.dual_values(), dtype=np.float64))


def with_proof(program: IntegerProgram, values: np.ndarray, duals: np.ndarray) -> LinearSolution:
    """A relaxation's solution with the reduced costs and the bound its duals prove (any
    LP solver's duals, with the sign convention ``reduced = objective - duals . column``)."""
    duals = duals.copy()
    duals[len(program.equal):] = np.maximum(duals[len(program.equal):], 0.0)
    rows = program.equal.stacked(program.at_most)
    reduced = program.objective - np.bincount(
        rows.cols, weights=rows.values * duals[rows.rows], minlength=len(program.objective)
    )
    gain = np.maximum(reduced, 0.0)
    with np.errstate(invalid="ignore"):
        bound = float(duals @ rows.rhs + np.sum(np.where(gain > 0, program.upper * gain, 0.0)))
    return LinearSolution(values, reduced, duals, bound)


def _integral_optimum(program: IntegerProgram, linear: LinearSolution) -> np.ndarray | None:
    """The relaxation's optimum as an integer solution, if it is one.

    Its integer columns must be whole numbers, the rounded point must meet every row and
    bound exactly, and its objective must reach the proven bound to well under one unit
    (objectives are integers), so that no integer solution scores more.
    """
    values = np.where(program.continuous, linear.values, np.round(linear.values))
    if np.any(np.abs(values - linear.values) > INTEGRALITY_TOLERANCE) or not _meets_rows(program, values):
        return None
    if program.objective @ values < linear.bound - OBJECTIVE_TOLERANCE:
        return None
    return values


def _meets_rows(program: IntegerProgram, values: np.ndarray) -> bool:
    """Whether ``values`` keep every bound and meet every row of ``program`` (to the tolerance)."""
    if np.any(values < -INTEGRALITY_TOLERANCE) or np.any(values > program.upper + INTEGRALITY_TOLERANCE):
        return False
    for rows, exact in ((program.equal, True), (program.at_most, False)):
        lhs = np.bincount(rows.rows, weights=rows.values * values[rows.cols], minlength=len(rows))
        off = lhs - rows.rhs
        if np.any(np.abs(off) > INTEGRALITY_TOLERANCE if exact else off > INTEGRALITY_TOLERANCE):
            return False
    return True


#: What the light root may end in that SCIP's own settings are tried for (see SCIP_CAREFUL_PARAMETERS).
_RETRIED = (builder.SolveStatus.UNKNOWN_STATUS, builder.SolveStatus.INVALID_SOLVER_PARAMETERS)
#: pywraplp's result codes as the model builder's statuses (ABNORMAL: SCIP ended in an error).
_STATUS = {
    pywraplp.Solver.OPTIMAL: builder.SolveStatus.OPTIMAL,
    pywraplp.Solver.FEASIBLE: builder.SolveStatus.FEASIBLE,
    pywraplp.Solver.INFEASIBLE: builder.SolveStatus.INFEASIBLE,
    pywraplp.Solver.UNBOUNDED: builder.SolveStatus.UNBOUNDED,
    pywraplp.Solver.ABNORMAL: builder.SolveStatus.UNKNOWN_STATUS,
    pywraplp.Solver.MODEL_INVALID: builder.SolveStatus.MODEL_INVALID,
    pywraplp.Solver.NOT_SOLVED: builder.SolveStatus.NOT_SOLVED,
}


class Stopped(Exception):
    """A search was stopped from outside (:class:`Stop`) before it ended: nothing is known."""


class Stop:
    """A signal that stops the searches given it, from another thread: a SCIP run under way is
    interrupted, a later one is not started (each raises :class:`Stopped`).

    A run that may be stopped goes through ``pywraplp``, whose ``InterruptSolve`` stops SCIP
    (0.11 s after it on a 0.51-s run); the model builder's ``interrupt_solve`` does not (that run
    went on for all its 0.51 s), but the model builder starts SCIP 3 ms sooner, so runs nobody
    stops keep to it (:func:`_scip`). An interruption that comes before SCIP has begun is lost
    (SCIP clears it as it starts), so :meth:`set` interrupts again until the runs have ended."""

    #: Seconds between two interruptions of a run that has not ended yet.
    AGAIN_S = 0.005

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._running: set[pywraplp.Solver] = set()

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        """Stop: let no run start, and interrupt the runs under way until they have ended."""
        while True:
            with self._lock:
                self._set = True
                running = list(self._running)
            if not running:
                return
            for solver in running:
                solver.InterruptSolve()
            time.sleep(self.AGAIN_S)

    @contextmanager
    def watching(self, solver: pywraplp.Solver) -> Iterator[None]:
        """Within: ``solver``'s run is one :meth:`set` interrupts. Raises :class:`Stopped` at once
        when the signal is already set, or on leaving when it was set meanwhile."""
        with self._lock:
            if self._set:
                raise Stopped("stopped before the search began")
            self._running.add(solver)
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(solver)
        if self._set:
            raise Stopped("stopped during the search")


def milliseconds(seconds: float) -> int:
    """A time limit for ``pywraplp`` (whole milliseconds), never zero: it reads zero as no limit."""
    return max(1, math.ceil(seconds * 1000))


@dataclass(frozen=True)
class ScipRun:
    """What one SCIP run ended in: a status (as the model builder names them) and the values of
    the best solution it found (None: none)."""

    status: builder.SolveStatus
    values: np.ndarray | None


def _scip(model: builder.ModelBuilderHelper, parameters: str, time_limit_s: float, stop: Stop | None = None) -> ScipRun:
    """One SCIP run on ``model`` (a fresh SCIP each time), through the model builder, or through
    ``pywraplp`` when ``stop`` may stop it (:class:`Stop` says why two routes)."""
    if stop is None:
        helper = builder.ModelSolverHelper("scip")
        helper.set_solver_specific_parameters(parameters)
        helper.set_time_limit_in_seconds(time_limit_s)
        helper.solve(model)
        values = np.asarray(helper.variable_values(), dtype=np.float64) if helper.has_solution() else None
        return ScipRun(helper.status(), values)
    solver = pywraplp.Solver.CreateSolver("SCIP")
    solver.LoadModelFromProto(builder.to_mpmodel_proto(model))
    if not solver.SetSolverSpecificParametersAsString(parameters):
        return ScipRun(builder.SolveStatus.INVALID_SOLVER_PARAMETERS, None)
    solver.SetTimeLimit(milliseconds(time_limit_s))
    with stop.watching(solver):
        status = _STATUS.get(solver.Solve(), builder.SolveStatus.UNKNOWN_STATUS)
    if status not in (builder.SolveStatus.OPTIMAL, builder.SolveStatus.FEASIBLE):
        return ScipRun(status, None)
    response = linear_solver_pb2.MPSolutionResponse()
    solver.FillSolutionResponseProto(response)
    return ScipRun(status, np.asarray(response.variable_value, dtype=np.float64))


#: Programs of at least this many columns are relaxed with GLOP's dual simplex (a third of
#: the primal's time on programs of thousands of columns).
DUAL_SIMPLEX_COLUMNS = 1000


def solve(
    program: IntegerProgram, time_limit_s: float, start: np.ndarray | None = None, stop: Stop | None = None,
) -> Solution | None:
    """Solve ``program`` to optimality (zero gap) unless the time limit stops the search;
    ``None`` when it has no solution. An integral relaxation answers without SCIP, and so does a
    relaxation proven to have no solution (:func:`_relaxation_proven_empty`: half the set programs
    the search set by set rules out, at a millisecond each where SCIP took 4 ms).
    ``start``: a solution to begin from (NaN: a column it leaves open), which SCIP checks and
    completes; if it fits, SCIP has a solution from the first node on.
    Raises :class:`OutOfTime` when the time limit came before any solution, :class:`Stopped`
    when ``stop`` stopped the search."""
    if len(program.objective) == 0:
        feasible = np.all(program.equal.rhs == 0) and np.all(program.at_most.rhs >= 0)
        return Solution(np.zeros(0), True) if feasible else None
    if not len(program.equal) and not len(program.at_most):
        return _without_rows(program)
    model = model_of(program)
    linear = solve_linear(program, model, time_limit_s, dual=len(program.objective) >= DUAL_SIMPLEX_COLUMNS)
    if linear is not None:
        values = _integral_optimum(program, linear)
        if values is not None:
            return Solution(values, True)
    elif _relaxation_proven_empty(program, time_limit_s):
        return None
    _require_integers(model, program)
    if start is not None:
        for column in np.flatnonzero(~np.isnan(start)).tolist():
            model.add_hint(column, float(start[column]))
    started = time.monotonic()
    run = _scip(model, SCIP_PARAMETERS, time_limit_s, stop)
    if run.status in _RETRIED:
        left = time_limit_s - (time.monotonic() - started)
        run = _scip(model, SCIP_CAREFUL_PARAMETERS, max(left, MIN_CALL_S), stop)
    if run.status == builder.SolveStatus.INFEASIBLE:
        return None
    if run.status == builder.SolveStatus.NOT_SOLVED and run.values is None:
        raise OutOfTime(f"no solution within the time limit of {time_limit_s:g} s")
    if run.status not in (builder.SolveStatus.OPTIMAL, builder.SolveStatus.FEASIBLE) or run.values is None:
        raise SolverError(f"the MIP solver returned status {run.status.name}")
    values = np.where(program.continuous, run.values, np.round(run.values))
    return Solution(values, run.status == builder.SolveStatus.OPTIMAL)


def _relaxation_proven_empty(program: IntegerProgram, time_limit_s: float) -> bool:
    """Whether the relaxation of ``program`` is proven to have no solution: its first phase (a
    slack on every row, their sum minimised, :func:`phase_one`) has duals proving a negative
    bound (weak duality, :func:`with_proof`), whatever GLOP itself reports."""
    first = solve_linear(phase_one(program), None, time_limit_s)
    return first is not None and first.bound < -FIRST_PHASE_TOLERANCE


#: A first-phase bound must lie this far below zero to prove a relaxation empty (nearer is rounding).
FIRST_PHASE_TOLERANCE = 1e-6


def phase_one(program: IntegerProgram) -> IntegerProgram:
    """``program`` with a slack on every row (two on an equality) and the sum of the slacks
    to minimise, every column continuous: its optimum is zero exactly when the relaxation of
    ``program`` has a solution."""
    n, equal, at_most = len(program.objective), program.equal, program.at_most
    ne, na = len(equal), len(at_most)
    slacks = 2 * ne + na
    eq = Rows(
        np.r_[equal.rows, np.arange(ne), np.arange(ne)], np.r_[equal.cols, n + np.arange(ne), n + ne + np.arange(ne)],
        np.r_[equal.values, np.ones(ne), -np.ones(ne)], equal.rhs,
    )
    am = Rows(np.r_[at_most.rows, np.arange(na)], np.r_[at_most.cols, n + 2 * ne + np.arange(na)],
              np.r_[at_most.values, -np.ones(na)], at_most.rhs)
    return IntegerProgram(
        np.r_[np.zeros(n), -np.ones(slacks)], np.r_[program.upper, np.full(slacks, np.inf)], eq, am,
        np.ones(n + slacks, dtype=bool),
    )


#: The descent (:func:`solve_descending`) hands over to one search of the whole program, from the
#: best solution known, once it has used this share of its time or a target keeps this share of
#: the columns: its steps grow dearer as they go down, and a search the limit stops with a
#: solution still gives the player its best move found, where a step stopped gives nothing.
DESCENT_TIME_SHARE = 0.5
DESCENT_COLUMN_SHARE = 0.5
#: With a hand-over (:func:`solve_descending`), the descent hands over before a target whose
#: program keeps this many columns: the steps before are small and end most descents, the later
#: ones take seconds, where a hand-over taken sooner costs more than the steps it saves
#: (``benchmarks/README.md``, session 24). A descent that stops early over a program of this many
#: columns hands over too (session 25); a smaller program is searched whole.
HAND_OVER_COLUMNS = 4_500
#: With a hand-over, from a target keeping this many columns on, the descent runs two searches at a
#: time (:class:`_TwoAtATime`); its cheaper steps before run one at a time.
BESIDE_COLUMNS = 1_000
#: ``hand_over(relaxation, best solution known, score out of reach, seconds left, beside)``.
HandOver = Callable[["LinearSolution", np.ndarray, float, float, "Beside"], "Solution | None"]


@dataclass(frozen=True)
class Beside:
    """What a hand-over hears from the descent it may run beside (:class:`_TwoAtATime`)."""

    #: Once set, the hand-over returns soon with its best solution found (not optimal); None:
    #: nobody stops it (its searches need not be ones that can be stopped, :func:`_scip`).
    stop: Stop | None
    #: Set once the descent has ended: from then on the machine's cores are the hand-over's (a
    #: search that runs several threads runs one until then, leaving a core to the descent).
    alone: threading.Event
    #: The lowest score proven out of reach so far: the descent's steps beside go on proving.
    ceiling: Callable[[], float] = lambda: math.inf

    @staticmethod
    def nobody() -> Beside:
        """A hand-over that runs alone."""
        alone = threading.Event()
        alone.set()
        return Beside(None, alone)


def solve_descending(
    program: IntegerProgram, step: float, time_limit_s: float, start: np.ndarray,
    hand_over: HandOver | None = None,
) -> Solution | None:
    """Solve ``program`` exactly like :func:`solve`, by targets descending from its relaxation's
    bound in steps of ``step`` towards the score of ``start``, a solution known: for each target,
    only the columns a solution reaching it may use.

    Weak duality (:func:`with_proof`): a solution scores at most the bound less, for each column
    it raises from zero, that column's loss (minus its reduced cost) per unit. So a solution
    scoring at least ``target`` leaves at zero every integer column whose loss exceeds ``bound -
    target``; the program without those columns, and with ``objective >= target`` as a row, has
    every such solution. If it has any, its optimum is the optimum; if none, no solution reaches
    the target, and the next target down is tried. When the relaxation is loose by a few steps
    and most columns are dear (the tie-break of a large table under repeated colours: 200-9,000
    of 10,000-23,000 columns kept), a few small programs prove what one large one took seconds
    for. Once the target is the start's own score, the start reaches it, so that program is the
    last. The descent may stop before (:data:`DESCENT_TIME_SHARE`, :data:`DESCENT_COLUMN_SHARE`)
    for one search of the whole program from the best solution known; given ``hand_over``, it
    hands over to that before a target keeping :data:`HAND_OVER_COLUMNS` columns or more, and
    instead of that search when the whole program has that many (a smaller one is searched
    whole in less time than the split takes; ``hand_over(relaxation, best solution known, a score
    proven out of reach or inf, seconds left)`` must solve the program exactly, or give its best
    solution found in time).
    A ``start`` that is not a whole solution (a column left open) gets :func:`solve` at once.
    Raises :class:`OutOfTime` when the time limit came before any solution.
    """
    if not step > 0:
        raise ValueError(f"the step must be positive, not {step!r}")
    began = time.monotonic()

    def left() -> float:
        return max(time_limit_s - (time.monotonic() - began), MIN_CALL_S)

    floor = _score(program, start)
    if floor is None or len(program.objective) == 0 or not len(program.equal) and not len(program.at_most):
        return solve(program, time_limit_s, start)
    linear = solve_linear(program, None, left(), dual=len(program.objective) >= DUAL_SIMPLEX_COLUMNS)
    if linear is None or not np.isfinite(linear.bound):
        return solve(program, left(), start)
    values = _integral_optimum(program, linear)
    if values is not None:
        return Solution(values, True)
    loss = linear.losses(program)
    budget = DESCENT_TIME_SHARE * time_limit_s
    ceiling = math.inf  # the last target proven out of reach
    steps = 1
    while True:
        target = descent_target(linear.bound, steps, step, floor)
        keep = np.flatnonzero(loss <= linear.slack(target))
        spent = time.monotonic() - began
        if _steps_end(len(keep), len(program.objective), spent, budget, hand_over is not None):
            break
        if hand_over is not None and len(program.objective) >= HAND_OVER_COLUMNS and len(keep) >= BESIDE_COLUMNS:
            two = _TwoAtATime(program, linear, loss, step, floor, hand_over, began, time_limit_s)
            return two.run(steps, start, ceiling)
        last = target == floor  # the start reaches it: this program has a solution from the first node
        try:
            found = solve_narrowed(program, keep, target, left() if last else budget - spent, start if last else None)
        except OutOfTime:
            break
        if found is not None:
            if found.optimal or last:
                return found
            start = found.values  # stopped with a solution reaching the target: a better start
            break
        if last:  # only rounding can get here; the whole program settles it
            break
        ceiling = target
        steps += 1
    if hand_over is not None and len(program.objective) >= HAND_OVER_COLUMNS:
        return hand_over(linear, start, ceiling, left(), Beside.nobody())
    return solve(program, left(), start)


def descent_target(bound: float, steps: int, step: float, floor: int) -> int:
    """The target of a descent's step number ``steps`` from ``bound``: that many ``step``s below
    it, rounded up, never below ``floor`` (the score of the best solution known)."""
    return max(math.ceil(bound - steps * step), floor)


def _steps_end(kept: int, columns: int, spent: float, budget: float, handing_over: bool) -> bool:
    """Whether a descent stops before a step keeping ``kept`` of the program's ``columns`` (for one
    search of the whole program, or the hand-over when ``handing_over``), ``spent`` of its steps'
    ``budget`` of seconds gone (:data:`DESCENT_COLUMN_SHARE`, :data:`HAND_OVER_COLUMNS`)."""
    return (
        handing_over and kept >= HAND_OVER_COLUMNS or kept > DESCENT_COLUMN_SHARE * columns or spent >= budget
    )


class _TwoAtATime:
    """The rest of a descent (:func:`solve_descending`) with a hand-over, from a step keeping
    :data:`BESIDE_COLUMNS` columns on, two searches at a time: the steps in order and, where the
    descent alone would hand over (the next step keeping :data:`HAND_OVER_COLUMNS` columns or more
    than :data:`DESCENT_COLUMN_SHARE` of them, or the steps' time spent), the hand-over. Beside a step,
    the next step is proven (its answer counts once every step before it has none), or the
    hand-over runs (its answer counts whenever it ends: it is exact on its own). What settles the
    program stops the other searches (:class:`Stop`), and so does a step's solution the steps after
    it.

    Why: from such a step on, neither the steps one by one nor the hand-over is faster on every
    position (table 90 + rack 14 under repeated colours: a 1,809-column step settles seed 2 in
    0.47 s where the hand-over takes 0.9 s; seed 3's hand-over takes 0.3 s after a 3,097-column step
    that proves nothing in 0.53 s; ``benchmarks/README.md``, session 30)."""

    def __init__(
        self, program: IntegerProgram, linear: LinearSolution, loss: np.ndarray, step: float, floor: int,
        hand_over: HandOver, began: float, time_limit_s: float,
    ) -> None:
        self._program, self._linear, self._loss, self._step, self._floor = program, linear, loss, step, floor
        self._hand_over, self._began, self._limit = hand_over, began, time_limit_s
        self._deadline = Deadline(began + time_limit_s)

    def _target(self, steps: int) -> int:
        return descent_target(self._linear.bound, steps, self._step, self._floor)

    def run(self, steps: int, start: np.ndarray, ceiling: float) -> Solution | None:
        """Settle the program from step number ``steps`` on; ``start``: the best solution known,
        ``ceiling``: the last target proven out of reach."""
        budget = DESCENT_TIME_SHARE * self._limit
        alone = threading.Event()  # set once no step runs or will: the hand-over may use every core
        running: dict[Future, tuple[int | None, Stop]] = {}  # per search: its step (None: the hand-over)
        answers: dict[int, Solution | None] = {}  # per step ended: its solution, or None (out of reach)
        upcoming: int | None = steps  # the next step to start (None: no more)
        handed_over = False
        first = steps  # the first step not proven out of reach

        def proven() -> float:  # read by the hand-over while the steps beside it go on
            return ceiling

        with ThreadPoolExecutor(max_workers=2) as pool:
            try:
                while True:
                    # A step's solution waiting for the first step under way: nothing more to start.
                    waiting = any(number == first for number, _ in running.values()) and any(
                        answer is not None for number, answer in answers.items() if number > first
                    )
                    while len(running) < 2 and not waiting and (upcoming is not None or not handed_over):
                        target = self._target(upcoming) if upcoming is not None else None
                        keep = None if target is None else np.flatnonzero(self._loss <= self._linear.slack(target))
                        spent = time.monotonic() - self._began
                        if keep is None or _steps_end(len(keep), len(self._program.objective), spent, budget, True):
                            upcoming = None
                            stop = Stop()
                            beside = Beside(stop, alone, proven)
                            future = pool.submit(self._hand_over, self._linear, start, ceiling, self._deadline.left(), beside)
                            running[future] = (None, stop)
                            handed_over = True
                            continue
                        last = target == self._floor  # the start reaches it
                        stop = Stop()
                        limit = self._deadline.left() if last else max(budget - spent, MIN_CALL_S)
                        future = pool.submit(
                            solve_narrowed, self._program, keep, target, limit, start if last else None, stop,
                        )
                        running[future] = (upcoming, stop)
                        upcoming = None if last else upcoming + 1
                    if upcoming is None and all(number is None for number, _ in running.values()):
                        alone.set()
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        number, _ = running.pop(future)
                        if number is None:  # the hand-over: exact, or its best in time
                            return future.result()
                        try:
                            answers[number] = future.result()
                        except Stopped:
                            pass
                        except OutOfTime:  # the steps' time is spent: the hand-over settles it
                            upcoming = None
                    while first in answers and answers[first] is None:
                        ceiling = self._target(first)
                        first += 1
                    found = answers.get(first)
                    if found is not None and (found.optimal or self._target(first) == self._floor):
                        return found
                    if found is not None:  # stopped with a solution reaching its target: a better start
                        start, upcoming = found.values, None
                    solved = [number for number, answer in answers.items() if answer is not None]
                    if solved:  # the steps after a step with a solution cannot settle the program
                        if upcoming is not None and upcoming > min(solved):
                            upcoming = None
                        for number, stop in running.values():
                            if number is not None and number > min(solved):
                                stop.set()
            finally:
                for _, stop in running.values():
                    stop.set()


def solve_from(program: IntegerProgram, time_limit_s: float, start: np.ndarray, stop: Stop | None) -> Solution | None:
    """One search of the whole ``program`` from ``start``, a whole solution (:func:`solve`); when
    ``stop`` stops it, ``start`` itself, not marked optimal."""
    try:
        return solve(program, time_limit_s, start, stop)
    except Stopped:
        return Solution(start, False)


def solve_narrowed(
    program: IntegerProgram, keep: np.ndarray, target: int, time_limit_s: float, start: np.ndarray | None = None,
    stop: Stop | None = None,
) -> Solution | None:
    """``program`` with only the columns ``keep`` and ``objective >= target`` (one step of a
    descent), its solution given back in ``program``'s columns; ``start`` in those too."""
    found = solve(
        _at_least(_columns(program, keep), target), time_limit_s, None if start is None else start[keep], stop,
    )
    if found is None:
        return None
    whole = np.zeros(len(program.objective))
    whole[keep] = found.values
    return Solution(whole, found.optimal)


def _score(program: IntegerProgram, start: np.ndarray | None) -> int | None:
    """The score of ``start`` if it is a whole solution of ``program`` (every column given,
    whole where it must be, every row and bound met), else None."""
    if start is None or len(start) != len(program.objective) or np.any(np.isnan(start)):
        return None
    if np.any(np.abs(start - np.round(start))[~program.continuous] > INTEGRALITY_TOLERANCE):
        return None
    if not _meets_rows(program, start):
        return None
    return int(np.floor(program.objective @ start + OBJECTIVE_TOLERANCE))


def _at_least(program: IntegerProgram, target: int) -> IntegerProgram:
    """``program`` with ``objective >= target`` as one more at-most row."""
    cols = np.flatnonzero(program.objective)
    row = Rows(np.zeros(len(cols), np.int64), cols, -program.objective[cols], np.array([-float(target)]))
    return replace(program, at_most=program.at_most.stacked(row))


def _columns(program: IntegerProgram, keep: np.ndarray) -> IntegerProgram:
    """``program`` with only the columns ``keep`` (the others held at zero)."""
    at = -np.ones(len(program.objective), np.int64)
    at[keep] = np.arange(len(keep))

    def rows(r: Rows) -> Rows:
        kept = at[r.cols] >= 0
        return Rows(r.rows[kept], at[r.cols[kept]], r.values[kept], r.rhs)

    return IntegerProgram(
        program.objective[keep], program.upper[keep], rows(program.equal), rows(program.at_most), program.continuous[keep]
    )
