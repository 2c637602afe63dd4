"""The catalogue of melds the solver may build, as a tile-usage matrix.

Following den Hertog & Hulshof (2006), runs of 3-5 tiles and groups of 3-4 suffice to
reach the maximum number of tiles: any longer run splits into runs of 3-5. Each candidate
is a fully interpreted meld (jokers' values fixed); candidates with the same physical tiles
are merged, keeping the interpretation worth most points. The base catalogue depends only
on the rule set and is built once per rule set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

import numpy as np

from .melds import Meld, MeldKind, group_meld, run_meld
from .rules import RuleSet
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_KINDS, Colour, Tile

MAX_BASE_RUN = 5
#: Extensions of an old run the solver considers beyond the base catalogue (tiles added).
MAX_EXTENSION = 3
MAX_GROUP = len(Colour)


class Melds(Sequence[Meld]):
    """Candidate melds, each built when first looked at: a catalogue holds hundreds of run
    shapes of which a move uses a handful, and building them all was a large part of the
    time spent on a position."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[Meld | RunShape]) -> None:
        self._items = tuple(items)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, k: int) -> Meld:  # type: ignore[override]
        item = self._items[k]
        return _run(item) if isinstance(item, RunShape) else item

    def item(self, k: int) -> Meld | RunShape:
        """The candidate as stored (a meld, or a run shape not built yet)."""
        return self._items[k]

    def take(self, indices: Iterable[int]) -> Melds:
        return Melds(self._items[k] for k in indices)


@dataclass(frozen=True)
class Catalogue:
    """Candidate melds and their usage matrix ``usage[k, tile_index]`` (physical tiles)."""

    melds: Melds
    usage: np.ndarray  # shape (K, NUM_KINDS), int16
    values: np.ndarray  # shape (K,), int32
    joker_values: np.ndarray  # shape (K,), int32: points the meld's jokers stand for


def usage_of(meld: Meld) -> np.ndarray:
    row = np.zeros(NUM_KINDS, dtype=np.int16)
    for tile in meld.tiles:
        row[tile.index] += 1
    return row


def build_catalogue(melds: list[Meld], preferred: tuple[Meld, ...] = ()) -> Catalogue:
    """Merge melds with identical physical tiles, keeping the most valuable interpretation.

    A ``preferred`` meld (an old meld, as it was laid) wins over any other reading of the
    same tiles, so a meld left in place keeps its jokers' values.
    """
    best: dict[bytes, Meld] = {}
    for meld in melds:
        key = usage_of(meld).tobytes()
        kept = best.get(key)
        if kept is None or meld.value > kept.value:
            best[key] = meld
    for meld in preferred:
        best[usage_of(meld).tobytes()] = meld
    chosen = Melds(best.values())
    usage = np.stack([usage_of(m) for m in chosen]) if chosen else np.zeros((0, NUM_KINDS), np.int16)
    values = np.array([m.value for m in chosen], dtype=np.int32)
    joker_values = np.array([joker_value(m) for m in chosen], dtype=np.int32)
    return Catalogue(chosen, usage, values, joker_values)


def joker_value(meld: Meld) -> int:
    return sum(int(t.number or 0) for t in meld.jokers)


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
    """Runs of 3-5 and groups of 3-4 with every joker placement, for ``rules``."""
    return build_catalogue(_runs(rules, MAX_BASE_RUN) + _groups(rules))


@dataclass(frozen=True)
class RunShape:
    """A run by its numbers: colour, first number, length, and which positions are jokers."""

    colour: Colour
    start: int
    length: int
    jokers: tuple[int, ...]


def run_extensions(meld: Meld, rules: RuleSet) -> list[RunShape]:
    """Runs an old run can turn into while all its real tiles stay in place.

    The new run covers the old run's real tiles, may reach up to MAX_EXTENSION numbers past
    either end and may drop jokers at the ends; each old joker kept inside stays a joker, or
    every one of them is replaced by its real tile; at most one joker is added. An old meld
    holding jokers gets every placement of jokers instead (:func:`_joker_extensions`).
    """
    if any(meld.joker_mask):
        return _joker_extensions(meld, rules)
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
                out.append(RunShape(colour, lo, size, tuple(n - lo for n in jokers)))
    return out


