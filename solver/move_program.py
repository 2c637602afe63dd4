"""The integer program of one problem (:class:`solver.problem.Problem`), after den Hertog
& Hulshof's ILP, and the reading of its answer.

Columns, in order:

* ``x``: copies of each candidate laid as a new meld (under repeated colours the groups
  continuing no old meld are counted per number instead, :mod:`solver.groups`);
* ``c``: a free old meld continuing into a candidate sharing at least two of its tiles
  (not all of them: that is ``u``);
* ``u``: a free old meld left untouched (read as it was laid);
* the free groups' counts (repeated colours);
* ``y``: rack tiles played, per kind; ``z``: the rack jokers' worth; ``v``: its switch.

Rows: every table tile lies in a new meld and the rack tiles in new melds are the ones
played (one equality per tile kind); each old meld continues into at most one new meld;
the groups' counts make whole groups, and hold no more of the rack's tiles than the rack has
per group (:func:`_rack_share_rows`). Scored on the leading criteria only
(:attr:`Scope.LEADING`), only ``u`` counts as a continuation and a longer run than the base
catalogue's changes nothing (its tiles split into base candidates), so ``c`` and the longer
runs are left out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from .candidates import base_run_limit, joker_value
from .groups import GROUPS, GroupCounts
from .melds import Meld
from .mip import IntegerProgram, Rows
from .problem import Outcome, Problem, Scope, Weights, value_placed
from .position import Objective
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_COLOURS, Tile

#: An old meld continues only into a new meld holding at least this many of its tiles.
MIN_CONTINUATION_OVERLAP = 2


@dataclass(frozen=True)
class Continuations:
    """Pairs (free old meld, group candidate) an old meld may continue into, one column each."""

    owners: np.ndarray  # global old meld index
    targets: np.ndarray  # candidate index
    overlaps: np.ndarray  # tiles the pair keeps in place
    keeps_first: np.ndarray  # the old meld's first real tile stays in place


@dataclass(frozen=True)
class Columns:
    """The program's columns: which candidates, continuations, free melds, group counts and
    rack tiles they stand for, part by part, in order."""

    laid: np.ndarray  # candidate of each x column
    continuations: Continuations
    free: np.ndarray  # global old meld index of each u column (the free melds)
    counts: GroupCounts
    rack_kinds: np.ndarray  # tile kind of each y column

    def first(self, part: int) -> int:
        """First column of a part (:data:`X`, :data:`C`, :data:`U`, :data:`COUNTS`, :data:`Y`, :data:`Z`)."""
        sizes = (len(self.laid), len(self.continuations.owners), len(self.free), len(self.counts), len(self.rack_kinds))
        return int(sum(sizes[:part]))


X, C, U, COUNTS, Y, Z = range(6)


def pure_groups(usage: np.ndarray) -> np.ndarray:
    """Mask of the candidates holding two or more real tiles, all of one number: groups (a
    run holds one tile of each of its numbers)."""
    real = usage[:, :JOKER_INDEX].reshape(len(usage), NUM_COLOURS, MAX_NUMBER).sum(axis=1)
    return ((real > 0).sum(axis=1) == 1) & (real.sum(axis=1) >= 2)


def columns(problem: Problem, scope: Scope) -> Columns:
    """The columns of the problem's program scored on the criteria of ``scope``."""
    usage = problem.catalogue.usage
    laid = np.ones(len(usage), dtype=bool)
    counts = GroupCounts.none()
    if not problem.rules.group_colours_distinct:
        counts = GroupCounts.for_tiles(problem.table_counts + problem.rack_counts)
        laid &= ~pure_groups(usage)
    if scope is Scope.LEADING:
        laid &= usage.sum(axis=1) <= base_run_limit(problem.rules)
        conts = _continuations(problem, np.zeros(0, np.int64))
    else:
        conts = _continuations(problem, np.arange(len(usage)))
    return Columns(
        np.nonzero(laid)[0], conts, np.asarray(problem.free, np.int64), counts, np.nonzero(problem.rack_counts)[0],
    )


