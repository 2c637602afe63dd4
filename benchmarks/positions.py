"""Seeded random Rummikub positions: a valid table and a rack dealt from one tile set.

Shared by the solver benchmark and the property tests, so both exercise the same kind of
positions. Everything is driven by a :class:`random.Random` passed in, so a seed names a
position exactly. The table is built from random valid melds (runs of any length, groups,
jokers anywhere a rule allows them); the rack is drawn from the tiles left over.

This module deliberately does not use :mod:`solver.melds`: the melds it builds are valid by
construction, so tests can check the solver's meld logic against them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Sequence

from solver.rules import STANDARD, RuleSet
from solver.position import Position
from solver.tiles import JOKER, MAX_NUMBER, Colour, Tile

#: Probability that a table meld gets a joker (when one is left in the pool).
JOKER_MELD_PROBABILITY = 0.15
#: Share of groups among the table's melds (the rest are runs).
GROUP_PROBABILITY = 0.35
#: Full restarts of the table builder before giving up.
MAX_RESTARTS = 200


class GenerationError(RuntimeError):
    """No table of the requested size could be built from the pool (e.g. more tiles than exist)."""


@dataclass(frozen=True)
class Pattern:
    """A meld shape before jokers: the tiles it stands for, in table order."""

    tiles: tuple[Tile, ...]


def full_pool(rules: RuleSet = STANDARD) -> Counter[Tile]:
    """Every tile of one game: ``copies`` of each numbered tile and ``jokers`` jokers."""
    pool: Counter[Tile] = Counter()
    for colour in Colour:
        for number in range(1, MAX_NUMBER + 1):
            pool[Tile(colour, number)] = rules.copies
    if rules.jokers:
        pool[JOKER] = rules.jokers
    return pool


def restricted_pool(
    rng: random.Random,
    rules: RuleSet = STANDARD,
    colours: int = 2,
    window: int = 5,
    lowest: int = 1,
) -> Counter[Tile]:
    """A small pool (a few colours, a window of numbers from ``lowest`` up, the jokers).

    Tiny deals from the full set almost never meld; from this pool they often do.
    """
    chosen = rng.sample(list(Colour), colours)
    low = rng.randint(lowest, MAX_NUMBER - window + 1)
    pool: Counter[Tile] = Counter()
    for colour in chosen:
        for number in range(low, low + window):
            pool[Tile(colour, number)] = rules.copies
    if rules.jokers:
        pool[JOKER] = rules.jokers
    return pool


@lru_cache(maxsize=None)
def _patterns(size: int, rules: RuleSet) -> tuple[Pattern, ...]:
    """Every run and group shape of exactly ``size`` tiles (represented tiles, no jokers)."""
    shapes = []
    for colour in Colour:
        for start in range(1, MAX_NUMBER - size + 2):
            shapes.append(Pattern(tuple(Tile(colour, start + i) for i in range(size))))
    if size <= len(Colour):
        for number in range(1, MAX_NUMBER + 1):
            for cols in combinations(list(Colour), size):
                shapes.append(Pattern(tuple(Tile(c, number) for c in cols)))
    return tuple(shapes)


def _is_group(pattern: Pattern) -> bool:
    return len({t.number for t in pattern.tiles}) == 1


def _place(
    pattern: Pattern, pool: Counter[Tile], rng: random.Random, want_jokers: int
) -> tuple[Tile, ...] | None:
    """The physical tiles for ``pattern`` with ``want_jokers`` jokers, or None if the pool lacks them.

    Missing tiles must be covered by jokers; any other position may hold a joker too, but a
    meld always keeps at least one real tile.
    """
    missing = [i for i, t in enumerate(pattern.tiles) if pool[t] < 1]
    jokers = max(want_jokers, len(missing))
    if jokers > pool[JOKER] or jokers >= len(pattern.tiles):
        return None
    others = [i for i in range(len(pattern.tiles)) if i not in missing]
    joker_at = set(missing) | set(rng.sample(others, jokers - len(missing)))
    return tuple(JOKER if i in joker_at else t for i, t in enumerate(pattern.tiles))


def _meld_sizes(remaining: int, rules: RuleSet) -> list[int]:
    """Sizes that leave either nothing or enough for another meld; short melds most often."""
    sizes = [
        s
        for s in range(rules.min_meld_size, min(remaining, MAX_NUMBER) + 1)
        if remaining - s == 0 or remaining - s >= rules.min_meld_size
    ]
    return sizes


def _random_meld(
    remaining: int, pool: Counter[Tile], rng: random.Random, rules: RuleSet, table_jokers: bool
) -> tuple[Tile, ...] | None:
    sizes = _meld_sizes(remaining, rules)
    if not sizes:
        return None
    # Short melds dominate real tables; long runs appear now and then.
    weights = [4.0 if s <= 4 else 2.0 if s <= 6 else 0.5 for s in sizes]
    order = rng.choices(sizes, weights=weights, k=len(sizes) * 2) + sizes
    for size in order:
        want_group = rng.random() < GROUP_PROBABILITY
        shapes = [p for p in _patterns(size, rules) if _is_group(p) == want_group] or list(_patterns(size, rules))
        rng.shuffle(shapes)
        want_jokers = 1 if table_jokers and pool[JOKER] and rng.random() < JOKER_MELD_PROBABILITY else 0
        for shape in shapes:
            placed = _place(shape, pool, rng, want_jokers if table_jokers else 0)
            if placed is not None and (table_jokers or JOKER not in placed):
                return placed
    return None


def random_table(
    size: int,
    pool: Counter[Tile],
    rng: random.Random,
    rules: RuleSet = STANDARD,
    table_jokers: bool = True,
) -> tuple[tuple[tuple[Tile, ...], ...], Counter[Tile]]:
    """A valid table of exactly ``size`` tiles taken from ``pool``; returns it and what is left.

    Builds melds greedily at random and restarts from scratch on a dead end.
    """
    if size and size < rules.min_meld_size:
        raise GenerationError(f"a table of {size} tiles cannot hold a meld")
    for _ in range(MAX_RESTARTS):
        left = Counter(pool)
        table: list[tuple[Tile, ...]] = []
        placed = 0
        while placed < size:
            meld = _random_meld(size - placed, left, rng, rules, table_jokers)
            if meld is None:
                break
            left.subtract(meld)
            table.append(meld)
            placed += len(meld)
        if placed == size:
            return tuple(table), +left
    raise GenerationError(f"could not build a valid table of {size} tiles from {sum(pool.values())}")


def deal_position(
    rng: random.Random,
    table_size: int,
    rack_size: int,
    rules: RuleSet = STANDARD,
    initial_meld_done: bool = True,
    table_jokers: bool = True,
    pool: Counter[Tile] | None = None,
) -> Position:
    """A position: a random valid table of ``table_size`` tiles, a rack of ``rack_size`` from the rest."""
    source = full_pool(rules) if pool is None else pool
    if table_size + rack_size > sum(source.values()):
        raise GenerationError(
            f"table {table_size} + rack {rack_size} exceeds the {sum(source.values())} tiles available"
        )
    table, left = random_table(table_size, source, rng, rules, table_jokers)
    rack = draw(left, rack_size, rng)
    return Position(table=table, rack=rack, initial_meld_done=initial_meld_done, rules=rules)


def draw(pool: Counter[Tile], count: int, rng: random.Random) -> tuple[Tile, ...]:
    """``count`` tiles drawn at random (without replacement) from ``pool``, sorted for reading."""
    bag = sorted(pool.elements(), key=lambda t: t.index)
    return tuple(sorted(rng.sample(bag, count), key=lambda t: t.index))


def shuffled_bag(pool: Counter[Tile], rng: random.Random) -> list[Tile]:
    """The pool as a shuffled list, for games that draw one tile at a time."""
    bag = sorted(pool.elements(), key=lambda t: t.index)
    rng.shuffle(bag)
    return bag


def tile_multiset(melds: Sequence[Sequence[Tile]]) -> Counter[Tile]:
    return Counter(t for meld in melds for t in meld)
