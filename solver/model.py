"""The exact move solver: an OR-Tools MIP model of den Hertog & Hulshof's ILP.

Variables: how many copies of each candidate meld lie on the new table, how many of each
rack tile are played, and which old meld each new meld "continues" (the old meld's tiles
that stay in it are not moved). Constraints: every table tile stays on the table, only rack
tiles are added. One weighted objective orders the criteria lexicographically:
(1) tiles placed (or value placed), (2) old melds left untouched, (3) table tiles not moved,
(4) value placed (tile objective), (5) fewer melds. Before the initial meld the table is
fixed and only rack melds worth the threshold count.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from ortools.linear_solver import pywraplp

from .candidates import MAX_BASE_RUN, Catalogue, base_catalogue, build_catalogue, joker_value, usage_of
from .melds import Meld, MeldKind, run_meld
from .rules import RuleSet
from .state import Objective, Position
from .steps import build_steps
from .suggestion import RACK, Action, NewMeld, Suggestion
from .table import InvalidTableError, check_table, interpret_as_laid
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_KINDS, Tile

#: Extensions of an old run the solver considers beyond the base catalogue (tiles added).
MAX_EXTENSION = 3
#: Distance (in numbers) from a rack tile within which old melds are opened up first.
NEIGHBOURHOOD_RADIUS = 2
#: An old meld can only "continue" into a new meld that keeps at least this many of its tiles.
MIN_CONTINUATION_OVERLAP = 2
TIME_LIMIT_S = 10.0
#: OR-Tools MIP backend; measured fastest here among CBC, SCIP, HiGHS and CP-SAT (benchmarks/).
DEFAULT_BACKEND = "CBC"


class SolverError(RuntimeError):
    """The optimiser failed to produce an answer (should not happen on valid input)."""


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


def _counts(tiles: tuple[Tile, ...]) -> np.ndarray:
    row = np.zeros(NUM_KINDS, dtype=np.int16)
    for t in tiles:
        row[t.index] += 1
    return row


def _run_extensions(meld: Meld, rules: RuleSet) -> list[Meld]:
    """Runs an old run can turn into while all its real tiles stay in place.

    The new run covers the old run's real tiles, may reach up to MAX_EXTENSION numbers past
    either end and may drop jokers at the ends; each old joker kept inside stays a joker, or
    every one of them is replaced by its real tile; at most one joker is added.
    """
    if meld.kind is not MeldKind.RUN:
        return []
    first = meld.represented[0]
    colour, start, length = first.colour, int(first.number or 0), len(meld)
    assert colour is not None
    end = start + length - 1
    real = [start + i for i, j in enumerate(meld.joker_mask) if not j]
    old_jokers = {start + i for i, j in enumerate(meld.joker_mask) if j}
    out = []
    for lo in range(max(1, start - MAX_EXTENSION), min(real) + 1):
        for hi in range(max(real), min(MAX_NUMBER, end + MAX_EXTENSION) + 1):
            size = hi - lo + 1
            added = [n for n in range(lo, hi + 1) if not start <= n <= end]
            if size < rules.min_meld_size or len(added) > MAX_EXTENSION:
                continue
            kept = sorted(n for n in old_jokers if lo <= n <= hi)
            variants = [kept, []] if kept else [[]]
            if rules.jokers > len(kept):
                variants += [kept + [n] for n in added]
            if kept:  # a real tile takes the joker's place and the joker moves to an end
                variants += [[n] for n in added]
            for jokers in variants:
                out.append(run_meld(colour, lo, size, [n - lo for n in jokers]))
    return out


def _run_pieces(meld: Meld, rules: RuleSet) -> list[Meld]:
    """Pieces of a long old run (longer than the base catalogue's runs), each possibly grown
    by one tile at either end: splitting ``b3..b13`` around an inserted ``b8`` needs
    ``b3..b8`` and ``b8..b13``, which no run of 3-5 tiles can express.
    """
    if meld.kind is not MeldKind.RUN or len(meld) <= MAX_BASE_RUN + 1:
        return []
    first = meld.represented[0]
    colour, start = first.colour, int(first.number or 0)
    assert colour is not None
    jokers = {start + i for i, j in enumerate(meld.joker_mask) if j}
    out = []
    for lo in range(start, start + len(meld)):
        for hi in range(lo + MAX_BASE_RUN - 1, start + len(meld)):
            if (lo, hi) == (start, start + len(meld) - 1):
                continue
            for grow_lo, grow_hi in ((lo, hi), (lo - 1, hi), (lo, hi + 1)):
                if grow_hi - grow_lo + 1 <= MAX_BASE_RUN:
                    continue  # already in the base catalogue
                if grow_lo < 1 or grow_hi > MAX_NUMBER:
                    continue
                positions = [n - grow_lo for n in jokers if lo <= n <= hi]
                out.append(run_meld(colour, grow_lo, grow_hi - grow_lo + 1, positions))
    return out


def value_placed(played: dict[int, int], joker_gain: int) -> int:
    """Worth of the rack tiles played: numbers, and each rack joker as the tile it stands for.

    ``played`` maps tile index to count; ``joker_gain`` is how many points the jokers on the
    table stand for after the move minus before it. Only up to 13 points per rack joker played
    count, never less than nothing, so re-reading a table joker (r4 -> k9, or k10 -> k3) is
    neither credited to nor charged against the player.
    """
    real = sum(Tile.from_index(i).number * n for i, n in played.items() if i != JOKER_INDEX)
    return real + min(MAX_NUMBER * played.get(JOKER_INDEX, 0), max(joker_gain, 0))


def _feasible(melds: Catalogue, available: np.ndarray) -> list[Meld]:
    ok = np.all(melds.usage <= available[None, :], axis=1)
    return [m for m, keep in zip(melds.melds, ok) if keep]


def _prepare(position: Position, old_melds: tuple[Meld, ...], free: tuple[int, ...]) -> _Problem:
    rules = position.rules
    rack = _counts(position.rack)
    table = _counts(tuple(t for i in free for t in old_melds[i].tiles))
    available = table + rack
    extra = build_catalogue(
        [old_melds[i] for i in free]
        + [e for i in free for e in _run_extensions(old_melds[i], rules)]
        + [p for i in free for p in _run_pieces(old_melds[i], rules)]
    )
    catalogue = build_catalogue(
        _feasible(base_catalogue(rules), available) + _feasible(extra, available),
        preferred=tuple(old_melds[i] for i in free),
    )
    usage = np.stack([usage_of(old_melds[i]) for i in free]) if free else np.zeros((0, NUM_KINDS), np.int16)
    return _Problem(catalogue, old_melds, free, usage, table, rack)


def _prepare_initial(position: Position, old_melds: tuple[Meld, ...]) -> _Problem:
    rules = position.rules
    rack = _counts(position.rack)
    melds = _feasible(base_catalogue(rules), rack)
    if not rules.jokers_in_initial_meld:
        melds = [m for m in melds if not any(m.joker_mask)]
    empty = np.zeros((0, NUM_KINDS), np.int16)
    return _Problem(build_catalogue(melds), old_melds, (), empty, np.zeros_like(rack), rack)


def _near_rack(old_melds: tuple[Meld, ...], rack: tuple[Tile, ...], radius: int) -> tuple[int, ...]:
    """Old melds holding a joker, or a tile within ``radius`` of a rack tile's run or number.

    Most good moves only touch these; the solver widens to the whole table whenever this
    neighbourhood cannot reach the global optimum, so exactness never depends on it.
    """
    numbers = {t.number for t in rack if not t.is_joker}
    near_run = {(t.colour, n) for t in rack if not t.is_joker for n in range(t.number - radius, t.number + radius + 1)}
    return tuple(
        i for i, m in enumerate(old_melds)
        if any(m.joker_mask) or any(t.number in numbers or (t.colour, t.number) in near_run for t in m.represented)
    )


def solve(
    position: Position,
    objective: Objective = Objective.TILES,
    time_limit_s: float = TIME_LIMIT_S,
    backend: str = DEFAULT_BACKEND,
) -> Suggestion:
    """The best legal move for ``position``, ties broken by least disruption of the table.

    Exact in the objective (tiles or value placed). The least-disruption tie-break is searched
    first among the old melds near the rack's tiles (:func:`_near_rack`); when that cannot
    reach the optimum of the whole table (checked by a primary-only solve), the whole table
    is opened up. So the tie-break is exact within the neighbourhood the answer comes from.
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
        outcome = _solve_initial(problem, position, objective, time_limit_s, backend)
    else:
        everything = tuple(range(len(old_melds)))
        near = _near_rack(old_melds, position.rack, NEIGHBOURHOOD_RADIUS)
        problem = _prepare(position, old_melds, near)
        outcome = _solve_rearrange(problem, objective, time_limit_s, backend, disruption=True)
        if near != everything:
            full = _prepare(position, old_melds, everything)
            reached_all = objective is Objective.TILES and outcome.primary == len(position.rack)
            if not reached_all:
                bound = _solve_rearrange(full, objective, time_limit_s, backend, disruption=False)
                if bound.primary > outcome.primary or not bound.optimal:
                    problem = full
                    outcome = _solve_rearrange(full, objective, time_limit_s, backend, disruption=True)
    if not outcome.counts or outcome.primary <= 0 and objective is Objective.TILES:
        return _draw(position, objective, old_melds, outcome.optimal)
    return _assemble(position, objective, problem, outcome)


def rules_min(problem: _Problem) -> int:
    """Smallest meld size among the candidates (3 under every rulebook we know)."""
    sizes = problem.catalogue.usage.sum(axis=1)
    return int(sizes.min()) if len(sizes) else 3


def _new_solver(backend: str, time_limit_s: float) -> pywraplp.Solver:
    solver = pywraplp.Solver.CreateSolver(backend)
    if solver is None:
        raise SolverError(f"MIP backend {backend!r} is not available in this OR-Tools build")
    solver.SetTimeLimit(int(time_limit_s * 1000))
    solver.SetNumThreads(1)
    return solver


def _int_vars(solver: pywraplp.Solver, uppers: np.ndarray, prefix: str) -> list[pywraplp.Variable]:
    return [solver.IntVar(0, int(ub), f"{prefix}{k}") for k, ub in enumerate(uppers)]


def _copies_bound(usage: np.ndarray, available: np.ndarray) -> np.ndarray:
    """How many copies of each candidate the available tiles allow."""
    return np.where(usage > 0, available[None, :] // np.maximum(usage, 1), 99).min(axis=1)


def _run(solver: pywraplp.Solver) -> bool:
    params = pywraplp.MPSolverParameters()
    params.SetDoubleParam(pywraplp.MPSolverParameters.RELATIVE_MIP_GAP, 0.0)
    status = solver.Solve(params)
    if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        raise SolverError(f"the MIP solver returned status {status}")
    return status == pywraplp.Solver.OPTIMAL


def _solve_rearrange(
    problem: _Problem, objective: Objective, time_limit_s: float, backend: str, disruption: bool
) -> _Outcome:
    """Max tiles (or value) placed; with ``disruption``, ties broken by least disruption."""
    cat = problem.catalogue
    solver = _new_solver(backend, time_limit_s)
    available = problem.table_counts + problem.rack_counts
    x = _int_vars(solver, _copies_bound(cat.usage, available), "x")
    y = {int(i): solver.IntVar(0, int(problem.rack_counts[i]), f"y{i}") for i in np.nonzero(problem.rack_counts)[0]}
    for i in np.nonzero(available)[0]:
        row = solver.Constraint(float(problem.table_counts[i]), float(problem.table_counts[i]))
        for k in np.nonzero(cat.usage[:, i])[0]:
            row.SetCoefficient(x[k], float(cat.usage[k, i]))
        if int(i) in y:
            row.SetCoefficient(y[int(i)], -1.0)
    objective_fn = solver.Objective()
    # Lexicographic weights, most important first: primary (tiles or value placed), old melds
    # kept, tiles staying, value (tile objective only), fewer melds. Each weight exceeds the
    # whole range of everything below it; the MIP gap is zero so the order is exact.
    n_tiles = int(available.sum())
    value_tiebreak = disruption and objective is Objective.TILES
    scale = 1
    w_melds = scale if disruption else 0
    scale *= n_tiles // rules_min(problem) + 1
    w_value = scale if value_tiebreak else 0
    scale *= (n_tiles * MAX_NUMBER + 1) * 2 if value_tiebreak else 1
    w_stay = scale if disruption else 0
    scale *= n_tiles + 1
    w_kept = scale if disruption else 0
    scale *= len(problem.free) + 1
    w_primary = scale if disruption else 1
    for var in x:
        objective_fn.SetCoefficient(var, -float(w_melds))
    weight = float(w_primary if objective is Objective.VALUE else w_value)
    for i, var in y.items():
        per_tile = w_primary if objective is Objective.TILES else 0
        number = Tile.from_index(i).number if i != JOKER_INDEX else 0
        objective_fn.SetCoefficient(var, float(per_tile) + weight * float(number or 0))
    if weight:
        # Rack jokers count as the tiles they stand for: the jokers' worth gained on the table,
        # at most 13 per rack joker played (a table joker's new value alone is not "placed").
        # z = min(13 x rack jokers played, max(0, jokers' net gain)); binary v picks the branch
        # of the max. With no rack joker played the jokers count nothing.
        big = float(MAX_NUMBER * (int(problem.table_counts[JOKER_INDEX]) + int(problem.rack_counts[JOKER_INDEX])) + 1)
        joker_worth = solver.NumVar(0.0, solver.infinity(), "z")
        gain_branch = solver.BoolVar("v")
        by_rack = solver.Constraint(-solver.infinity(), 0.0)  # z <= 13 * y_joker
        by_rack.SetCoefficient(joker_worth, 1.0)
        if JOKER_INDEX in y:
            by_rack.SetCoefficient(y[JOKER_INDEX], -float(MAX_NUMBER))
        old_jokers = sum(joker_value(problem.old_melds[i]) for i in problem.free)
        by_gain = solver.Constraint(-solver.infinity(), big - float(old_jokers))  # z <= gain + big (1 - v)
        by_gain.SetCoefficient(joker_worth, 1.0)
        by_gain.SetCoefficient(gain_branch, big)
        for k in np.nonzero(cat.joker_values)[0]:
            by_gain.SetCoefficient(x[k], -float(cat.joker_values[k]))
        by_zero = solver.Constraint(-solver.infinity(), 0.0)  # z <= big * v
        by_zero.SetCoefficient(joker_worth, 1.0)
        by_zero.SetCoefficient(gain_branch, -big)
        objective_fn.SetCoefficient(joker_worth, weight)
    # Continuations: old meld m stays (partly) in place as one copy of candidate k.
    cont: dict[tuple[int, int], pywraplp.Variable] = {}
    into: dict[int, list[pywraplp.Variable]] = {}
    jokers_in = cat.usage[:, JOKER_INDEX]
    for m, u in zip(problem.free, problem.free_usage if disruption else ()):
        overlap = np.minimum(cat.usage, u[None, :]).sum(axis=1)
        size = int(u.sum())
        one = solver.Constraint(0.0, 1.0)
        # A meld continues into a superset of itself, or into a piece sharing >= 2 of its tiles
        # that brings in no joker from elsewhere (this prunes most of the joker variants).
        superset = overlap == size
        piece = (overlap >= min(MIN_CONTINUATION_OVERLAP, size)) & (jokers_in <= u[JOKER_INDEX])
        for k in np.nonzero(superset | piece)[0]:
            var = solver.BoolVar(f"c{m}_{k}")
            cont[(m, int(k))] = var
            one.SetCoefficient(var, 1.0)
            into.setdefault(int(k), []).append(var)
            exact = overlap[k] == size and int(cat.usage[k].sum()) == size
            objective_fn.SetCoefficient(var, float(w_stay * int(overlap[k]) + (w_kept if exact else 0)))
    for k, vars_ in into.items():
        cap = solver.Constraint(-solver.infinity(), 0.0)
        for var in vars_:
            cap.SetCoefficient(var, 1.0)
        cap.SetCoefficient(x[k], -1.0)
    objective_fn.SetMaximization()
    optimal = _run(solver)
    counts = {k: round(v.solution_value()) for k, v in enumerate(x) if round(v.solution_value())}
    played = {i: round(v.solution_value()) for i, v in y.items() if round(v.solution_value())}
    if objective is Objective.TILES:
        primary = sum(played.values())
    else:
        gain = sum(int(cat.joker_values[k]) * n for k, n in counts.items())
        gain -= sum(joker_value(problem.old_melds[i]) for i in problem.free)
        primary = value_placed(played, gain)
    if not played:
        return _Outcome({}, {}, 0, optimal)
    continuations = {m: k for (m, k), v in cont.items() if round(v.solution_value())}
    return _Outcome(counts, continuations, primary, optimal)


def _solve_initial(
    problem: _Problem, position: Position, objective: Objective, time_limit_s: float, backend: str
) -> _Outcome:
    """Initial meld: new melds from the rack only, together worth at least the threshold."""
    cat = problem.catalogue
    rack = problem.rack_counts
    solver = _new_solver(backend, time_limit_s)
    x = _int_vars(solver, _copies_bound(cat.usage, rack), "x")
    for i in np.nonzero(rack)[0]:
        row = solver.Constraint(0.0, float(rack[i]))
        for k in np.nonzero(cat.usage[:, i])[0]:
            row.SetCoefficient(x[k], float(cat.usage[k, i]))
    play = solver.BoolVar("play")
    # value >= threshold * play, and nothing is laid unless play.
    threshold = solver.Constraint(0.0, solver.infinity())
    laid = solver.Constraint(-solver.infinity(), 0.0)
    big = float(len(position.rack))
    for k, var in enumerate(x):
        threshold.SetCoefficient(var, float(cat.values[k]))
        laid.SetCoefficient(var, 1.0)
    threshold.SetCoefficient(play, -float(position.rules.initial_meld_threshold))
    laid.SetCoefficient(play, -big)
    objective_fn = solver.Objective()
    weights = cat.usage.sum(axis=1) if objective is Objective.TILES else cat.values
    # Tile objective: among openings with the most tiles, the most valuable one.
    tiebreak = int(rack.sum()) * MAX_NUMBER + 1 if objective is Objective.TILES else 0
    for k, var in enumerate(x):
        objective_fn.SetCoefficient(var, float(weights[k] * max(tiebreak, 1) + (cat.values[k] if tiebreak else 0)))
    objective_fn.SetMaximization()
    optimal = _run(solver)
    counts = {k: round(v.solution_value()) for k, v in enumerate(x) if round(v.solution_value())}
    primary = sum(int(weights[k]) * n for k, n in counts.items())
    return _Outcome(counts, {}, primary, optimal)


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
