"""The exact move solver's strategy: which integer programs to solve for a move, in what
order, over which old melds and candidates (den Hertog & Hulshof's ILP).

Variables (:mod:`solver.move_program`): how many copies of each candidate meld lie on the
new table (every meld the tiles can form, :mod:`solver.candidates`), how many of each rack
tile are played, and which new meld each old meld "continues" (the old meld's tiles that
stay in it are not moved). Constraints: every table tile stays on the table, only
rack tiles are added. One weighted objective orders the criteria lexicographically:
(1) tiles placed (or value placed), (2) old melds left untouched, (3) table tiles not moved,
(4) value placed (tile objective), (5) fewer melds, (6) old melds keeping their first tile
in place (so equal moves always come out the same). Every legal move is a solution of the
program and every solution a legal move, so its optimum is the exact optimum in every
criterion. Before the initial meld the table is fixed and only rack melds worth the
threshold count (:mod:`solver.opening_program`). On a larger table the linear relaxation of
:mod:`solver.bound_program` bounds (1)-(2) and, through its reduced costs, leaves out the old
melds and candidates no optimal move can use, so the MIP stays small and exact. Models are
numpy arrays solved by SCIP and GLOP through OR-Tools (:mod:`solver.mip`); the answer is
assembled by :mod:`solver.answer`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from . import mip, move_program, opening_program
from .answer import assemble, draw
from .blas_threads import one_blas_thread
from .bound_program import bound_program
from .candidates import Catalogue, base_for, catalogue_for, fits, tile_usage, usage_of
from .deadline import Deadline
from .melds import Meld
from .mip import INTEGRALITY_TOLERANCE, OutOfTime, SolverError
from .mip import solve_linear as relax  # a name of its own: the backend comparison swaps it
from .problem import Outcome, Pricing, Problem, Scope, scoped_weights, value_placed
from .position import Objective, Position
from .split_search import MAX_SETS, Split, set_count, solve_split
from .suggestion import Suggestion
from .table import InvalidTableError, check_table, interpret_as_laid
from .tiles import JOKER_INDEX, NUM_KINDS

#: Tables of at most this many melds are opened up whole... Since the tie-break descends from
#: its bound (session 20), the relaxation path is as fast from two melds up and faster on racks
#: of 14-20 (tables of 20-30 tiles under repeated colours: 10 moves 4.2 s -> 2.7 s of CPU; it
#: was 4, `benchmarks/README.md`).
SMALL_TABLE_MELDS = 1
#: ... and they can form at most this many melds (runs with many jokers make thousands).
SMALL_TABLE_CANDIDATES = 2000
#: The time one move may take in all (every optimiser call of it together). Hard positions
#: can need more to prove the best move; they get the best found by then, marked not optimal.
TIME_LIMIT_S = 5.0
#: When the time limit came before any move was found: the time for a move from the rack
#: alone (the table as it is), a small program.
FALLBACK_TIME_S = 1.0

__all__ = ["SolverError", "solve", "value_placed"]


def _prepare(
    position: Position, old_melds: tuple[Meld, ...], free: tuple[int, ...], whole: Catalogue | None = None
) -> Problem:
    """The problem with only the ``free`` old melds open; the others stay as they are.
    Given the ``whole`` table's candidates, its candidates are those that fit."""
    rack = tile_usage(position.rack)
    usage = np.stack([usage_of(old_melds[i]) for i in free]) if free else np.zeros((0, NUM_KINDS), np.int16)
    table = usage.sum(axis=0, dtype=np.int16) if free else np.zeros(NUM_KINDS, np.int16)
    if whole is None:
        catalogue = catalogue_for(position.rules, table + rack)
    else:
        catalogue = whole.rows(np.nonzero(fits(whole.usage, table + rack))[0])
    return Problem(catalogue, old_melds, free, usage, table, rack, position.rules)


def _prepare_initial(position: Position, old_melds: tuple[Meld, ...]) -> Problem:
    """Initial meld: every meld the rack can form (without jokers if the rules say so)."""
    rules = position.rules
    rack = tile_usage(position.rack)
    catalogue = catalogue_for(rules, rack)
    if not rules.jokers_in_initial_meld:
        catalogue = catalogue.rows(np.nonzero(catalogue.usage[:, JOKER_INDEX] == 0)[0])
    empty = np.zeros((0, NUM_KINDS), np.int16)
    return Problem(catalogue, old_melds, (), empty, np.zeros_like(rack), rack, rules)


