"""One optimisation of a move: which old melds may change, the tiles in play, the criteria
scored and their weights, and what an answer says. Shared by the search
(:mod:`solver.search`) and the integer programs (:mod:`solver.move_program`, :mod:`solver.bound_program`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

import numpy as np

from .candidates import Catalogue
from .melds import Meld
from .rules import RuleSet
from .position import Objective
from .tiles import JOKER_INDEX, MAX_NUMBER, Tile


class Scope(enum.Enum):
    """Which criteria a program scores: all, only the two leading ones (tiles or value
    placed, melds kept), or only the rest (the leading ones settled by a target)."""

    ALL = "all"
    LEADING = "leading"
    TIE_BREAK = "tie-break"


@dataclass(frozen=True)
class Pricing:
    """What choices cost against the relaxation's bound (its reduced costs); a move reaching
    the target loses at most ``slack`` in all."""

    meld_cost: np.ndarray  # per free meld (in ``free`` order): touching it
    candidate_cost: np.ndarray  # per candidate: laying one copy of it
    slack: float


@dataclass(frozen=True)
class Problem:
    """The free old melds (global indices) may change, the rest stay. ``catalogue`` holds
    the candidates the free melds' tiles and the rack can form (those a relaxation's prices
    do not rule out)."""

    catalogue: Catalogue
    old_melds: tuple[Meld, ...]
    free: tuple[int, ...]
    free_usage: np.ndarray  # (len(free), NUM_KINDS)
    table_counts: np.ndarray  # tiles of the free melds
    rack_counts: np.ndarray
    rules: RuleSet
    pricing: Pricing | None = None


@dataclass(frozen=True)
class Outcome:
    """An answer to a problem: the new melds of the free part and the rack tiles played."""

    #: New melds that continue no old meld.
    fresh: tuple[Meld, ...]
    #: (global old meld index, the new meld it continues into).
    continued: tuple[tuple[int, Meld], ...]
    primary: int
    optimal: bool
    #: Free old melds left exactly as they were.
    kept: int = 0
    #: Tiles of the free old melds that stay where they are.
    staying: int = 0

    @property
    def plays(self) -> bool:
        return bool(self.fresh or self.continued)


def value_placed(played: dict[int, int], joker_gain: int) -> int:
    """Worth of the rack tiles played: numbers, and each rack joker as the tile it stands for.

    ``played`` maps tile index to count; ``joker_gain`` is how many points the jokers on the
    table stand for after the move minus before it. Only up to 13 points per rack joker played
    count, never less than nothing, so re-reading a table joker (r4 -> k9, or k10 -> k3) is
    neither credited to nor charged against the player.
    """
    real = sum(Tile.from_index(i).number * n for i, n in played.items() if i != JOKER_INDEX)
    return real + min(MAX_NUMBER * played.get(JOKER_INDEX, 0), max(joker_gain, 0))


@dataclass(frozen=True)
class Weights:
    """Objective weight of each criterion, most important first."""

    primary: int
    kept: int
    stay: int
    value: int
    melds: int
    first: int


def lexicographic_weights(problem: Problem, objective: Objective) -> Weights:
    """Primary (tiles or value placed), old melds kept, tiles staying, value (tile objective
    only), fewer melds, and last, so that equal moves are told apart the same way every time,
    old melds keeping their first tile in place. Each weight exceeds the whole range of
    everything below it; the MIP gap is zero, so the order is exact."""
    value_tiebreak = objective is Objective.TILES
    first = 1
    melds = first * (len(problem.free) + 1)
    scale = melds * (int((problem.table_counts + problem.rack_counts).sum()) // problem.rules.min_meld_size + 1)
    value = scale if value_tiebreak else 0
    scale *= int(problem.rack_counts.sum()) * MAX_NUMBER + 1 if value_tiebreak else 1
    kept = scale * (int(problem.table_counts.sum()) + 1)
    return Weights(kept * (len(problem.free) + 1), kept, scale, value, melds, first)


def scoped_weights(problem: Problem, objective: Objective, scope: Scope) -> Weights:
    """The weights of the criteria ``scope`` scores (the others weigh nothing)."""
    if scope is Scope.LEADING:
        return Weights(len(problem.free) + 1, 1, 0, 0, 0, 0)
    weights = lexicographic_weights(problem, objective)
    if scope is Scope.TIE_BREAK:
        return replace(weights, primary=0, kept=0)
    return weights