def _joker_extensions(meld: Meld, rules: RuleSet) -> list[RunShape]:
    """Runs longer than the base catalogue's that keep an old meld's jokers with some of its
    real tiles: every run (6 tiles or more) covering all the real tiles of an old run, or one
    real tile of an old group, reaching up to MAX_EXTENSION numbers plus one per joker past
    them, with the jokers anywhere else in it. Jokers move about freely, so an old meld
    ``[j j o9]`` can stay together as ``o8..o13`` around the rack's ``o10 o12 o13``.
    """
    jokers = sum(meld.joker_mask)
    real = [t for t, j in zip(meld.represented, meld.joker_mask) if not j]
    reach = MAX_EXTENSION + jokers
    cores = [tuple(int(t.number or 0) for t in real)] if meld.kind is MeldKind.RUN else [(int(t.number or 0),) for t in real]
    colours = [real[0].colour] if meld.kind is MeldKind.RUN else [t.colour for t in real]
    out = []
    for colour, core in zip(colours, cores):
        assert colour is not None
        for lo in range(max(1, min(core) - reach), min(core) + 1):
            for hi in range(max(core), min(MAX_NUMBER, max(core) + reach) + 1):
                size = hi - lo + 1
                if size <= MAX_BASE_RUN:
                    continue  # in the base catalogue already
                others = [n - lo for n in range(lo, hi + 1) if n not in core]
                for count in range(min(rules.jokers, size - 1) + 1):
                    out += [RunShape(colour, lo, size, js) for js in combinations(others, count)]
    return out


def run_pieces(meld: Meld, rules: RuleSet) -> list[RunShape]:
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
                positions = tuple(n - grow_lo for n in jokers if lo <= n <= hi)
                out.append(RunShape(colour, grow_lo, grow_hi - grow_lo + 1, positions))
    return out