def solve(
    position: Position,
    objective: Objective = Objective.TILES,
    time_limit_s: float = TIME_LIMIT_S,
) -> Suggestion:
    """The best legal move for ``position``, ties broken by least disruption of the table.

    Exact in every criterion (zero-gap MIP): on a small table (:data:`SMALL_TABLE_MELDS`,
    :data:`SMALL_TABLE_CANDIDATES`) over the whole table, otherwise over the old melds and
    candidates a linear relaxation proves an optimal move may use (:func:`_solve_large`).
    ``time_limit_s`` bounds the whole move; ``optimal`` is False only if it cut the search
    short: the move is then the best found in time, or, if none was, the best move from the
    rack alone (:func:`_without_time`).
    Raises :class:`InvalidTableError` when the table holds invalid melds.
    """
    with one_blas_thread():
        return _solve(position, objective, Deadline.after(time_limit_s))


def _solve(position: Position, objective: Objective, deadline: Deadline) -> Suggestion:
    check = check_table(position.table, position.rules)
    if not check.valid:
        raise InvalidTableError(check)
    old_melds = tuple(interpret_as_laid(m, c) for m, c in zip(position.table, check.melds))
    if not position.rack:
        return draw(position, objective, old_melds)
    try:
        if not position.initial_meld_done:
            problem = _prepare_initial(position, old_melds)
            outcome = _solve_initial(problem, objective, deadline)
        else:
            problem = _prepare(position, old_melds, tuple(range(len(old_melds))))
            if len(old_melds) <= SMALL_TABLE_MELDS and len(problem.catalogue.melds) <= SMALL_TABLE_CANDIDATES:
                outcome = _solve_rearrange(problem, objective, deadline)
            else:
                problem, outcome = _solve_large(position, old_melds, objective, deadline, problem.catalogue)
    except OutOfTime:
        if not position.initial_meld_done:
            return draw(position, objective, old_melds, optimal=False)
        problem, outcome = _without_time(position, old_melds, objective)
    if not outcome.plays or outcome.primary <= 0 and objective is Objective.TILES:
        return draw(position, objective, old_melds, outcome.optimal)
    return assemble(position, objective, problem, outcome)


def _solve_large(
    position: Position, old_melds: tuple[Meld, ...], objective: Objective, deadline: Deadline, whole: Catalogue
) -> tuple[Problem, Outcome]:
    """Solve with the old melds and candidates that no optimal move uses left out.

    The relaxation of :func:`solver.bound_program.bound_program` bounds the score
    ``weight * primary + melds kept`` over the whole table, and for a target score its reduced costs name every old meld a move
    reaching the target may touch and every candidate it may lay (usually a few of each).
    The MIP over those, restricted to moves reaching the bound, with the rest of the
    tie-break as its objective, usually finds the optimum at once: nothing scores above the
    bound, so every move it finds scores exactly that. When it proves the bound out of
    reach, the best score is found (:func:`_best_score`) with MIPs scored on the two leading
    criteria only (so an old meld's continuations other than left untouched drop out): they
    are small, and proving targets out of reach is most of the work. The rest of the tie-break
    at that score is then settled from the move that proved it, one tile staying in place at a
    time down from the tie-break's own bound (:func:`solver.mip.solve_descending`), and once
    those programs grow large, set by set over the old melds a move touches
    (:mod:`solver.split_search`, :func:`_touched_melds`). The whole
    table (``whole``: every candidate its tiles and the rack can form) is opened up only if the
    relaxation fails. A solve
    stopped by the deadline raises :class:`OutOfTime`, or gives the best move found by the
    last MIP (not optimal).
    """
    rack = tile_usage(position.rack)
    table = tile_usage(position.table_tiles)
    base = base_for(position.rules, table + rack)
    old_usage = np.stack([usage_of(m) for m in old_melds])
    program, weight = bound_program(base, old_usage, table, rack, objective)
    relaxation = relax(program)
    if relaxation is not None:
        keeps = slice(len(base.melds), len(base.melds) + len(old_melds))
        # What laying a meld costs against the bound: the relaxation's prices of its tiles.
        kinds = np.nonzero(table + rack)[0]
        tile_price = np.zeros(NUM_KINDS)
        tile_price[kinds] = relaxation.duals[:len(kinds)]
        # What touching an old meld costs against the bound (nothing if the bound does not keep it).
        meld_cost = np.maximum(relaxation.reduced[keeps], 0.0)


        def prepared(free: tuple[int, ...], slack: float) -> Problem:
            return _priced(_prepare(position, old_melds, free, whole), tile_price, meld_cost, slack)

        def reaching(target: int, scope: Scope, start: _Reached | None = None) -> tuple[Problem, _Reached | None]:
            free = tuple(int(m) for m in np.nonzero(relaxation.may_change(target)[keeps])[0])
            problem = prepared(free, relaxation.slack(target))
            fixed = len(old_melds) - len(free)
            return problem, _solve_reaching(problem, objective, deadline, weight, target - fixed, scope, start=start)

        best_leading: dict[int, _Reached] = {}

        def leading(target: int) -> int | None:
            """The best score of a move reaching ``target``, or None if none does (the move
            is kept by its score: it starts the last search, and answers if that finds none)."""
            problem, reached = reaching(target, Scope.LEADING)
            if reached is None:
                return None
            outcome = reached.outcome
            if not outcome.optimal:
                raise OutOfTime("the time limit came before the best score was found")
            score = weight * outcome.primary + outcome.kept + len(old_melds) - len(problem.free)
            best_leading[score] = reached
            return score

        def touched_score() -> int:
            """A score surely reachable: the best move among the melds the relaxation touches
            and the candidates a move placing one tile (or point) less could lay."""
            touched = tuple(int(m) for m in np.nonzero(relaxation.values[keeps] < 1.0 - INTEGRALITY_TOLERANCE)[0])
            problem = prepared(touched, relaxation.slack(relaxation.best_possible - weight))
            found = _solve_rearrange(problem, objective, deadline, Scope.LEADING)
            if not found.optimal:
                raise OutOfTime("the time limit came before a reachable score was found")
            return weight * found.primary + found.kept + len(old_melds) - len(touched)

        # Most moves reach the bound: try it with the whole tie-break at once.
        problem, reached = reaching(relaxation.best_possible, Scope.TIE_BREAK)
        if reached is None:
            score = _best_score(relaxation.best_possible - 1, weight, relaxation.best_possible, leading, touched_score)
            # The move that proved the best score is a move of the whole tie-break at that
            # score too (a move reaching it touches only melds the bound lets change): the
            # search starts from it.
            found = best_leading[score]
            try:
                problem, reached = reaching(score, Scope.TIE_BREAK, start=found)
            except OutOfTime:
                # No move of the whole tie-break in time: the move that proved the best score
                # still places the most tiles (or points) and keeps the most melds untouched.
                return found.problem, replace(found.outcome, optimal=False)
        if reached is not None:
            # Optimal, or the best move found before the time limit.
            return problem, reached.outcome
    everything = _prepare(position, old_melds, tuple(range(len(old_melds))), whole)
    return everything, _solve_rearrange(everything, objective, deadline)


