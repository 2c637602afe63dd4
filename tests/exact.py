"""An independent exact optimum of a move in every criterion of the solver's objective.

Its own code: it imports neither :mod:`solver.candidates` nor :mod:`solver.search`. Every
valid meld the position's tiles can form is a column (runs of 3-13 tiles with every joker
placement, groups of 3-4), laid in any number of copies; each old meld may continue into
one laid copy sharing at least two of its tiles. An integer program (CBC, not the solver's
SCIP) optimises the criteria one at a time, each optimum fixed before the next, so no
weights can hide a tie-break.

The criteria, as the solver defines them (README, "How a move is chosen"), for a player who
has opened:

1. tiles placed (tile objective) or value placed (value objective);
2. old melds left untouched: continued into a meld of exactly their tiles;
3. table tiles moved, fewest: a tile stays when the new meld its old meld continues into
   holds that kind of tile (each old meld continues into at most one new meld and each
   new meld continues at most one old meld, sharing at least two tiles);
4. value placed (tile objective only);
5. melds on the new table, fewest;
6. old melds whose continuation holds their first real tile (the lowest tile by index).

Value placed is the rack's numbered tiles at face value plus what the rack jokers stand for:
the growth of the jokers' worth on the table, at most 13 per rack joker played and never
below zero. A new meld's jokers are worth their most valuable reading, except that an old
meld left untouched keeps its reading as laid. Before the initial meld:
melds from the rack only (no jokers if the rules say so), worth the threshold together;
most tiles then most value, or most value.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Sequence

import numpy as np
from ortools.linear_solver import pywraplp

from solver import solve
from solver.rules import RuleSet
from solver.position import Objective, Position
from solver.suggestion import Suggestion
from solver.tiles import ALL_KINDS, JOKER, Colour, Tile

COLOURS = tuple(Colour)
HIGHEST = 13
#: CBC's time for one criterion; the checker fails rather than guess when it runs out.
CRITERION_TIME_S = 600.0
#: The solver's time for one move in the exactness tests: its default limit is a safety net
#: for a player waiting, and on a loaded machine a proof can take longer. How fast it answers
#: is what the benchmarks measure; these tests ask whether the answer is the optimum.
PROOF_TIME_S = 300.0
MIN_SHARED = 2


@dataclass(frozen=True)
class Score:
    """A move's value in each criterion, most important first (``None``: not a criterion)."""

    primary: int
    untouched: int | None = None
    moved: int | None = None
    value: int | None = None
    melds: int | None = None
    firsts: int | None = None


#: A physical meld: sorted (tile, count) pairs.
Key = tuple[tuple[Tile, int], ...]


@dataclass(frozen=True)
class MeldOption:
    """One physical meld: its tiles and what its jokers are worth in its best reading."""

    tiles: Counter[Tile]
    joker_worth: int
    value: int


def _key(tiles: Counter[Tile]) -> Key:
    return tuple(sorted(((t, n) for t, n in tiles.items() if n), key=lambda p: (p[0].is_joker, str(p[0]))))


@lru_cache(maxsize=8)
def all_melds(rules: RuleSet) -> tuple[MeldOption, ...]:
    """Every physical meld of the rule set's tiles, each with its most valuable reading."""
    best: dict[Key, tuple[int, int]] = {}  # key -> (value, joker worth)

    def offer(tiles: Counter[Tile], value: int, joker_worth: int) -> None:
        key = _key(tiles)
        if key not in best or value > best[key][0]:
            best[key] = (value, joker_worth)

    for colour in COLOURS:
        for length in range(rules.min_meld_size, HIGHEST + 1):
            for start in range(1, HIGHEST - length + 2):
                numbers = range(start, start + length)
                value = sum(numbers)
                for jokers in range(min(rules.jokers, length - 1) + 1):
                    for joker_numbers in combinations(numbers, jokers):
                        tiles = Counter(Tile(colour, n) for n in numbers if n not in joker_numbers)
                        tiles[JOKER] += jokers
                        offer(tiles, value, sum(joker_numbers))
    colour_sets = combinations_with_replacement if not rules.group_colours_distinct else combinations
    for number in range(1, HIGHEST + 1):
        for size in range(rules.min_meld_size, len(COLOURS) + 1):
            for jokers in range(min(rules.jokers, size - 1) + 1):
                for colours in colour_sets(COLOURS, size - jokers):
                    if max(Counter(colours).values()) > rules.copies:
                        continue
                    tiles = Counter(Tile(c, number) for c in colours)
                    tiles[JOKER] += jokers
                    offer(tiles, number * size, number * jokers)
    return tuple(MeldOption(Counter(dict(key)), worth, value) for key, (value, worth) in best.items())


