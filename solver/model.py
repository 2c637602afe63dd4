"""The exact move solver: an integer program after den Hertog & Hulshof's ILP.

Variables: how many copies of each candidate meld lie on the new table, how many of each
rack tile are played, and which old meld each new meld "continues" (the old meld's tiles
that stay in it are not moved). Constraints: every table tile stays on the table, only rack
tiles are added. One weighted objective orders the criteria lexicographically:
(1) tiles placed (or value placed), (2) old melds left untouched, (3) table tiles not moved,
(4) value placed (tile objective), (5) fewer melds, (6) old melds keeping their first tile
in place (so equal moves always come out the same). Before the initial meld the table is
fixed and only rack melds worth the threshold count. On a larger table a linear relaxation
(:mod:`solver.relaxation`) bounds (1)-(2) and, through its reduced costs, leaves out the old
melds and candidates no optimal move can use, so the MIP stays small and exact. Models are
numpy arrays solved by SCIP and GLOP through OR-Tools (:mod:`solver.mip`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from . import mip
from .candidates import (
    Catalogue,
    base_catalogue,
    catalogue_for,
    fits,
    joker_value,
    row_keys,
    tile_usage,
    usage_of,
)
from .deadline import Deadline
from .melds import Meld
from .mip import IntegerProgram, OutOfTime, Rows, SolverError
from .relaxation import TOLERANCE as RELAXATION_TOLERANCE
from .relaxation import relax
from .state import Objective, Position
from .steps import build_steps
from .suggestion import RACK, Action, NewMeld, Suggestion
from .table import InvalidTableError, check_table, interpret_as_laid
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_KINDS, Tile, kind_counts

#: Tables of at most this many melds are opened up whole.
SMALL_TABLE_MELDS = 4
#: An old meld can only "continue" into a new meld that keeps at least this many of its tiles.
MIN_CONTINUATION_OVERLAP = 2
#: The time one move may take in all (every optimiser call of it together). Hard positions
#: (large tables under repeated-colour groups) can need more to prove the best move; they
#: get the best found by then, marked not optimal.
TIME_LIMIT_S = 5.0
#: When the time limit came before any move was found: the time for a move from the rack
#: alone (the table as it is), a small program.
FALLBACK_TIME_S = 1.0


@dataclass(frozen=True)
class _Pricing:
    """What choices cost against the relaxation's bound (its reduced costs); a move reaching
    the target loses at most ``slack`` in all."""

    meld_cost: np.ndarray  # per free meld (in ``free`` order): touching it
    candidate_cost: np.ndarray  # per candidate: laying one copy of it
    slack: float


@dataclass(frozen=True)
class _Problem:
    """One optimisation: the free old melds (global indices) may change, the rest stay."""

    catalogue: Catalogue
    old_melds: tuple[Meld, ...]
    free: tuple[int, ...]
    free_usage: np.ndarray  # (len(free), NUM_KINDS)
    table_counts: np.ndarray  # tiles of the free melds
    rack_counts: np.ndarray
    pricing: _Pricing | None = None


@dataclass(frozen=True)
class _Outcome:
    counts: dict[int, int]
    continuations: dict[int, int]  # global old meld index -> candidate index
    primary: int
    optimal: bool
    #: Free old melds left exactly as they were.
    kept: int = 0
    #: Tiles of the free old melds that stay where they are.
    staying: int = 0


def value_placed(played: dict[int, int], joker_gain: int) -> int:
    """Worth of the rack tiles played: numbers, and each rack joker as the tile it stands for.

    ``played`` maps tile index to count; ``joker_gain`` is how many points the jokers on the
    table stand for after the move minus before it. Only up to 13 points per rack joker played
    count, never less than nothing, so re-reading a table joker (r4 -> k9, or k10 -> k3) is
    neither credited to nor charged against the player.
    """
    real = sum(Tile.from_index(i).number * n for i, n in played.items() if i != JOKER_INDEX)
    return real + min(MAX_NUMBER * played.get(JOKER_INDEX, 0), max(joker_gain, 0))


def _prepare(
    position: Position, old_melds: tuple[Meld, ...], free: tuple[int, ...], whole: Catalogue | None = None
) -> _Problem:
    """The problem with only the ``free`` old melds open; the others stay as they are.

    The candidates come from every old meld (not just the free ones), so the free melds and
    the rack can form exactly the melds they could form with the whole table open. Given the
    ``whole`` table's catalogue, they are the rows of it that fit (the same melds).
    """
    rack = tile_usage(position.rack)
    usage = np.stack([usage_of(old_melds[i]) for i in free]) if free else np.zeros((0, NUM_KINDS), np.int16)
    table = usage.sum(axis=0, dtype=np.int16) if free else np.zeros(NUM_KINDS, np.int16)
    if whole is None:
        catalogue = catalogue_for(position.rules, table + rack, old_melds)
    else:
        rows = np.nonzero(fits(whole.usage, table + rack))[0]
        catalogue = Catalogue(whole.melds.take(rows), whole.usage[rows], whole.values[rows], whole.joker_values[rows])
    return _Problem(catalogue, old_melds, free, usage, table, rack)


def _prepare_initial(position: Position, old_melds: tuple[Meld, ...]) -> _Problem:
    rules = position.rules
    rack = tile_usage(position.rack)
    base = base_catalogue(rules)
    keep = fits(base.usage, rack)
    if not rules.jokers_in_initial_meld:
        keep &= base.usage[:, JOKER_INDEX] == 0
    rows = np.nonzero(keep)[0]
    catalogue = Catalogue(
        base.melds.take(rows), base.usage[rows], base.values[rows], base.joker_values[rows]
    )
    empty = np.zeros((0, NUM_KINDS), np.int16)
    return _Problem(catalogue, old_melds, (), empty, np.zeros_like(rack), rack)


def solve(
    position: Position,
    objective: Objective = Objective.TILES,
    time_limit_s: float = TIME_LIMIT_S,
) -> Suggestion:
    """The best legal move for ``position``, ties broken by least disruption of the table.

    Exact in every criterion (zero-gap MIP): on a table of at most
    :data:`SMALL_TABLE_MELDS` melds over the whole table, otherwise over the old melds and
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
        elif len(old_melds) <= SMALL_TABLE_MELDS:
            problem = _prepare(position, old_melds, tuple(range(len(old_melds))))
            outcome = _solve_rearrange(problem, objective, deadline)
        else:
            problem, outcome = _solve_large(position, old_melds, objective, deadline)
    except OutOfTime:
        if not position.initial_meld_done:
            return _draw(position, objective, old_melds, optimal=False)
        problem, outcome = _without_time(position, old_melds, objective)
    if not outcome.counts or outcome.primary <= 0 and objective is Objective.TILES:
        return _draw(position, objective, old_melds, outcome.optimal)
    return _assemble(position, objective, problem, outcome)


