"""A brute-force optimal move finder for tiny positions (table <= 6 tiles, rack <= 5).

It enumerates every way to cover all table tiles plus some rack tiles with valid melds,
using the independent meld rules of :mod:`tests.oracle`. Exponential, so only for the
small random positions the property tests compare the solver against.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations, product
from typing import Iterator

from solver.position import Objective, Position
from solver.tiles import JOKER, Tile

from tests.exact import Score, first_real, laid_joker_worth
from tests.oracle import best_value, interpretations, is_valid_tiles

MAX_TILES = 11


@dataclass(frozen=True)
class Optimum:
    """The best achievable tiles placed and value placed (each maximised on its own)."""

    tiles: int
    value: int
    #: value placed among the moves that place ``tiles`` tiles.
    value_at_max_tiles: int
    #: tiles placed among the moves that place ``value`` points.
    tiles_at_max_value: int
    #: least disruption among the moves that place ``tiles`` tiles: (most old melds left
    #: untouched, then fewest table tiles moved).
    untouched_at_max_tiles: int = 0
    moved_at_max_tiles: int = 0

    def best(self, objective: Objective) -> tuple[int, int]:
        """(primary, secondary) score for ``objective``: what the solver must match."""
        if objective is Objective.VALUE:
            return self.value, self.tiles_at_max_value
        return self.tiles, self.value_at_max_tiles


def _key(tiles: Counter[Tile]) -> tuple[int, ...]:
    return tuple(sorted(t.index for t in tiles.elements()))


def _melds_with(pool: Counter[Tile], first: Tile, rules) -> Iterator[tuple[Tile, ...]]:
    """Valid melds drawn from ``pool`` that contain ``first`` (each multiset once)."""
    rest = sorted((pool - Counter([first])).elements(), key=lambda t: t.index)
    seen: set[tuple[int, ...]] = set()
    for size in range(rules.min_meld_size - 1, len(rest) + 1):
        for combo in combinations(rest, size):
            key = tuple(t.index for t in combo)
            if key in seen:
                continue
            seen.add(key)
            meld = (first, *combo)
            if is_valid_tiles(meld, rules):
                yield meld


def partitions(pool: Counter[Tile], required: Counter[Tile], rules) -> Iterator[list[tuple[Tile, ...]]]:
    """Every list of valid melds from ``pool`` that uses all of ``required`` (and any other tiles)."""
    if required:
        first = min(required.elements(), key=lambda t: t.index)
        for meld in _melds_with(pool, first, rules):
            used = Counter(meld)
            for rest in partitions(pool - used, required - used, rules):
                yield [meld, *rest]
        return
    yield []
    optional = sorted(pool.elements(), key=lambda t: t.index)
    if not optional:
        return
    # Either the smallest tile starts a meld, or no copy of it is played beyond this point.
    first = optional[0]
    for meld in _melds_with(pool, first, rules):
        for rest in partitions(pool - Counter(meld), Counter(), rules):
            yield [meld, *rest]
    without = Counter({t: n for t, n in pool.items() if t != first})
    for rest in partitions(without, Counter(), rules):
        if rest:
            yield rest


def rack_value(melds: list[tuple[Tile, ...]], played: Counter[Tile], rules) -> int:
    """Points of the rack tiles played; a rack joker counts as what it stands for.

    Jokers are interchangeable, so the played jokers are credited with the highest values
    that any joker in the new table can stand for (over every interpretation of its meld).
    """
    numbered = sum(int(t.number or 0) * n for t, n in played.items() if not t.is_joker)
    rack_jokers = played[JOKER]
    if not rack_jokers:
        return numbered
    options = []
    for meld in melds:
        if JOKER not in meld:
            options.append([()])
            continue
        real = Counter(t for t in meld if not t.is_joker)
        per = []
        for rep in interpretations(meld, rules):
            stands_for = Counter(rep) - real
            per.append(tuple(int(t.number or 0) for t in stands_for.elements()))
        options.append(per)
    best = 0
    for choice in product(*options):
        values = sorted((v for vs in choice for v in vs), reverse=True)
        best = max(best, sum(values[:rack_jokers]))
    return numbered + best


def brute_optimum(position: Position) -> Optimum:
    """The best tiles and value any legal move achieves (0, 0 when only drawing is legal)."""
    rules = position.rules
    table = Counter(position.table_tiles)
    rack = Counter(position.rack)
    searched = sum(rack.values()) + (sum(table.values()) if position.initial_meld_done else 0)
    if searched > MAX_TILES:
        raise ValueError("brute force is only for tiny positions")
    outcomes: set[tuple[int, int]] = {(0, 0)}
    disruption: dict[int, tuple[int, int]] = {0: (len(position.table), 0)}
    if position.initial_meld_done:
        for melds in partitions(table + rack, table, rules):
            played = Counter(t for m in melds for t in m) - table
            if played:
                placed = sum(played.values())
                outcomes.add((placed, rack_value(melds, played, rules)))
                untouched, kept = least_disruption(position.table, melds, rules)
                score = (untouched, sum(table.values()) - kept)
                best = disruption.get(placed)
                if best is None or (score[0], -score[1]) > (best[0], -best[1]):
                    disruption[placed] = score
    else:
        for melds in partitions(rack, Counter(), rules):
            if not melds:
                continue
            if not rules.jokers_in_initial_meld and any(JOKER in m for m in melds):
                continue
            worth = _opening_worth(melds, rules)
            if worth >= rules.initial_meld_threshold:
                outcomes.add((sum(len(m) for m in melds), worth))
    tiles = max(t for t, _ in outcomes)
    value = max(v for _, v in outcomes)
    return Optimum(
        tiles=tiles,
        value=value,
        value_at_max_tiles=max(v for t, v in outcomes if t == tiles),
        tiles_at_max_value=max(t for t, v in outcomes if v == value),
        untouched_at_max_tiles=disruption.get(tiles, (len(position.table), 0))[0],
        moved_at_max_tiles=disruption.get(tiles, (len(position.table), 0))[1],
    )


def least_disruption(
    old: tuple[tuple[Tile, ...], ...], new: list[tuple[Tile, ...]], rules, min_overlap: int = 2
) -> tuple[int, int]:
    """(old melds untouched, table tiles kept in place), best over every way new melds continue old ones.

    Each old meld continues into at most one new meld sharing at least ``min_overlap`` of its
    tiles (all of them for a smaller meld); the shared tiles stay in place, every other
    table tile is moved. An old meld is untouched when it continues into an identical meld.
    """
    best = (0, 0)
    choices = [None, *range(len(new))]
    for mapping in product(choices, repeat=len(old)):
        targets = [k for k in mapping if k is not None]
        if len(targets) != len(set(targets)):
            continue
        untouched = kept = 0
        feasible = True
        for meld, k in zip(old, mapping):
            if k is None:
                continue
            shared = sum((Counter(meld) & Counter(new[k])).values())
            if shared < min(min_overlap, len(meld)):
                feasible = False
                break
            kept += shared
            untouched += Counter(meld) == Counter(new[k])
        if feasible:
            best = max(best, (untouched, kept))
    return best


def _opening_worth(melds: list[tuple[Tile, ...]], rules) -> int:
    return sum(best_value(m, rules) for m in melds)


def _joker_worth(meld: tuple[Tile, ...], rules) -> int:
    """What a new meld's jokers stand for: its most valuable reading (oracle)."""
    real = sum(int(t.number or 0) for t in meld if not t.is_joker)
    return best_value(meld, rules) - real