@lru_cache(maxsize=8)
def meld_usage(rules: RuleSet) -> np.ndarray:
    """:func:`all_melds` as tile counts, one row per meld, columns by :attr:`Tile.index`."""
    melds = all_melds(rules)
    usage = np.zeros((len(melds), len(ALL_KINDS)), np.int16)
    for k, option in enumerate(melds):
        for tile, n in option.tiles.items():
            usage[k, tile.index] = n
    return usage


def fitting(rules: RuleSet, available: Counter[Tile]) -> list[MeldOption]:
    """The melds the ``available`` tiles can form."""
    have = np.zeros(len(ALL_KINDS), np.int16)
    for tile, n in available.items():
        have[tile.index] = n
    melds = all_melds(rules)
    return [melds[k] for k in np.nonzero(np.all(meld_usage(rules) <= have, axis=1))[0]]


def laid_joker_worth(tiles: Sequence[Tile], rules: RuleSet) -> int:
    """What an old meld's jokers stand for as it lies: the run reading its order shows
    (read either way; the higher start if both), else its most valuable reading."""
    starts = []
    for order in (tuple(tiles), tuple(reversed(tiles))):
        reals = [(i, t) for i, t in enumerate(order) if not t.is_joker]
        if not reals or len({t.colour for _, t in reals}) != 1:
            continue
        start = reals[0][1].number - reals[0][0]
        if all(t.number == start + i for i, t in reals) and start >= 1 and start + len(order) - 1 <= HIGHEST:
            starts.append((start, [start + i for i, t in enumerate(order) if t.is_joker]))
    if starts:
        return sum(max(starts)[1])
    real = Counter(t for t in tiles if not t.is_joker)
    key = _key(Counter(tiles))
    option = next(m for m in all_melds(rules) if _key(m.tiles) == key)
    return option.value - sum(t.number * n for t, n in real.items())


def first_real(tiles: Sequence[Tile]) -> Tile:
    """The old meld's first real tile (the solver's order: lowest number of a run, first
    colour of a group; both are the lowest tile index)."""
    return min((t for t in tiles if not t.is_joker), key=lambda t: (COLOURS.index(t.colour), t.number))


def shared(a: Counter[Tile], b: Counter[Tile]) -> int:
    return sum((a & b).values())


def solve_proven(position: Position, objective: Objective = Objective.TILES) -> Suggestion:
    """The solver's answer given :data:`PROOF_TIME_S`, which it must prove optimal."""
    suggestion = solve(position, objective, time_limit_s=PROOF_TIME_S)
    assert suggestion.optimal, "the solver did not prove its answer optimal in time"
    return suggestion


def score_of(suggestion: Suggestion) -> Score:
    """The solver's answer in the checker's criteria."""
    position = suggestion.position
    tiles = suggestion.tiles_placed
    if not position.initial_meld_done:
        if suggestion.objective is Objective.VALUE:
            return Score(suggestion.value_placed)
        return Score(tiles, value=suggestion.value_placed)
    firsts = sum(
        1 for new in suggestion.new_table
        if new.continues is not None and first_real(position.table[new.continues]) in new.meld.tiles
    )
    rest = dict(untouched=suggestion.melds_untouched, moved=suggestion.tiles_moved,
                melds=len(suggestion.new_table), firsts=firsts)
    if suggestion.objective is Objective.VALUE:
        return Score(suggestion.value_placed, **rest)
    return Score(tiles, value=suggestion.value_placed, **rest)


class _Lexicographic:
    """An integer program (CBC, zero gap) optimised one criterion after another, each
    optimum fixed as a row before the next criterion. CBC, not the solver's SCIP: another
    code base, and on these models of every long run it proved the optimum far sooner."""

    def __init__(self) -> None:
        self.model = pywraplp.Solver.CreateSolver("CBC")
        self.model.SetTimeLimit(int(CRITERION_TIME_S * 1000))
        self.parameters = pywraplp.MPSolverParameters()
        self.parameters.SetDoubleParam(pywraplp.MPSolverParameters.RELATIVE_MIP_GAP, 0.0)

    def best(self, expression, maximise: bool = True) -> int:
        objective = self.model.Objective()
        objective.Clear()
        if isinstance(expression, (int, float)):
            return int(expression)
        if maximise:
            self.model.Maximize(expression)
        else:
            self.model.Minimize(expression)
        status = self.model.Solve(self.parameters)
        if status != pywraplp.Solver.OPTIMAL:
            raise RuntimeError(f"the exact checker did not prove an optimum (status {status})")
        optimum = int(round(self.model.Objective().Value()))
        self.model.Add(expression == optimum)
        return optimum