def _solve_large(
    position: Position, old_melds: tuple[Meld, ...], objective: Objective, deadline: Deadline
) -> tuple[_Problem, _Outcome]:
    """Solve with the old melds and candidates that no optimal move uses left out.

    The relaxation (:func:`_keep_program`) bounds the score ``weight * primary + melds kept``
    over the whole table, and for a target score its reduced costs name every old meld a move
    reaching the target may touch and every candidate it may lay (usually a few of each).
    The MIP over those, restricted to moves reaching the target, either finds one, and then
    the target is the optimum (nothing above it was possible) and the answer is exact in
    every criterion, or proves there is none. Then the next score down is tried; then every
    move placing the most tiles the bound allows, with any number of melds kept (the bound
    on melds kept is the one usually too optimistic), whose best move is the optimum when
    there is one; and then the score of the best move with only the melds the relaxation
    touches open, which is surely reachable, so the same restricted MIP aimed at it settles
    the optimum. The whole table is opened up only if the relaxation fails. A solve stopped
    by the deadline gives its best move found (not optimal), or raises :class:`OutOfTime`.
    """
    rack = tile_usage(position.rack)
    table = tile_usage(position.table_tiles)
    base = catalogue_for(position.rules, table + rack, ())
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

        whole = catalogue_for(position.rules, table + rack, old_melds)

        def prepared(free: tuple[int, ...], slack: float) -> _Problem:
            return _priced(_prepare(position, old_melds, free, whole), tile_price, meld_cost, slack)

        def reaching(target: int, settled: bool = True) -> tuple[_Problem, _Outcome | None]:
            free = tuple(int(m) for m in np.nonzero(relaxation.may_change(target)[keeps])[0])
            problem = prepared(free, relaxation.slack(target))
            fixed = len(old_melds) - len(free)
            return problem, _solve_reaching(problem, objective, deadline, weight, target - fixed, settled)

        # Nothing scores above the bound; when a target is out of reach, nothing scores above
        # the next one down either.
        problem, outcome = reaching(relaxation.best_possible)
        if outcome is None:
            problem, outcome = reaching(relaxation.best_possible - 1)
        most_placed = relaxation.best_possible // weight * weight
        if outcome is None and most_placed < relaxation.best_possible - 1:
            # The bound on melds kept is usually the loose part: the best move placing as
            # many tiles (or points) as the bound allows, keeping any number of melds.
            problem, outcome = reaching(most_placed, settled=False)
        if outcome is None:
            # A score surely reachable: the best move among the melds the relaxation touches
            # and the candidates a move placing one tile (or point) less could lay.
            touched = tuple(int(m) for m in np.nonzero(relaxation.values[keeps] < 1.0 - RELAXATION_TOLERANCE)[0])
            slack = relaxation.slack(relaxation.best_possible - weight)
            found = _solve_rearrange(prepared(touched, slack), objective, deadline)
            kept = len(old_melds) - len(touched) + found.kept
            problem, outcome = reaching(weight * found.primary + kept, settled=False)
        if outcome is not None:
            # Optimal, or the best move found before the time limit (the whole table would
            # take longer still).
            return problem, outcome
    everything = _prepare(position, old_melds, tuple(range(len(old_melds))))
    return everything, _solve_rearrange(everything, objective, deadline)


