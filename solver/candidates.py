"""The catalogue of melds the solver may build, as a tile-usage matrix.

**Complete.** The catalogue of a position is every valid meld its available tiles can form,
one row per set of physical tiles: every group of 3-4 tiles and every run of 3-13 tiles
with every placement of jokers the rules allow (:func:`catalogue_for`). A row reads its
jokers the way they are worth most points (an old meld left untouched keeps its reading as
laid; the program gives it a column of its own). The criteria of a move see only which
physical tiles each new meld holds (tiles placed, melds untouched, tiles moved, melds)
and, for the value, what the jokers stand for, which is this reading. So the integer
program over these rows (:mod:`solver.move_program`) ranges over every legal move of the
melds it opens, and its optimum is the exact optimum in every criterion. Nothing is cut
from the catalogue here; what the solver leaves out of a program is left out by proofs
from a relaxation's reduced costs (:func:`solver.search._priced`).

**The base catalogue** (:func:`base_catalogue`): groups, and runs of up to
``2 x min_meld_size - 1`` tiles (3-5 under the standard rules). It is what the relaxations
use, following den Hertog & Hulshof (2006): the physical tiles of every longer run split
into base runs each holding a real tile (e.g. ``j j j r4 r5 r6`` into ``j r4 r5`` and
``j j r6``; checked for every run under up to four jokers and melds of 3 or 4 in
tests/test_candidates.py), so every legal move is a combination of base rows and a
relaxation over them bounds every move. It depends only on the rule set and is built once.

The longer runs are thousands of rows, so they are kept as packed integers (colour, first
number, length and a bitmask of joker positions, see :func:`_pack`) in numpy arrays, one
table per rule set, filtered by the available tiles with bit operations, and only turned
into :class:`Meld` objects when a caller looks at one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

import numpy as np

from .melds import Meld, MeldKind, group_meld, run_meld
from .rules import RuleSet
from .tiles import MAX_NUMBER, NUM_KINDS, Colour, Tile, kind_counts

MAX_GROUP = len(Colour)

_COLOURS = tuple(Colour)  # by index
#: Bit widths of a packed run shape: joker mask (one bit per position), length, start.
_MASK_BITS, _LENGTH_BITS, _START_BITS = MAX_NUMBER, 4, 4
_NO_CODES = np.zeros(0, np.int64)


@dataclass(frozen=True)
class RunShape:
    """A run by its numbers: colour, first number, length, and which positions are jokers."""

    colour: Colour
    start: int
    length: int
    jokers: tuple[int, ...]


class Melds(Sequence[Meld]):
    """Candidate melds, each built when first looked at: a catalogue holds hundreds of run
    shapes of which a move uses a handful, and building them all was a large part of the
    time spent on a position.

    Items are kept in a numpy object array (so selecting rows is one indexing operation);
    each is a :class:`Meld`, a :class:`RunShape`, or a run shape still packed as an ``int``.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[Meld | RunShape] | np.ndarray) -> None:
        if isinstance(items, np.ndarray):
            self._items = items
        else:
            listed = list(items)
            self._items = np.empty(len(listed), dtype=object)
            self._items[:] = listed

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, k: int) -> Meld:  # type: ignore[override]
        item = self.item(k)
        return _run(item) if isinstance(item, RunShape) else item

    def item(self, k: int) -> Meld | RunShape:
        """The candidate as stored (a meld, or a run shape not built yet)."""
        item = self._items[k]
        return _unpack_one(item) if isinstance(item, int) else item

    def take(self, indices: Iterable[int]) -> Melds:
        rows = indices if isinstance(indices, np.ndarray) else np.fromiter(indices, dtype=np.intp)
        return Melds(self._items[rows])

    @staticmethod
    def joined(parts: Sequence[Melds]) -> Melds:
        return Melds(np.concatenate([p._items for p in parts]) if parts else np.empty(0, dtype=object))


@dataclass(frozen=True)
class Catalogue:
    """Candidate melds and their usage matrix ``usage[k, tile_index]`` (physical tiles)."""

    melds: Melds
    usage: np.ndarray  # shape (K, NUM_KINDS), int16
    values: np.ndarray  # shape (K,), int32
    joker_values: np.ndarray  # shape (K,), int32: points the meld's jokers stand for

    def rows(self, rows: np.ndarray) -> Catalogue:
        """The candidates at ``rows`` (indices), in that order."""
        return Catalogue(self.melds.take(rows), self.usage[rows], self.values[rows], self.joker_values[rows])


def _joined(parts: Sequence[Catalogue]) -> Catalogue:
    """The candidates of ``parts``, one after the other."""
    return Catalogue(
        Melds.joined([p.melds for p in parts]),
        np.concatenate([p.usage for p in parts]),
        np.concatenate([p.values for p in parts]),
        np.concatenate([p.joker_values for p in parts]),
    )


