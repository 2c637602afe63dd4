"""The exact move solver: an integer program after den Hertog & Hulshof's ILP.

Variables: how many copies of each candidate meld lie on the new table, how many of each
rack tile are played, and which old meld each new meld "continues" (the old meld's tiles
that stay in it are not moved). Constraints: every table tile stays on the table, only rack
tiles are added. One weighted objective orders the criteria lexicographically:
(1) tiles placed (or value placed), (2) old melds left untouched, (3) table tiles not moved,
(4) value placed (tile objective), (5) fewer melds. Before the initial meld the table is
fixed and only rack melds worth the threshold count. On a large table a linear relaxation
(:mod:`solver.relaxation`) first picks the old melds worth opening up and proves that
nothing outside them improves the first two criteria. Models are arrays solved by
:mod:`solver.mip`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from . import mip
from .candidates import Catalogue, base_catalogue, catalogue_for, fits, joker_value, usage_of
from .melds import Meld
from .mip import IntegerProgram, Rows, SolverError
from .relaxation import relax
from .rules import RuleSet
from .state import Objective, Position
from .steps import build_steps
from .suggestion import RACK, Action, NewMeld, Suggestion
from .table import InvalidTableError, check_table, interpret_as_laid
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_KINDS, Tile

#: Tables of at most this many melds are opened up whole.
SMALL_TABLE_MELDS = 6
#: Target scores tried on a large table before the whole table is opened up.
MAX_TARGETS = 3
#: An old meld can only "continue" into a new meld that keeps at least this many of its tiles.
MIN_CONTINUATION_OVERLAP = 2
TIME_LIMIT_S = 10.0


@dataclass(frozen=True)
class _Problem:
    """One optimisation: the free old melds (global indices) may change, the rest stay."""

    catalogue: Catalogue
    old_melds: tuple[Meld, ...]
    free: tuple[int, ...]
    free_usage: np.ndarray  # (len(free), NUM_KINDS)
    table_counts: np.ndarray  # tiles of the free melds
    rack_counts: np.ndarray


@dataclass(frozen=True)
class _Outcome:
    counts: dict[int, int]
    continuations: dict[int, int]  # global old meld index -> candidate index
    primary: int
    optimal: bool
    #: Free old melds left exactly as they were.
    kept: int = 0


def _counts(tiles: tuple[Tile, ...]) -> np.ndarray:
    row = np.zeros(NUM_KINDS, dtype=np.int16)
    for t in tiles:
        row[t.index] += 1
    return row


def value_placed(played: dict[int, int], joker_gain: int) -> int:
    """Worth of the rack tiles played: numbers, and each rack joker as the tile it stands for.

    ``played`` maps tile index to count; ``joker_gain`` is how many points the jokers on the
    table stand for after the move minus before it. Only up to 13 points per rack joker played
    count, never less than nothing, so re-reading a table joker (r4 -> k9, or k10 -> k3) is
    neither credited to nor charged against the player.
    """
    real = sum(Tile.from_index(i).number * n for i, n in played.items() if i != JOKER_INDEX)
    return real + min(MAX_NUMBER * played.get(JOKER_INDEX, 0), max(joker_gain, 0))


def _prepare(position: Position, old_melds: tuple[Meld, ...], free: tuple[int, ...]) -> _Problem:
    """The problem with only the ``free`` old melds open; the others stay as they are.

    The candidates come from every old meld (not just the free ones), so the free melds and
    the rack can form exactly the melds they could form with the whole table open.
    """
    rack = _counts(position.rack)
    table = _counts(tuple(t for i in free for t in old_melds[i].tiles))
    catalogue = catalogue_for(position.rules, table + rack, old_melds)
    usage = np.stack([usage_of(old_melds[i]) for i in free]) if free else np.zeros((0, NUM_KINDS), np.int16)
    return _Problem(catalogue, old_melds, free, usage, table, rack)


def _prepare_initial(position: Position, old_melds: tuple[Meld, ...]) -> _Problem:
    rules = position.rules
    rack = _counts(position.rack)
    base = base_catalogue(rules)
    keep = fits(base.usage, rack)
    if not rules.jokers_in_initial_meld:
        keep &= base.usage[:, JOKER_INDEX] == 0
    rows = np.nonzero(keep)[0]
    catalogue = Catalogue(
        tuple(base.melds[k] for k in rows), base.usage[rows], base.values[rows], base.joker_values[rows]
    )
    empty = np.zeros((0, NUM_KINDS), np.int16)
    return _Problem(catalogue, old_melds, (), empty, np.zeros_like(rack), rack)


def solve(
    position: Position,
    objective: Objective = Objective.TILES,
    time_limit_s: float = TIME_LIMIT_S,
) -> Suggestion:
    """The best legal move for ``position``, ties broken by least disruption of the table.

    Exact in the objective (tiles or value placed) and in the number of old melds left
    untouched. The rest of the tie-break (tiles moved, value, melds) is exact within the old
    melds the answer is searched among: the whole table when it has at most
    :data:`SMALL_TABLE_MELDS` melds, otherwise the melds a linear relaxation of the whole
    table touches (:func:`_solve_large`).
    Raises :class:`InvalidTableError` when the table holds invalid melds.
    """
    check = check_table(position.table, position.rules)
    if not check.valid:
        raise InvalidTableError(check)
    old_melds = tuple(interpret_as_laid(m, c) for m, c in zip(position.table, check.melds))
    if not position.rack:
        return _draw(position, objective, old_melds)
    if not position.initial_meld_done:
        problem = _prepare_initial(position, old_melds)
        outcome = _solve_initial(problem, position, objective, time_limit_s)
    elif len(old_melds) <= SMALL_TABLE_MELDS:
        problem = _prepare(position, old_melds, tuple(range(len(old_melds))))
        outcome = _solve_rearrange(problem, objective, time_limit_s)
    else:
        problem, outcome = _solve_large(position, old_melds, objective, time_limit_s)
    if not outcome.counts or outcome.primary <= 0 and objective is Objective.TILES:
        return _draw(position, objective, old_melds, outcome.optimal)
    return _assemble(position, objective, problem, outcome)


def _solve_large(
    position: Position, old_melds: tuple[Meld, ...], objective: Objective, time_limit_s: float
) -> tuple[_Problem, _Outcome]:
    """Solve with the old melds no optimal move touches fixed in place.

    The relaxation (:func:`solver.relaxation.relax`) bounds the score ``weight * primary +
    melds kept`` over the whole table. For a target score, its reduced costs name the old
    melds a move reaching the target may touch; the full MIP is solved over those. If it
    reaches the target, the target is the optimum (nothing above it was possible) and every
    optimal move touches only those melds, so the answer is exact in every criterion.
    Otherwise nothing reaches the target and the next one down is tried; after a few tries
    the whole table is opened up.
    """
    everything = tuple(range(len(old_melds)))
    rack = _counts(position.rack)
    table = _counts(position.table_tiles)
    base = catalogue_for(position.rules, table + rack, ())
    old_usage = np.stack([usage_of(m) for m in old_melds])
    relaxation = relax(
        base.usage, _copies_bound(base.usage, table + rack), old_usage, table, rack,
        by_value=objective is Objective.VALUE,
    )
    if relaxation is not None:
        target = relaxation.best_possible
        for _ in range(MAX_TARGETS):
            free = tuple(int(i) for i in np.nonzero(relaxation.may_touch(target))[0])
            if len(free) == len(old_melds):
                break
            problem = _prepare(position, old_melds, free)
            outcome = _solve_rearrange(problem, objective, time_limit_s)
            if not outcome.optimal:
                break
            score = relaxation.score(outcome.primary, len(old_melds) - len(free) + outcome.kept)
            if score >= target:
                return problem, outcome
            target -= 1
    whole = _prepare(position, old_melds, everything)
    return whole, _solve_rearrange(whole, objective, time_limit_s)


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
    """Each old meld continues into a superset of itself, or into a piece sharing >= 2 of its
    tiles that brings in no joker from elsewhere (this prunes most of the joker variants)."""
    usage = problem.catalogue.usage
    jokers_in = usage[:, JOKER_INDEX]
    sizes = usage.sum(axis=1)
    parts: list[tuple[np.ndarray, ...]] = []
    for m, u in zip(problem.free, problem.free_usage):
        overlap = np.minimum(usage, u[None, :]).sum(axis=1)
        size = int(u.sum())
        allowed = (overlap == size) | ((overlap >= min(MIN_CONTINUATION_OVERLAP, size)) & (jokers_in <= u[JOKER_INDEX]))
        ks = np.nonzero(allowed)[0]
        first = next(t.index for t in problem.old_melds[m].tiles if not t.is_joker)
        parts.append((
            np.full(len(ks), m), ks, overlap[ks], (overlap[ks] == size) & (sizes[ks] == size), usage[ks, first] > 0,
        ))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return _Continuations(empty, empty, empty, np.zeros(0, dtype=bool), np.zeros(0, dtype=bool))
    return _Continuations(*(np.concatenate(column) for column in zip(*parts)))


def _solve_rearrange(problem: _Problem, objective: Objective, time_limit_s: float) -> _Outcome:
    """Max tiles (or value) placed, ties broken by least disruption of the free old melds.

    Columns: ``x[k]`` copies of candidate k laid as new melds, ``c[j]`` one copy of candidate
    ``targets[j]`` continuing old meld ``owners[j]`` (its shared tiles stay in place), ``y[i]``
    rack tiles of kind i played, and for value ``z`` (jokers' worth) and ``v`` (a switch).
    Both kinds of meld column carry tiles, so no rows link an old meld to its continuation.
    """
    cat = problem.catalogue
    rack = problem.rack_counts
    available = problem.table_counts + rack
    conts = _continuations(problem)
    melds = np.concatenate([np.arange(len(cat.melds)), conts.targets]).astype(np.int64)
    n_x, n_c = len(cat.melds), len(conts.targets)
    rack_kinds = np.nonzero(rack)[0]
    first_y = n_x + n_c
    # Lexicographic weights, most important first: primary (tiles or value placed), old melds
    # kept, tiles staying, value (tile objective only), fewer melds, and last, so that equal
    # moves are told apart the same way every time, old melds keeping their first tile in
    # place. Each weight exceeds the whole range of everything below it; the MIP gap is zero
    # so the order is exact.
    value_tiebreak = objective is Objective.TILES
    w_first = 1
    w_melds = w_first * (len(problem.free) + 1)
    scale = w_melds * (int(available.sum()) // rules_min(problem) + 1)
    w_value = scale if value_tiebreak else 0
    scale *= int(rack.sum()) * MAX_NUMBER + 1 if value_tiebreak else 1
    w_stay = scale
    w_kept = w_stay * (int(problem.table_counts.sum()) + 1)
    w_primary = w_kept * (len(problem.free) + 1)
    weight = w_primary if objective is Objective.VALUE else w_value
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in rack_kinds], dtype=np.float64)
    per_tile = w_primary if objective is Objective.TILES else 0
    objective_parts = [
        np.full(n_x, -float(w_melds)),
        w_stay * conts.overlaps + w_kept * conts.exact + w_first * conts.keeps_first - float(w_melds),
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
    if weight:
        # Rack jokers count as the tiles they stand for: the jokers' worth gained on the table,
        # at most 13 per rack joker played (a table joker's new value alone is not "placed").
        # z = min(13 x rack jokers played, max(0, jokers' net gain)); binary v picks the branch
        # of the max. With no rack joker played the jokers count nothing.
        z, v = n_vars, n_vars + 1
        big = float(MAX_NUMBER * (int(problem.table_counts[JOKER_INDEX]) + int(rack[JOKER_INDEX])) + 1)
        old_jokers = float(sum(joker_value(problem.old_melds[i]) for i in problem.free))
        joker_cols = np.nonzero(cat.joker_values[melds])[0]
        y_joker = first_y + np.nonzero(rack_kinds == JOKER_INDEX)[0]
        by_rack = (np.r_[z, y_joker], np.r_[1.0, -float(MAX_NUMBER) * np.ones(len(y_joker))])  # z <= 13 y_joker
        by_gain = (np.r_[z, v, joker_cols], np.r_[1.0, big, -cat.joker_values[melds][joker_cols]])  # z <= gain + big (1 - v)
        by_zero = (np.r_[z, v], np.r_[1.0, -big])  # z <= big v
        joker_rows = [by_rack, by_gain, by_zero]
        at_most = at_most.stacked(Rows(
            np.concatenate([np.full(len(c), r) for r, (c, _) in enumerate(joker_rows)]),
            np.concatenate([c for c, _ in joker_rows]),
            np.concatenate([w for _, w in joker_rows]),
            np.array([0.0, big - old_jokers, 0.0]),
        ))
        objective_parts.append(np.array([float(weight), 0.0]))
        upper_parts.append(np.array([np.inf, 1.0]))
        continuous = np.r_[continuous, True, False]
    program = IntegerProgram(
        np.concatenate(objective_parts), np.concatenate(upper_parts), equal, at_most, continuous
    )
    solution = mip.solve(program, time_limit_s)
    laid = solution.values[:first_y].astype(np.int64)
    counts_all = np.bincount(melds, weights=laid, minlength=n_x).astype(np.int64)
    counts = {int(k): int(n) for k, n in enumerate(counts_all) if n}
    played_counts = solution.values[first_y:first_y + len(rack_kinds)].astype(np.int64)
    played = {int(i): int(n) for i, n in zip(rack_kinds, played_counts) if n}
    if objective is Objective.TILES:
        primary = sum(played.values())
    else:
        gain = sum(int(cat.joker_values[k]) * n for k, n in counts.items())
        gain -= sum(joker_value(problem.old_melds[i]) for i in problem.free)
        primary = value_placed(played, gain)
    if not played:
        return _Outcome({}, {}, 0, solution.optimal, kept=len(problem.free))
    chosen = np.nonzero(laid[n_x:])[0]
    continuations = {int(conts.owners[j]): int(conts.targets[j]) for j in chosen}
    kept = int(conts.exact[chosen].sum())
    return _Outcome(counts, continuations, primary, solution.optimal, kept)


def _solve_initial(problem: _Problem, position: Position, objective: Objective, time_limit_s: float) -> _Outcome:
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
    solution = mip.solve(program, time_limit_s)
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
    # Tiles each free old meld still has to give away after its continuation keeps its share.
    leftovers: dict[int, Counter[Tile]] = {i: Counter(old_melds[i].tiles) for i in problem.free}
    staying: list[Counter[Tile]] = []
    for meld, owner in instances:
        keep = Counter(meld.tiles) & leftovers[owner] if owner is not None else Counter()
        if owner is not None:
            leftovers[owner] -= keep
        staying.append(keep)
    rack_left = Counter(position.rack)
    free = set(problem.free)
    new_table = [
        NewMeld(m, (i,) * len(m), i, unchanged=True) for i, m in enumerate(old_melds) if i not in free
    ]
    for (meld, owner), keep in zip(instances, staying):
        unchanged = owner is not None and Counter(meld.tiles) == Counter(old_melds[owner].tiles)
        if unchanged:
            assert owner is not None
            meld = old_melds[owner]  # untouched: keep its own order and joker values
        sources = []
        for tile in meld.tiles:
            if keep[tile] > 0:
                keep[tile] -= 1
                sources.append(owner)
                continue
            donor = next((i for i, left in leftovers.items() if left[tile] > 0), None)
            if donor is not None:
                leftovers[donor][tile] -= 1
                sources.append(donor)
            elif rack_left[tile] > 0:
                rack_left[tile] -= 1
                sources.append(RACK)
            else:
                raise SolverError(f"no source for {tile.name}")
        new_table.append(NewMeld(meld, tuple(int(s) for s in sources), owner, unchanged))
    if any(sum(left.values()) for left in leftovers.values()):
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
