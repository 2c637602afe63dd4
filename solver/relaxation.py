"""An upper bound on the two leading criteria from a linear relaxation, solved with HiGHS.

The leading criteria are (1) tiles placed (or value placed) and (2) old melds left exactly
as they are. The relaxation has one column per candidate meld (copies), one per old meld
(kept in place, 0..1) and one per rack tile kind (played); every table tile must lie in a
meld. Its optimum bounds ``weight * primary + melds kept`` from above, and its reduced costs
say which old melds no optimal move can touch: on real tables the bound is usually exact, so
the MIP can be solved on the few other melds alone and still be exact in every criterion.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from highspy import _core as highs

from .tiles import JOKER_INDEX, MAX_NUMBER, Tile

#: Numbers below this count as zero in the relaxation's solution.
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Relaxation:
    """The relaxation's optimum: ``bound`` >= ``weight * primary + kept`` of every legal move."""

    bound: float
    weight: int
    #: Per old meld, how much of it the relaxation keeps in place (1 = untouched).
    kept: np.ndarray
    #: Per old meld, how much the bound drops if the meld is touched (its reduced cost).
    reduced: np.ndarray

    def score(self, primary: int, kept: int) -> int:
        """The two criteria as one number, the scale of :attr:`bound`."""
        return self.weight * primary + kept

    @property
    def best_possible(self) -> int:
        """No legal move scores more than this."""
        return int(np.floor(self.bound + TOLERANCE * max(1.0, abs(self.bound))))

    def may_touch(self, target: int) -> np.ndarray:
        """Mask of the old melds that a move scoring at least ``target`` may touch.

        Linear programming duality: a move that touches old meld m scores at most
        ``bound - reduced[m]``, so melds whose reduced cost exceeds ``bound - target`` stay
        untouched in every such move (all of them: the reduced costs add up).
        """
        slack = self.bound - target + TOLERANCE * max(1.0, abs(self.bound))
        return (self.kept < 1.0 - TOLERANCE) | (self.reduced <= slack)


def _csc(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column starts, row indices and values of ``dense`` in compressed-column form."""
    cols, rows = np.nonzero(dense.T)
    starts = np.zeros(dense.shape[1] + 1, dtype=np.int32)
    np.cumsum(np.bincount(cols, minlength=dense.shape[1]), out=starts[1:])
    return starts, rows.astype(np.int32), dense[rows, cols].astype(np.float64)


def relax(
    usage: np.ndarray,
    copies: np.ndarray,
    old_usage: np.ndarray,
    table_counts: np.ndarray,
    rack_counts: np.ndarray,
    by_value: bool,
) -> Relaxation | None:
    """Solve the relaxation; ``None`` if HiGHS does not report an optimum (the caller then
    falls back to opening the whole table).

    ``usage`` (K x kinds) and ``copies`` describe the candidate melds, ``old_usage`` (M x
    kinds) the old melds. With ``by_value`` the primary is the value placed, a rack joker
    counting at most 13 (an over-estimate of what it can stand for, as a bound must be).
    """
    available = table_counts + rack_counts
    kinds = np.nonzero(available)[0]
    rack_kinds = np.nonzero(rack_counts)[0]
    n_old = old_usage.shape[0]
    weight = n_old + 1
    blocks = [usage.T[kinds].astype(np.float64), old_usage.T[kinds].astype(np.float64)]
    played = np.zeros((len(kinds), len(rack_kinds)))
    played[np.searchsorted(kinds, rack_kinds), np.arange(len(rack_kinds))] = -1.0
    blocks.append(played)
    per_tile = np.array(
        [Tile.from_index(int(i)).number or 0 for i in rack_kinds] if by_value else [1] * len(rack_kinds),
        dtype=np.float64,
    )
    cost = [np.zeros(len(copies)), np.ones(n_old), weight * per_tile]
    upper = [copies.astype(np.float64), np.ones(n_old), rack_counts[rack_kinds].astype(np.float64)]
    lower_row = table_counts[kinds].astype(np.float64)
    upper_row = lower_row.copy()
    matrix = np.concatenate(blocks, axis=1)
    if by_value and rack_counts[JOKER_INDEX]:
        # joker worth w <= 13 x rack jokers played
        joker_col = int(np.searchsorted(rack_kinds, JOKER_INDEX))
        worth_row = np.zeros((1, matrix.shape[1] + 1))
        worth_row[0, -1] = 1.0
        worth_row[0, len(copies) + n_old + joker_col] = -float(MAX_NUMBER)
        matrix = np.concatenate([np.concatenate([matrix, np.zeros((len(kinds), 1))], axis=1), worth_row])
        cost.append(np.array([float(weight)]))
        upper.append(np.array([float(MAX_NUMBER * rack_counts[JOKER_INDEX])]))
        lower_row = np.append(lower_row, -highs.kHighsInf)
        upper_row = np.append(upper_row, 0.0)
    costs = np.concatenate(cost)
    uppers = np.concatenate(upper)
    starts, rows, values = _csc(matrix)
    solver = highs._Highs()
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("threads", 1)
    status = solver.passModel(
        matrix.shape[1], matrix.shape[0], len(values), 1, -1, 0.0,
        costs, np.zeros(len(costs)), uppers, lower_row, upper_row,
        starts, rows, values, np.zeros(len(costs), dtype=np.int32),
    )
    if status == highs.HighsStatus.kError:
        return None
    solver.run()
    if solver.getModelStatus() != highs.HighsModelStatus.kOptimal:
        return None
    solution = solver.getSolution()
    if not solution.dual_valid:
        return None
    old = slice(len(copies), len(copies) + n_old)
    kept = np.asarray(solution.col_value)[old]
    reduced = np.abs(np.asarray(solution.col_dual)[old])
    return Relaxation(float(solver.getInfo().objective_function_value), weight, kept, reduced)
