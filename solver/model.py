"""The exact move solver: an integer program after den Hertog & Hulshof's ILP.

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
threshold count. On a larger table a linear relaxation (:mod:`solver.relaxation`) bounds
(1)-(2) and, through its reduced costs, leaves out the old melds and candidates no optimal
move can use, so the MIP stays small and exact. Models are numpy arrays solved by SCIP and GLOP
through OR-Tools (:mod:`solver.mip`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from . import mip, move_program
from .candidates import Catalogue, base_for, catalogue_for, fits, joker_value, tile_usage, usage_of
from .deadline import Deadline
from .melds import Meld
from .mip import IntegerProgram, OutOfTime, Rows, SolverError
from .problem import Outcome, Pricing, Problem, Scope, scoped_weights, value_placed
from .relaxation import TOLERANCE as RELAXATION_TOLERANCE
from .relaxation import relax
from .state import Objective, Position
from .steps import build_steps
from .suggestion import RACK, Action, NewMeld, Suggestion
from .table import InvalidTableError, check_table, interpret_as_laid
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_KINDS, Tile, kind_counts

#: Tables of at most this many melds are opened up whole...
SMALL_TABLE_MELDS = 4
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
    deadline = Deadline.after(time_limit_s)
    check = check_table(position.table, position.rules)
    if not check.valid:
        raise InvalidTableError(check)
    old_melds = tuple(interpret_as_laid(m, c) for m, c in zip(position.table, check.melds))
    if not position.rack:
        return _draw(position, objective, old_melds)
    try:
        if not position.initial_meld_done:
            problem = _prepare_initial(position, old_melds)
            outcome = _solve_initial(problem, position, objective, deadline)
        else:
            problem = _prepare(position, old_melds, tuple(range(len(old_melds))))
            if len(old_melds) <= SMALL_TABLE_MELDS and len(problem.catalogue.melds) <= SMALL_TABLE_CANDIDATES:
                outcome = _solve_rearrange(problem, objective, deadline)
            else:
                problem, outcome = _solve_large(position, old_melds, objective, deadline, problem.catalogue)
    except OutOfTime:
        if not position.initial_meld_done:
            return _draw(position, objective, old_melds, optimal=False)
        problem, outcome = _without_time(position, old_melds, objective)
    if not outcome.plays or outcome.primary <= 0 and objective is Objective.TILES:
        return _draw(position, objective, old_melds, outcome.optimal)
    return _assemble(position, objective, problem, outcome)


def _solve_large(
    position: Position, old_melds: tuple[Meld, ...], objective: Objective, deadline: Deadline, whole: Catalogue
) -> tuple[Problem, Outcome]:
    """Solve with the old melds and candidates that no optimal move uses left out.

    The relaxation (:func:`_keep_program`) bounds the score ``weight * primary + melds kept``
    over the whole table, and for a target score its reduced costs name every old meld a move
    reaching the target may touch and every candidate it may lay (usually a few of each).
    The MIP over those, restricted to moves reaching the bound, with the rest of the
    tie-break as its objective, usually finds the optimum at once: nothing scores above the
    bound, so every move it finds scores exactly that. When it proves the bound out of
    reach, the best score is found (:func:`_best_score`) with MIPs scored on the two leading
    criteria only (so an old meld's continuations other than left untouched drop out): they
    are small, and proving targets out of reach is most of the work. One MIP aimed at that
    score then settles the rest of the tie-break. The whole table (``whole``: every candidate
    its tiles and the rack can form) is opened up only if the relaxation fails. A solve
    stopped by the deadline raises :class:`OutOfTime`, or gives the best move found by the
    last MIP (not optimal).
    """
    rack = tile_usage(position.rack)
    table = tile_usage(position.table_tiles)
    base = base_for(position.rules, table + rack)
    old_usage = np.stack([usage_of(m) for m in old_melds])
    program, weight = _keep_program(base, old_usage, table, rack, objective)
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

        def reaching(target: int, scope: Scope) -> tuple[Problem, Outcome | None]:
            free = tuple(int(m) for m in np.nonzero(relaxation.may_change(target)[keeps])[0])
            problem = prepared(free, relaxation.slack(target))
            fixed = len(old_melds) - len(free)
            return problem, _solve_reaching(problem, objective, deadline, weight, target - fixed, scope)

        def leading(target: int) -> int | None:
            """The best score of a move reaching ``target``, or None if none does."""
            problem, outcome = reaching(target, Scope.LEADING)
            if outcome is None:
                return None
            if not outcome.optimal:
                raise OutOfTime("the time limit came before the best score was found")
            return weight * outcome.primary + outcome.kept + len(old_melds) - len(problem.free)

        def touched_score() -> int:
            """A score surely reachable: the best move among the melds the relaxation touches
            and the candidates a move placing one tile (or point) less could lay."""
            touched = tuple(int(m) for m in np.nonzero(relaxation.values[keeps] < 1.0 - RELAXATION_TOLERANCE)[0])
            problem = prepared(touched, relaxation.slack(relaxation.best_possible - weight))
            found = _solve_rearrange(problem, objective, deadline, Scope.LEADING)
            if not found.optimal:
                raise OutOfTime("the time limit came before a reachable score was found")
            return weight * found.primary + found.kept + len(old_melds) - len(touched)

        # Most moves reach the bound: try it with the whole tie-break at once.
        problem, outcome = reaching(relaxation.best_possible, Scope.TIE_BREAK)
        if outcome is None:
            score = _best_score(relaxation.best_possible - 1, weight, relaxation.best_possible, leading, touched_score)
            problem, outcome = reaching(score, Scope.TIE_BREAK)
        if outcome is not None:
            # Optimal, or the best move found before the time limit.
            return problem, outcome
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


def _keep_program(
    base: Catalogue, old_usage: np.ndarray, table: np.ndarray, rack: np.ndarray, objective: Objective
) -> tuple[IntegerProgram, int]:
    """Most tiles (or value) placed, then most old melds kept whole: columns ``x`` (copies of
    base candidates), ``u`` (old meld kept, 0..1), ``y`` (rack tiles played) and, for value,
    ``z`` (rack jokers' worth, at most 13 each). The score is ``weight * primary + kept``.

    Every legal move is a solution (its new melds split into base candidates), so the
    relaxation's optimum bounds the score.
    """
    available = table + rack
    kinds = np.nonzero(available)[0]
    rack_kinds = np.nonzero(rack)[0]
    n_x, n_old = len(base.melds), len(old_usage)
    first_y = n_x + n_old
    weight = n_old + 1
    usage = np.concatenate([base.usage, old_usage])[:, kinds]
    cols, rows = np.nonzero(usage.T)[::-1]
    equal = Rows(
        np.concatenate([rows, np.searchsorted(kinds, rack_kinds)]),
        np.concatenate([cols, first_y + np.arange(len(rack_kinds))]),
        np.concatenate([usage[cols, rows].astype(np.float64), -np.ones(len(rack_kinds))]),
        table[kinds].astype(np.float64),
    )
    by_value = objective is Objective.VALUE
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in rack_kinds], dtype=np.float64)
    z = first_y + len(rack_kinds)
    y_joker = first_y + np.nonzero(rack_kinds == JOKER_INDEX)[0]
    at_most = Rows(  # z <= 13 x rack jokers played
        np.zeros(1 + len(y_joker), np.int64), np.r_[z, y_joker],
        np.r_[1.0, -float(MAX_NUMBER) * np.ones(len(y_joker))], np.zeros(1),
    )
    program = IntegerProgram(
        np.concatenate([
            np.zeros(n_x),
            np.ones(n_old),
            weight * (numbers if by_value else np.ones(len(rack_kinds))),
            [float(weight) if by_value else 0.0],
        ]),
        np.concatenate([
            move_program.copies_bound(base.usage, available).astype(np.float64), np.ones(n_old),
            rack[rack_kinds].astype(np.float64), [float(MAX_NUMBER * rack[JOKER_INDEX])],
        ]),
        equal, at_most, np.r_[np.zeros(first_y + len(rack_kinds), dtype=bool), True],
    )
    return program, weight


def _solve_rearrange(
    problem: Problem, objective: Objective, deadline: Deadline, scope: Scope = Scope.ALL
) -> Outcome:
    """The best move with only the problem's free old melds open (exact, zero gap), scored
    on the criteria of ``scope``."""
    layout = move_program.layout(problem, scope)
    program = move_program.program(problem, layout, objective, scoped_weights(problem, objective, scope))
    solution = mip.solve(program, deadline.left())
    if solution is None:
        raise SolverError("the move model has no solution (leaving the table as it is always is one)")
    return move_program.read(problem, layout, objective, solution.values, solution.optimal)


def _solve_reaching(
    problem: Problem, objective: Objective, deadline: Deadline, weight: int, floor: int, scope: Scope
) -> Outcome | None:
    """The best move among those scoring ``weight * primary + melds kept >= floor`` (kept
    counted among the free melds), scored on the criteria of ``scope``; ``None`` if there
    is none. ``TIE_BREAK`` is for a floor no move scores above: all reach it exactly, the
    two leading criteria are settled, and the smaller weights of the rest suffice.
    """
    layout = move_program.layout(problem, scope)
    program = move_program.program(problem, layout, objective, scoped_weights(problem, objective, scope))
    row = move_program.reaching(layout, objective, weight, floor)
    solution = mip.solve(replace(program, at_most=program.at_most.stacked(row)), deadline.left())
    if solution is None:
        return None
    return move_program.read(problem, layout, objective, solution.values, solution.optimal)


def _solve_initial(problem: Problem, position: Position, objective: Objective, deadline: Deadline) -> Outcome:
    """Initial meld: new melds from the rack only, together worth at least the threshold.

    Columns: copies of each candidate, then ``play``; value >= threshold * play, and nothing
    is laid unless play.
    """
    cat = problem.catalogue
    rack = problem.rack_counts
    n_x = len(cat.melds)
    play = n_x
    kinds = np.nonzero(rack)[0]
    usage = cat.usage[:, kinds]
    cols, rows = np.nonzero(usage.T)[::-1]
    uses = Rows(rows, cols, usage[cols, rows].astype(np.float64), rack[kinds].astype(np.float64))
    everything = np.arange(n_x)
    threshold = Rows(
        np.zeros(n_x + 1, np.int64), np.r_[everything, play],
        np.r_[-cat.values.astype(np.float64), float(position.rules.initial_meld_threshold)], np.zeros(1),
    )
    laid = Rows(np.zeros(n_x + 1, np.int64), np.r_[everything, play], np.r_[np.ones(n_x), -float(len(position.rack))], np.zeros(1))
    weights = cat.usage.sum(axis=1) if objective is Objective.TILES else cat.values
    # Tile objective: among openings with the most tiles, the most valuable one.
    tiebreak = int(rack.sum()) * MAX_NUMBER + 1 if objective is Objective.TILES else 0
    scores = weights * max(tiebreak, 1) + (cat.values if tiebreak else 0)
    program = IntegerProgram(
        np.r_[scores.astype(np.float64), 0.0],
        np.r_[move_program.copies_bound(cat.usage, rack).astype(np.float64), 1.0],
        Rows.empty(),
        uses.stacked(threshold).stacked(laid),
        np.zeros(n_x + 1, dtype=bool),
    )
    solution = mip.solve(program, deadline.left())
    if solution is None:
        raise SolverError("the opening model has no solution (laying nothing always is one)")
    counts = {k: int(n) for k, n in enumerate(solution.values[:n_x]) if n}
    primary = sum(int(weights[k]) * n for k, n in counts.items())
    laid = tuple(cat.melds[k] for k, n in counts.items() for _ in range(n))
    return Outcome(laid, (), primary, solution.optimal)


def _draw(
    position: Position, objective: Objective, old_melds: tuple[Meld, ...], optimal: bool = True
) -> Suggestion:
    table = tuple(NewMeld(m, (i,) * len(m), i, unchanged=True) for i, m in enumerate(old_melds))
    return Suggestion(position, objective, Action.DRAW, (), table, (), len(old_melds), 0, 0, optimal, old_melds)


def _assemble(position: Position, objective: Objective, problem: Problem, outcome: Outcome) -> Suggestion:
    """Turn the optimiser's new melds into the new table with the source of every tile."""
    old_melds = problem.old_melds
    instances: list[tuple[Meld, int | None]] = [(m, owner) for owner, m in sorted(outcome.continued, key=lambda p: p[0])]
    instances += [(m, None) for m in outcome.fresh]
    # Tile counts are lists indexed by Tile.index (kind_counts): Counters hashed every tile.
    # Tiles each free old meld still has to give away after its continuation keeps its share.
    leftovers: dict[int, list[int]] = {i: kind_counts(old_melds[i].tiles) for i in problem.free}
    staying: list[list[int]] = []
    for meld, owner in instances:
        keep = [0] * NUM_KINDS
        if owner is not None:
            left = leftovers[owner]
            for tile in meld.tiles:
                if left[tile.index] > 0:
                    left[tile.index] -= 1
                    keep[tile.index] += 1
        staying.append(keep)
    rack_left = kind_counts(position.rack)
    free = set(problem.free)
    new_table = [
        NewMeld(m, (i,) * len(m), i, unchanged=True) for i, m in enumerate(old_melds) if i not in free
    ]
    for (meld, owner), keep in zip(instances, staying):
        unchanged = owner is not None and kind_counts(meld.tiles) == kind_counts(old_melds[owner].tiles)
        if unchanged:
            assert owner is not None
            meld = old_melds[owner]  # untouched: keep its own order and joker values
        sources = []
        for tile in meld.tiles:
            kind = tile.index
            if keep[kind] > 0:
                keep[kind] -= 1
                sources.append(owner)
                continue
            donor = next((i for i, left in leftovers.items() if left[kind] > 0), None)
            if donor is not None:
                leftovers[donor][kind] -= 1
                sources.append(donor)
            elif rack_left[kind] > 0:
                rack_left[kind] -= 1
                sources.append(RACK)
            else:
                raise SolverError(f"no source for {tile.name}")
        new_table.append(NewMeld(meld, tuple(int(s) for s in sources), owner, unchanged))
    if any(any(left) for left in leftovers.values()):
        raise SolverError("a table tile was left off the new table")
    played = tuple(t for nm in new_table for t, s in zip(nm.meld.tiles, nm.sources) if s == RACK)
    new_table.sort(key=_table_order)
    table = tuple(new_table)
    untouched = sum(1 for nm in table if nm.unchanged)
    moved = sum(1 for nm in table for s in nm.sources if s != RACK and s != nm.continues)
    joker_gain = sum(joker_value(nm.meld) for nm in table) - sum(joker_value(m) for m in old_melds)
    value = value_placed(dict(Counter(t.index for t in played)), joker_gain)
    return Suggestion(
        position, objective, Action.PLAY, played, table, build_steps(table, old_melds),
        untouched, moved, value, outcome.optimal, old_melds,
    )


def _table_order(nm: NewMeld) -> tuple[int, int, int]:
    """Old melds first in their old order, then new melds by their first tile."""
    if nm.continues is not None:
        return (0, nm.continues, 0)
    return (1, nm.meld.represented[0].index, len(nm.meld))
