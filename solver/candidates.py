"""The catalogue of melds the solver may build, as a tile-usage matrix.

Following den Hertog & Hulshof (2006), runs of 3-5 tiles and groups of 3-4 suffice to
reach the maximum number of tiles: any longer run splits into runs of 3-5. Each candidate
is a fully interpreted meld (jokers' values fixed); candidates with the same physical tiles
are merged, keeping the interpretation worth most points. The base catalogue depends only
on the rule set and is built once per rule set.

The runs an old meld can grow into or split into are many (thousands on a large table) and
are worked out afresh for every new table, so they are handled as packed integers (colour,
first number, length and a bitmask of joker positions, see :func:`_pack`) in numpy arrays,
and only turned into :class:`Meld` objects when a caller looks at one.
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

MAX_BASE_RUN = 5
#: Extensions of an old run the solver considers beyond the base catalogue (tiles added).
MAX_EXTENSION = 3
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


def _shapes(codes: np.ndarray) -> list[RunShape]:
    return [_unpack_one(c) for c in codes.tolist()]


def _span(lo: np.ndarray | int, hi: np.ndarray | int) -> np.ndarray:
    """Numbers ``lo..hi`` as a bitmask (bit ``n - 1`` for number ``n``)."""
    return ((np.int64(1) << (np.asarray(hi) - lo + 1)) - 1) << (np.asarray(lo) - 1)


def _numbers_mask(numbers: Iterable[int]) -> int:
    return sum(1 << (n - 1) for n in set(numbers))


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


# Runs an old meld can grow into or split into, for several melds at once ----------------
#
# Each generator returns packed shapes and, for each, the old meld it comes from (its index
# in ``melds``), meld by meld in the order the shapes were always listed.


@dataclass(frozen=True)
class _Windows:
    """Stretches of numbers ``lo..hi``, each for one of the caller's items (an old run, or
    some real tiles of an old meld), item by item."""

    item: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @staticmethod
    def spanning(lo_first: np.ndarray, lo_last: np.ndarray, hi_first: np.ndarray, hi_last: np.ndarray) -> _Windows:
        """For each item ``i``, every window with ``lo`` in ``lo_first[i]..lo_last[i]`` and
        ``hi`` in ``hi_first[i]..hi_last[i]``, lo-major."""
        lo_count, hi_count = lo_last - lo_first + 1, hi_last - hi_first + 1
        steps = np.arange(max(int(lo_count.max(initial=1)), int(hi_count.max(initial=1))))
        ok = (steps[None, :, None] < lo_count[:, None, None]) & (steps[None, None, :] < hi_count[:, None, None])
        item, up, right = np.nonzero(ok)
        return _Windows(item, lo_first[item] + up, hi_first[item] + right)

    @property
    def size(self) -> np.ndarray:
        return self.hi - self.lo + 1

    def where(self, ok: np.ndarray) -> _Windows:
        return _Windows(self.item[ok], self.lo[ok], self.hi[ok])


def _window_shapes(
    windows: _Windows, colour: np.ndarray, core: np.ndarray, limit: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Runs over each window in its item's ``colour`` with up to ``limit`` jokers (per
    window), each on a number outside the item's ``core`` (a numbers bitmask), window by
    window, jokers in :func:`_joker_masks` order; and the item of each."""
    if not len(windows.lo):
        return _NO_CODES, _NO_CODES
    size = windows.size
    free = ((np.int64(1) << size) - 1) & ~(core[windows.item] >> (windows.lo - 1))  # where a joker may go
    masks, counts = _joker_masks(int(limit.max()))
    ok = ((masks[None, :] & ~free[:, None]) == 0) & (counts[None, :] <= limit[:, None])
    window, placement = np.nonzero(ok)
    item = windows.item[window]
    return _pack(colour[item], windows.lo[window], size[window], masks[placement]), item