def _continuations(problem: Problem, candidates: np.ndarray) -> Continuations:
    """Each free old meld may continue into any group candidate sharing at least
    MIN_CONTINUATION_OVERLAP of its tiles but not all of them (that is the old meld kept),
    unless the problem's pricing shows no move reaching the target can. Meld by meld, in
    candidate order."""
    usage = problem.catalogue.usage[candidates]
    if not problem.free or not len(usage):
        empty = np.zeros(0, dtype=np.int64)
        return Continuations(empty, empty, empty, np.zeros(0, dtype=bool))
    melds = problem.free_usage
    overlap = _shared_tiles(melds, usage)  # (free melds, candidates)
    size = melds.sum(axis=1)[:, None]
    exact = (overlap == size) & (usage.sum(axis=1)[None, :] == size)
    allowed = (overlap >= MIN_CONTINUATION_OVERLAP) & ~exact
    pricing = problem.pricing
    if pricing is not None:
        # Continuing into another meld touches this one and lays that one: both cost.
        allowed &= pricing.meld_cost[:, None] + pricing.candidate_cost[candidates][None, :] <= pricing.slack
    at, ks = np.nonzero(allowed)
    firsts = np.array([_first_real(problem.old_melds[m]).index for m in problem.free])
    return Continuations(
        np.asarray(problem.free, dtype=np.int64)[at], candidates[ks], overlap[at, ks], usage[ks, firsts[at]] > 0,
    )


def _first_real(meld: Meld) -> Tile:
    return next(t for t in meld.tiles if not t.is_joker)