def _without_time(
    position: Position, old_melds: tuple[Meld, ...], objective: Objective
) -> tuple[_Problem, _Outcome]:
    """The answer when the time limit came before any move was found: the best move from
    the rack alone with the table left as it is (a small program, given
    :data:`FALLBACK_TIME_S`), or drawing if even that finds nothing; never marked optimal."""
    problem = _prepare(position, old_melds, ())
    try:
        outcome = _solve_rearrange(problem, objective, Deadline.after(FALLBACK_TIME_S))
    except OutOfTime:
        outcome = _Outcome({}, {}, 0, optimal=False)
    return problem, replace(outcome, optimal=False)


def _priced(problem: _Problem, tile_price: np.ndarray, meld_cost: np.ndarray, slack: float) -> _Problem:
    """Drop the candidates that no move reaching the target can lay, and attach the costs.

    Laying a candidate loses at least the relaxation's price of its tiles: split into base
    candidates, those the relaxation does not lay lose their (non-negative) reduced cost
    each, and the others have price <= 0. Candidates costing more than ``slack`` go. A free
    old meld as it lies stays, so that it can be kept. ``meld_cost`` is per old meld.
    """
    cat = problem.catalogue
    cost = cat.usage @ tile_price
    keep = (cost <= slack) | np.isin(row_keys(cat.usage), row_keys(problem.free_usage))
    keep = np.nonzero(keep)[0]
    catalogue = Catalogue(cat.melds.take(keep), cat.usage[keep], cat.values[keep], cat.joker_values[keep])
    pricing = _Pricing(meld_cost[list(problem.free)], cost[keep], slack)
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
            _copies_bound(base.usage, available).astype(np.float64), np.ones(n_old),
            rack[rack_kinds].astype(np.float64), [float(MAX_NUMBER * rack[JOKER_INDEX])],
        ]),
        equal, at_most, np.r_[np.zeros(first_y + len(rack_kinds), dtype=bool), True],
    )
    return program, weight


