"""What the solver answers: the move, the complete new table, and the steps to get there."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .melds import Meld
from .position import Objective, Position
from .tiles import Tile

#: Source of a tile in a new meld: the index of an old table meld, or ``RACK``.
RACK = -1


class Action(enum.Enum):
    PLAY = "play"
    DRAW = "draw"


@dataclass(frozen=True)
class NewMeld:
    """A meld of the new table; ``sources[i]`` says where position ``i``'s tile comes from.

    ``continues`` is the old meld this one grows out of (its tiles that stay there are not
    moved), or ``None`` for a meld built fresh; ``unchanged`` marks an old meld left exactly
    as it was.
    """

    meld: Meld
    sources: tuple[int, ...]
    continues: int | None
    unchanged: bool = False

    @property
    def from_rack(self) -> tuple[Tile, ...]:
        return tuple(t for t, s in zip(self.meld.tiles, self.sources) if s == RACK)


class StepKind(enum.Enum):
    LAY_DOWN = "lay-down"          # a new meld from rack tiles only
    ADD = "add"                    # rack tiles added to an old meld, nothing else changes
    SPLIT = "split"                # an old meld gives tiles away and keeps the rest in place
    REPLACE_JOKER = "replace-joker"  # a joker in an old meld swapped for the tile it stands for
    REARRANGE = "rearrange"        # any other composition of old-meld and rack tiles


@dataclass(frozen=True)
class Step:
    """One instruction: build new meld ``target`` (index into the new table) from ``parts``.

    ``parts`` lists ``(source, tiles)``: ``source`` an old meld index or :data:`RACK`.
    ``old`` is the old meld that ``target`` continues, if any.
    """

    kind: StepKind
    target: int
    old: int | None
    parts: tuple[tuple[int, tuple[Tile, ...]], ...]


@dataclass(frozen=True)
class Suggestion:
    position: Position
    objective: Objective
    action: Action
    played: tuple[Tile, ...]
    new_table: tuple[NewMeld, ...]
    steps: tuple[Step, ...]
    melds_untouched: int
    tiles_moved: int
    value_placed: int
    optimal: bool
    #: The old table as the solver read it (jokers' values as laid); sources index into it.
    old_melds: tuple[Meld, ...]

    @property
    def tiles_placed(self) -> int:
        return len(self.played)

    @property
    def touched_melds(self) -> tuple[int, ...]:
        """The old melds (indices into ``old_melds``) the move does not leave exactly as they were."""
        kept = {new.continues for new in self.new_table if new.unchanged}
        return tuple(m for m in range(len(self.old_melds)) if m not in kept)