def _best_score(
    bound: int, weight: int, ceiling: int,
    leading: Callable[[int], int | None], touched_score: Callable[[], int],
) -> int:
    """The best score ``weight * primary + melds kept`` of any move, given that none scores
    above ``bound``; ``leading(target)`` is the best score of the moves reaching ``target``
    (None if none does), ``ceiling`` the relaxation's bound. When ``bound`` is out of reach,
    nothing scores above the next one down either; the bound on melds kept is usually the
    loose part, so then come the moves placing as many tiles (or points) as the relaxation
    allows, keeping any number of melds; and last the moves reaching a score surely
    reachable (``touched_score()``), which some move does."""
    score = leading(bound)
    if score is not None:
        return score
    most_placed = ceiling // weight * weight
    score = leading(most_placed) if most_placed < bound else None
    if score is not None:
        return score
    score = leading(touched_score())
    if score is None:
        raise SolverError("no move reaches a score that a move was found to reach")
    return score


def _without_time(
    position: Position, old_melds: tuple[Meld, ...], objective: Objective
) -> tuple[Problem, Outcome]:
    """The answer when the time limit came before any move was found: the best move from
    the rack alone with the table left as it is (a small program, given
    :data:`FALLBACK_TIME_S`), or drawing if even that finds nothing; never marked optimal."""
    problem = _prepare(position, old_melds, ())
    try:
        outcome = _solve_rearrange(problem, objective, Deadline.after(FALLBACK_TIME_S))
    except OutOfTime:
        outcome = Outcome((), (), 0, optimal=False)
    return problem, replace(outcome, optimal=False)


def _priced(problem: Problem, tile_price: np.ndarray, meld_cost: np.ndarray, slack: float) -> Problem:
    """Drop the candidates that no move reaching the target can lay, and attach the costs.

    Laying a candidate loses at least the relaxation's price of its tiles: its tiles split
    into base candidates (a run longer than theirs too, see :mod:`solver.candidates`), those
    the relaxation does not lay lose their (non-negative) reduced cost each, and the others
    have price <= 0. Candidates costing more than ``slack`` go (a free old meld left as it
    lies is a column of its own). ``meld_cost`` is per old meld.
    """
    cat = problem.catalogue
    cost = cat.usage @ tile_price
    keep = np.nonzero(cost <= slack)[0]
    catalogue = cat.rows(keep)
    pricing = Pricing(meld_cost[list(problem.free)], cost[keep], slack)
    return replace(problem, catalogue=catalogue, pricing=pricing)


