"""The catalogue of melds the solver may build, as a tile-usage matrix.

Following den Hertog & Hulshof (2006), runs of 3-5 tiles and groups of 3-4 suffice to
reach the maximum number of tiles: any longer run splits into runs of 3-5. Each candidate
is a fully interpreted meld (jokers' values fixed); candidates with the same physical tiles
are merged, keeping the interpretation worth most points. The base catalogue depends only
on the rule set and is built once per rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

import numpy as np

from .melds import Meld, group_meld, run_meld
from .rules import RuleSet
from .tiles import MAX_NUMBER, NUM_KINDS, Colour

MAX_BASE_RUN = 5
MAX_GROUP = len(Colour)


@dataclass(frozen=True)
class Catalogue:
    """Candidate melds and their usage matrix ``usage[k, tile_index]`` (physical tiles)."""

    melds: tuple[Meld, ...]
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
    chosen = tuple(best.values())
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
            for jokers in range(0, min(rules.jokers, size - 1) + 1):
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