def rules_min(problem: _Problem) -> int:
    """Smallest meld size among the candidates (3 under every rulebook we know)."""
    sizes = problem.catalogue.usage.sum(axis=1)
    return int(sizes.min()) if len(sizes) else 3


def _copies_bound(usage: np.ndarray, available: np.ndarray) -> np.ndarray:
    """How many copies of each candidate the available tiles allow."""
    return np.where(usage > 0, available[None, :] // np.maximum(usage, 1), 99).min(axis=1)


@dataclass(frozen=True)
class _Continuations:
    """Pairs (old meld, candidate) that an old meld may continue into, one column each."""

    owners: np.ndarray  # global old meld index
    targets: np.ndarray  # candidate index
    overlaps: np.ndarray  # tiles the pair keeps in place
    exact: np.ndarray  # the candidate is the old meld itself (meld left untouched)
    keeps_first: np.ndarray  # the old meld's first real tile (as laid) stays in place


def _continuations(problem: _Problem) -> _Continuations:
    """Each old meld may continue into any candidate sharing at least
    MIN_CONTINUATION_OVERLAP of its tiles (all of them, for a smaller meld), unless the
    problem's pricing shows no move reaching the target can. Pairs come meld by meld, in
    candidate order."""
    usage = problem.catalogue.usage
    if not problem.free or not len(usage):
        empty = np.zeros(0, dtype=np.int64)
        return _Continuations(empty, empty, empty, np.zeros(0, dtype=bool), np.zeros(0, dtype=bool))
    melds = problem.free_usage
    overlap = _shared_tiles(melds, usage)  # (free melds, candidates)
    size = melds.sum(axis=1)[:, None]
    exact = (overlap == size) & (usage.sum(axis=1)[None, :] == size)
    allowed = overlap >= np.minimum(MIN_CONTINUATION_OVERLAP, size)
    pricing = problem.pricing
    if pricing is not None:
        # Continuing into another meld touches this one and lays that one: both cost.
        allowed &= exact | (pricing.meld_cost[:, None] + pricing.candidate_cost[None, :] <= pricing.slack)
    at, ks = np.nonzero(allowed)
    firsts = np.array([next(t.index for t in problem.old_melds[m].tiles if not t.is_joker) for m in problem.free])
    return _Continuations(
        np.asarray(problem.free, dtype=np.int64)[at], ks, overlap[at, ks], exact[at, ks], usage[ks, firsts[at]] > 0,
    )


def _shared_tiles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sum(min(a[i], b[k]))`` over tile kinds for every pair of usage rows, as one matrix
    product per copy level (counts are small: a tile's copies, or the jokers)."""
    levels = int(min(a.max(initial=0), b.max(initial=0)))
    shared = np.zeros((len(a), len(b)), dtype=np.float64)
    for level in range(1, levels + 1):
        shared += (a >= level).astype(np.float64) @ (b >= level).T.astype(np.float64)
    return shared.astype(np.int64)


@dataclass(frozen=True)
class _Weights:
    """Objective weight of each criterion, most important first."""

    primary: int
    kept: int
    stay: int
    value: int
    melds: int
    first: int


def _lexicographic_weights(problem: _Problem, objective: Objective) -> _Weights:
    """Primary (tiles or value placed), old melds kept, tiles staying, value (tile objective
    only), fewer melds, and last, so that equal moves are told apart the same way every time,
    old melds keeping their first tile in place. Each weight exceeds the whole range of
    everything below it; the MIP gap is zero, so the order is exact."""
    value_tiebreak = objective is Objective.TILES
    first = 1
    melds = first * (len(problem.free) + 1)
    scale = melds * (int((problem.table_counts + problem.rack_counts).sum()) // rules_min(problem) + 1)
    value = scale if value_tiebreak else 0
    scale *= int(problem.rack_counts.sum()) * MAX_NUMBER + 1 if value_tiebreak else 1
    kept = scale * (int(problem.table_counts.sum()) + 1)
    return _Weights(kept * (len(problem.free) + 1), kept, scale, value, melds, first)


@dataclass(frozen=True)
class _Layout:
    """Where each kind of column sits in a rearrangement program."""

    melds: np.ndarray  # candidate laid by each meld column (x columns, then c columns)
    continuations: _Continuations
    rack_kinds: np.ndarray  # tile kind of each y column

    @property
    def n_x(self) -> int:
        return len(self.melds) - len(self.continuations.targets)

    @property
    def first_y(self) -> int:
        return len(self.melds)


def _layout(problem: _Problem) -> _Layout:
    conts = _continuations(problem)
    melds = np.concatenate([np.arange(len(problem.catalogue.melds)), conts.targets]).astype(np.int64)
    return _Layout(melds, conts, np.nonzero(problem.rack_counts)[0])


def _program(problem: _Problem, layout: _Layout, objective: Objective, weights: _Weights) -> IntegerProgram:
    """Max tiles (or value) placed, ties broken by least disruption of the free old melds.

    Columns: ``x[k]`` copies of candidate k laid as new melds, ``c[j]`` one copy of candidate
    ``targets[j]`` continuing old meld ``owners[j]`` (its shared tiles stay in place), ``y[i]``
    rack tiles of kind i played, then ``z`` (jokers' worth) and ``v`` (a switch) for value.
    Both kinds of meld column carry tiles, so no rows link an old meld to its continuation.
    """
    cat = problem.catalogue
    rack = problem.rack_counts
    available = problem.table_counts + rack
    conts = layout.continuations
    melds = layout.melds
    n_x, n_c = layout.n_x, len(conts.targets)
    rack_kinds = layout.rack_kinds
    first_y = layout.first_y
    w = weights
    weight = w.primary if objective is Objective.VALUE else w.value
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in rack_kinds], dtype=np.float64)
    per_tile = w.primary if objective is Objective.TILES else 0
    objective_parts = [
        np.full(n_x, -float(w.melds)),
        w.stay * conts.overlaps + w.kept * conts.exact + w.first * conts.keeps_first - float(w.melds),
        per_tile + weight * numbers,
    ]
    upper_parts = [
        _copies_bound(cat.usage, available).astype(np.float64),
        np.ones(n_c),
        rack[rack_kinds].astype(np.float64),
    ]
    # Every table tile lies in a meld; rack tiles in melds are the ones played.
    kinds = np.nonzero(available)[0]
    usage = cat.usage[melds][:, kinds]
    cols, rows = np.nonzero(usage.T)[::-1]
    y_rows = np.searchsorted(kinds, rack_kinds)
    equal = Rows(
        np.concatenate([rows, y_rows]),
        np.concatenate([cols, first_y + np.arange(len(rack_kinds))]),
        np.concatenate([usage[cols, rows].astype(np.float64), -np.ones(len(rack_kinds))]),
        problem.table_counts[kinds].astype(np.float64),
    )
    # Each old meld continues into at most one new meld.
    owner_rows = np.searchsorted(np.asarray(problem.free, dtype=np.int64), conts.owners)
    at_most = Rows(owner_rows, n_x + np.arange(n_c), np.ones(n_c), np.ones(len(problem.free)))
    n_vars = first_y + len(rack_kinds)
    continuous = np.zeros(n_vars, dtype=bool)
    # Rack jokers count as the tiles they stand for: the jokers' worth gained on the table,
    # at most 13 per rack joker played (a table joker's new value alone is not "placed").
    # z = min(13 x rack jokers played, max(0, gain)), gain = the new melds' jokers' worth
    # minus the free old melds' (``old``). Without jokers on the free melds every joker laid
    # comes from the rack, so 0 <= gain <= 13 x rack jokers played and z <= gain is the whole
    # rule. Otherwise a binary v picks the branch of the max with the tightest big-Ms
    # (gain >= -old, z <= 13 x rack jokers): z <= gain + old (1 - v), z <= 13 rack v. Loose
    # big-Ms let the relaxation raise z with a fractional v, so SCIP had to branch on it.
    z = n_vars
    rack_jokers = float(MAX_NUMBER * rack[JOKER_INDEX])
    old = float(sum(joker_value(problem.old_melds[i]) for i in problem.free))
    joker_cols = np.nonzero(cat.joker_values[melds])[0]
    y_joker = first_y + np.nonzero(rack_kinds == JOKER_INDEX)[0]
    gain_cols, gain_values = np.r_[z, joker_cols], np.r_[1.0, -cat.joker_values[melds][joker_cols]]
    joker_rows = [(np.r_[z, y_joker], np.r_[1.0, -float(MAX_NUMBER) * np.ones(len(y_joker))], 0.0)]  # z <= 13 y_joker
    switch = old > 0 and rack_jokers > 0
    if switch:
        v = n_vars + 1
        joker_rows.append((np.r_[gain_cols, v], np.r_[gain_values, old], 0.0))  # z <= gain + old (1 - v)
        joker_rows.append((np.r_[z, v], np.r_[1.0, -rack_jokers], 0.0))  # z <= 13 rack v
    elif rack_jokers > 0:
        joker_rows.append((gain_cols, gain_values, 0.0))  # z <= gain
    at_most = at_most.stacked(Rows(
        np.concatenate([np.full(len(c), r) for r, (c, _, _) in enumerate(joker_rows)]),
        np.concatenate([c for c, _, _ in joker_rows]),
        np.concatenate([w for _, w, _ in joker_rows]),
        np.array([rhs for _, _, rhs in joker_rows]),
    ))
    switches = int(switch)  # the v column, when there is one
    objective_parts.append(np.r_[float(weight), np.zeros(switches)])
    upper_parts.append(np.r_[rack_jokers, np.ones(switches)])
    continuous = np.r_[continuous, True, np.zeros(switches, dtype=bool)]
    return IntegerProgram(np.concatenate(objective_parts), np.concatenate(upper_parts), equal, at_most, continuous)


def _solve_rearrange(problem: _Problem, objective: Objective, deadline: Deadline) -> _Outcome:
    """The best move with only the problem's free old melds open (exact, zero gap)."""
    layout = _layout(problem)
    program = _program(problem, layout, objective, _lexicographic_weights(problem, objective))
    solution = mip.solve(program, deadline.left())
    if solution is None:
        raise SolverError("the move model has no solution (leaving the table as it is always is one)")
    return _outcome(problem, layout, objective, solution.values, solution.optimal)


def _solve_reaching(
    problem: _Problem, objective: Objective, deadline: Deadline, weight: int, floor: int, settled: bool
) -> _Outcome | None:
    """The best move among those scoring ``weight * primary + melds kept >= floor`` (kept
    counted among the free melds); ``None`` if there is none.

    When ``settled`` (no move scores more than ``floor``), every such move scores exactly
    that, the two leading criteria are settled, and the objective only needs the rest of the
    tie-break, which keeps its weights small; otherwise it keeps every criterion.
    """
    layout = _layout(problem)
    weights = _lexicographic_weights(problem, objective)
    if settled:
        weights = replace(weights, primary=0, kept=0)
    program = _program(problem, layout, objective, weights)
    n_y = len(layout.rack_kinds)
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in layout.rack_kinds], dtype=np.float64)
    per_y = numbers if objective is Objective.VALUE else np.ones(n_y)
    exact = layout.n_x + np.nonzero(layout.continuations.exact)[0]
    z = layout.first_y + n_y  # the rack jokers' worth (value objective)
    cols = np.r_[layout.first_y + np.arange(n_y), exact, [z] if objective is Objective.VALUE else []].astype(np.int64)
    values = np.r_[weight * per_y, np.ones(len(exact)), [float(weight)] if objective is Objective.VALUE else []]
    reaching = Rows(np.zeros(len(cols), np.int64), cols, -values, np.array([-float(floor)]))
    solution = mip.solve(replace(program, at_most=program.at_most.stacked(reaching)), deadline.left())
    if solution is None:
        return None
    return _outcome(problem, layout, objective, solution.values, solution.optimal)