def _shared_tiles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sum(min(a[i], b[k]))`` over tile kinds for every pair of usage rows, as one matrix
    product per copy level (counts are small: a tile's copies, or the jokers)."""
    kinds = np.nonzero(a.any(axis=0))[0]
    a, b = a[:, kinds], b[:, kinds]
    levels = int(min(a.max(initial=0), b.max(initial=0)))
    shared = np.zeros((len(a), len(b)), dtype=np.float32)
    for level in range(1, levels + 1):
        shared += (a >= level).astype(np.float32) @ (b >= level).T.astype(np.float32)
    return shared.astype(np.int64)


def copies_bound(usage: np.ndarray, available: np.ndarray) -> np.ndarray:
    """How many copies of each candidate the available tiles allow."""
    return np.where(usage > 0, available[None, :] // np.maximum(usage, 1), 99).min(axis=1)


def program(problem: Problem, columns: Columns, objective: Objective, weights: Weights) -> IntegerProgram:
    """Max tiles (or value) placed, ties broken by least disruption of the free old melds,
    scored with ``weights`` (see the module docstring for the columns)."""
    cat = problem.catalogue
    rack = problem.rack_counts
    available = problem.table_counts + rack
    conts, counts = columns.continuations, columns.counts
    first = [columns.first(part) for part in range(Z + 1)]
    w = weights
    melds = float(w.melds)
    weight = w.primary if objective is Objective.VALUE else w.value
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in columns.rack_kinds], dtype=np.float64)
    per_tile = w.primary if objective is Objective.TILES else 0
    objective_parts = [
        np.full(len(columns.laid), -melds),
        w.stay * conts.overlaps + w.first * conts.keeps_first - melds,
        w.kept + w.stay * problem.free_usage.sum(axis=1) + w.first - melds,  # kept: all its tiles stay
        np.where(counts.kind == GROUPS, -melds, 0.0),
        per_tile + weight * numbers,
    ]
    upper_parts = [
        copies_bound(cat.usage[columns.laid], available),
        np.ones(len(conts.owners)),
        np.ones(len(columns.free)),
        counts.upper,
        rack[columns.rack_kinds],
    ]
    # Every table tile lies in a new meld; rack tiles in new melds are the ones played.
    usage = np.concatenate([cat.usage[columns.laid], cat.usage[conts.targets], problem.free_usage])
    cols, tile = np.nonzero(usage)  # x, c and u come first, in this order
    laying = [
        (cols, tile, usage[cols, tile].astype(np.float64)),
        (first[COUNTS] + counts.tiles, counts.kind[counts.tiles], np.ones(len(counts.tiles))),
        (first[Y] + np.arange(len(columns.rack_kinds)), columns.rack_kinds, -np.ones(len(columns.rack_kinds))),
    ]
    kinds = np.nonzero(available)[0]
    equal = Rows(
        np.searchsorted(kinds, np.concatenate([t for _, t, _ in laying])),
        np.concatenate([c for c, _, _ in laying]),
        np.concatenate([v for _, _, v in laying]),
        problem.table_counts[kinds].astype(np.float64),
    )
    # Each free old meld continues into at most one new meld (or is left untouched).
    owners = np.r_[_free_rows(columns, conts.owners), np.arange(len(columns.free))].astype(np.int64)
    at_most = Rows(
        owners, np.r_[first[C] + np.arange(len(conts.owners)), first[U] + np.arange(len(columns.free))].astype(np.int64),
        np.ones(len(owners)), np.ones(len(columns.free)),
    )
    at_most = at_most.stacked(counts.rows(first[COUNTS]))
    at_most = at_most.stacked(_rack_share_rows(problem, columns, first))
    # Rack jokers count as the tiles they stand for: the jokers' worth gained on the table,
    # at most 13 per rack joker played (a table joker's new value alone is not "placed").
    # z = min(13 x rack jokers played, max(0, gain)), gain = the new melds' jokers' worth
    # minus the free old melds' (``old``). Without jokers on the free melds every joker laid
    # comes from the rack, so 0 <= gain <= 13 x rack jokers played and z <= gain is the whole
    # rule. Otherwise a binary v picks the branch of the max with the tightest big-Ms
    # (gain >= -old, z <= 13 x rack jokers): z <= gain + old (1 - v), z <= 13 rack v. Loose
    # big-Ms let the relaxation raise z with a fractional v, so SCIP had to branch on it.
    z = first[Z]
    rack_jokers = float(MAX_NUMBER * rack[JOKER_INDEX])
    old = float(sum(joker_value(problem.old_melds[i]) for i in problem.free))
    worth = np.concatenate([
        cat.joker_values[columns.laid], cat.joker_values[conts.targets],
        [joker_value(problem.old_melds[i]) for i in problem.free],  # left as laid, read as laid
        np.where(counts.kind == JOKER_INDEX, counts.number, 0),
    ]).astype(np.float64)
    joker_cols = np.nonzero(worth)[0]
    y_joker = first[Y] + np.nonzero(columns.rack_kinds == JOKER_INDEX)[0]
    gain_cols, gain_values = np.r_[z, joker_cols], np.r_[1.0, -worth[joker_cols]]
    joker_rows = [(np.r_[z, y_joker], np.r_[1.0, -float(MAX_NUMBER) * np.ones(len(y_joker))], 0.0)]  # z <= 13 y_joker
    switch = old > 0 and rack_jokers > 0
    if switch:
        v = z + 1
        joker_rows.append((np.r_[gain_cols, v], np.r_[gain_values, old], 0.0))  # z <= gain + old (1 - v)
        joker_rows.append((np.r_[z, v], np.r_[1.0, -rack_jokers], 0.0))  # z <= 13 rack v
    elif rack_jokers > 0:
        joker_rows.append((gain_cols, gain_values, 0.0))  # z <= gain
    at_most = at_most.stacked(Rows(
        np.concatenate([np.full(len(c), r) for r, (c, _, _) in enumerate(joker_rows)]),
        np.concatenate([c for c, _, _ in joker_rows]),
        np.concatenate([v for _, v, _ in joker_rows]),
        np.array([rhs for _, _, rhs in joker_rows]),
    ))
    switches = int(switch)  # the v column, when there is one
    objective_parts.append(np.r_[float(weight), np.zeros(switches)])
    upper_parts.append(np.r_[rack_jokers, np.ones(switches)])
    continuous = np.zeros(z + 1 + switches, dtype=bool)
    continuous[z] = True
    return IntegerProgram(
        np.concatenate(objective_parts).astype(np.float64), np.concatenate(upper_parts).astype(np.float64),
        equal, at_most, continuous,
    )


