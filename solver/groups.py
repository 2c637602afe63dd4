"""Groups whose colours may repeat, counted per number instead of listed one by one.

When colours may repeat in a group (``RuleSet.group_colours_distinct`` off), what makes a
group is only its number and its size: any ``T`` tiles of one number with ``3G <= T <= 4G``,
at least ``G`` of them real, make ``G`` groups (one real tile to each group, the other tiles
spread so each holds 3 or 4). So the groups of a move that continue no old meld need no
candidate each: per number, how many tiles of each colour and how many jokers lie in such
groups, and how many groups they make. The hundreds of group candidates the integer
program could combine in countless equal ways (the reason those programs took seconds)
become six integer columns per number. Their jokers stand for the number, so their worth
does not depend on the colours either. Groups that continue an old meld stay candidates,
since which tiles they hold decides which stay in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .melds import Meld, group_meld
from .mip import Rows
from .tiles import JOKER_INDEX, MAX_NUMBER, NUM_COLOURS, Colour

#: ``GroupCounts.kind`` of the column counting a number's groups.
GROUPS = -1
MIN_GROUP, MAX_GROUP = 3, NUM_COLOURS


@dataclass(frozen=True)
class GroupCounts:
    """The columns of the free groups: per number that can make one, a count of each colour
    it has and of the jokers, then the number of groups."""

    kind: np.ndarray  # per column: the tile kind counted (JOKER_INDEX: jokers), or GROUPS
    number: np.ndarray  # per column: its number
    upper: np.ndarray

    @staticmethod
    def none() -> GroupCounts:
        empty = np.zeros(0, np.int64)
        return GroupCounts(empty, empty, empty)

    @staticmethod
    def for_tiles(available: np.ndarray) -> GroupCounts:
        """The columns for the ``available`` tile counts (indexed by tile kind)."""
        jokers = int(available[JOKER_INDEX])
        kind, number, upper = [], [], []
        for n in range(1, MAX_NUMBER + 1):
            kinds = [c * MAX_NUMBER + n - 1 for c in range(NUM_COLOURS) if available[c * MAX_NUMBER + n - 1]]
            reals = sum(int(available[k]) for k in kinds)
            if not kinds or reals + jokers < MIN_GROUP:
                continue
            counted = kinds + ([JOKER_INDEX] if jokers else [])
            kind += counted + [GROUPS]
            number += [n] * (len(counted) + 1)
            upper += [int(available[k]) for k in counted] + [(reals + jokers) // MIN_GROUP]
        return GroupCounts(np.array(kind, np.int64), np.array(number, np.int64), np.array(upper, np.int64))

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def tiles(self) -> np.ndarray:
        """Indices of the columns that count tiles (the others count groups)."""
        return np.nonzero(self.kind != GROUPS)[0]

    @property
    def groups(self) -> np.ndarray:
        return np.nonzero(self.kind == GROUPS)[0]

    @property
    def number_rows(self) -> np.ndarray:
        """Per column, where its number's count of groups lies in :attr:`groups` (the numbers
        come in increasing order, one count of groups each)."""
        return np.searchsorted(self.number[self.groups], self.number)

    def rows(self, first: int) -> Rows:
        """``3G <= tiles <= 4G`` and ``G <= real tiles`` per number, as at-most rows, the
        columns starting at ``first``."""
        tiles, groups = self.tiles, self.groups
        row_of = self.number_rows
        real = tiles[self.kind[tiles] != JOKER_INDEX]
        parts = [
            (3 * row_of[tiles], tiles, -1.0), (3 * row_of[groups], groups, 3.0),  # 3G - tiles <= 0
            (3 * row_of[tiles] + 1, tiles, 1.0), (3 * row_of[groups] + 1, groups, -4.0),  # tiles - 4G <= 0
            (3 * row_of[real] + 2, real, -1.0), (3 * row_of[groups] + 2, groups, 1.0),  # G - reals <= 0
        ]
        return Rows(
            np.concatenate([r for r, _, _ in parts]),
            first + np.concatenate([c for _, c, _ in parts]),
            np.concatenate([np.full(len(c), v) for _, c, v in parts]),
            np.zeros(3 * len(groups)),
        )

    def melds(self, values: np.ndarray) -> list[Meld]:
        """The groups the column ``values`` (integral) stand for: the real tiles dealt one
        to each group in turn, then the jokers to the smallest groups."""
        counts = np.round(values).astype(np.int64)
        out = []
        for g in self.groups.tolist():
            made = int(counts[g])
            if not made:
                continue
            columns = np.nonzero((self.number == self.number[g]) & (self.kind != GROUPS))[0]
            real = [_COLOURS[self.kind[k] // MAX_NUMBER] for k in columns if self.kind[k] != JOKER_INDEX for _ in range(counts[k])]
            jokers = int(sum(counts[k] for k in columns if self.kind[k] == JOKER_INDEX))
            shares = [real[i::made] for i in range(made)]
            wild = [0] * made
            for _ in range(jokers):
                wild[min(range(made), key=lambda i: len(shares[i]) + wild[i])] += 1
            out += [group_with(int(self.number[g]), colours, extra) for colours, extra in zip(shares, wild)]
        return out


def group_with(number: int, colours: list[Colour], jokers: int) -> Meld:
    """The group of ``number`` with real tiles of ``colours`` and ``jokers`` jokers, each
    joker standing for a colour missing from it (any, when none is missing)."""
    missing = [c for c in Colour if c not in colours] or list(Colour)
    return group_meld(number, colours, (missing * MAX_GROUP)[:jokers])


def group_meld_of(usage: np.ndarray) -> Meld:
    """The group a usage row of real tiles of one number and jokers stands for."""
    real = np.nonzero(usage[:JOKER_INDEX])[0]
    colours = [_COLOURS[k // MAX_NUMBER] for k in real for _ in range(int(usage[k]))]
    return group_with(int(real[0] % MAX_NUMBER) + 1, colours, int(usage[JOKER_INDEX]))


_COLOURS = tuple(Colour)