def exact_optimum(position: Position, objective: Objective = Objective.TILES) -> Score:
    """The best score any legal move reaches, criterion by criterion."""
    if not position.initial_meld_done:
        return _opening_optimum(position, objective)
    rules = position.rules
    table = Counter(position.table_tiles)
    rack = Counter(position.rack)
    available = table + rack
    melds = fitting(rules, available)
    lex = _Lexicographic()
    m = lex.model
    laid = [m.IntVar(0, min(available[t] // n for t, n in o.tiles.items()), f"x{k}") for k, o in enumerate(melds)]
    played = {t: m.IntVar(0, n, f"y{t}") for t, n in rack.items()}
    for tile in available:
        m.Add(sum(o.tiles[tile] * laid[k] for k, o in enumerate(melds) if o.tiles[tile])
              == table[tile] + (played[tile] if tile in played else 0))
    # Continuations: each old meld into at most one laid copy, each copy from at most one.
    old = [Counter(meld) for meld in position.table]
    cont = {
        (i, k): m.BoolVar(f"c{i}_{k}")
        for i, tiles in enumerate(old) for k, o in enumerate(melds) if shared(tiles, o.tiles) >= MIN_SHARED
    }
    by_old: dict[int, list] = {}
    by_meld: dict[int, list] = {}
    for (i, k), v in cont.items():
        by_old.setdefault(i, []).append(v)
        by_meld.setdefault(k, []).append(v)
    for vs in by_old.values():
        m.Add(sum(vs) <= 1)
    for k, vs in by_meld.items():
        m.Add(sum(vs) <= laid[k])
    untouched = sum(v for (i, k), v in cont.items() if melds[k].tiles == old[i])
    staying = sum(shared(old[i], melds[k].tiles) * v for (i, k), v in cont.items())
    firsts = sum(v for (i, k), v in cont.items() if melds[k].tiles[first_real(position.table[i])])
    untouched_pairs = {pair: v for pair, v in cont.items() if melds[pair[1]].tiles == old[pair[0]]}
    value = _value_placed(m, position, melds, laid, played, untouched_pairs)
    tiles = sum(played.values())
    primary = lex.best(tiles if objective is Objective.TILES else value)
    kept = lex.best(untouched)
    stays = lex.best(staying)
    worth = lex.best(value) if objective is Objective.TILES else None
    fewest = lex.best(sum(laid), maximise=False)
    first = lex.best(firsts)
    return Score(primary, kept, sum(table.values()) - stays, worth, fewest, first)


def _value_placed(m, position: Position, melds: list[MeldOption], laid, played, untouched: dict):
    """Value placed as an expression: numbered rack tiles plus ``credit``, with
    ``credit <= 13 x rack jokers played`` and ``credit <= max(gain, 0)`` (a switch picks the
    branch of the max), which the value criterion pushes to the minimum of the two. A laid
    copy's jokers are worth its best reading, except for a copy left untouched by an old
    meld (``untouched``: (old meld, meld) -> its column), which keeps its reading as laid."""
    rules = position.rules
    laid_worth = [laid_joker_worth(meld, rules) for meld in position.table]
    old_worth = sum(laid_worth)
    numbered = sum(t.number * v for t, v in played.items() if not t.is_joker)
    if JOKER not in played:
        return numbered
    cap = HIGHEST * position.rack.count(JOKER)
    credit = m.IntVar(0, cap, "joker_credit")
    positive = m.BoolVar("gain_positive")
    m.Add(credit <= HIGHEST * played[JOKER])
    m.Add(credit <= cap * positive)
    gain = sum(o.joker_worth * x for o, x in zip(melds, laid) if o.joker_worth) - old_worth
    gain += sum((laid_worth[i] - melds[k].joker_worth) * v for (i, k), v in untouched.items())
    m.Add(credit <= gain + (old_worth + cap) * (1 - positive))
    return numbered + credit


def _opening_optimum(position: Position, objective: Objective) -> Score:
    rules = position.rules
    rack = Counter(position.rack)
    melds = [o for o in fitting(rules, rack) if rules.jokers_in_initial_meld or not o.tiles[JOKER]]
    lex = _Lexicographic()
    m = lex.model
    opens = m.BoolVar("opens")
    bounds = [min(rack[t] // n for t, n in o.tiles.items()) for o in melds]
    laid = [m.IntVar(0, b, f"x{k}") for k, b in enumerate(bounds)]
    for tile in rack:
        m.Add(sum(o.tiles[tile] * laid[k] for k, o in enumerate(melds) if o.tiles[tile]) <= rack[tile])
    for x, b in zip(laid, bounds):
        m.Add(x <= b * opens)
    value = sum(o.value * x for o, x in zip(melds, laid))
    m.Add(value >= rules.initial_meld_threshold * opens)
    tiles = sum(sum(o.tiles.values()) * x for o, x in zip(melds, laid))
    if objective is Objective.VALUE:
        return Score(lex.best(value))
    return Score(lex.best(tiles), value=lex.best(value))
