"""Rummikub game core: tiles, rules, melds, the exact move solver and round scoring."""

from .melds import Meld, MeldCheck, MeldKind, Problem, check_meld, is_valid_meld
from .rules import PRESETS, STANDARD, ImpossibleStateError, PoolOutScoring, RuleSet
from .state import Objective, Position
from .tiles import JOKER, Colour, NotationError, Tile, parse_melds, parse_tile, parse_tiles

__all__ = [
    "JOKER",
    "PRESETS",
    "STANDARD",
    "Colour",
    "ImpossibleStateError",
    "Meld",
    "MeldCheck",
    "MeldKind",
    "NotationError",
    "Objective",
    "PoolOutScoring",
    "Position",
    "Problem",
    "RuleSet",
    "Tile",
    "check_meld",
    "is_valid_meld",
    "parse_melds",
    "parse_tile",
    "parse_tiles",
]
