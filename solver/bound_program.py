"""The program whose linear relaxation bounds every move on a large table: most tiles (or
value) placed, then most old melds kept whole, over the base catalogue
(:func:`solver.candidates.base_for`). The search (:mod:`solver.search`) relaxes it once per
move; its bound and reduced costs say which old melds and candidates a move reaching a
score may use."""

from __future__ import annotations

import numpy as np

from .candidates import Catalogue
from .mip import IntegerProgram, Rows
from .move_program import copies_bound
from .position import Objective
from .tiles import JOKER_INDEX, MAX_NUMBER, Tile


def bound_program(
    base: Catalogue, old_usage: np.ndarray, table: np.ndarray, rack: np.ndarray, objective: Objective
) -> tuple[IntegerProgram, int]:
    """Most tiles (or value) placed, then most old melds kept whole: columns ``x`` (copies of
    base candidates), ``u`` (old meld kept, 0..1), ``y`` (rack tiles played) and, for value,
    ``z`` (rack jokers' worth, at most 13 each). The score is ``weight * primary + kept``.

    Every legal move is a solution (its new melds split into base candidates), so the
    relaxation's optimum bounds the score.
    """
    available = table + rack
    kinds = np.nonzero(available)[0]
    rack_kinds = np.nonzero(rack)[0]
    n_x, n_old = len(base.melds), len(old_usage)
    first_y = n_x + n_old
    weight = n_old + 1
    usage = np.concatenate([base.usage, old_usage])[:, kinds]
    cols, rows = np.nonzero(usage.T)[::-1]
    equal = Rows(
        np.concatenate([rows, np.searchsorted(kinds, rack_kinds)]),
        np.concatenate([cols, first_y + np.arange(len(rack_kinds))]),
        np.concatenate([usage[cols, rows].astype(np.float64), -np.ones(len(rack_kinds))]),
        table[kinds].astype(np.float64),
    )
    by_value = objective is Objective.VALUE
    numbers = np.array([Tile.from_index(int(i)).number or 0 for i in rack_kinds], dtype=np.float64)
    z = first_y + len(rack_kinds)
    y_joker = first_y + np.nonzero(rack_kinds == JOKER_INDEX)[0]
    at_most = Rows(  # z <= 13 x rack jokers played
        np.zeros(1 + len(y_joker), np.int64), np.r_[z, y_joker],
        np.r_[1.0, -float(MAX_NUMBER) * np.ones(len(y_joker))], np.zeros(1),
    )
    program = IntegerProgram(
        np.concatenate([
            np.zeros(n_x),
            np.ones(n_old),
            weight * (numbers if by_value else np.ones(len(rack_kinds))),
            [float(weight) if by_value else 0.0],
        ]),
        np.concatenate([
            copies_bound(base.usage, available).astype(np.float64), np.ones(n_old),
            rack[rack_kinds].astype(np.float64), [float(MAX_NUMBER * rack[JOKER_INDEX])],
        ]),
        equal, at_most, np.r_[np.zeros(first_y + len(rack_kinds), dtype=bool), True],
    )
    return program, weight

