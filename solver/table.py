"""Checking a table as read (possibly misread, or mid-turn): each invalid meld and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .melds import Meld, MeldCheck, MeldKind, check_meld
from .rules import STANDARD, RuleSet
from .tiles import ALL_KINDS, Tile, kind_counts


class InvalidTableError(ValueError):
    """The table has invalid melds, so no move can be computed from it."""

    def __init__(self, check: "TableCheck") -> None:
        bad = ", ".join(str(i + 1) for i in check.invalid)
        super().__init__(f"the table has invalid melds: {bad}")
        self.check = check


@dataclass(frozen=True)
class TableCheck:
    melds: tuple[MeldCheck, ...]
    over_limit: tuple[Tile, ...]

    @property
    def invalid(self) -> tuple[int, ...]:
        """Indices of the invalid melds."""
        return tuple(i for i, m in enumerate(self.melds) if not m.valid)

    @property
    def valid(self) -> bool:
        return not self.invalid and not self.over_limit


def check_table(melds: Sequence[Sequence[Tile]], rules: RuleSet = STANDARD) -> TableCheck:
    """Check every meld, and the copy limits over the whole table."""
    checks = tuple(check_meld(m, rules) for m in melds)
    counts = kind_counts(t for m in melds for t in m)
    # A kind not on the table is never over its limit; skipping it saves most calls on a small table.
    over = tuple(tile for tile, n in zip(ALL_KINDS, counts) if n and n > rules.max_count(tile))
    return TableCheck(checks, over)


def interpret_as_laid(tiles: Sequence[Tile], check: MeldCheck) -> Meld:
    """The interpretation of a valid meld that matches the order the tiles lie in, if any.

    ``[joker, red 5, red 6]`` as laid means the joker is red 4; when the order says nothing
    (or the tiles were typed in any order), the interpretation worth most points is used.
    """
    if not check.interpretations:
        raise ValueError("meld is not valid")
    laid = tuple(tiles)
    for meld in check.interpretations:
        if meld.kind is MeldKind.RUN and (meld.tiles == laid or meld.tiles[::-1] == laid):
            return meld
    best = check.best
    assert best is not None
    return best
