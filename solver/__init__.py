"""Rummikub game core: tiles, rules, melds, the exact move solver and round scoring."""

from .explain import describe_steps
from .melds import Meld, MeldCheck, MeldKind, Problem, check_meld
from .rules import PRESETS, STANDARD, ImpossibleStateError, PoolOutScoring, RuleSet
from .search import SolverError, solve
from .position import Objective, Position
from .suggestion import RACK, Action, NewMeld, Step, StepKind, Suggestion
from .table import InvalidTableError, TableCheck, check_table
from .tiles import JOKER, Colour, NotationError, Tile, parse_melds, parse_tile, parse_tiles

__all__ = [
    "RACK",
    "Action",
    "InvalidTableError",
    "NewMeld",
    "SolverError",
    "Step",
    "StepKind",
    "Suggestion",
    "TableCheck",
    "check_table",
    "describe_steps",
    "solve",
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
    "parse_melds",
    "parse_tile",
    "parse_tiles",
]