def _outcome(problem: _Problem, layout: _Layout, objective: Objective, values: np.ndarray, optimal: bool) -> _Outcome:
    """Read a solution of :func:`_program`."""
    cat = problem.catalogue
    conts = layout.continuations
    laid = values[:layout.first_y].astype(np.int64)
    counts_all = np.bincount(layout.melds, weights=laid, minlength=layout.n_x).astype(np.int64)
    counts = {int(k): int(n) for k, n in enumerate(counts_all) if n}
    played_counts = values[layout.first_y:layout.first_y + len(layout.rack_kinds)].astype(np.int64)
    played = {int(i): int(n) for i, n in zip(layout.rack_kinds, played_counts) if n}
    if objective is Objective.TILES:
        primary = sum(played.values())
    else:
        gain = sum(int(cat.joker_values[k]) * n for k, n in counts.items())
        gain -= sum(joker_value(problem.old_melds[i]) for i in problem.free)
        primary = value_placed(played, gain)
    if not played:
        everything_stays = int(problem.table_counts.sum())
        return _Outcome({}, {}, 0, optimal, kept=len(problem.free), staying=everything_stays)
    chosen = np.nonzero(laid[layout.n_x:])[0]
    continuations = {int(conts.owners[j]): int(conts.targets[j]) for j in chosen}
    kept = int(conts.exact[chosen].sum())
    staying = int(conts.overlaps[chosen].sum())
    return _Outcome(counts, continuations, primary, optimal, kept, staying)