def _shapes_catalogue(shapes: list[RunShape]) -> Catalogue:
    """The runs ``shapes`` as a catalogue, identical physical tiles merged (most valuable
    reading kept). Usage rows and values are computed from the numbers, and melds are only
    built for the runs kept, because building every variant tile by tile was slow."""
    if not shapes:
        return Catalogue(Melds(()), np.zeros((0, NUM_KINDS), np.int16), np.zeros(0, np.int32), np.zeros(0, np.int32))
    n = len(shapes)
    starts = np.array([s.colour.index * MAX_NUMBER + s.start - 1 for s in shapes])
    lengths = np.array([s.length for s in shapes])
    offsets = np.arange(MAX_NUMBER)
    inside = offsets[None, :] < lengths[:, None]
    usage = np.zeros((n, NUM_KINDS), np.int16)
    rows = np.repeat(np.arange(n), lengths)
    usage[rows, (starts[:, None] + offsets[None, :])[inside]] = 1
    joker_rows = np.array([k for k, s in enumerate(shapes) for _ in s.jokers], dtype=np.int64)
    joker_cols = np.array([starts[k] + p for k, s in enumerate(shapes) for p in s.jokers], dtype=np.int64)
    usage[joker_rows, joker_cols] = 0
    usage[:, JOKER_INDEX] = [len(s.jokers) for s in shapes]
    values = np.array([s.length * (2 * s.start + s.length - 1) // 2 for s in shapes], dtype=np.int32)
    joker_values = np.array([sum(s.start + p for p in s.jokers) for s in shapes], dtype=np.int32)
    best: dict[bytes, int] = {}
    for k in range(n):
        key = usage[k].tobytes()
        kept = best.get(key)
        if kept is None or values[k] > values[kept]:
            best[key] = k
    chosen = np.array(sorted(best.values()), dtype=np.int64)
    return Catalogue(Melds(shapes[k] for k in chosen), usage[chosen], values[chosen], joker_values[chosen])


def _run(shape: RunShape) -> Meld:
    tiles = _TILES[shape.colour]
    return Meld(
        MeldKind.RUN,
        tiles[shape.start - 1:shape.start - 1 + shape.length],
        tuple(i in shape.jokers for i in range(shape.length)),
    )


_TILES = {c: tuple(Tile(c, n) for n in range(1, MAX_NUMBER + 1)) for c in Colour}


@lru_cache(maxsize=512)
def meld_catalogue(meld: Meld, rules: RuleSet) -> Catalogue:
    """An old meld as laid, with the runs it can grow into and split into (cached per meld)."""
    grown = _shapes_catalogue(run_extensions(meld, rules) + run_pieces(meld, rules))
    own = usage_of(meld)
    others = np.nonzero(~(grown.usage == own[None, :]).all(axis=1))[0]  # the meld as laid wins
    return Catalogue(
        Melds((meld, *(grown.melds.item(k) for k in others))),
        np.concatenate([own[None, :], grown.usage[others]]),
        np.concatenate([[meld.value], grown.values[others]]).astype(np.int32),
        np.concatenate([[joker_value(meld)], grown.joker_values[others]]).astype(np.int32),
    )


@lru_cache(maxsize=16)
def _base_index(rules: RuleSet) -> dict[bytes, int]:
    """Row of each physical tile multiset in :func:`base_catalogue` (its usage row as bytes)."""
    return {row.tobytes(): k for k, row in enumerate(base_catalogue(rules).usage)}


def fits(usage: np.ndarray, available: np.ndarray) -> np.ndarray:
    """Mask of the usage rows that the ``available`` tile counts can supply."""
    return np.all(usage <= available[None, :], axis=1)


def catalogue_for(rules: RuleSet, available: np.ndarray, old_melds: tuple[Meld, ...]) -> Catalogue:
    """Every candidate the ``available`` tiles can form: the base catalogue and, for each old
    meld, the meld itself and its run extensions and pieces.

    Candidates with the same physical tiles are merged as in :func:`build_catalogue`: an old
    meld as laid wins, then the most valuable reading. The base part is selected with one
    array operation, and each old meld's part is built once and cached, because rebuilding
    candidates meld by meld was most of the time spent on a large table.
    """
    base = base_catalogue(rules)
    keep = fits(base.usage, available)
    parts = [meld_catalogue(m, rules) for m in old_melds]
    laid = {usage_of(m).tobytes() for m in old_melds}
    chosen: dict[bytes, tuple[Meld | RunShape, np.ndarray, int, int]] = {}
    for part in parts:
        for k in np.nonzero(fits(part.usage, available))[0] if len(part.melds) else ():
            key = part.usage[k].tobytes()
            meld = part.melds.item(k)
            if key in laid and part.melds[k] not in old_melds:
                continue  # another reading of an old meld's tiles; the meld as laid wins
            kept = chosen.get(key)
            if kept is None or int(part.values[k]) > kept[2]:
                chosen[key] = (meld, part.usage[k], int(part.values[k]), int(part.joker_values[k]))
    index = _base_index(rules)
    for key, (meld, _, value, _) in list(chosen.items()):
        k = index.get(key)
        if k is None or not keep[k]:
            continue
        if key in laid or value > base.values[k]:
            keep[k] = False
        else:
            del chosen[key]
    rows = np.nonzero(keep)[0]
    extra = list(chosen.values())
    return Catalogue(
        Melds((*(base.melds.item(k) for k in rows), *(e[0] for e in extra))),
        np.concatenate([base.usage[rows]] + [e[1][None, :] for e in extra]),
        np.concatenate([base.values[rows], np.array([e[2] for e in extra], dtype=np.int32)]),
        np.concatenate([base.joker_values[rows], np.array([e[3] for e in extra], dtype=np.int32)]),
    )