def _placed_value(position: Position, melds, played: Counter[Tile], untouched: dict[int, int]) -> int:
    """Value placed, the solver's definition: numbered rack tiles at face value, plus the
    growth of the jokers' worth on the table, at most 13 per rack joker, never below zero.
    ``untouched`` maps new melds left as an old meld was (by index) to that old meld, which
    keeps its reading as laid."""
    rules = position.rules
    worth = [
        laid_joker_worth(position.table[untouched[k]], rules) if k in untouched else _joker_worth(m, rules)
        for k, m in enumerate(melds)
    ]
    gain = sum(worth) - sum(laid_joker_worth(m, rules) for m in position.table)
    numbered = sum(int(t.number or 0) * n for t, n in played.items() if not t.is_joker)
    return numbered + min(13 * played[JOKER], max(gain, 0))


def _matchings(old, new):
    """Every way new melds continue old ones (each way at most one, sharing at least two
    tiles), with (untouched, tiles kept in place, firsts kept, untouched new meld -> old)."""
    for mapping in product([None, *range(len(new))], repeat=len(old)):
        targets = [k for k in mapping if k is not None]
        if len(targets) != len(set(targets)):
            continue
        score = [0, 0, 0]
        untouched: dict[int, int] = {}
        for i, (meld, k) in enumerate(zip(old, mapping)):
            if k is None:
                continue
            shared = sum((Counter(meld) & Counter(new[k])).values())
            if shared < 2:
                break
            if Counter(meld) == Counter(new[k]):
                score[0] += 1
                untouched[k] = i
            score[1] += shared
            score[2] += first_real(meld) in new[k]
        else:
            yield score[0], score[1], score[2], untouched


def brute_score(position: Position, objective: Objective = Objective.TILES) -> Score:
    """The best score of every legal move in every criterion (tests.exact's), by enumeration."""
    rules = position.rules
    table = Counter(position.table_tiles)
    rack = Counter(position.rack)
    if sum(rack.values()) + (sum(table.values()) if position.initial_meld_done else 0) > MAX_TILES:
        raise ValueError("brute force is only for tiny positions")
    if not position.initial_meld_done:
        optimum = brute_optimum(position)
        if objective is Objective.VALUE:
            return Score(optimum.value)
        return Score(optimum.tiles, value=optimum.value_at_max_tiles)
    best = None
    for melds in partitions(table + rack, table, rules):
        played = Counter(t for m in melds for t in m) - table
        tiles = sum(played.values())
        for untouched, staying, firsts, which in _matchings(position.table, melds):
            value = _placed_value(position, melds, played, which)
            primary = tiles if objective is Objective.TILES else value
            key = (primary, untouched, staying, value if objective is Objective.TILES else 0, -len(melds), firsts)
            if best is None or key > best:
                best = key
    primary, untouched, staying, value, melds, firsts = best
    moved = sum(table.values()) - staying
    return Score(primary, untouched, moved, value if objective is Objective.TILES else None, -melds, firsts)
