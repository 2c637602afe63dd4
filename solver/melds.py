"""Melds: runs and groups, jokers and what they stand for, and why a meld is invalid.

A :class:`Meld` is a fully interpreted meld: every position holds the tile it stands for,
and a mask says which positions are physically jokers. :func:`check_meld` takes the tiles
as they lie (any order) and returns every legal interpretation, or the reasons none exists.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations
from typing import Iterable, Sequence

from .rules import STANDARD, RuleSet
from .tiles import JOKER, MAX_NUMBER, MIN_NUMBER, Colour, Tile


class MeldKind(enum.Enum):
    RUN = "run"
    GROUP = "group"


class Problem(enum.Enum):
    """Why a set of tiles is not a valid meld. Messages are rendered by :mod:`solver.i18n`."""

    TOO_FEW_TILES = "too-few-tiles"
    ONLY_JOKERS = "only-jokers"
    MIXED = "mixed"
    RUN_TOO_LONG = "run-too-long"
    RUN_DUPLICATE_NUMBER = "run-duplicate-number"
    RUN_GAP = "run-gap"
    RUN_OFF_THE_END = "run-off-the-end"
    GROUP_REPEATED_COLOUR = "group-repeated-colour"
    GROUP_TOO_BIG = "group-too-big"


@dataclass(frozen=True)
class Meld:
    """An interpreted meld: ``represented`` in table order, ``joker_mask`` marks jokers."""

    kind: MeldKind
    represented: tuple[Tile, ...]
    joker_mask: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.represented) != len(self.joker_mask):
            raise ValueError("joker mask length differs from the meld's length")

    # Cached properties (they write the instance's __dict__, which a frozen dataclass
    # allows): the solver reads these many times per meld and solve.

    @cached_property
    def tiles(self) -> tuple[Tile, ...]:
        """The physical tiles, jokers as :data:`JOKER`, in table order."""
        return tuple(JOKER if j else t for t, j in zip(self.represented, self.joker_mask))

    @cached_property
    def jokers(self) -> tuple[Tile, ...]:
        """What each joker stands for, in table order."""
        return tuple(t for t, j in zip(self.represented, self.joker_mask) if j)

    @cached_property
    def value(self) -> int:
        """Points of the meld, jokers counted as the tile they stand for."""
        return sum(int(t.number or 0) for t in self.represented)

    def __len__(self) -> int:
        return len(self.represented)

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        """The dataclass's own hash, computed once: the old melds key the solver's candidate
        cache on every solve."""
        return hash((self.kind, self.represented, self.joker_mask))


@dataclass(frozen=True)
class MeldCheck:
    """The outcome of checking one meld: its legal interpretations, or what is wrong."""

    tiles: tuple[Tile, ...]
    interpretations: tuple[Meld, ...]
    problems: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        return bool(self.interpretations)

    def joker_choices(self) -> tuple[frozenset[Tile], ...]:
        """For each joker (in sorted order of what it may be), the tiles it could stand for."""
        per_joker: list[set[Tile]] = []
        for meld in self.interpretations:
            for i, tile in enumerate(sorted(meld.jokers, key=lambda t: t.index)):
                while len(per_joker) <= i:
                    per_joker.append(set())
                per_joker[i].add(tile)
        return tuple(frozenset(s) for s in per_joker)

    @property
    def best(self) -> Meld | None:
        """The interpretation worth most points (ties: runs first, then lowest tiles)."""
        if not self.interpretations:
            return None
        return max(self.interpretations, key=lambda m: (m.value, m.kind is MeldKind.RUN))


def run_meld(colour: Colour, start: int, length: int, joker_positions: Iterable[int] = ()) -> Meld:
    """A run of ``length`` tiles from ``start``; the given positions are jokers."""
    if start < MIN_NUMBER or start + length - 1 > MAX_NUMBER:
        raise ValueError("run outside 1-13")
    jokers = set(joker_positions)
    first = colour.index * MAX_NUMBER + start - 1
    return Meld(
        MeldKind.RUN,
        tuple(Tile.from_index(first + i) for i in range(length)),
        tuple(i in jokers for i in range(length)),
    )


def group_meld(number: int, colours: Sequence[Colour], joker_colours: Iterable[Colour] = ()) -> Meld:
    """A group of ``number`` in ``colours`` (real tiles) plus jokers standing for ``joker_colours``."""
    jc = tuple(joker_colours)
    all_colours = sorted(tuple(colours) + jc, key=lambda c: c.index)
    real = Counter(colours)
    mask = []
    for c in all_colours:
        if real[c] > 0:
            real[c] -= 1
            mask.append(False)
        else:
            mask.append(True)
    tiles = tuple(Tile.from_index(c.index * MAX_NUMBER + number - 1) for c in all_colours)
    return Meld(MeldKind.GROUP, tiles, tuple(mask))


def _run_interpretations(real: list[Tile], jokers: int) -> tuple[list[Meld], list[Problem]]:
    colours = {t.colour for t in real}
    if len(colours) > 1:
        return [], [Problem.MIXED]
    (colour,) = colours
    assert colour is not None
    numbers = sorted(int(t.number or 0) for t in real)
    if len(set(numbers)) != len(numbers):
        return [], [Problem.RUN_DUPLICATE_NUMBER]
    size = len(real) + jokers
    if size > MAX_NUMBER:
        return [], [Problem.RUN_TOO_LONG]
    lo, hi = numbers[0], numbers[-1]
    gaps = hi - lo + 1 - len(numbers)
    if gaps > jokers:
        return [], [Problem.RUN_GAP]
    spare = jokers - gaps
    melds = []
    for below in range(spare + 1):
        start = lo - below
        end = hi + (spare - below)
        if start < MIN_NUMBER or end > MAX_NUMBER:
            continue
        present = set(numbers)
        positions = [i for i, n in enumerate(range(start, end + 1)) if n not in present]
        melds.append(run_meld(colour, start, size, positions))
    if not melds:
        return [], [Problem.RUN_OFF_THE_END]
    return melds, []


def _group_interpretations(real: list[Tile], jokers: int, distinct: bool) -> tuple[list[Meld], list[Problem]]:
    numbers = {t.number for t in real}
    if len(numbers) > 1:
        return [], [Problem.MIXED]
    (number,) = numbers
    assert number is not None
    colours = [t.colour for t in real if t.colour is not None]
    size = len(real) + jokers
    if size > len(Colour):
        return [], [Problem.GROUP_TOO_BIG]
    if distinct and len(set(colours)) != len(colours):
        return [], [Problem.GROUP_REPEATED_COLOUR]
    if distinct:
        missing = [c for c in Colour if c not in colours]
        options = list(combinations(missing, jokers))
    else:
        options = [tuple(x) for x in _multichoose(list(Colour), jokers)]
    return [group_meld(number, colours, jc) for jc in options], []


def _multichoose(items: list[Colour], k: int) -> list[list[Colour]]:
    if k == 0:
        return [[]]
    return [[items[i]] + rest for i in range(len(items)) for rest in _multichoose(items[i:], k - 1)]


def check_meld(tiles: Sequence[Tile], rules: RuleSet = STANDARD) -> MeldCheck:
    """Every legal interpretation of ``tiles`` (any order) as a run or a group, or the problems."""
    return _checked(tuple(tiles), rules.min_meld_size, rules.group_colours_distinct)


@lru_cache(maxsize=4096)
def _checked(tiles: tuple[Tile, ...], min_meld_size: int, distinct_colours: bool) -> MeldCheck:
    """:func:`check_meld` given the only rules it reads, cached: every solve checks the whole
    table, whose melds mostly lie as they did the turn before. Results are immutable, so
    equal tiles share one."""
    real = sorted((t for t in tiles if not t.is_joker), key=lambda t: t.index)
    jokers = len(tiles) - len(real)
    if len(tiles) < min_meld_size:
        return MeldCheck(tiles, (), (Problem.TOO_FEW_TILES,))
    if not real:
        return MeldCheck(tiles, (), (Problem.ONLY_JOKERS,))
    runs, run_problems = _run_interpretations(real, jokers)
    groups, group_problems = _group_interpretations(real, jokers, distinct_colours)
    found = tuple(dict.fromkeys(runs + groups))  # dedupe, keep order
    if found:
        return MeldCheck(tiles, found, ())
    # Explain with the kind the tiles look most like: same colour -> run, same number -> group.
    same_colour = len({t.colour for t in real}) == 1
    same_number = len({t.number for t in real}) == 1
    if same_colour and not same_number:
        problems = run_problems
    elif same_number and not same_colour:
        problems = group_problems
    elif same_number and same_colour:
        problems = run_problems + group_problems
    else:
        problems = [Problem.MIXED]
    return MeldCheck(tiles, (), tuple(dict.fromkeys(problems)))