def _solve_initial(problem: _Problem, position: Position, objective: Objective, deadline: Deadline) -> _Outcome:
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
        np.r_[_copies_bound(cat.usage, rack).astype(np.float64), 1.0],
        Rows.empty(),
        uses.stacked(threshold).stacked(laid),
        np.zeros(n_x + 1, dtype=bool),
    )
    solution = mip.solve(program, deadline.left())
    if solution is None:
        raise SolverError("the opening model has no solution (laying nothing always is one)")
    counts = {k: int(n) for k, n in enumerate(solution.values[:n_x]) if n}
    primary = sum(int(weights[k]) * n for k, n in counts.items())
    return _Outcome(counts, {}, primary, solution.optimal)


def _draw(
    position: Position, objective: Objective, old_melds: tuple[Meld, ...], optimal: bool = True
) -> Suggestion:
    table = tuple(NewMeld(m, (i,) * len(m), i, unchanged=True) for i, m in enumerate(old_melds))
    return Suggestion(position, objective, Action.DRAW, (), table, (), len(old_melds), 0, 0, optimal, old_melds)


def _assemble(position: Position, objective: Objective, problem: _Problem, outcome: _Outcome) -> Suggestion:
    """Turn the optimiser's counts into the new table with the source of every tile."""
    cat = problem.catalogue
    old_melds = problem.old_melds
    instances: list[tuple[Meld, int | None]] = []
    continued_by: dict[int, list[int]] = {}
    for m, k in sorted(outcome.continuations.items()):
        continued_by.setdefault(k, []).append(m)
    for k, n in outcome.counts.items():
        owners = continued_by.get(k, [])
        for copy in range(n):
            instances.append((cat.melds[k], owners[copy] if copy < len(owners) else None))
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