def _free_rows(columns: Columns, melds: np.ndarray) -> np.ndarray:
    """The rows among the free melds (``columns.free``, in any order) of the old melds
    ``melds`` (global indices, each a free one)."""
    order = np.argsort(columns.free, kind="stable")
    return order[np.searchsorted(columns.free, melds, sorter=order)].astype(np.int64)


def _rack_share_rows(problem: Problem, columns: Columns, first: list[int]) -> Rows:
    """Per rack tile kind ``t`` that the free groups count (repeated colours), the row
    ``count(t) - rack(t) G(n) + staying(t) <= table(t)``: the free groups of ``t``'s number
    ``n`` hold at most ``rack(t) G(n)`` of the rack's tiles of kind ``t``, the rest being table
    tiles moved. ``staying(t)``: the tiles of kind ``t`` the continuations and the untouched old
    melds keep in place.

    Valid for every move: by the tile rows, ``count(t) <= played(t) + table(t) - staying(t)``;
    if ``G(n) = 0`` there is no such tile, and if ``G(n) >= 1``, ``played(t) <= rack(t) <=
    rack(t) G(n)``. Without it the relaxation lays a lone rack tile in a quarter of a group
    (``3G <= T <= 4G`` holds at ``T = 1, G = 1/4``) and promises that no table tile moves; with
    it, a rack tile laid in a group takes table tiles along, as in a move. It tightens the
    bound that :func:`solver.mip.solve_descending` fixes columns by (``benchmarks/README.md``).
    """
    counts, conts = columns.counts, columns.continuations
    rack = problem.rack_counts
    wanted = [j for j in counts.tiles.tolist() if counts.kind[j] != JOKER_INDEX and rack[counts.kind[j]]]
    if not wanted:
        return Rows.empty()
    group_of = counts.groups[counts.number_rows]  # each column's number's count of groups
    kept_in_place = np.minimum(problem.free_usage[_free_rows(columns, conts.owners)], problem.catalogue.usage[conts.targets])
    rows, cols, values = [], [], []
    for row, j in enumerate(wanted):
        t = int(counts.kind[j])
        at_c, at_u = np.nonzero(kept_in_place[:, t])[0], np.nonzero(problem.free_usage[:, t])[0]
        here = np.r_[first[COUNTS] + j, first[COUNTS] + group_of[j], first[C] + at_c, first[U] + at_u]
        cols.append(here)
        values.append(np.r_[1.0, -float(rack[t]), kept_in_place[at_c, t], problem.free_usage[at_u, t]])
        rows.append(np.full(len(here), row))
    rhs = np.array([float(problem.table_counts[int(counts.kind[j])]) for j in wanted])
    return Rows(np.concatenate(rows), np.concatenate(cols).astype(np.int64), np.concatenate(values).astype(np.float64), rhs)


def reaching(columns: Columns, objective: Objective, weight: int, floor: int) -> Rows:
    """``weight * primary + melds kept >= floor`` as an at-most row (kept among the free)."""
    first_y, n_y = columns.first(Y), len(columns.rack_kinds)
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in columns.rack_kinds], dtype=np.float64)
    per_y = numbers if objective is Objective.VALUE else np.ones(n_y)
    kept = columns.first(U) + np.arange(len(columns.free))
    z = [columns.first(Z)] if objective is Objective.VALUE else []
    cols = np.r_[first_y + np.arange(n_y), kept, z].astype(np.int64)
    values = np.r_[weight * per_y, np.ones(len(kept)), [float(weight)] * len(z)]
    return Rows(np.zeros(len(cols), np.int64), cols, -values, np.array([-float(floor)]))


