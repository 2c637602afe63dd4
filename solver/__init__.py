"""Rummikub game core: tiles, rules, melds, the exact move solver and round scoring.

The solver itself (:func:`solve`, :class:`SolverError`) is imported on first use: it brings in
OR-Tools and SciPy (about half a second), which reading a photo or keeping the score never needs.
"""

from typing import TYPE_CHECKING

from .explain import describe_steps
from .melds import Meld, MeldCheck, MeldKind, Problem, check_meld
from .rules import PRESETS, STANDARD, ImpossibleStateError, PoolOutScoring, RuleSet
from .position import Objective, Position
from .suggestion import RACK, Action, NewMeld, Step, StepKind, Suggestion
from .table import InvalidTableError, TableCheck, check_table
from .tiles import JOKER, Colour, NotationError, Tile, parse_melds, parse_tile, parse_tiles

if TYPE_CHECKING:
    from .search import SolverError, solve


def __getattr__(name: str) -> object:
    if name in ("solve", "SolverError"):
        from . import search

        return getattr(search, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
