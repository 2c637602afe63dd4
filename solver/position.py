"""A position to solve: the table's melds, the player's rack, and the rule set."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .rules import STANDARD, RuleSet, check_tile_limits
from .tiles import Tile


class Objective(enum.Enum):
    """What the solver maximises; ties are always broken by least disruption."""

    TILES = "tiles"
    VALUE = "value"


@dataclass(frozen=True)
class Position:
    """The table as melds (tiles as they lie), the rack, and whether the player has opened.

    Construction checks that the tiles can exist in one game (copy and joker limits) and
    raises :class:`solver.rules.ImpossibleStateError` otherwise. Meld validity is *not*
    required here: a misread table is still a position, and :func:`solver.check_table`
    reports what is wrong with it.
    """

    table: tuple[tuple[Tile, ...], ...]
    rack: tuple[Tile, ...]
    initial_meld_done: bool = True
    rules: RuleSet = field(default=STANDARD)

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", tuple(tuple(m) for m in self.table))
        object.__setattr__(self, "rack", tuple(self.rack))
        check_tile_limits(self.table_tiles + self.rack, self.rules)

    @property
    def table_tiles(self) -> tuple[Tile, ...]:
        return tuple(t for meld in self.table for t in meld)