def tile_usage(tiles: Iterable[Tile]) -> np.ndarray:
    """How many of each tile kind, as a usage row (indexed by :attr:`Tile.index`)."""
    return np.array(kind_counts(tiles), dtype=np.int16)


def usage_of(meld: Meld) -> np.ndarray:
    return tile_usage(meld.tiles)


def build_catalogue(melds: list[Meld]) -> Catalogue:
    """Merge melds with identical physical tiles, keeping the most valuable interpretation
    (the first of equals)."""
    best: dict[bytes, Meld] = {}
    for meld in melds:
        key = usage_of(meld).tobytes()
        kept = best.get(key)
        if kept is None or meld.value > kept.value:
            best[key] = meld
    chosen = Melds(best.values())
    usage = np.stack([usage_of(m) for m in chosen]) if chosen else np.zeros((0, NUM_KINDS), np.int16)
    values = np.array([m.value for m in chosen], dtype=np.int32)
    joker_values = np.array([joker_value(m) for m in chosen], dtype=np.int32)
    return Catalogue(chosen, usage, values, joker_values)


def joker_value(meld: Meld) -> int:
    return sum(int(t.number or 0) for t in meld.jokers)


def base_run_limit(rules: RuleSet) -> int:
    """The longest run in the base catalogue: every longer run splits into shorter ones."""
    return 2 * rules.min_meld_size - 1


def _runs(rules: RuleSet, max_length: int) -> list[Meld]:
    melds = []
    for colour in Colour:
        for length in range(rules.min_meld_size, max_length + 1):
            for start in range(1, MAX_NUMBER - length + 2):
                max_jokers = min(rules.jokers, length - 1)
                for k in range(max_jokers + 1):
                    for positions in combinations(range(length), k):
                        melds.append(run_meld(colour, start, length, positions))
    return melds


def _groups(rules: RuleSet) -> list[Meld]:
    melds = []
    colours = list(Colour)
    for number in range(1, MAX_NUMBER + 1):
        for size in range(rules.min_meld_size, MAX_GROUP + 1):
            for jokers in range(min(rules.jokers, size - 1) + 1):
                real = size - jokers
                if rules.group_colours_distinct:
                    real_sets = list(combinations(colours, real))
                else:
                    real_sets = [
                        c for c in combinations_with_replacement(colours, real)
                        if max(c.count(x) for x in c) <= rules.copies
                    ]
                for real_colours in real_sets:
                    missing = [c for c in colours if c not in real_colours] or colours
                    joker_colours = (missing * size)[:jokers]
                    melds.append(group_meld(number, real_colours, joker_colours))
    return melds


@lru_cache(maxsize=16)
def base_catalogue(rules: RuleSet) -> Catalogue:
    """Short runs (up to :func:`base_run_limit`) and groups of 3-4 with every joker
    placement, for ``rules``."""
    return build_catalogue(_runs(rules, base_run_limit(rules)) + _groups(rules))


# Run shapes packed into integers -------------------------------------------------------