def _runs_of(melds: Sequence[Meld], owners: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Colour index, first and last number of the runs ``melds[i]`` for ``i`` in ``owners``."""
    firsts = [melds[i].represented[0] for i in owners]
    colour = np.array([_COLOURS.index(t.colour) for t in firsts], np.int64)  # type: ignore[arg-type]
    start = np.array([int(t.number or 0) for t in firsts], np.int64)
    return colour, start, start + np.array([len(melds[i]) for i in owners], np.int64) - 1


def _extension_shapes(melds: Sequence[Meld], rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """:func:`run_extensions` of the old runs without jokers."""
    owners = [i for i, m in enumerate(melds) if m.kind is MeldKind.RUN and not any(m.joker_mask)]
    if not owners:
        return _NO_CODES, _NO_CODES
    colour, start, end = _runs_of(melds, owners)
    windows = _Windows.spanning(
        np.maximum(1, start - MAX_EXTENSION), start, end, np.minimum(MAX_NUMBER, end + MAX_EXTENSION)
    )
    added = (start[windows.item] - windows.lo) + (windows.hi - end[windows.item])
    windows = windows.where((windows.size >= rules.min_meld_size) & (added <= MAX_EXTENSION))
    # No joker, or one on an added number (outside the old run).
    limit = np.full(len(windows.lo), min(rules.jokers, 1))
    codes, item = _window_shapes(windows, colour, _span(start, end), limit)
    return codes, np.array(owners, np.int64)[item]


def _joker_extension_shapes(melds: Sequence[Meld], rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_joker_extensions` of the old melds holding jokers: one item per old run (its
    real tiles) and per real tile of an old group."""
    owners, colours, cores, reaches = [], [], [], []
    for i, meld in enumerate(melds):
        jokers = sum(meld.joker_mask)
        if not jokers:
            continue
        real = [t for t, j in zip(meld.represented, meld.joker_mask) if not j]
        numbers = [int(t.number or 0) for t in real]
        items = [(real[0].colour, numbers)] if meld.kind is MeldKind.RUN else [(t.colour, [n]) for t, n in zip(real, numbers)]
        for colour, core in items:
            assert colour is not None
            owners.append(i)
            colours.append(colour.index)
            cores.append(core)
            reaches.append(MAX_EXTENSION + jokers)
    if not owners:
        return _NO_CODES, _NO_CODES
    low, high = np.array([min(c) for c in cores], np.int64), np.array([max(c) for c in cores], np.int64)
    reach = np.array(reaches, np.int64)
    windows = _Windows.spanning(np.maximum(1, low - reach), low, high, np.minimum(MAX_NUMBER, high + reach))
    windows = windows.where(windows.size > MAX_BASE_RUN)  # shorter ones are in the base catalogue
    core = np.array([_numbers_mask(c) for c in cores], np.int64)
    limit = np.minimum(rules.jokers, windows.size - 1)
    codes, item = _window_shapes(windows, np.array(colours, np.int64), core, limit)
    return codes, np.array(owners, np.int64)[item]


def _piece_shapes(melds: Sequence[Meld]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`run_pieces` of the long old runs."""
    owners = [i for i, m in enumerate(melds) if m.kind is MeldKind.RUN and len(m) > MAX_BASE_RUN + 1]
    if not owners:
        return _NO_CODES, _NO_CODES
    colour, start, last = _runs_of(melds, owners)
    jokers = np.array([_numbers_mask(s + k for k, j in enumerate(melds[i].joker_mask) if j)
                       for i, s in zip(owners, start.tolist())], np.int64)
    windows = _Windows.spanning(start, last, start, last)
    whole = (windows.lo == start[windows.item]) & (windows.hi == last[windows.item])
    windows = windows.where((windows.hi >= windows.lo + MAX_BASE_RUN - 1) & ~whole)
    # Each piece as it is, grown by one below, and grown by one above, in that order.
    piece = np.repeat(np.arange(len(windows.lo)), 3)
    lo, hi = windows.lo[piece], windows.hi[piece]
    grow_lo, grow_hi = lo - np.tile([0, 1, 0], len(windows.lo)), hi + np.tile([0, 0, 1], len(windows.lo))
    ok = (grow_hi - grow_lo + 1 > MAX_BASE_RUN) & (grow_lo >= 1) & (grow_hi <= MAX_NUMBER)
    item, lo, hi, grow_lo, grow_hi = windows.item[piece[ok]], lo[ok], hi[ok], grow_lo[ok], grow_hi[ok]
    mask = (jokers[item] & _span(lo, hi)) >> (grow_lo - 1)  # the old jokers inside the piece
    return _pack(colour[item], grow_lo, grow_hi - grow_lo + 1, mask), np.array(owners, np.int64)[item]


def run_extensions(meld: Meld, rules: RuleSet) -> list[RunShape]:
    """Runs an old run can turn into while all its real tiles stay in place.

    The new run covers the old run's real tiles and may reach up to MAX_EXTENSION numbers
    past either end, with at most one joker, on an added number. An old meld holding jokers
    gets every placement of jokers instead (:func:`_joker_extensions`).
    """
    if any(meld.joker_mask):
        return _joker_extensions(meld, rules)
    return _shapes(_extension_shapes((meld,), rules)[0])


def _joker_extensions(meld: Meld, rules: RuleSet) -> list[RunShape]:
    """Runs longer than the base catalogue's that keep an old meld's jokers with some of its
    real tiles: every run (6 tiles or more) covering all the real tiles of an old run, or one
    real tile of an old group, reaching up to MAX_EXTENSION numbers plus one per joker past
    them, with the jokers anywhere else in it. Jokers move about freely, so an old meld
    ``[j j o9]`` can stay together as ``o8..o13`` around the rack's ``o10 o12 o13``.
    """
    return _shapes(_joker_extension_shapes((meld,), rules)[0])


def run_pieces(meld: Meld, rules: RuleSet) -> list[RunShape]:
    """Pieces of a long old run (longer than the base catalogue's runs), each possibly grown
    by one tile at either end: splitting ``b3..b13`` around an inserted ``b8`` needs
    ``b3..b8`` and ``b8..b13``, which no run of 3-5 tiles can express.
    """
    return _shapes(_piece_shapes((meld,))[0])


def _grown_shapes(melds: Sequence[Meld], rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """Extensions then pieces of every old meld, meld by meld."""
    families = [_extension_shapes(melds, rules), _joker_extension_shapes(melds, rules), _piece_shapes(melds)]
    codes = np.concatenate([c for c, _ in families])
    owner = np.concatenate([o for _, o in families])
    order = np.argsort(owner, kind="stable")
    return codes[order], owner[order]


def _shapes_catalogue(codes: np.ndarray, owner: np.ndarray) -> tuple[Catalogue, np.ndarray]:
    """The packed runs ``codes`` as a catalogue, identical physical tiles of one owner merged
    (the most valuable reading kept, the first of equals), in the order of the readings
    kept, with the owner of each row. Rows and values come from the numbers, so no meld is
    built here."""
    colour, start, length, mask = _unpack(codes)
    real = (((np.int64(1) << length) - 1) & ~mask) << (start - 1)  # numbers bitmask
    jokers = _POPCOUNT[mask]
    values = (length * (2 * start + length - 1) // 2).astype(np.int32)
    joker_values = (jokers * start + _POSITION_SUM[mask]).astype(np.int32)
    # Same physical tiles <=> same colour (unless all jokers), real numbers and joker count.
    key = ((np.where(real > 0, colour, 0) << MAX_NUMBER | real) << _MASK_BITS) | jokers
    order = np.lexsort((-values, key, owner))  # stable: equal values keep generation order
    first = np.ones(len(order), dtype=bool)
    first[1:] = (key[order][1:] != key[order][:-1]) | (owner[order][1:] != owner[order][:-1])
    chosen = np.sort(order[first])
    catalogue = Catalogue(
        Melds(codes[chosen].astype(object)),
        _run_usage(colour[chosen], real[chosen], jokers[chosen]),
        values[chosen],
        joker_values[chosen],
    )
    return catalogue, owner[chosen]


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


@lru_cache(maxsize=32)
def _old_melds_catalogue(old_melds: tuple[Meld, ...], rules: RuleSet) -> tuple[Catalogue, np.ndarray]:
    """Each old meld as laid followed by the runs it can grow into and split into, meld by
    meld, and a mask of the rows that are old melds as laid. All melds are worked out
    together because doing it meld by meld cost more in numpy calls than in work."""
    grown, owner = _shapes_catalogue(*_grown_shapes(old_melds, rules))
    laid_usage = np.stack([usage_of(m) for m in old_melds])
    distinct = ~(grown.usage == laid_usage[owner]).all(axis=1)  # the meld as laid wins
    laid = Catalogue(
        Melds(old_melds),
        laid_usage,
        np.array([m.value for m in old_melds], np.int32),
        np.array([joker_value(m) for m in old_melds], np.int32),
    )
    whole = _joined([laid, grown.rows(np.nonzero(distinct)[0])])
    order = np.argsort(np.concatenate([np.arange(len(old_melds)), owner[distinct]]), kind="stable")
    return whole.rows(order), order < len(old_melds)


def meld_catalogue(meld: Meld, rules: RuleSet) -> Catalogue:
    """An old meld as laid, with the runs it can grow into and split into (one meld's share
    of :func:`_old_melds_catalogue`, which the solver calls for all old melds at once)."""
    return _old_melds_catalogue((meld,), rules)[0]


# Merging the candidates of a position ------------------------------------------------


def row_keys(usage: np.ndarray) -> np.ndarray:
    """Each usage row as one opaque value, so rows can be sorted, compared and searched."""
    rows = np.ascontiguousarray(usage, dtype=np.int16)
    return rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel()


@lru_cache(maxsize=16)
def _base_keys(rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """The base catalogue's row keys sorted, and the row each sorted key belongs to."""
    keys = row_keys(base_catalogue(rules).usage)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def _base_rows(rules: RuleSet, keys: np.ndarray) -> np.ndarray:
    """The base catalogue's row holding each usage row key, or -1."""
    sorted_keys, order = _base_keys(rules)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[at] == keys, order[at], -1)


def fits(usage: np.ndarray, available: np.ndarray) -> np.ndarray:
    """Mask of the usage rows that the ``available`` tile counts can supply."""
    return np.all(usage <= available[None, :], axis=1)


def catalogue_for(rules: RuleSet, available: np.ndarray, old_melds: tuple[Meld, ...]) -> Catalogue:
    """Every candidate the ``available`` tiles can form: the base catalogue and, for each old
    meld, the meld itself and its run extensions and pieces.

    Candidates with the same physical tiles are merged as in :func:`build_catalogue`: an old
    meld as laid wins, then the most valuable reading (the first of equals, old melds in
    order). The kept base candidates come first, in the base catalogue's order, then the
    others in the order they first appear. Everything is done on whole arrays, because
    merging candidates one by one was most of the time spent on a large table.
    """
    base = base_catalogue(rules)
    keep = fits(base.usage, available)
    if not old_melds:
        return base.rows(np.nonzero(keep)[0])
    extra, as_laid = _old_melds_catalogue(old_melds, rules)
    rows = np.nonzero(fits(extra.usage, available))[0]
    laid_usage = extra.usage[as_laid]
    distinct, ids = np.unique(np.concatenate([row_keys(extra.usage[rows]), row_keys(laid_usage)]), return_inverse=True)
    ids, laid_ids = ids[:len(rows)], ids[len(rows):]
    is_laid = np.zeros(len(distinct), dtype=bool)
    is_laid[laid_ids] = True
    # Another reading of an old meld's tiles goes: the meld as laid wins.
    clash = np.nonzero(is_laid[ids] & ~as_laid[rows])[0]
    drop = [c for c in clash if extra.melds[int(rows[c])] not in old_melds]
    rows, ids = np.delete(rows, drop), np.delete(ids, drop)
    # One row per set of tiles: the most valuable, the first of equals, in order of first sight.
    order = np.lexsort((-extra.values[rows], ids))
    leads = np.ones(len(order), dtype=bool)
    leads[1:] = ids[order][1:] != ids[order][:-1]
    _, first_seen = np.unique(ids, return_index=True)  # per id, in id order like the leads
    winners = order[leads][np.argsort(first_seen)]
    rows, ids = rows[winners], ids[winners]
    # Against the base catalogue: an old meld's tiles as laid, or a more valuable reading, win.
    base_row = _base_rows(rules, row_keys(extra.usage[rows]))
    in_base = base_row >= 0
    in_base[in_base] = keep[base_row[in_base]]
    wins = is_laid[ids] | (extra.values[rows] > base.values[base_row])
    keep[base_row[in_base & wins]] = False
    return _joined([base.rows(np.nonzero(keep)[0]), extra.rows(rows[~in_base | wins])])