def _solve_rearrange(
    problem: Problem, objective: Objective, deadline: Deadline, scope: Scope = Scope.ALL
) -> Outcome:
    """The best move with only the problem's free old melds open (exact, zero gap), scored
    on the criteria of ``scope``."""
    columns = move_program.columns(problem, scope)
    program = move_program.program(problem, columns, objective, scoped_weights(problem, objective, scope))
    solution = mip.solve(program, deadline.left())
    if solution is None:
        raise SolverError("the move model has no solution (leaving the table as it is always is one)")
    return move_program.read(problem, columns, objective, solution.values, solution.optimal)


@dataclass(frozen=True, eq=False)
class _Reached:
    """A move :func:`_solve_reaching` found, with the solution it was read from."""

    outcome: Outcome
    problem: Problem
    columns: move_program.Columns
    values: np.ndarray


def _solve_reaching(
    problem: Problem, objective: Objective, deadline: Deadline, weight: int, floor: int, scope: Scope,
    *, start: _Reached | None = None,
) -> _Reached | None:
    """The best move among those scoring ``weight * primary + melds kept >= floor`` (kept
    counted among the free melds), scored on the criteria of ``scope``; ``None`` if there
    is none. ``TIE_BREAK`` is for a floor no move scores above: all reach it exactly, the
    two leading criteria are settled, and the smaller weights of the rest suffice.
    ``start``: a move reaching the floor found in a narrower scope (of a problem whose
    catalogue may be cut otherwise), from which the search starts.
    """
    columns = move_program.columns(problem, scope)
    weights = scoped_weights(problem, objective, scope)
    program = move_program.program(problem, columns, objective, weights)
    row = move_program.reaching(columns, objective, weight, floor)
    program = replace(program, at_most=program.at_most.stacked(row))
    hint = None
    if start is not None:
        hint = move_program.carried(start.problem, start.columns, start.values, problem, columns, len(program.objective))
    if scope is Scope.TIE_BREAK and hint is not None:
        # Its relaxation is loose by a few tiles staying in place: descend one tile at a time
        # towards the move that proved the best score, then split by the melds a move touches.
        hand_over = _by_touched_melds(
            program, lambda: _touched_melds(problem, columns, objective, weight, floor, float(weights.stay)),
        )
        solution = mip.solve_descending(program, float(weights.stay), deadline.left(), hint, hand_over=hand_over)
    else:
        solution = mip.solve(program, deadline.left(), start=hint)
    if solution is None:
        return None
    outcome = move_program.read(problem, columns, objective, solution.values, solution.optimal)
    return _Reached(outcome, problem, columns, solution.values)


def _touched_melds(
    problem: Problem, columns: move_program.Columns, objective: Objective, weight: int, floor: int, step: float,
) -> Split:
    """How the tie-break program at ``floor`` splits by the free melds a move touches
    (:mod:`solver.split_search`). Every move reaching a floor no move scores above keeps exactly
    the most melds that score allows, so all touch as many; the surrogate is the program of the
    leading criteria at the same floor, whose moves keep the same melds: a move of the
    tie-break's program is one of it once each continuation is read as its new meld laid and
    each run longer than the base catalogue's split into base runs, which the catalogue holds
    whenever it holds the longer run (:func:`_priced`)."""
    leading = move_program.columns(problem, Scope.LEADING)
    surrogate = move_program.program(problem, leading, objective, scoped_weights(problem, objective, Scope.LEADING))
    reach = move_program.reaching(leading, objective, weight, floor)
    surrogate = replace(surrogate, at_most=surrogate.at_most.stacked(reach))
    kept = np.arange(len(problem.free))
    return Split(columns.first(move_program.U) + kept, surrogate, leading.first(move_program.U) + kept, step)


def _by_touched_melds(program: mip.IntegerProgram, split: Callable[[], Split]) -> mip.HandOver:
    """The descent's hand-over: the search set by set (``split()`` builds the split, only if
    the descent gets that far) when the sets are few enough, else one search of the whole
    program."""

    def hand_over(
        linear: mip.LinearSolution, start: np.ndarray, ceiling: float, left: float, beside: mip.Beside,
    ) -> mip.Solution | None:
        parts = split()
        if set_count(parts, start) > MAX_SETS:
            return mip.solve_from(program, left, start, beside.stop)
        return solve_split(program, parts, linear, start, ceiling, left, beside)

    return hand_over


def _solve_initial(problem: Problem, objective: Objective, deadline: Deadline) -> Outcome:
    """Initial meld: new melds from the rack only, together worth at least the threshold."""
    solution = mip.solve(opening_program.program(problem, objective), deadline.left())
    if solution is None:
        raise SolverError("the opening model has no solution (laying nothing always is one)")
    return opening_program.read(problem, objective, solution.values, solution.optimal)