def _pack(colour: np.ndarray, start: np.ndarray, length: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Run shapes as integers: bit ``p`` of the low bits says position ``p`` is a joker."""
    packed = (colour.astype(np.int64) << _START_BITS | start) << _LENGTH_BITS | length
    return packed << _MASK_BITS | mask


def _unpack(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Colour index, start, length and joker mask of packed run shapes (arrays or ints)."""
    mask = codes & ((1 << _MASK_BITS) - 1)
    length = (codes >> _MASK_BITS) & ((1 << _LENGTH_BITS) - 1)
    start = (codes >> (_MASK_BITS + _LENGTH_BITS)) & ((1 << _START_BITS) - 1)
    return codes >> (_MASK_BITS + _LENGTH_BITS + _START_BITS), start, length, mask


def _unpack_one(code: int) -> RunShape:
    colour, start, length, mask = _unpack(code)  # type: ignore[arg-type]
    return RunShape(_COLOURS[colour], start, length, tuple(p for p in range(length) if mask >> p & 1))


_ALL_MASKS = np.arange(1 << MAX_NUMBER)
_MASK_BITS_SET = (_ALL_MASKS[:, None] >> np.arange(MAX_NUMBER)) & 1
#: Jokers in each mask, and the sum of their positions (for what the jokers stand for).
_POPCOUNT = _MASK_BITS_SET.sum(axis=1)
_POSITION_SUM = _MASK_BITS_SET @ np.arange(MAX_NUMBER)


@lru_cache(maxsize=16)
def _joker_masks(most: int) -> tuple[np.ndarray, np.ndarray]:
    """Every placement of at most ``most`` jokers in a run (bitmask over positions), in the
    order ``combinations`` lists them count by count, with the count of each. Candidates
    are listed in this order, as they always were, so ties between them resolve the same."""
    masks = [
        sum(1 << p for p in chosen)
        for count in range(min(most, MAX_NUMBER) + 1)
        for chosen in combinations(range(MAX_NUMBER), count)
    ]
    table = np.array(masks, dtype=np.int64)
    return table, _POPCOUNT[table]


# Runs longer than the base catalogue's, as packed shapes ------------------------------


@dataclass(frozen=True)
class _LongRuns:
    """Every run longer than the base catalogue's (6-13 tiles) under a rule set, one per set of physical tiles (its most
    valuable reading, the first of equals), as packed shapes with the numbers the solver
    filters and counts them by."""

    codes: np.ndarray
    colour: np.ndarray
    real: np.ndarray  # numbers bitmask of the real tiles
    jokers: np.ndarray
    usage: np.ndarray
    values: np.ndarray
    joker_values: np.ndarray


@lru_cache(maxsize=16)
def _long_runs(rules: RuleSet) -> _LongRuns:
    masks, counts = _joker_masks(rules.jokers)
    parts = []
    for length in range(base_run_limit(rules) + 1, MAX_NUMBER + 1):
        placements = masks[(masks < (1 << length)) & (counts <= length - 1)]
        colour, start, mask = np.meshgrid(
            np.arange(len(Colour)), np.arange(1, MAX_NUMBER - length + 2), placements, indexing="ij"
        )
        parts.append(_pack(colour.ravel(), start.ravel(), np.full(colour.size, length), mask.ravel()))
    codes = np.concatenate(parts) if parts else _NO_CODES
    colour, start, length, mask = _unpack(codes)
    real = (((np.int64(1) << length) - 1) & ~mask) << (start - 1)
    jokers = _POPCOUNT[mask]
    values = (length * (2 * start + length - 1) // 2).astype(np.int32)
    joker_values = (jokers * start + _POSITION_SUM[mask]).astype(np.int32)
    # Same physical tiles <=> same colour, real numbers and joker count (a run holds a real tile).
    key = (colour << MAX_NUMBER | real) << _MASK_BITS | jokers
    order = np.lexsort((-values, key))  # stable: equal values keep generation order
    first = np.ones(len(order), dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    chosen = np.sort(order[first])
    colour, real, jokers = colour[chosen], real[chosen], jokers[chosen]
    usage = _run_usage(colour, real, jokers)
    return _LongRuns(codes[chosen], colour, real, jokers, usage, values[chosen], joker_values[chosen])


def long_runs_for(rules: RuleSet, available: np.ndarray) -> Catalogue:
    """The runs longer than the base catalogue's that the ``available`` tile counts can form
    (a run holds one tile of each number: one of each real number it has, and its jokers)."""
    runs = _long_runs(rules)
    present = (available[:NUM_KINDS - 1].reshape(len(Colour), MAX_NUMBER) > 0) @ (np.int64(1) << np.arange(MAX_NUMBER))
    rows = np.nonzero(((runs.real & ~present[runs.colour]) == 0) & (runs.jokers <= available[NUM_KINDS - 1]))[0]
    return Catalogue(
        Melds(runs.codes[rows].astype(object)),
        runs.usage[rows],
        runs.values[rows],
        runs.joker_values[rows],
    )

def _run_usage(colour: np.ndarray, real: np.ndarray, jokers: np.ndarray) -> np.ndarray:
    """Usage rows of runs given by colour index, numbers bitmask and joker count."""
    n = len(colour)
    numbered = np.zeros((n, len(Colour), MAX_NUMBER), np.int16)
    numbered[np.arange(n), colour] = (real[:, None] >> np.arange(MAX_NUMBER)) & 1
    return np.concatenate([numbered.reshape(n, len(Colour) * MAX_NUMBER), jokers[:, None].astype(np.int16)], axis=1)


def _run(shape: RunShape) -> Meld:
    tiles = _TILES[shape.colour]
    return Meld(
        MeldKind.RUN,
        tiles[shape.start - 1:shape.start - 1 + shape.length],
        tuple(i in shape.jokers for i in range(shape.length)),
    )


_TILES = {c: tuple(Tile(c, n) for n in range(1, MAX_NUMBER + 1)) for c in Colour}


# Merging the candidates of a position ------------------------------------------------


def fits(usage: np.ndarray, available: np.ndarray) -> np.ndarray:
    """Mask of the usage rows that the ``available`` tile counts can supply."""
    return np.all(usage <= available[None, :], axis=1)


def base_for(rules: RuleSet, available: np.ndarray) -> Catalogue:
    """The base catalogue's candidates that the ``available`` tile counts can form."""
    base = base_catalogue(rules)
    return base.rows(np.nonzero(fits(base.usage, available))[0])


def catalogue_for(rules: RuleSet, available: np.ndarray) -> Catalogue:
    """Every meld the ``available`` tiles can form (see the module docstring): the base
    catalogue's that fit, then the longer runs that fit, one row per set of physical tiles,
    each read the way its jokers are worth most."""
    return _joined([base_for(rules, available), long_runs_for(rules, available)])