def read(problem: Problem, columns: Columns, objective: Objective, values: np.ndarray, optimal: bool) -> Outcome:
    """The answer a solution of :func:`program` stands for."""
    cat = problem.catalogue
    whole = np.round(values).astype(np.int64)
    part = [whole[columns.first(p):columns.first(p + 1)] for p in range(Z)]
    played = {int(i): int(n) for i, n in zip(columns.rack_kinds, part[Y]) if n}
    if not played:
        return Outcome((), (), 0, optimal, kept=len(problem.free), staying=int(problem.table_counts.sum()))
    fresh = [cat.melds[int(row)] for row, n in zip(columns.laid, part[X]) for _ in range(int(n))]
    fresh += columns.counts.melds(part[COUNTS])
    conts = columns.continuations
    continued = [(int(conts.owners[j]), cat.melds[int(conts.targets[j])]) for j in np.nonzero(part[C])[0]]
    kept = [int(columns.free[j]) for j in np.nonzero(part[U])[0]]
    continued += [(m, problem.old_melds[m]) for m in kept]
    if objective is Objective.TILES:
        primary = sum(played.values())
    else:
        gain = sum(joker_value(m) for m in fresh) + sum(joker_value(m) for _, m in continued)
        gain -= sum(joker_value(problem.old_melds[i]) for i in problem.free)
        primary = value_placed(played, gain)
    staying = sum(
        sum((Counter(problem.old_melds[m].tiles) & Counter(meld.tiles)).values()) for m, meld in continued
    )
    return Outcome(tuple(fresh), tuple(continued), primary, optimal, len(kept), staying)


def carried(
    source: Problem, columns: Columns, values: np.ndarray, problem: Problem, to: Columns, length: int
) -> np.ndarray | None:
    """A solution ``values`` of ``source``'s program (``columns``) as a start for ``problem``'s
    program of ``length`` columns (``to``); None if that program cannot lay the same melds.

    The same move, each column found by what it stands for: a candidate by its tiles and
    worth (the two problems' catalogues may be cut differently), an old meld by its index, a
    group count by its kind and number, a rack tile by its kind. No old meld continues into
    another (``source`` is scored on the leading criteria, where only "untouched" counts),
    and an old meld free in ``problem`` but fixed in ``source`` stays untouched. NaN marks
    what the move does not say (the jokers' switch ``v`` when only ``problem`` has one). The
    solver checks a start before it uses it: one that does not fit costs time, not answers.
    """
    def keys(catalogue, rows: np.ndarray) -> list[bytes]:
        table = np.column_stack([catalogue.usage[rows], catalogue.values[rows], catalogue.joker_values[rows]])
        return [row.tobytes() for row in table.astype(np.int32)]

    start = np.full(length, np.nan)
    start[to.first(X):to.first(U)] = 0.0  # x and c
    where = {key: i for i, key in enumerate(keys(problem.catalogue, to.laid))}
    laid = values[columns.first(X):columns.first(C)]
    for key, copies in zip(keys(source.catalogue, columns.laid[laid > 0.5]), laid[laid > 0.5]):
        if key not in where:
            return None
        start[to.first(X) + where[key]] = copies
    untouched = set(columns.free[values[columns.first(U):columns.first(COUNTS)] > 0.5].tolist())
    untouched |= set(to.free.tolist()) - set(columns.free.tolist())
    start[to.first(U):to.first(COUNTS)] = [float(m in untouched) for m in to.free.tolist()]
    for part, key_of in (
        (COUNTS, lambda c: list(zip(c.counts.kind.tolist(), c.counts.number.tolist()))),
        (Y, lambda c: c.rack_kinds.tolist()),
    ):
        given = dict(zip(key_of(columns), values[columns.first(part):columns.first(part + 1)].tolist()))
        wanted = key_of(to)
        present = set(wanted)
        if any(n > 0.5 and key not in present for key, n in given.items()):
            return None
        start[to.first(part):to.first(part + 1)] = [given.get(key, 0.0) for key in wanted]
    start[to.first(Z)] = values[columns.first(Z)]
    if len(values) > columns.first(Z) + 1 and length > to.first(Z) + 1:
        start[to.first(Z) + 1] = values[columns.first(Z) + 1]  # v, the jokers' switch
    return start
